"""Text builtins: number reads the literal syntax, of a string or a tracked number."""
from __future__ import annotations

import numpy as np
import pytest

from lamina.errors import LaminaError


def test_number_of_a_tracked_number_is_its_number(run):
    # number(2.5) is 2.5, but number(param(2.5)) said "number's argument must be a string, not a number"
    lines, _ = run("p = param(2.5)\nx = number(p)\nprint(x, type(x), number(track(-1)), number(2.5))")
    assert lines == ["2.5 number -1 2.5"]


@pytest.mark.parametrize("text, value", [("2.5", 2.5), (" -2.5e3 ", -2500.0), ("+.5", 0.5), ("5.", 5.0),
                                         ("NaN", np.nan), ("nan", np.nan), ("Inf", np.inf), ("-inf", -np.inf)])
def test_number_reads_the_literal_syntax(run, text, value):
    _, interp = run(f'x = number("{text}")')
    assert np.array_equal(interp.get("x"), value, equal_nan=True)


@pytest.mark.parametrize("text", ["1_000", "\u0661\u0662", "infinity", "0x10", "1e", "", "- 1", "1 2"])
def test_number_refuses_what_pythons_float_would_take(run, text):
    with pytest.raises(LaminaError) as e:
        run(f'x = number("{text}")')
    assert (e.value.kind, e.value.message) == ("ValueError", f'"{text}" is not a number.')
