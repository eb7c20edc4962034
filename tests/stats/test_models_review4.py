"""Review 4: linreg, logreg, polyfit, kmeans and pca on data far from 1 in size or far from 0,
against statsmodels and NumPy."""
import numpy as np
import pytest
import statsmodels.api as sm

X6 = np.arange(1.0, 7.0)
Y6 = np.array([3.1, 6.9, 7.2, 10.8, 11.1, 15.2])


def _ols(x, y):
    return sm.OLS(y, sm.add_constant(x)).fit()


@pytest.mark.parametrize("factor", [1e14, 1e20])
def test_linreg_column_on_a_large_scale_is_not_collinear(lam, factor):
    fit = lam.eval("linreg(x, y)", x=X6 * factor, y=Y6)     # was: "predictors are collinear"
    ref = _ols(X6, Y6)                 # the slope and its se in units of x, divided by factor
    np.testing.assert_allclose(fit.coef, ref.params / [1, factor], rtol=1e-10)
    np.testing.assert_allclose(fit.se, ref.bse / [1, factor], rtol=1e-10)
    assert fit.r2 == pytest.approx(ref.rsquared, rel=1e-12)


@pytest.mark.parametrize("factor", [1e-300, 1e300])
def test_linreg_response_on_an_extreme_scale(lam, factor):
    fit = lam.eval("linreg(x, y)", x=X6, y=Y6 * factor)
    ref = _ols(X6, Y6)
    np.testing.assert_allclose(fit.coef / factor, ref.params, rtol=1e-10)
    np.testing.assert_allclose(fit.se / factor, ref.bse, rtol=1e-10)
    np.testing.assert_allclose(fit.residuals / factor, ref.resid, rtol=1e-8)
    assert fit.sigma / factor == pytest.approx(np.sqrt(ref.scale), rel=1e-10)
    assert (fit.r2, fit.fstat) == (pytest.approx(ref.rsquared, rel=1e-12), pytest.approx(ref.fvalue, rel=1e-10))


def test_logreg_predictor_far_from_zero(lam):
    x = np.array([0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0])
    y = np.array([0.0, 0, 1, 0, 1, 0, 1, 1])
    fit = lam.eval("logreg(x, y)", x=x + 1e4, y=y)
    ref = sm.Logit(y, sm.add_constant(x)).fit(disp=0)      # the same slope; intercept shifted by 1e4 slope
    assert fit.converged
    assert fit.weights[0] == pytest.approx(ref.params[1], rel=1e-6)
    assert fit.intercept == pytest.approx(ref.params[0] - 1e4 * ref.params[1], rel=1e-6)
    assert fit.se[1] == pytest.approx(ref.bse[1], rel=1e-6)


def test_logreg_without_examples_is_a_value_error(lam):
    err = lam.error("logreg(zeros(0, 1), zeros(0))")
    assert (err.kind, err.message) == ("ValueError", "logreg needs examples of both classes, but it has no examples.")


def test_polyfit_of_years(lam):
    x = np.arange(2000.0, 2007.0)
    y = x ** 2 - 3 * x + 1
    got = lam.eval("polyfit(x, y, 3)", x=x, y=y)       # was a ValueError: "needs 4 distinct x values"
    assert np.abs(np.polyval(got, x) - y).max() < 1e-8   # the fit goes through the points, as NumPy's


