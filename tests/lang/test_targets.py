"""Gradient targets written in the call (lang/targets.py): the bracket rule belongs to a
parameter named `wrt`, whichever builtin has one, never to the name `grad`."""
from __future__ import annotations

import io
from contextlib import redirect_stdout

import pytest

from lamina.errors import LaminaError, Source
from lamina.interpreter import Interpreter
from lamina.lang import ast as A
from lamina.lang.parser import parse
from lamina.lang.scope import mangle
from lamina.lang.targets import argument_for


def call_of(text: str) -> A.Node:
    return parse(Source("t.lam", text)).body[0].expr


def with_targets(loss, wrt=None):
    """A builtin of this test's own, with grad's parameter names: what it receives as wrt."""
    return f"{type(wrt).__name__} {wrt!r}"


def without_targets(loss, other=None):
    return f"{type(other).__name__}"


def run(text: str) -> str:
    interp = Interpreter()
    builtins = interp.namespace["__builtins__"]
    builtins[mangle("pick")], builtins[mangle("keep")] = with_targets, without_targets
    out = io.StringIO()
    with redirect_stdout(out):
        interp.run(text, "t.lam")
    return out.getvalue()


def test_a_bracket_passed_to_a_parameter_named_wrt_is_a_list_of_its_items():
    assert run("a = 1\nb = 2\nprint(pick(0, [a, b]))\nprint(pick(0, wrt = [a, b]))\n"
               "print(pick(0, [1, 2]))\nz = 0\nprint(z.pick([a, b]))") == \
        "list [1.0, 2.0]\nlist [1.0, 2.0]\nlist [1.0, 2.0]\nlist [1.0, 2.0]\n"


def test_another_parameter_takes_the_bracket_as_a_value():
    assert run("a = 1\nb = 2\nprint(keep(0, [a, b]))\nprint(keep(0, other = [1, 2]))") == "ndarray\nndarray\n"


@pytest.mark.parametrize("text, params, found", [
    ("f(x, [a, b])", ["loss", "wrt"], "[a, b]"),
    ("f(x, [a, b])", ["loss", "other"], None),
    ("f(x, wrt = w)", [], "w"),
    ("x.f(w)", ["loss", "wrt"], "w"),
    ("f(x)", ["loss", "wrt"], None),
])
def test_argument_for_follows_the_signature(text, params, found):
    fn = eval(f"lambda {', '.join(params)}: None")   # noqa: S307 (a signature, nothing else)
    arg = argument_for(call_of(text), "wrt", fn)
    assert (None if arg is None else text[arg.span.col - 1:][:len(found or "")]) == found


def test_an_error_names_a_positional_target_by_its_text():
    with pytest.raises(LaminaError) as info:
        Interpreter().run("a = param(1.0)\nb = 2.0\nprint(grad(a * a, [a, b]))", "t.lam")
    assert info.value.message.startswith("b is a number that is not tracked;")
