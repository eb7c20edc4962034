"""Property tests: no input makes the interpreter fail with anything but a Lamina error."""
from __future__ import annotations

import contextlib
import io
import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lamina.errors import LaminaError, ProgramExit
from lamina.interpreter import Interpreter
from lamina.lang.specialise import FAST_BINARY, FLOAT_CALL, SLOW_BINARY

# Every arithmetic operator the compiler knows (its own tables), so that a new one is fuzzed too.
ARITHMETIC = sorted(set(FAST_BINARY) | set(SLOW_BINARY) | set(FLOAT_CALL))


def scaled(examples: int) -> int:
    """The examples a run draws: the default, times LAMINA_FUZZ_SCALE for a long run."""
    return int(examples * float(os.environ.get("LAMINA_FUZZ_SCALE", "1")))

TOKENS = ["x", "y", "f", "1", "0", "2.5", *ARITHMETIC, "'", "(", ")",
          "[", "]", "{", "}", ",", ";", ":", "=", "==", "<", "and", "or", "not", "|>", "->", ".",
          '"s{x}"', "\n", "if", "end", "for", "in", "to", "while", "function", "return", "true",
          "none", "print", "sum", "length", "a", "b"]


def run_quietly(text: str) -> None:
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            Interpreter().run(text, "fuzz")
        except LaminaError as err:
            assert err.kind != "InternalError", err.render()
            err.render()
        except ProgramExit:        # text that calls exit(): the program ended, as it asked
            pass


@settings(max_examples=scaled(2500), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(TOKENS), max_size=25).map(" ".join))
def test_token_soup(text):
    run_quietly(text)


@settings(max_examples=scaled(1500), deadline=None)
@given(st.text(max_size=40))
def test_arbitrary_text(text):
    run_quietly(text)


# Valid programs: random expressions over numbers, vectors and matrices, dates and a category.
leaves = st.sampled_from(["a", "b", "v", "w", "m", "n", "1", "0", "2.5", "-3", "[1, 2]", "[1; 2]",
                          "[1, 2; 3, 4]", "true", '"s"', "d", "e", "c", '"2024-02-01"'])
binops = st.sampled_from([*ARITHMETIC, "==", "<", "and"])
unary = st.sampled_from(["-", "not ", ""])
funcs = st.sampled_from(["sum", "abs", "exp", "length", "transpose", "string", "mean", "max"])


def combine(children):
    return st.one_of(
        st.tuples(children, binops, children).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(unary, children).map(lambda t: f"{t[0]}({t[1]})"),
        st.tuples(funcs, children).map(lambda t: f"{t[0]}({t[1]})"),
        st.tuples(children, st.sampled_from(["[0]", "[1, :]", "'", "[:1]"])).map("".join),
    )


expressions = st.recursive(leaves, combine, max_leaves=8)
PRELUDE = ("a = 1.5\nb = -2\nv = [1, 2, 3]\nw = param([0.5, -1])\nm = [1, 2; 3, 4]\nn = param(2.0)\n"
           'd = date(["2024-01-31", "", "2024-03-01"])\ne = date("2024-02-29")\nc = category(["lo", "hi", "lo"])\n')


@settings(max_examples=scaled(2000), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(expressions, min_size=1, max_size=4))
def test_generated_programs(exprs):
    body = "".join(f"r{i} = {e}\nprint(r{i})\n" for i, e in enumerate(exprs))
    run_quietly(PRELUDE + body + "function g(x)\n  return x\nend function\nprint(g(r0))\n")
