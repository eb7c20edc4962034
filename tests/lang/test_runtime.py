"""lang/runtime.py, the helpers compiled code calls: loops over a value, and a value in an
operation or condition named as what it is."""
from __future__ import annotations

import pytest

from lamina.errors import LaminaError
from lamina.interpreter import Interpreter


def error_of(run, source: str) -> LaminaError:
    with pytest.raises(LaminaError) as info:
        run(source)
    return info.value


def test_a_loop_over_a_tracked_number_is_an_error_as_over_a_number(run):
    err = error_of(run, "w = param(2.0)\nfor x in w\n    print(x)\nend for")
    assert err.kind == "TypeError"
    assert err.message.startswith("Cannot loop over a number; 'for x in ...' takes a vector")
    lines, _ = run("w = param([2, 3])\nfor x in w\n    print(x)\nend for")
    assert lines == ["2", "3"]


def test_none_is_named_as_the_value_it_is():
    for code, said in [("for x in none\nend for", "Cannot loop over none;"),
                       ("if none\nend if", "A condition must be true or false, not none."),
                       ("print(none + 1)", "Cannot apply '+' to none and a number.")]:
        with pytest.raises(LaminaError) as e:
            Interpreter().run(code, "<test>")
        assert said in e.value.message
