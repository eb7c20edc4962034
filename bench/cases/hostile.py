"""Hostile and huge programs: deep nesting, very many statements, a very long literal.

Each is timed from source text to the end of the run, against CPython compiling and running
the same program written in Python (CPython refuses nesting beyond 200 parentheses, so the
deep case has no peer: its row shows how fast Lamina says no).
"""
from __future__ import annotations

DEPTH = 100_000
STATEMENTS = 200_000
NUMBERS = 1_000_000

NESTED = "x = " + "(" * DEPTH + "1" + ")" * DEPTH + "\n"
LONG = "x = 0\n" + "x = x + 1\n" * STATEMENTS
LITERAL = "x = [" + ", ".join(["1.5"] * NUMBERS) + "]\n"
SIDE = 1000
MATRIX = "A = [" + ";\n".join([", ".join(["-2.25"] * SIDE)] * SIDE) + "]\n"
MATRIX_PY = "A = [" + ",\n".join(["[" + ", ".join(["-2.25"] * SIDE) + "]"] * SIDE) + "]\n"
LONG_PY = "x = 0.0\n" + "x = x + 1.0\n" * STATEMENTS


def lamina(source: str):
    def run():
        from lamina.errors import LaminaError
        from lamina.interpreter import Interpreter
        try:
            Interpreter().run(source, "bench")
        except LaminaError:
            pass            # the deep case is a SyntaxError ("nested too deeply"): that is the answer
    return run


def python(source: str):
    return lambda: exec(compile(source, "bench", "exec"), {})


def cases():
    return [
        {"name": "parse: 100,000 nested parentheses", "sizes": "depth 100,000", "dtype": "-",
         "goal": {"under_s": 3.0}, "repeat": 4,
         "impls": {"lamina": lamina(NESTED), "cpython": "CPython stops at 200 nested parentheses"}},
        {"name": "a program of 200,000 statements", "sizes": "x = x + 1, 200,000 times", "dtype": "float64",
         "goal": {"under_s": 40.0}, "repeat": 2,
         "impls": {"lamina": lamina(LONG), "cpython": python(LONG_PY)},
         "notes": ["Compiled in chunks of 2,000 statements; peak memory is about 0.5 GB (2 GB before)."]},
        {"name": "a literal of 10^6 numbers", "sizes": "[1.5, 1.5, ...]", "dtype": "float64",
         "goal": {"under_s": 3.0}, "repeat": 2,
         "impls": {"lamina": lamina(LITERAL), "cpython": python(LITERAL)},
         "notes": ["Lexed as runs of numbers and parsed into one array (one syntax node); about 0.2 GB "
                   "at the peak (1.1 GB when the run's regex kept a backtracking point per number)."]},
        {"name": "a 1000 x 1000 matrix literal", "sizes": "[-2.25, ...; ...], a row a line", "dtype": "float64",
         "goal": {"under_s": 3.0}, "repeat": 2,
         "impls": {"lamina": lamina(MATRIX), "cpython": python(MATRIX_PY)}},
    ]
