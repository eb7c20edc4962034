"""linreg, polyfit and logreg on Inf, on a response with nothing to explain, with a factor and
no intercept (against statsmodels and R's rules), and logreg's l2 checks."""
import numpy as np
import pytest

from lamina.builtins import regression as R

INF_NEEDS = "needs finite numbers, so remove those rows first."


@pytest.mark.parametrize("source, message", [
    ("linreg([1, 2, 3, 1 / 0], [1, 2, 3, 5])",
     "linreg's predictors X contains Inf; linreg " + INF_NEEDS),
    ("linreg([1, 2, 3, -1 / 0], [1, 2, 3, 5])",
     "linreg's predictors X contains Inf; linreg " + INF_NEEDS),
    ("linreg([1, 2, 3, 4], [1, 2, 3, 1 / 0])",
     "linreg's response y contains Inf; linreg " + INF_NEEDS),
    ("polyfit([1, 2, 1 / 0], [1, 4, 5], 1)", "polyfit's x contains Inf; polyfit " + INF_NEEDS),
    ("polyfit([1, 2, 3], [1, 4, 1 / 0], 1)", "polyfit's y contains Inf; polyfit " + INF_NEEDS),
    ("logreg([1, 2, 3, 1 / 0], [0, 1, 0, 1])", "logreg's predictors X contains Inf; logreg " + INF_NEEDS),
    ("t = table({y = [1, 2, 3, 1 / 0], x = [1, 2, 3, 5]})\nlinreg(t, \"y\", [\"x\"])",
     "linreg's response y contains Inf; linreg " + INF_NEEDS),
])
def test_inf_is_a_value_error_before_lapack(lam, capfd, source, message):
    err = lam.error(source)
    assert (err.kind, err.message) == ("ValueError", message)
    out, errout = capfd.readouterr()            # LAPACK writes to the file descriptors directly
    assert "DLASCL" not in out + errout


def test_nan_keeps_its_message_next_to_inf(lam):
    err = lam.error("linreg([1, 0 / 0, 1 / 0, 4], [1, 2, 3, 4])")
    assert err.message.startswith("linreg's predictors X contains NaN; remove those rows first")


@pytest.mark.parametrize("x, y, intercept", [
    ([1.0, 2, 3, 5], [2.0, 2, 2, 2], True),
    ([1.0, 2, 3, 5], [0.1, 0.1, 0.1, 0.1], True),
    ([1.0, 2, 3, 5], [0.0, 0, 0, 0], False),
])
def test_a_response_with_nothing_to_explain_has_no_r2_or_f(x, y, intercept):
    fit = R.linreg(np.array(x), np.array(y), intercept=intercept)
    for name in ("r2", "adj_r2", "fstat", "f_p"):
        assert np.isnan(fit.get(name)), name
    assert "F-statistic" not in fit.describe()


def test_f_is_never_negative_and_r2_is_r_s_mss_over_mss_plus_rss(rng):
    sm = pytest.importorskip("statsmodels.api")
    x = np.array([1.0, 2, 3, 5])
    y = 2.0 + 1e-15 * rng.normal(size=4)         # nearly constant: sums of squares near rounding
    fit = R.linreg(x, y)
    assert fit.get("fstat") >= 0 and 0 <= fit.get("r2") <= 1
    X, y = rng.normal(size=(30, 2)), rng.normal(size=30)
    fit, ref = R.linreg(X, y), sm.OLS(y, sm.add_constant(X)).fit()
    np.testing.assert_allclose([fit.get("r2"), fit.get("adj_r2"), fit.get("fstat"), fit.get("f_p")],
                               [ref.rsquared, ref.rsquared_adj, ref.fvalue, ref.f_pvalue], rtol=1e-9)


