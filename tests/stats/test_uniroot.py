"""stats/uniroot.py, R's uniroot: a zero within the tolerance asked for, the exact zero (SciPy's
brentq) when the tolerance is 0, an end where f is 0 there. That its steps are R's shows in R's
printed digits of fisher.test and wilcox.test (tests/stats/test_count_tests.py and
test_rank_tests.py)."""
import math

import pytest
from scipy.optimize import brentq

from lamina.stats.uniroot import R_TOL, uniroot

FUNCTIONS = [     # f, the bracket, its zero
    (lambda x: x ** 3 - 2 * x - 5, 2.0, 3.0, 2.0945514815423265),      # Newton's own example
    (lambda x: math.cos(x) - x, 0.0, 1.0, 0.7390851332151607),
    (lambda x: math.exp(x) - 10.0, 0.0, 5.0, math.log(10.0)),
    (lambda x: 1 / (1 + math.exp(-40 * (x - 0.3))) - 0.5, 0.0, 1.0, 0.3),   # steep: bisection must rescue
    (lambda x: (x - 0.7) ** 3, 0.0, 1.0, 0.7),                          # flat at its zero
]


@pytest.mark.parametrize("f, a, b, zero", FUNCTIONS)
@pytest.mark.parametrize("tol", [R_TOL, 1e-8])
def test_the_zero_is_within_the_tolerance(f, a, b, zero, tol):
    root = uniroot(f, a, b, tol)
    assert a <= root <= b
    assert abs(root - zero) <= tol + 4 * 2.3e-16 * abs(zero)


@pytest.mark.parametrize("f, a, b, zero", FUNCTIONS[:4])
def test_tolerance_zero_finds_the_zero_to_the_last_digits(f, a, b, zero):
    exact = brentq(f, a, b, xtol=1e-15, rtol=8.9e-16)
    assert exact == pytest.approx(zero, rel=1e-14)
    assert uniroot(f, a, b, 0.0) == pytest.approx(exact, rel=1e-14, abs=1e-15)


def test_an_end_where_f_is_zero_is_the_answer_without_a_step():
    calls = []

    def f(x):
        calls.append(x)
        return x - 1.0
    assert uniroot(f, 1.0, 3.0) == 1.0 and calls == [1.0, 3.0]
    assert uniroot(f, 0.0, 3.0, f_lower=-1.0, f_upper=0.0) == 3.0


def test_the_given_end_values_are_used_instead_of_calls():
    calls = []

    def f(x):
        calls.append(x)
        return x - 0.25
    root = uniroot(f, 0.0, 1.0, f_lower=-0.25, f_upper=0.75)
    assert 0.0 not in calls and 1.0 not in calls
    assert abs(root - 0.25) <= R_TOL
