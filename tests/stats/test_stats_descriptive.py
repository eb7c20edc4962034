"""Descriptive statistics against NumPy and SciPy on random data, called as Lamina builtins."""
import math

import numpy as np
import pytest
import scipy.stats as st

from lamina.builtins import stats as S
from lamina.builtins.registry import spec_of
from lamina.stats import descriptive as D, hypothesis as H, moments as Mo

AXES = [None, 0, 1]


def with_nans(rng, shape=(7, 4)):
    m = rng.normal(size=shape)
    m[rng.random(shape) < 0.2] = np.nan
    m[0, 0] = np.nan
    return m


def ax(a):
    return None if a is None else float(a)


def kept(a):
    """Along an axis a reduction keeps its orientation (a 1 x n row, an m x 1 column)."""
    return a is not None


@pytest.mark.parametrize("axis", AXES)
def test_median(rng, axis):
    m = rng.normal(size=(7, 4))
    np.testing.assert_allclose(S.median(m, ax(axis)), np.median(m, axis=axis, keepdims=kept(axis)))
    n = with_nans(rng)
    np.testing.assert_allclose(S.median(n, ax(axis), skipnan=True), np.nanmedian(n, axis=axis, keepdims=kept(axis)))
    assert np.isnan(S.median(n, ax(axis))).any()


@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("ddof", [0, 1, 2])
def test_var_and_std(rng, axis, ddof):
    m = rng.normal(size=(6, 5)) * 3 + 1
    np.testing.assert_allclose(S.var(m, ax(axis), float(ddof)), np.var(m, axis=axis, ddof=ddof, keepdims=kept(axis)))
    np.testing.assert_allclose(S.std(m, ax(axis), float(ddof)), np.std(m, axis=axis, ddof=ddof, keepdims=kept(axis)))
    n = with_nans(rng, (6, 5))
    want = np.nanvar(n, axis=axis, ddof=ddof, keepdims=kept(axis))
    with np.errstate(all="ignore"):
        counts = (~np.isnan(n)).sum(axis=axis, keepdims=kept(axis))
    want = np.where(counts - ddof > 0, want, np.nan)
    np.testing.assert_allclose(S.var(n, ax(axis), float(ddof), skipnan=True), want)


def test_var_is_the_sample_variance_by_default(rng):
    v = rng.normal(size=30)
    assert S.var(v) == pytest.approx(st.tvar(v)) == pytest.approx(np.var(v, ddof=1))
    assert S.std(v) == pytest.approx(st.tstd(v))
    assert np.isnan(S.var(np.array([1.0])))           # n - ddof = 0
    assert S.var(np.array([1.0]), ddof=0.0) == 0.0


@pytest.mark.parametrize("axis", AXES)
def test_quantile(rng, axis):
    m = rng.normal(size=(9, 3))
    qs = np.array([0.0, 0.1, 0.5, 0.93, 1.0])
    got = S.quantile(m, qs, ax(axis))
    want = np.quantile(m, qs, axis=axis)
    np.testing.assert_allclose(got, want.T if axis == 1 else want)
    assert S.quantile(m, 0.3) == pytest.approx(np.quantile(m, 0.3))
    np.testing.assert_allclose(S.quantile(m, 0.3, ax(axis)), np.quantile(m, 0.3, axis=axis, keepdims=kept(axis)))
    v = m[:, 0]
    assert S.quantile(v, 0.5) == pytest.approx(np.median(v))
    # R's type 7 is SciPy's mquantiles with alphap = betap = 1
    np.testing.assert_allclose(S.quantile(v, qs), st.mstats.mquantiles(v, qs, alphap=1, betap=1))
    n = with_nans(rng, (9, 3))
    want = np.nanquantile(n, qs, axis=axis)
    np.testing.assert_allclose(S.quantile(n, qs, ax(axis), skipnan=True), want.T if axis == 1 else want)


