"""linreg against NumPy least squares, the textbook formulas and statsmodels; polyfit, logreg,
kmeans and pca against independent computations."""
import numpy as np
import pytest
import scipy.stats as st
import statsmodels.api as sm

from lamina.builtins import regression as R
from lamina.errors import LaminaError


def data(rng, n=60, k=3):
    X = rng.normal(size=(n, k))
    y = 1.5 + X @ np.array([2.0, -1.0, 0.0][:k]) + rng.normal(scale=0.8, size=n)
    return X, y


def textbook(X, y, intercept=True):
    A = np.hstack([np.ones((len(y), 1)), X]) if intercept else X
    n, p = A.shape
    b = np.linalg.solve(A.T @ A, A.T @ y)
    r = y - A @ b
    s2 = r @ r / (n - p)
    se = np.sqrt(np.diag(s2 * np.linalg.inv(A.T @ A)))
    t = b / se
    pv = 2 * (1 - st.t.cdf(np.abs(t), n - p))
    tss = ((y - y.mean()) ** 2).sum() if intercept else (y ** 2).sum()
    r2 = 1 - (r @ r) / tss
    i = int(intercept)
    adj = 1 - (1 - r2) * (n - i) / (n - p)
    f = ((tss - r @ r) / (p - i)) / s2
    return dict(coef=b, se=se, t=t, p=pv, r2=r2, adj_r2=adj, sigma=np.sqrt(s2), df=n - p, fstat=f,
                f_p=1 - st.f.cdf(f, p - i, n - p), residuals=r)


@pytest.mark.parametrize("intercept", [True, False])
def test_linreg_against_textbook_formulas(rng, intercept):
    X, y = data(rng)
    fit = R.linreg(X, y, intercept=intercept)
    want = textbook(X, y, intercept)
    np.testing.assert_allclose(fit.get("coef"), np.linalg.lstsq(
        np.hstack([np.ones((60, 1)), X]) if intercept else X, y, rcond=None)[0])
    for name, value in want.items():
        np.testing.assert_allclose(fit.get(name), value, rtol=1e-7, atol=1e-12, err_msg=name)
    assert fit.get("n") == 60 and isinstance(fit.get("r2"), float)


def test_linreg_against_statsmodels(rng):
    sm = pytest.importorskip("statsmodels.api")
    X, y = data(rng, n=45)
    fit = R.linreg(X, y)
    ref = sm.OLS(y, sm.add_constant(X)).fit()
    np.testing.assert_allclose(fit.get("coef"), ref.params, rtol=1e-9)
    np.testing.assert_allclose(fit.get("se"), ref.bse, rtol=1e-9)
    np.testing.assert_allclose(fit.get("t"), ref.tvalues, rtol=1e-9)
    np.testing.assert_allclose(fit.get("p"), ref.pvalues, rtol=1e-6)
    assert fit.get("r2") == pytest.approx(ref.rsquared) and fit.get("adj_r2") == pytest.approx(ref.rsquared_adj)
    assert fit.get("fstat") == pytest.approx(ref.fvalue) and fit.get("f_p") == pytest.approx(ref.f_pvalue)


def test_linreg_summary_reads_like_r(lam, rng):
    X, y = data(rng, n=30, k=2)
    lines = lam.run('fit = linreg(X, y, names = ["dose", "age"])\nprint(fit)', X=X, y=y)
    text = "\n".join(lines)
    assert lines[0] == "Linear regression: y ~ dose + age  (n = 30)"
    for part in ("Residuals:", "Coefficients:", "Estimate", "Std. Error", "t value", "Pr(>|t|)",
                 "(Intercept)", "Residual standard error:", "on 27 degrees of freedom",
                 "Multiple R-squared:", "Adjusted R-squared:", "F-statistic:", "on 2 and 27 DF"):
        assert part in text, part
    row = next(line for line in lines if line.strip().startswith("dose"))
    fit = lam.interp.get("fit")
    assert f"{fit.coef[1]:.4g}" in row