def test_polyfit_of_huge_x(lam):
    got = lam.eval("polyfit([1e200, 2e200, 3e200], [1, 2, 3], 1)")
    np.testing.assert_allclose(got, [1e-200, 0.0], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("source, message", [
    ("kmeans([1, 1 / 0; 2, 3; 4, 5], 2, seed = 1)",
     "kmeans's data X contains Inf; kmeans needs finite numbers, so remove those rows first."),
    ("pca([1, 1 / 0; 3, 4; 5, 7])",
     "pca's data X contains Inf; pca needs finite numbers, so remove those rows first."),
    ("kmeans([1, 1; 1, 1; 2, 2], 3, seed = 1)",
     "kmeans cannot make 3 clusters from 2 distinct rows"),
])
def test_kmeans_and_pca_refuse_clearly(lam, source, message):
    err = lam.error(source)
    assert err.kind == "ValueError" and err.message.startswith(message)


@pytest.mark.parametrize("factor", [1e200, 1e-200])
def test_kmeans_on_an_extreme_scale(lam, factor):
    X = np.array([[1.0, 1], [2, 1], [5, 0]])
    r = lam.eval("kmeans(X, 2, seed = 1)", X=X * factor)
    assert list(r.get("labels")) == [0.0, 0.0, 1.0]
    np.testing.assert_allclose(r.get("centers"), np.array([[1.5, 1], [5, 0]]) * factor, rtol=1e-15)


@pytest.mark.parametrize("factor", [1e200, 1e-200])
def test_pca_ratio_on_an_extreme_scale(lam, factor):
    X = np.array([[1.0, 2], [3, 4], [5, 7]])
    ratio = lam.eval("pca(X).ratio", X=X * factor)
    s = np.linalg.svd(X - X.mean(axis=0), compute_uv=False) ** 2
    np.testing.assert_allclose(ratio, s / s.sum(), rtol=1e-12)


@pytest.mark.parametrize("x, y, kind", [
    ([1.0, 2, 3, 4], [0.0, 0, 1, 1], "complete"),
    ([1.0, 2, 2, 3], [0.0, 0, 1, 1], "quasi"),
])
def test_logreg_finds_separation_far_from_zero(lam, x, y, kind):
    fit = lam.eval("logreg(x, y)", x=np.array(x) + 1e8, y=np.array(y))
    assert (fit.separation, fit.converged) == (kind, False)


def test_tests_on_float32_data_compute_in_float64(lam):
    from scipy import stats
    x = np.float32([1.1, 2.2, 4.3, 7.7, 0.3])
    y = np.float32([2.0, 2.9, 3.3, 5.1, 4.6])
    r = lam.eval("t_test(x)", x=x)
    ref = stats.ttest_1samp(x.astype(np.float64), 0.0)
    assert r.estimate == x.astype(np.float64).mean()               # was 3.120000123977661
    assert r.statistic == pytest.approx(ref.statistic, rel=1e-14)
    c = lam.eval("corr_test(x, y)", x=x, y=y)
    assert c.estimate == pytest.approx(stats.pearsonr(x.astype(np.float64), y.astype(np.float64))[0], rel=1e-15)
    q = lam.eval("chisq_test(M)", M=np.float32([[12, 5], [7, 16]]))
    assert q.statistic == pytest.approx(stats.chi2_contingency([[12, 5], [7, 16]])[0], rel=1e-15)


def test_logreg_refuses_collinear_predictors_without_a_penalty(lam):
    X = "[0.5, 0.5; 1.0, 1; 1.5, 1.5; 2.0, 2; 2.5, 2.5; 3.0, 3; 3.5, 3.5; 4.0, 4]"
    err = lam.error(f"logreg({X}, [0, 0, 1, 0, 1, 0, 1, 1])")      # was: converged, every se NaN
    assert err.kind == "ValueError"
    assert err.message.startswith("logreg's predictors are collinear (the design matrix has rank 2 < 3 columns)")
    fit = lam.eval(f"logreg({X}, [0, 0, 1, 0, 1, 0, 1, 1], l2 = 0.1)")
    assert fit.weights[0] == pytest.approx(fit.weights[1], rel=1e-6)


@pytest.mark.parametrize("source, message", [
    ('linreg([1, 2; 3, 4; 5, 7; 8, 8], [1, 3, 2, 5], names = ["a", "a"])',
     'Each coefficient needs a name of its own, but the predictor name "a" is repeated.'),
    ('linreg([1, 2, 3, 4], [1, 3, 2, 5], names = ["(Intercept)"])',
     'Each coefficient needs a name of its own, but the predictor name "(Intercept)" names the intercept.'),
    ('logreg([1, 2; 3, 4; 5, 7; 8, 8; 2, 2], [1, 0, 1, 0, 0], names = ["a", "a"])',
     'Each coefficient needs a name of its own, but the predictor name "a" is repeated.'),
    ('t = table({y = [3.1, 4, 5.2, 6.8], dose = [1, 2, 3, 1]})\nlinreg(t, "y", ["dose", "dose"])',
     'Each coefficient needs a name of its own, but the predictor name "dose" is repeated.'),
])
def test_repeated_coefficient_names_are_refused(lam, source, message):
    err = lam.error(source)
    assert (err.kind, err.message) == ("ValueError", message)


def test_coefficient_table_prints_t_values_as_r_does():
    from lamina.stats.summary import coefficient_table
    _, rows = coefficient_table(["a", "b", "c"], [1.0, 2.0, 3.0], [1.0, 1.0, 1.0],
                                [2076616961594042.5, -1.2e-17, 13.2789], [1e-20, 0.9, 0.00562], "t")
    # R: format(round(t, 3), digits = 4) is one vector, and fixed notation would be 19 wide.
    assert [r[3] for r in rows] == ["2.077e+15", "0.000e+00", "1.328e+01"]    # were 2076616961594042.500, -0.000


def test_linreg_title_without_intercept_or_predictors(lam):
    lines = lam.run("print(linreg(zeros(5, 0), [1, 2, 3, 4, 6], intercept = false))")
    assert lines[0] == "Linear regression: y ~ 0  (n = 5)"         # R's y ~ 0; was "y ~ 1"