def test_cov_and_corr(rng):
    X = rng.normal(size=(20, 3)) @ rng.normal(size=(3, 3))
    np.testing.assert_allclose(S.cov(X), np.cov(X, rowvar=False))
    np.testing.assert_allclose(S.cov(X, ddof=0.0), np.cov(X, rowvar=False, ddof=0))
    np.testing.assert_allclose(S.corr(X), np.corrcoef(X, rowvar=False))
    x, y = X[:, 0], X[:, 1]
    assert S.cov(x, y) == pytest.approx(np.cov(x, y)[0, 1])
    assert S.cov(x) == pytest.approx(np.var(x, ddof=1))
    assert S.corr(x, y) == pytest.approx(st.pearsonr(x, y).statistic)
    n = X.copy()
    n[3, 1] = np.nan
    assert np.isnan(S.cov(n)[1, 1]) and not np.isnan(S.cov(n)[0, 0])
    keep = np.ones(20, bool)
    keep[3] = False
    np.testing.assert_allclose(S.corr(n, skipnan=True), np.corrcoef(X[keep], rowvar=False))
    assert np.isnan(S.corr(np.ones(5), x[:5]))       # a constant has no correlation


@pytest.mark.parametrize("axis", AXES)
def test_zscore(rng, axis):
    m = rng.normal(size=(8, 3)) * 5 + 2
    sp_axis = None if axis is None else axis
    np.testing.assert_allclose(S.zscore(m, ax(axis)), st.zscore(m, axis=sp_axis, ddof=1))
    np.testing.assert_allclose(S.zscore(m, ax(axis), ddof=0.0), st.zscore(m, axis=sp_axis))
    n = with_nans(rng, (8, 3))
    np.testing.assert_allclose(S.zscore(n, ax(axis), skipnan=True),
                               st.zscore(n, axis=sp_axis, ddof=1, nan_policy="omit"))


@pytest.mark.parametrize("axis", AXES)
def test_cumsum_and_sort(rng, axis):
    m = rng.normal(size=(4, 5))
    flat = axis is None
    np.testing.assert_allclose(S.cumsum(m, ax(axis)), np.cumsum(m.reshape(-1) if flat else m, axis=axis))
    np.testing.assert_allclose(S.sort(m, ax(axis)), np.sort(m.reshape(-1) if flat else m, axis=-1 if flat else axis))
    np.testing.assert_allclose(S.sort(m, ax(axis), descending=True),
                               -np.sort(-(m.reshape(-1) if flat else m), axis=-1 if flat else axis))
    n = with_nans(rng, (4, 5))
    np.testing.assert_allclose(S.cumsum(n, ax(axis), skipnan=True), np.nancumsum(n.reshape(-1) if flat else n, axis=axis))


def test_sort_puts_nan_last_and_sorts_lists():
    v = np.array([3.0, np.nan, 1.0, 2.0])
    np.testing.assert_array_equal(S.sort(v), [1, 2, 3, np.nan])
    np.testing.assert_array_equal(S.sort(v, descending=True), [3, 2, 1, np.nan])
    assert S.sort(["b", "c", "a"]) == ["a", "b", "c"]


def test_unique_and_histogram(rng):
    v = rng.integers(0, 5, size=40).astype(float)
    values, counts = np.unique(v, return_counts=True)
    np.testing.assert_array_equal(S.unique(v), values)
    r = S.unique(v, counts=True)
    np.testing.assert_array_equal(r.fields["counts"], counts)
    x = rng.normal(size=200)
    for bins in (10.0, 7.0, np.array([-3.0, -1, 0, 0.5, 3])):
        h = S.histogram(x, bins)
        want_counts, want_edges = np.histogram(x, bins=bins if isinstance(bins, np.ndarray) else int(bins))
        np.testing.assert_array_equal(h.fields["counts"], want_counts)
        np.testing.assert_allclose(h.fields["edges"], want_edges)
    h = S.histogram(x, 4.0, range=np.array([-1.0, 1.0]))
    np.testing.assert_array_equal(h.fields["counts"], np.histogram(x, 4, range=(-1, 1))[0])