def test_linreg_from_a_table_and_fields(lam, rng):
    X, y = data(rng, n=25, k=2)
    lam.run('t = table({a = X[:, 0], b = X[:, 1], y = y, tag = map(range(25), i -> "r")})\n'
            'f1 = linreg(t, "y")\nf2 = linreg(t, "y", ["b"])\npred = X * f1.weights + f1.intercept',
            X=X, y=y)
    f1, f2 = lam.interp.get("f1"), lam.interp.get("f2")
    np.testing.assert_allclose(f1.coef, textbook(X, y)["coef"])
    assert f1.terms == ["(Intercept)", "a", "b"] and f1.response == "y"
    np.testing.assert_allclose(f2.coef, textbook(X[:, 1:], y)["coef"])
    np.testing.assert_allclose(lam.interp.get("pred"), f1.fitted)
    np.testing.assert_allclose(f1.predict(X), f1.fitted)


@pytest.mark.parametrize("source, kind, start", [
    ("linreg([1, 2, 3], [1, 2])", "ShapeError", "linreg needs one response per row of X"),
    ("linreg([1, 2], [1, 2])", "ValueError", "linreg needs more rows than coefficients"),
    ("linreg([1, 2; 2, 4; 3, 6; 4, 8], [1, 2, 3, 5])", "ValueError", "linreg's predictors are collinear"),
    ("linreg([1, 0 / 0, 3, 4], [1, 2, 3, 4])", "ValueError", "linreg's predictors X contains NaN"),
    ("linreg([1, 2, 3, 4], [1, 2, 3, 4], names = [\"a\", \"b\"])", "ValueError", "linreg got 2 names for 1"),
    ("linreg(\"x\", [1])", "TypeError", "linreg's predictors X must be"),
])
def test_linreg_errors(lam, source, kind, start):
    err = lam.error(source)
    assert err.kind == kind and err.message.startswith(start), err.message


def test_polyfit_and_polyval(rng):
    x = rng.uniform(-2, 2, size=30)
    y = 0.5 * x ** 3 - x + 2 + rng.normal(scale=0.1, size=30)
    for d in (0, 1, 3):
        np.testing.assert_allclose(R.polyfit(x, y, float(d)), np.polyfit(x, y, d), rtol=1e-8, atol=1e-10)
    p = R.polyfit(x, y, 3.0)
    np.testing.assert_allclose(R.polyval(p, x), np.polyval(p, x))
    assert type(R.polyval(p, 1.0)) is float


