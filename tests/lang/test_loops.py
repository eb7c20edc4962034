"""Loops compiled fast (lang/specialise.py): which names the fast copy trusts, and that a top-level
loop's own function never shows in an error; the values `for i = a to b step s` runs through."""
from __future__ import annotations

import contextlib
import io
import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lamina.errors import Source
from lamina.interpreter import Interpreter
from lamina.lang import runtime, specialise
from lamina.lang.parser import parse
from tests.lang.test_runtime import error_of


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
    assert specialise.float_names(loop_of(text)) == floats


def output_and_error(text: str):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            Interpreter().run(text, "t.lam")
        except Exception as err:          # noqa: BLE001 - the error itself is what is checked
            return out.getvalue(), err
    return out.getvalue(), None


def test_an_error_in_a_top_level_loop_reads_as_one_at_the_top_level():
    body = "function g(z)\n  return z * [1, 2]\nend function\n"
    _, plain = output_and_error(body + "y = g([1, 2, 3])\n")
    _, looped = output_and_error(body + "for k = 1 to 2\n  y = g([1, 2, 3])\nend for\n")
    assert [f.function for f in plain.stack] == [f.function for f in looped.stack] == ["g"]
    assert "_toplevel_loop" not in looped.render()


def test_a_caught_error_in_a_top_level_loop_has_the_stack_it_has_outside_one():
    catch = "try\n  x = [1, 2] * [1, 2]\ncatch e\n  print(length(e.stack), e.line)\nend try\n"
    assert output_and_error(catch)[0] == "0 2\n"
    assert output_and_error("for i = 1 to 1\n" + catch + "end for\n")[0] == "0 3\n"


def test_the_fast_copy_and_the_generic_one_agree_on_every_kind_of_start():
    loop = "i = 0\nwhile i < 3\n  s = s * 2 + i\n  i = i + 1\nend while\nprint(s)\n"
    assert output_and_error("s = 1\n" + loop)[0] == "12\n"                 # 2, 5, 12
    assert output_and_error("s = [1, 2]\n" + loop)[0] == "[12, 20]\n"
    assert output_and_error("s = 1 / 0\n" + loop)[0] == "Inf\n"


# -- fractional steps -----------------------------------------------------------------
@pytest.mark.parametrize("start, stop, step, values", [
    (0, 0.3, 0.1, [0, 0.1, 0.2, 0.3]),                      # 0.1 * 3 is 0.30000000000000004
    (0, 0.9999999999, 0.5, [0, 0.5]),
    (0.5, 1.4999999999, None, [0.5]),
    (0, 0.7, 0.1, [0, 0.1, 0.2, 0.30000000000000004, 0.4, 0.5, 0.6000000000000001, 0.7]),
    (0.3, 0, -0.1, [0.3, 0.19999999999999998, 0.09999999999999998, 0]),
    (-0.3, 0, 0.1, [-0.3, -0.19999999999999998, -0.09999999999999998, 0]),
    (1, 0, -0.25, [1, 0.75, 0.5, 0.25, 0]),
    (0.5, 0.5, None, [0.5]),
    (0.5, 0.4, None, []),
    (0, -0.1, 0.1, []),
    (0, 0.1, -0.1, []),
    (1, 1.0000000001, 0.5, [1]),
])
def test_a_fractional_step_stays_within_the_bounds_and_ends_at_the_stop(start, stop, step, values):
    assert list(runtime.for_range(start, stop, step)) == values


def test_zero_to_one_by_tenths_has_eleven_values_ending_at_exactly_one():
    up = list(runtime.for_range(0.0, 1.0, 0.1))
    down = list(runtime.for_range(1.0, 0.0, -0.1))
    assert len(up) == len(down) == 11
    assert up[0] == 0.0 and up[-1] == 1.0 and down[0] == 1.0 and down[-1] == 0.0
    assert all(0 <= x <= 1 for x in up + down)
    assert up == sorted(up) and down == sorted(down, reverse=True)


def test_a_for_loop_with_a_fractional_step_runs_those_values():
    out, err = output_and_error("for i = 0 to 0.9999999999 step 0.5\n  print(i)\nend for\n"
                                "for i = 0 to 0.3 step 0.1\nend for\nprint(i)\n")
    assert err is None and out == "0\n0.5\n0.3\n"


def decimals(low: int, high: int, places: int):
    return st.integers(low * 10**places, high * 10**places).map(lambda k: Fraction(k, 10**places))


@settings(max_examples=1000, deadline=None)
@given(a=decimals(-100, 100, 4), s=decimals(-10, 10, 3).filter(bool), k=st.integers(-3, 2000),
       off=st.sampled_from([0, 0, 0, 1, -1, 5, -5, 5000]))
def test_a_decimal_range_has_its_exact_count_and_every_value_within_bounds(a, s, k, off):
    # b near a + k * s: on it (the count the rounding allowance must reach), or a little off
    # either side, by at least 0.0001 (a count the allowance must not reach).
    b = a + k * s + Fraction(off, 10**4)
    n = (b - a) / s
    count = math.floor(n) + 1 if n >= 0 else 0
    values = list(runtime.for_range(float(a), float(b), float(s)))
    assert len(values) == count
    low, high = sorted((float(a), float(b)))
    assert all(low <= x <= high for x in values)
    if count:
        assert values[0] == float(a)
    if count and n == int(n):
        assert values[-1] == float(b)


@pytest.mark.parametrize("source, message", [
    # a name a fast (float) loop copy trusts, also bound by a catch, an import or a for-in
    ("x = 0\nfor i = 0 to 2\n  x = x + 1\n  try\n    error(\"boom\")\n  catch x\n  end try\nend for",
     "Cannot apply '+' to a record and a number."),
    ("function f(x)\n  x = x * 2\n  try\n    error(\"a\")\n  catch x\n  end try\n  return x + 1\n"
     "end function\nf(1)", "Cannot apply '+' to a record and a number."),
    ("x = 0\nwhile x < 3\n  x = x + 1\n  import \"{mod}\" as x\nend while",
     "Cannot compare a module and a number with '<'."),
    ("function f(x)\n  x = x + 1\n  for x in [\"a\"]\n  end for\n  return x - 1\nend function\nf(1)",
     "Cannot apply '-' to a string and a number. To build text, use interpolation: \"{a} and {b}\"."),
])
def test_a_name_bound_otherwise_is_no_float_in_the_fast_copy(run, tmp_path, source, message):
    (tmp_path / "m.lam").write_text("y = 1\n")
    err = error_of(run, source.replace("{mod}", str(tmp_path / "m.lam")))
    assert (err.kind, err.message) == ("TypeError", message)
