"""Text builtins: bugs found by the third review."""
from __future__ import annotations


def test_number_of_a_tracked_number_is_its_number(run):
    # number(2.5) is 2.5, but number(param(2.5)) said "number's argument must be a string, not a number"
    lines, _ = run("p = param(2.5)\nx = number(p)\nprint(x, type(x), number(track(-1)), number(2.5))")
    assert lines == ["2.5 number -1 2.5"]
