"""The interpreter against CPython: recursive fib(27), a 10^6-step scalar loop, and start-up."""
from __future__ import annotations

import os
import subprocess
import sys

# Start-up with bytecode caching on (PYTHONDONTWRITEBYTECODE, set on some machines, makes every
# start recompile Lamina's modules from source, which is not what a user's machine does).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

FIB = """
function fib(n)
    if n < 2
        return n
    end if
    return fib(n - 1) + fib(n - 2)
end function
"""

LOOP = """
function loop(n)
    s = 0
    for i = 1 to n
        s = s + i * 0.5
    end for
    return s
end function
"""


def fib_py(n):
    if n < 2:
        return n
    return fib_py(n - 1) + fib_py(n - 2)


def loop_py(n):
    s = 0.0
    for i in range(1, n + 1):
        s = s + i * 0.5
    return s


def lamina_function(source: str, name: str):
    from lamina.interpreter import Interpreter
    interp = Interpreter()
    interp.run(source, "bench")
    return interp.get(name)


def startup() -> None:
    subprocess.run([sys.executable, "-m", "lamina", "-e", "print(1)"], check=True, capture_output=True, env=ENV)


def python_startup() -> None:
    subprocess.run([sys.executable, "-c", "print(1)"], check=True, capture_output=True, env=ENV)


def cases():
    fib = lamina_function(FIB, "fib")
    loop = lamina_function(LOOP, "loop")
    return [
        {"name": "recursive fib(27)", "sizes": "n = 27", "dtype": "float64",
         "goal": {"peer": "cpython", "within": 30.0},
         "impls": {"lamina": lambda: fib(27.0), "cpython": lambda: fib_py(27)}},
        {"name": "scalar loop, 10^6 steps", "sizes": "n = 1,000,000", "dtype": "float64",
         "impls": {"lamina": lambda: loop(1e6), "cpython": lambda: loop_py(1_000_000)}},
        {"name": "start-up: lamina -e \"print(1)\"", "sizes": "one process", "dtype": "-",
         "goal": {"under_s": 0.3}, "repeat": 20, "impls": {"lamina": startup, "cpython (python -c)": python_startup},
         "notes": ["start-up is measured with bytecode caching on (PYTHONDONTWRITEBYTECODE removed)."]},
    ]