def test_empty_data_gives_nan():
    assert np.isnan(S.median(np.zeros(0))) and np.isnan(S.var(np.zeros(0)))
    assert np.isnan(S.quantile(np.zeros(0), 0.5))
    assert np.isnan(S.quantile(np.zeros((0, 3)), np.array([0.1, 0.9]), 0.0)).all()
    assert S.quantile(np.zeros((0, 3)), np.array([0.1, 0.9]), 0.0).shape == (2, 3)


def test_results_are_plain_lamina_values(rng):
    m = rng.normal(size=(5, 3))
    assert type(S.median(m)) is float and type(S.var(m[:, 0])) is float
    out = S.std(m, 0.0)
    assert out.dtype == np.float64 and out.shape == (1, 3)


def test_in_programs(lam):
    assert lam.run("m = [1, 2; 3, 4; 5, 9]\nprint(median(m, axis = 0), var([1, 2, 3, 4]))\n"
                   "print(quantile([1, 2, 3, 4, 5], [0.25, 0.75]), cumsum([1, 2, 3]))") == [
        "[3, 4;] 1.6666666666666667", "[2, 4] [1, 3, 6]"]
    assert lam.eval("std(x, skipnan = true)", x=np.array([1.0, np.nan, 3.0])) == pytest.approx(np.sqrt(2))


@pytest.mark.parametrize("source, kind, start", [
    ("var([1, 2, 3], axis = 1)", "ValueError", "var of a vector of length 3 takes axis 0"),
    ("median([1, 2; 3, 4], axis = 2)", "ValueError", "median of a 2x2 matrix takes axis 0"),
    ("var([1, 2], ddof = -1)", "ValueError", "var's ddof must be at least 0"),
    ("std(\"a\")", "TypeError", "std's data must be a number, vector or matrix"),
    ("quantile([1, 2], 1.5)", "ValueError", "quantile's probabilities must lie from 0 to 1"),
    ("median([1, 2], skipnan = 1)", "TypeError", "median's skipnan must be true or false"),
    ("histogram([1, 0 / 0])", "ValueError", "histogram's data contains NaN"),
    ("histogram([1, 2], [2, 1])", "ValueError", "histogram's bin edges must be"),
    ("cov([1, 2, 3], [1, 2])", "ShapeError", "cov(x, y) needs x and y with the same number"),
    ("sort([\"a\", 1])", "TypeError", "sort of a list needs all strings or all numbers"),
])
def test_errors(lam, source, kind, start):
    err = lam.error(source)
    assert err.kind == kind and err.message.startswith(start), err.message


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


def test_unique_of_a_list_puts_nan_last_once(lam):
    # sorted(set(...)) put NaN first (or anywhere) and kept every NaN object apart
    out = lam.run('z = 0\nxs = ["a", z / z, 3, z / z, 1, 3]\n'
                  'print(unique(xs[1:], counts = true))\nprint(unique(xs[1:]))')
    assert out == ["{values=[1, 3, NaN], counts=[1, 2, 2]}", "[1, 3, NaN]"]
    assert lam.run('xs = ["a", 0 / 0, 3, 0 / 0, 1]\nprint(unique(xs[1:], counts = true))') == \
        ["{values=[1, 3, NaN], counts=[1, 1, 2]}"]
    assert lam.run("print(unique([3, 0 / 0, 1, 0 / 0], counts = true))") == \
        ["{values=[1, 3, NaN], counts=[1, 1, 2]}"]           # as a tensor gives it (np.unique)


def test_histogram_checks_skipnan_and_a_range_that_is_not_finite(lam):
    err = lam.error("histogram([1, 2], 2, skipnan = 1)")      # was accepted when no NaN was present
    assert err.kind == "TypeError" and "histogram's skipnan must be true or false" in err.message
    err = lam.error("histogram([1, 2], 2, range = [0, 1 / 0])")   # was "... scale the data first"
    assert err.kind == "ValueError"
    assert err.message == ("histogram's range must be [low, high], two finite numbers with low < high, "
                           "not [0, Inf].")
    err = lam.error("histogram([1, 2], 2, range = [0 / 0, 1])")
    assert err.message.endswith("not [NaN, 1].")
    assert lam.run("print(histogram([1, 2, 3], 2, range = [1, 3]))") == ["{counts=[1, 2], edges=[1, 2, 3]}"]