def test_an_exact_fit_has_f_inf_as_in_r():
    fit = R.linreg(np.array([1.0, 1, 1, 1]), np.array([1.0, 1, 1, 1]), intercept=False)
    assert (fit.get("r2"), fit.get("fstat"), fit.get("f_p")) == (1.0, np.inf, 0.0)
    assert "F-statistic: Inf on 1 and 3 DF" in fit.describe()


TRIAL = ('t = table({y = [3.1, 4.0, 5.2, 6.8, 7.1, 8.9], dose = [1, 2, 3, 1, 2, 3],\n'
         '           arm = ["drug", "drug", "drug", "placebo", "placebo", "placebo"],\n'
         '           sex = ["f", "m", "f", "m", "m", "f"]})\n')


def trial_frame():
    pd = pytest.importorskip("pandas")
    return pd.DataFrame({"y": [3.1, 4.0, 5.2, 6.8, 7.1, 8.9], "dose": [1, 2, 3, 1, 2, 3],
                         "arm": ["drug"] * 3 + ["placebo"] * 3, "sex": list("fmfmmf")})


def test_without_an_intercept_the_first_factor_keeps_every_level(lam):
    smf = pytest.importorskip("statsmodels.formula.api")
    lam.run(TRIAL + 'fit = linreg(t, "y", ["dose", "arm"], intercept = false)')
    fit = lam.interp.get("fit")
    ref = smf.ols("y ~ dose + arm - 1", trial_frame()).fit()
    assert fit.get("terms") == ["dose", "armdrug", "armplacebo"]
    order = ["dose", "arm[drug]", "arm[placebo]"]
    np.testing.assert_allclose(fit.get("coef"), [1.05, 2.0, 5.5], rtol=1e-12)
    np.testing.assert_allclose(fit.get("coef"), ref.params[order], rtol=1e-10)
    np.testing.assert_allclose(fit.get("se"), ref.bse[order], rtol=1e-10)
    np.testing.assert_allclose(fit.get("p"), ref.pvalues[order], rtol=1e-8)
    # R's summary.lm takes R^2 and F about 0 when the formula has no intercept (statsmodels
    # notices the implicit constant and centres instead): R^2 0.9983, F 584.9 on 3 and 3 DF.
    r2 = 1 - ref.ssr / ref.uncentered_tss
    f = ((ref.uncentered_tss - ref.ssr) / 3) / (ref.ssr / 3)
    np.testing.assert_allclose([fit.get("r2"), fit.get("fstat")], [r2, f], rtol=1e-10)
    assert fit.get("fstat") == pytest.approx(584.9, abs=0.05)


def test_later_factors_still_drop_their_reference(lam):
    smf = pytest.importorskip("statsmodels.formula.api")
    lam.run(TRIAL)
    t = lam.interp.get("t")
    fit = lam.eval('linreg(t, "y", ["arm", "sex"], intercept = false)', t=t)
    ref = smf.ols("y ~ arm + sex - 1", trial_frame()).fit()
    assert fit.get("terms") == ["armdrug", "armplacebo", "sexm"]
    np.testing.assert_allclose(fit.get("coef"), ref.params[["arm[drug]", "arm[placebo]", "sex[T.m]"]],
                               rtol=1e-10)
    # with an intercept, and in logreg (which always has one), every factor drops its reference
    assert lam.eval('linreg(t, "y", ["dose", "arm"]).terms', t=t) == ["(Intercept)", "dose", "armplacebo"]
    assert lam.eval('linreg(t, "y", ["dose"], intercept = false).terms', t=t) == ["dose"]


@pytest.mark.parametrize("l2, shown", [("1 / 0", "Inf"), ("0 / 0", "NaN"), ("-1", "-1")])
def test_logreg_l2_must_be_finite_and_at_least_0(lam, l2, shown):
    err = lam.error(f"logreg([1, 2, 3, 4, 5], [0, 1, 0, 1, 1], l2 = {l2})")
    assert (err.kind, err.message) == ("ValueError", f"logreg's l2 must be a finite number at least 0, "
                                                     f"not {shown}.")
