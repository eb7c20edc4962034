"""Descriptive statistics against NumPy and SciPy on random data, called as Lamina builtins."""
import numpy as np
import pytest
import scipy.stats as st

from lamina.builtins import stats as S

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
