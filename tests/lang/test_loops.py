"""Loops compiled fast (lang/loops.py): which names the fast copy trusts, and that a top-level
loop's own function never shows in an error."""
from __future__ import annotations

import contextlib
import io

import pytest

from lamina.errors import Source
from lamina.interpreter import Interpreter
from lamina.lang import loops
from lamina.lang.parser import parse


def loop_of(text: str):
    return parse(Source("t", text)).body[-1]


@pytest.mark.parametrize("text, floats", [
    ("while i < n\n  s = s + i * 0.5\n  i = i + 1\nend while", {"i", "n", "s"}),
    ("for k = 1 to 3\n  s += k / 2\nend for", {"k", "s"}),
    ("for k = 1 to 3\n  s = s + f(k)\nend for", {"k"}),                    # a call may return anything
    ("for k = 1 to 3\n  s = s + k\n  s = [s, 1]\nend for", {"k"}),         # one assignment is enough
    ("for k = 1 to 3\n  v[k] = k\nend for", {"k"}),                        # v is rebound by a store
    ("for x in v\n  s = s + x\nend for", set()),                            # x comes from the vector
    ("while a\n  b = -a\n  a = b ^ 2\nend while", set()),                  # ^ is not closed
])
def test_float_names(text, floats):
    assert loops.float_names(loop_of(text)) == floats


def run(text: str):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            Interpreter().run(text, "t.lam")
        except Exception as err:          # noqa: BLE001 - the error itself is what is checked
            return out.getvalue(), err
    return out.getvalue(), None


def test_an_error_in_a_top_level_loop_reads_as_one_at_the_top_level():
    body = "function g(z)\n  return z * [1, 2]\nend function\n"
    _, plain = run(body + "y = g([1, 2, 3])\n")
    _, looped = run(body + "for k = 1 to 2\n  y = g([1, 2, 3])\nend for\n")
    assert [f.function for f in plain.stack] == [f.function for f in looped.stack] == ["g"]
    assert "_toplevel_loop" not in looped.render()


def test_a_caught_error_in_a_top_level_loop_has_the_stack_it_has_outside_one():
    catch = "try\n  x = [1, 2] * [1, 2]\ncatch e\n  print(length(e.stack), e.line)\nend try\n"
    assert run(catch)[0] == "0 2\n"
    assert run("for i = 1 to 1\n" + catch + "end for\n")[0] == "0 3\n"


def test_the_fast_copy_and_the_generic_one_agree_on_every_kind_of_start():
    loop = "i = 0\nwhile i < 3\n  s = s * 2 + i\n  i = i + 1\nend while\nprint(s)\n"
    assert run("s = 1\n" + loop)[0] == "12\n"                 # 2, 5, 12
    assert run("s = [1, 2]\n" + loop)[0] == "[12, 20]\n"
    assert run("s = 1 / 0\n" + loop)[0] == "Inf\n"
