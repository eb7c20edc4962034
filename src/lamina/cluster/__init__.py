"""Running a program's function many times at once: `sweep` and `parallel_map` on Ray.

package.py  what is sent: a function as its source and position, the values it reads
worker.py   what a worker does with it: a fresh Interpreter, the function rebuilt, one call
engine.py   where the calls run: in this process (workers = 1) or as Ray tasks
sweep.py    the grid, the seeds and the result table; parallel_map's list

This package sits below the builtins (they register sweep and parallel_map) and above the
interpreter only by injection: the program's Scope carries a Host whose `make` is the
Interpreter class, which travels to the workers by reference (docs/scaling.md).
"""
