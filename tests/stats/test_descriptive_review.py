"""Review fixes: quantiles with infinities, essentially constant data, test messages and
printouts, discrete quantiles at 0."""
import math

import numpy as np
import pytest

from lamina.builtins.registry import spec_of
from lamina.stats import descriptive as D
from lamina.stats import hypothesis as H
from lamina.stats import moments as Mo

INF = math.inf


# -- quantiles with infinities ---------------------------------------------------------
@pytest.mark.parametrize("x, q, expected", [
    ([1, 2, INF], 0.5, 2.0),             # position 1 is exactly x[1]
    ([1, 2, INF], 1.0, INF),
    ([1, 2, INF], 0.75, INF),            # between 2 and Inf
    ([1, INF], 0.0, 1.0),
    ([-INF, 2, 3], 0.0, -INF),
    ([-INF, 2, 3], 0.25, -INF),
    ([INF, INF], 0.3, INF),
    ([-INF, -INF, 3], 0.2, -INF),
    ([1, 2, 3, 4], 0.5, 2.5),
])
def test_quantile_with_infinities_follows_r_type_7(lam, x, q, expected):
    assert lam.eval("quantile(x, q)", x=np.array(x, dtype=float), q=q) == expected


def test_quantile_of_minus_and_plus_infinity_is_nan(lam):
    assert math.isnan(lam.eval("quantile([-1 / 0, 1 / 0], 0.5)"))


def test_quantile_with_infinities_along_an_axis_and_skipping_nans(lam):
    m = np.array([[1.0, -INF], [2.0, 5.0], [INF, 6.0]])
    got = lam.eval("quantile(m, [0, 0.5, 1], axis = 0)", m=m)
    np.testing.assert_array_equal(got, [[1.0, -INF], [2.0, 5.0], [INF, 6.0]])
    assert lam.eval("median(v, skipnan = true)", v=np.array([1.0, np.nan, 2.0, INF])) == 2.0


def test_quantile_gradient_goes_to_the_infinite_end(lam):
    g = lam.eval("grad(quantile(x, 0.75), wrt = x)", x=lam.eval("param([1, 2, 1 / 0])"))
    np.testing.assert_array_equal(g, [0.0, 0.0, 1.0])
    g = lam.eval("grad(quantile(x, 0.5), wrt = x)", x=lam.eval("param([1, 2, 1 / 0])"))
    np.testing.assert_array_equal(g, [0.0, 1.0, 0.0])


def test_median_does_not_overflow_near_the_largest_float(lam):
    assert lam.eval("median([1e308, 1.7e308])") == lam.eval("quantile([1e308, 1.7e308], 0.5)") == 1.35e308
    assert lam.eval("median([-1.7e308, 1.7e308])") == 0.0


def test_order_quantiles_match_numpy_on_finite_data(rng):
    m = rng.normal(size=(6, 5))
    qs = np.array([0.0, 0.1, 0.5, 0.77, 1.0])
    for k in (None, 0, 1):
        np.testing.assert_array_equal(D.order_quantiles(m, qs, k), np.quantile(m, qs, axis=k))


# -- essentially constant data -------------------------------------------------------------
def test_constant_is_relative_to_the_values():
    assert Mo.constant(np.array([0.1, 0.1, 0.1]))
    assert Mo.constant(np.array([1.0, 1.0, 1.0]))
    assert Mo.constant(np.array([0.1, 0.1, 0.1 + 2.8e-17]))
    assert not Mo.constant(np.array([1e-300, 2e-300, 4e-300]))
    assert not Mo.constant(np.array([1.0, INF]))
    assert not Mo.constant(np.array([1.0, np.nan, 1.0]))
    assert Mo.constant(np.array([1.0, np.nan, 1.0]), skip=True)
    np.testing.assert_array_equal(Mo.constant(np.array([[1.0, 0.1], [2.0, 0.1]]), 0), [False, True])


@pytest.mark.parametrize("source", [
    "t_test([0.1, 0.1, 0.1])",
    "t_test([0.1, 0.1, 0.1], mu = 0.1)",
    "t_test([0.1, 0.1, 0.1], [0.2, 0.2, 0.2])",
    "t_test([0.1, 0.1, 0.1], [0.2, 0.2, 0.2], equal_var = true)",
])
def test_t_test_of_essentially_constant_data_is_an_error(lam, source):
    err = lam.error(f"r = {source}")
    assert err.kind == "ValueError" and err.message.startswith("t_test: the data are constant"), err.message


def test_t_test_of_tiny_varying_data_is_scale_free():
    tiny, plain = H.t_test(np.array([1e-300, 2e-300, 4e-300])), H.t_test(np.array([1.0, 2.0, 4.0]))
    assert tiny.statistic == pytest.approx(math.sqrt(7), rel=1e-14)
    assert tiny.statistic == pytest.approx(plain.statistic, rel=1e-14)
    assert tiny.p == pytest.approx(plain.p, rel=1e-12)
    welch = H.t_test(np.array([1e-300, 2e-300, 4e-300]), np.array([3e-300, 5e-300, 4e-300]))
    ref = H.t_test(np.array([1.0, 2.0, 4.0]), np.array([3.0, 5.0, 4.0]))
    assert welch.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert welch.df == pytest.approx(ref.df, rel=1e-12)