def test_logreg_against_statsmodels_and_off_the_tape(lam, rng):
    sm = pytest.importorskip("statsmodels.api")
    X = rng.normal(size=(200, 2))
    logits = 0.5 + X @ np.array([1.5, -2.0])
    y = (rng.random(200) < 1 / (1 + np.exp(-logits))).astype(float)
    fit = R.logreg(X, y)
    ref = sm.Logit(y, sm.add_constant(X)).fit(disp=0)
    np.testing.assert_allclose(fit.get("coef"), ref.params, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(fit.get("se"), ref.bse, rtol=1e-4)
    np.testing.assert_allclose(fit.get("p"), ref.pvalues, rtol=1e-3, atol=1e-12)
    assert fit.converged
    h = fit.get("loss_history")
    assert h[0] == pytest.approx(np.log(2)) and h[-1] == pytest.approx(-ref.llf / 200, rel=1e-8)
    assert np.all(np.diff(h) <= 1e-12)
    # its gradient is written out, off the tape: a value tracked before the call is still on it
    assert lam.run("w = param(1.0)\nloss = w ^ 3\nfit = logreg(X, y)\nprint(grad(loss, wrt = w))",
                   X=X, y=y) == ["3"]
    np.testing.assert_allclose(fit.predict(X), ref.predict(sm.add_constant(X)), rtol=1e-5)


def test_logreg_with_l2_matches_a_direct_minimization(rng):
    from scipy.optimize import minimize
    X = rng.normal(size=(80, 3))
    y = (X[:, 0] + rng.normal(size=80) > 0).astype(float)
    lam_ = 0.3

    def loss(theta):
        z = X @ theta[1:] + theta[0]
        return np.mean(np.logaddexp(0, z) - y * z) + 0.5 * lam_ * theta[1:] @ theta[1:]
    ref = minimize(loss, np.zeros(4), method="BFGS", options={"gtol": 1e-10}).x
    fit = R.logreg(X, y, l2=lam_)
    np.testing.assert_allclose(fit.get("coef"), ref, atol=1e-6)
    assert np.all(np.isnan(fit.get("se")))


def test_logreg_s_fitted_probabilities_are_scipy_s_expit(monkeypatch, rng):
    # they were a hand-written 1 / (1 + exp(-z)); the ones the separation check and the
    # standard errors read are expit's own result, and the model's predictions to rounding
    import scipy.special
    from lamina.stats import models
    results, expit = [], scipy.special.expit
    monkeypatch.setattr(scipy.special, "expit", lambda z: results.append(expit(z)) or results[-1])
    given = []
    monkeypatch.setattr(models, "separation", lambda X, y, fitted: given.append(fitted) or "none")
    X = rng.normal(size=(50, 2))
    y = (X[:, 0] - X[:, 1] + rng.normal(size=50) > 0).astype(float)
    fit = R.logreg(X, y)
    assert len(given) == 1 and given[0] is results[-1]
    np.testing.assert_allclose(given[0], expit(X @ fit.get("coef")[1:] + fit.get("coef")[0]), rtol=1e-13)


def test_logreg_prints_and_checks_labels(lam):
    lines = lam.run("fit = logreg([1, 2, 3, 4, 5, 6], [0, 1, 0, 1, 1, 1])\nprint(fit)")
    assert lines[0].startswith("Logistic regression (n = 6") and any("Pr(>|z|)" in s for s in lines)
    assert lam.error("logreg([1, 2, 3], [0, 2, 1])").message == "logreg's labels y must be 0 or 1."


def blobs(rng):
    centers = np.array([[0, 0], [6, 0], [0, 6]], dtype=float)
    return np.vstack([c + rng.normal(scale=0.5, size=(30, 2)) for c in centers]), np.repeat([0, 1, 2], 30)


def test_kmeans_finds_clusters_and_is_a_lloyd_fixed_point(rng):
    X, truth = blobs(rng)
    r = R.kmeans(X, 3.0, seed=1.0).fields
    labels, centers = r["labels"].astype(int), r["centers"]
    # the same partition as the truth, up to renaming
    assert len({(a, b) for a, b in zip(labels, truth)}) == 3
    for j in range(3):
        np.testing.assert_allclose(centers[j], X[labels == j].mean(axis=0))
    d2 = ((X[:, None, :] - centers[None]) ** 2).sum(axis=2)
    np.testing.assert_array_equal(labels, d2.argmin(axis=1))
    assert r["inertia"] == pytest.approx(d2.min(axis=1).sum())
    again = R.kmeans(X, 3.0, seed=1.0).fields
    np.testing.assert_array_equal(again["labels"], r["labels"])


def _clustered_data(kind: str, seed: int) -> np.ndarray:
    """Data on which one k-means++ start often stops in a worse local minimum than another."""
    g = np.random.default_rng(seed)
    if kind == "blobs":
        centers = g.uniform(-6, 6, size=(7, 2))
        return np.vstack([c + g.normal(scale=1.2, size=(25, 2)) for c in centers])
    return g.uniform(size=(150, 3))


@pytest.mark.parametrize("kind", ["blobs", "uniform"])
def test_kmeans_keeps_the_best_of_its_restarts(kind):
    """restarts = r keeps the start of least inertia: never above restarts = 1 with the same
    seed (whose one start is the first of the r), below it where a later start does better,
    and exactly the least of the r starts drawn one after another from one generator."""
    from lamina.stats import models as M
    lower = 0
    for seed in range(8):
        X = _clustered_data(kind, seed)
        one = R.kmeans(X, 6.0, seed=float(seed), restarts=1.0).fields["inertia"]
        best = R.kmeans(X, 6.0, seed=float(seed), restarts=8.0).fields["inertia"]
        assert best <= one
        lower += best < one
        g = np.random.default_rng(seed)
        starts = [M.kmeans(X, 6.0, g, restarts=1.0).fields["inertia"] for _ in range(8)]
        assert best == min(starts) and len(set(starts)) > 1
    assert lower >= 2          # the restarts matter on this data


def test_kmeans_uses_the_global_generator(lam, rng):
    X, _ = blobs(rng)
    assert lam.run("seed(5)\na = kmeans(X, 3).labels\nseed(5)\nprint(all(a == kmeans(X, 3).labels))", X=X) == ["true"]
    assert lam.error("kmeans([1, 2], 3)").message.startswith("kmeans cannot make 3 clusters from 2 rows")


def test_pca_against_the_covariance_eigendecomposition(rng):
    X = rng.normal(size=(50, 4)) @ rng.normal(size=(4, 4))
    r = R.pca(X).fields
    vals, vecs = np.linalg.eigh(np.cov(X, rowvar=False))
    order = np.argsort(vals)[::-1]
    np.testing.assert_allclose(r["variance"], vals[order])
    np.testing.assert_allclose(r["ratio"], vals[order] / vals.sum())
    for j in range(4):
        v = vecs[:, order[j]]
        v = v * np.sign(v[np.abs(v).argmax()])
        np.testing.assert_allclose(r["components"][j], v, atol=1e-8)
    np.testing.assert_allclose(r["scores"], (X - X.mean(axis=0)) @ r["components"].T)
    two = R.pca(X, 2.0).fields
    assert two["components"].shape == (2, 4) and two["scores"].shape == (50, 2)


@pytest.mark.parametrize("p, want", [
    (0.0, "***"), (0.00099, "***"), (0.001, "**"), (0.0099, "**"), (0.01, "*"), (0.0499, "*"),
    (0.05, "."), (0.0999, "."), (0.1, ""), (0.7, ""), (float("nan"), "")])
def test_significance_stars_at_each_boundary(p, want):
    # R's codes: a p-value equal to a cut-off falls in the weaker band.
    from lamina.stats.summary import stars
    assert stars(p) == want


def test_logreg_of_a_tiny_problem_runs_blas_on_one_thread(monkeypatch):
    """Inside a small fit every BLAS library (NumPy's and SciPy's OpenBLAS) has one thread,
    and the settings come back after it."""
    threadpoolctl = pytest.importorskip("threadpoolctl")
    import lamina.stats.models as models
    before = [lib["num_threads"] for lib in threadpoolctl.threadpool_info() if lib["user_api"] == "blas"]
    seen = []
    real = models.separation
    monkeypatch.setattr(models, "separation", lambda *a, **k: seen.append(
        [lib["num_threads"] for lib in threadpoolctl.threadpool_info() if lib["user_api"] == "blas"]) or real(*a, **k))
    X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0], [5.0]])
    models.logreg(X, np.array([0.0, 1.0, 0.0, 1.0, 1.0, 0.0]))
    assert seen and set(seen[0]) == {1}
    assert [lib["num_threads"] for lib in threadpoolctl.threadpool_info() if lib["user_api"] == "blas"] == before


def test_pca_of_no_columns_says_so(run):
    with pytest.raises(LaminaError) as e:
        run("r = pca(zeros(3, 0))")
    assert (e.value.kind, e.value.message) == ("ValueError", "pca needs at least one column (variable); X is 3x0.")


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
