"""The interpreter against CPython: recursive fib(27); 10^6-step `while` and `for` loops in a
function and at top level (the peer is the same CPython code, a function or top-level code
run with exec); an indexed store `v[i] = x` in a 10^6-step loop; and start-up.

Top-level code is a program's own statements: Lamina compiles them once and runs the
compiled chunks (as a program file's are run), CPython runs one compiled code object in a
fresh globals dict.
"""
from __future__ import annotations

import os
import subprocess
import sys

N = 1_000_000

FIB = """
function fib(n)
    if n < 2
        return n
    end if
    return fib(n - 1) + fib(n - 2)
end function
"""

FUNCTIONS = """
function for_loop(n)
    s = 0
    for i = 1 to n
        s = s + i * 0.5
    end for
    return s
end function
function while_loop(n)
    s = 0
    i = 0
    while i < n
        s = s + i * 0.5
        i = i + 1
    end while
    return s
end function
function store(n)
    v = zeros(n)
    for i = 0 to n - 1
        v[i] = i * 0.5
    end for
    return v
end function
"""

TOP_FOR = f"s = 0\nfor i = 1 to {N}\n    s = s + i * 0.5\nend for\n"
TOP_WHILE = f"s = 0\ni = 0\nwhile i < {N}\n    s = s + i * 0.5\n    i = i + 1\nend while\n"
PY_TOP_FOR = f"s = 0.0\nfor i in range(1, {N} + 1):\n    s = s + i * 0.5\n"
PY_TOP_WHILE = f"s = 0.0\ni = 0\nwhile i < {N}:\n    s = s + i * 0.5\n    i = i + 1\n"


def fib_py(n):
    if n < 2:
        return n
    return fib_py(n - 1) + fib_py(n - 2)


def for_py(n):
    s = 0.0
    for i in range(1, n + 1):
        s = s + i * 0.5
    return s


def while_py(n):
    s = 0.0
    i = 0
    while i < n:
        s = s + i * 0.5
        i = i + 1
    return s


def store_py(n):
    import numpy as np
    v = np.zeros(n)
    for i in range(n):
        v[i] = i * 0.5
    return v


def interpreter(source: str):
    from lamina.interpreter import Interpreter
    interp = Interpreter()
    interp.run(source, "bench")
    return interp


def lamina_top(source: str):
    interp = interpreter("")
    code = interp.compile(source, "<bench top level>")
    return lambda: interp.run_code(code)


def python_top(source: str):
    code = compile(source, "<bench top level>", "exec")
    return lambda: exec(code, {})


def startup(env_changes: dict, *command):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(env_changes)
    return lambda: subprocess.run([sys.executable, *command], check=True, capture_output=True, env=env)


LAMINA = ("-m", "lamina", "-e", "print(1)")


def cases():
    fib = interpreter(FIB).get("fib")
    fns = interpreter(FUNCTIONS)
    for_loop, while_loop, store = fns.get("for_loop"), fns.get("while_loop"), fns.get("store")
    steps = f"n = {N:,}"
    per = [N, "step"]
    return [
        {"name": "recursive fib(27)", "sizes": "n = 27", "dtype": "float64",
         "goal": {"peer": "cpython", "within": 2.0},
         "impls": {"lamina": lambda: fib(27.0), "cpython": lambda: fib_py(27)}},
        {"name": "for loop in a function, 10^6 steps", "sizes": steps, "dtype": "float64", "per": per,
         "goal": {"peer": "cpython", "within": 2.0},
         "impls": {"lamina": lambda: for_loop(float(N)), "cpython": lambda: for_py(N)}},
        {"name": "while loop in a function, 10^6 steps", "sizes": steps, "dtype": "float64", "per": per,
         "goal": {"peer": "cpython", "within": 2.0},
         "impls": {"lamina": lambda: while_loop(float(N)), "cpython": lambda: while_py(N)}},
        {"name": "for loop at top level, 10^6 steps", "sizes": steps, "dtype": "float64", "per": per,
         "goal": {"peer": "cpython top level", "within": 2.0},
         "impls": {"lamina": lamina_top(TOP_FOR), "cpython top level": python_top(PY_TOP_FOR)}},
        {"name": "while loop at top level, 10^6 steps", "sizes": steps, "dtype": "float64", "per": per,
         "goal": {"peer": "cpython top level", "within": 2.0},
         "impls": {"lamina": lamina_top(TOP_WHILE), "cpython top level": python_top(PY_TOP_WHILE)}},
        {"name": "indexed store v[i] = x in a loop, 10^6 steps", "sizes": steps, "dtype": "float64",
         "per": [N, "store"], "goal": {"under_s": 1.0},
         "impls": {"lamina": lambda: store(float(N)), "python + numpy": lambda: store_py(N)},
         "notes": ["goal: at most 1 us per store (the loop and the i * 0.5 included), so under 1 s "
                   "for the 10^6 steps."]},
        {"name": "start-up: lamina -e \"print(1)\"", "sizes": "one process", "dtype": "-",
         "goal": {"under_s": 0.12}, "repeat": 20,
         "impls": {"lamina": startup({}, *LAMINA),
                   "lamina, PYTHONDONTWRITEBYTECODE=1": startup({"PYTHONDONTWRITEBYTECODE": "1"}, *LAMINA),
                   "python -c \"import numpy\"": startup({}, "-c", "import numpy"),
                   "cpython (python -c)": startup({}, "-c", "print(1)")},
         "notes": ["start-up: `lamina` runs with the bytecode Python caches; the PYTHONDONTWRITEBYTECODE=1 "
                   "row never writes any and reads what `make` compiled at install (compileall)."]},
    ]