def test_order_statistic_gradient_of_a_nan_slice_the_loss_does_not_use_is_zero(lam):
    torch = pytest.importorskip("torch")
    # the column holding a NaN got a NaN gradient though the loss never used its median
    m = [[1.0, 2.0], [3.0, float("nan")], [4.0, 5.0]]
    t = torch.tensor(m, dtype=torch.float64, requires_grad=True)
    torch.quantile(t, 0.3, dim=0)[0].backward()
    lam.run("m = param([1, 2; 3, 0 / 0; 4, 5])\ng = grad(quantile(m, 0.3, axis = 0)[0, 0], wrt = m)\n"
            "h = grad(median(m, axis = 0)[0, 0], wrt = m)\nk = grad(median(m, axis = 0)[0, 1], wrt = m)")
    np.testing.assert_allclose(lam.interp.get("g"), t.grad.numpy(), rtol=1e-15)
    assert lam.interp.get("g").tolist() == [[0.4, 0.0], [0.6, 0.0], [0.0, 0.0]]
    assert lam.interp.get("h").tolist() == [[0.0, 0.0], [1.0, 0.0], [0.0, 0.0]]
    k = lam.interp.get("k")             # the NaN median itself still passes NaN to its column
    assert (k[:, 0] == 0).all() and np.isnan(k[:, 1]).all()


@pytest.mark.parametrize("extra", ["axis = 0", "skipnan = true"])
def test_quantile_of_a_distribution_refuses_data_keywords(lam, extra):
    # quantile(normal(0, 1), 0.5, axis = 0) silently dropped the axis
    err = lam.error(f"quantile(normal(0, 1), 0.5, {extra})")
    assert err.kind == "TypeError" and "takes no axis or skipnan" in err.message
    assert lam.run("print(quantile(normal(0, 1), [0.5, 0.975]))") == ["[0, 1.959963984540054]"]


def test_median_and_quantile_by_partition_equal_a_full_sort_to_the_bit():
    # median of a whole float64 array and quantiles without skipnan select order statistics by
    # np.partition; R's type 7 rule applied to the fully sorted data must give the same numbers
    rng = np.random.default_rng(11)
    for _ in range(2000):
        shape = tuple(int(k) for k in rng.integers(1, 6, size=rng.integers(1, 4)))
        a = rng.standard_normal(shape) * 10.0 ** rng.integers(-300, 300)
        if rng.random() < 0.3:
            a = np.round(a)
        if rng.random() < 0.2:
            a.reshape(-1)[rng.integers(0, a.size)] = rng.choice([np.inf, -np.inf, np.nan])
        qs = rng.random(rng.integers(1, 4))
        axes = None if rng.random() < 0.3 else (int(rng.integers(0, a.ndim)),)
        rows, _ = D._slices(a, axes)
        srt = np.sort(rows, axis=-1)
        lo, hi, frac = D._position(qs, np.full((rows.shape[0], 1), rows.shape[-1]))
        want = D.between(np.take_along_axis(srt, lo, -1), np.take_along_axis(srt, hi, -1), frac)
        want = np.where(np.isnan(rows).any(axis=-1, keepdims=True), np.nan, want)
        assert np.array_equal(D._slice_quantiles(a, qs, axes, False), want, equal_nan=True)
        lo, hi, frac = D._position(np.array([0.5]), np.array([[a.size]]))
        flat = np.sort(a.reshape(-1))
        whole = np.nan if np.isnan(a).any() else float(D.between(flat[lo], flat[hi], frac)[0, 0])
        got = D.median(a)
        assert got == whole or (np.isnan(got) and np.isnan(whole)), a