def test_t_test_with_one_constant_sample_still_runs():
    r = H.t_test(np.array([0.1, 0.2, 0.3]), np.array([0.1, 0.1, 0.1]))
    assert r.statistic == pytest.approx(math.sqrt(3), rel=1e-12) and r.df == pytest.approx(2.0)


def test_zscore_and_corr_of_essentially_constant_data_are_nan(lam):
    assert np.isnan(lam.eval("zscore([0.1, 0.1, 0.1])")).all()
    z = lam.eval("zscore([1, 0.1; 2, 0.1; 3, 0.1], axis = 0)")
    np.testing.assert_array_equal(z[:, 0], [-1.0, 0.0, 1.0])
    assert np.isnan(z[:, 1]).all()
    assert math.isnan(lam.eval("corr([1, 2, 3], [0.1, 0.1, 0.1])"))
    c = lam.eval("corr([1, 0.1, 5; 2, 0.1, 3; 3, 0.1, 9])")
    assert np.isnan(c[1]).all() and np.isnan(c[:, 1]).all() and c[0, 0] == 1.0
    g = lam.eval("grad(corr(x, [0.1, 0.1, 0.1]), wrt = x)", x=lam.eval("param([1, 2, 3])"))
    assert np.isnan(g).all()


def test_corr_of_tiny_data_does_not_underflow(lam):
    r = lam.eval("corr([1, 2, 4], [1e-300, 2e-300, 3e-300])")
    assert r == pytest.approx(lam.eval("corr([1, 2, 4], [1, 2, 3])"), rel=1e-14)
    assert H.corr_test(np.array([1.0, 2.0, 4.0]), np.array([1e-300, 2e-300, 3e-300])).estimate == \
        pytest.approx(0.98198050606196574, rel=1e-14)


def test_corr_test_shares_the_constant_rule(lam):
    err = lam.error("r = corr_test([1, 2, 3], [0.1, 0.1, 0.1])")
    assert err.message == "corr_test: y is constant, so its correlation is undefined."


# -- messages and printouts ----------------------------------------------------------------
def test_negative_probability_is_named(lam):
    err = lam.error("r = chisq_test([10, 20], p = [-0.5, 1.5])")
    assert err.kind == "ValueError"
    assert err.message == "chisq_test's p must be probabilities (at least 0), but p[0] is -0.5."


def test_t_test_of_a_table_needs_by(lam):
    err = lam.error('r = t_test(table({y = [1, 2, 3], g = ["a", "b", "a"]}), "y")')
    assert err.kind == "TypeError"
    assert 'needs by = "group column"' in err.message and "not a none" not in err.message


def test_t_test_of_a_table_names_the_column_with_nan(lam):
    err = lam.error('r = t_test(table({v = [1, 0 / 0, 3, 4], g = ["a", "b", "a", "b"]}), "v", by = "g")')
    assert err.kind == "ValueError"
    assert err.message.startswith("t_test's column 'v' contains NaN"), err.message


def test_a_p_value_bound_prints_without_equals(lam):
    lines = lam.run("print(t_test([1, 2, 3, 4, 5, 6, 7, 8, 9, 10] .* 0.01 + 100))")
    assert "t = 10450, df = 9, p-value < 2.2e-16" in lines
    lines = lam.run("print(t_test([1, 2, 4]))")
    assert any(line.endswith("p-value = 0.1181") for line in lines), lines


# -- distributions -----------------------------------------------------------------------
@pytest.mark.parametrize("source", ["binomial(10, 0.5)", "poisson(3)", "binomial(10, 1)", "binomial(10, 0)"])
def test_discrete_quantile_at_0_is_the_least_value(lam, source):
    assert lam.eval(f"{source}.quantile(0)") == 0.0
    assert lam.eval(f"{source}.quantile([0, 1])")[0] == 0.0


def test_student_t_moments_match_the_notes(lam):
    assert lam.eval("student_t(0.5).mean") == INF and math.isnan(lam.eval("student_t(0.5).var"))
    assert lam.eval("student_t(1).mean") == INF and math.isnan(lam.eval("student_t(1).var"))
    assert lam.eval("student_t(1.5).mean") == 0.0 and lam.eval("student_t(2).var") == INF
    assert lam.eval("student_t(3).var") == 3.0
    assert "for df <= 1 the mean reads Inf and the variance NaN" in spec_of("student_t").notes


def test_describe_takes_its_quartiles_by_the_same_rule(run):
    lines, interp = run("d = describe([1, 2, 1 / 0])")
    x = interp.get("d").columns["x"]
    assert list(x[3:]) == [1.0, 1.5, 2.0, INF, INF]          # min, 25%, 50%, 75%, max (were NaN)


def test_standardize_gives_a_constant_column_exact_zeros(run):
    # the docs' "a constant column becomes 0s": its rounded mean (0.10000000000000002) used to
    # leave -1.4e-17, and a rounding-noise s scaled that up to -0.816
    _, interp = run("a = standardize([0.1; 0.1; 0.1])\nb = standardize([0.1, NaN, 0.1])\n"
                    "c = standardize([1, 0.1; 2, 0.1; 3, 0.1])")
    assert np.array_equal(interp.get("a"), np.zeros((3, 1)))
    assert np.array_equal(interp.get("b"), [0.0, np.nan, 0.0], equal_nan=True)
    assert np.array_equal(interp.get("c"), [[-1.0, 0.0], [0.0, 0.0], [1.0, 0.0]])
