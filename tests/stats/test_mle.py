"""stats/mle.py (the mle builtin), vcov, and confint of an mle fit: against statsmodels' Poisson,
NegativeBinomial and GenericLikelihoodModel, SciPy's weibull_min.fit, closed forms, and glm and
logreg fitted to the same likelihood; the printout; transforms; singular Hessians, bad starts;
examples/likelihood.lam."""
import contextlib
import io
import pathlib

import numpy as np
import pytest
import statsmodels.api as sm
from scipy import optimize, special, stats
from statsmodels.base.model import GenericLikelihoodModel

from lamina import warnings as channel
from lamina.autodiff.tape import TAPE
from lamina.errors import LaminaError
from lamina.interpreter import Interpreter
from lamina.lang.scope import mangle

ROOT = pathlib.Path(__file__).resolve().parents[2]
SMALL = ("x = [0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0]\ny = [1, 0, 2, 3, 2, 5, 6, 9]\n"
         "X = hcat(ones(8), x)\n")
NORMAL = "y = [4.1, 5.3, 3.8, 6.2, 5.0, 4.4, 5.9, 4.7]\n"
NORMAL_NLL = "nll = p -> length(y) * log(p.sigma) + sum((y - p.mu) .^ 2) / (2 * p.sigma ^ 2)\n"


@pytest.fixture(autouse=True)
def fresh_channel():
    channel.reset()
    yield
    channel.reset()
    TAPE.reset()


def run(code: str, **variables) -> tuple[Interpreter, list[str], str]:
    interp, out, err = Interpreter(), io.StringIO(), io.StringIO()
    for name, value in variables.items():
        interp.namespace[mangle(name)] = value
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        interp.run(code, "m.lam")
    return interp, out.getvalue().splitlines(), err.getvalue()


def fitted(code: str, **variables):
    interp, _, err = run(code, **variables)
    return interp.get("fit"), err


def error(code: str) -> LaminaError:
    with pytest.raises(LaminaError) as info:
        run(code)
    return info.value


def flat(record) -> np.ndarray:
    return np.array([record.fields[k] for k in record.fields], dtype=np.float64)


def poisson_data(n=500, seed=2):
    rng = np.random.default_rng(seed)
    X = np.column_stack([np.ones(n), rng.normal(size=(n, 3))])
    y = rng.poisson(np.exp(X @ [0.3, 0.5, -0.4, 0.2])).astype(np.float64)
    return X, y


# -- must show: statsmodels' and SciPy's fits ------------------------------------------------
def test_a_poisson_regression_equals_statsmodels_poisson():
    X, y = poisson_data()
    ref = sm.Poisson(y, X).fit(disp=0, tol=1e-12)
    fit, err = fitted("nll = b -> sum(exp(X * b)) - y' * (X * b) + sum(lgamma(y + 1))\n"
                      "fit = mle(nll, zeros(4), nobs = length(y))", X=X, y=y)
    assert err == "" and fit.converged
    np.testing.assert_allclose(fit.estimate, ref.params, rtol=1e-8)
    np.testing.assert_allclose(fit.se, ref.bse, rtol=1e-8)
    np.testing.assert_allclose(fit.z, ref.tvalues, rtol=1e-8)
    np.testing.assert_allclose(fit.p, ref.pvalues, rtol=1e-6)
    np.testing.assert_allclose(fit.vcov, ref.cov_params(), rtol=1e-8)
    assert fit.loglik == pytest.approx(ref.llf, rel=1e-12)
    assert fit.aic == pytest.approx(ref.aic, rel=1e-12) and fit.bic == pytest.approx(ref.bic, rel=1e-12)


def test_loglik_aic_and_bic_take_a_likelihood_fit_as_they_take_a_glm():
    X, y = poisson_data()
    ref = sm.Poisson(y, X).fit(disp=0, tol=1e-12)
    _, out, _ = run("nll = b -> sum(exp(X * b)) - y' * (X * b) + sum(lgamma(y + 1))\n"
                    "fit = mle(nll, zeros(4), nobs = length(y))\n"
                    "print(loglik(fit))\nprint(aic(fit))\nprint(bic(fit))", X=X, y=y)
    assert [float(v) for v in out] == pytest.approx([ref.llf, ref.aic, ref.bic], rel=1e-12)


def weibull_sample():
    return stats.weibull_min.rvs(1.7, scale=2.5, size=150, random_state=np.random.default_rng(1))


class WeibullModel(GenericLikelihoodModel):
    def loglike(self, params):
        return np.sum(stats.weibull_min.logpdf(self.endog, params[0], scale=params[1]))


def test_a_weibull_sample_equals_scipy_weibull_min_fit_and_statsmodels_standard_errors():
    t = weibull_sample()
    fit, err = fitted("nll = p -> -sum(weibull(p.k, p.lam).logpdf(t))\n"
                      "fit = mle(nll, {k = 1.0, lam = 1.0}, transform = {k = \"log\", lam = \"log\"}, "
                      "nobs = length(t))", t=t)
    assert err == "" and fit.converged
    # SciPy's fit by its default simplex stops about 2e-5 short; with a tight simplex it agrees
    # to 1e-8, and the shape equation's root (the exact MLE) to 1e-12.
    k, _, lam = stats.weibull_min.fit(t, floc=0)
    np.testing.assert_allclose(fit.estimate, [k, lam], rtol=5e-5)
    tight = lambda func, x0, args, disp: optimize.fmin(func, x0, args, xtol=1e-13, ftol=1e-15, disp=0,  # noqa: E731
                                                       maxiter=20000, maxfun=40000)
    k, _, lam = stats.weibull_min.fit(t, floc=0, optimizer=tight)
    np.testing.assert_allclose(fit.estimate, [k, lam], rtol=2e-8)     # flat: f moves by rounding
    lt = np.log(t)
    root = optimize.brentq(lambda c: 1 / c + lt.mean() - np.sum(t ** c * lt) / np.sum(t ** c), 0.5, 5, xtol=1e-15)
    np.testing.assert_allclose(fit.estimate, [root, np.mean(t ** root) ** (1 / root)], rtol=1e-12)
    ref = WeibullModel(t, np.ones_like(t)).fit(start_params=fit.estimate, method="bfgs", disp=0, gtol=1e-10)
    np.testing.assert_allclose(ref.params, fit.estimate, rtol=1e-7)
    np.testing.assert_allclose(fit.se, ref.bse, rtol=1e-5)       # statsmodels' Hessian is numerical
    assert fit.loglik == pytest.approx(ref.llf, rel=1e-12)


def test_glm_poisson_standard_errors_agree_with_mle_of_the_same_likelihood():
    X, y = poisson_data(n=120, seed=5)
    interp, _, _ = run("g = glm(X[:, 1:4], y, family = \"poisson\")\n"
                       "fit = mle(b -> sum(exp(X * b)) - y' * (X * b), zeros(4))\nv = vcov(g)", X=X, y=y)
    g, fit = interp.get("g"), interp.get("fit")
    np.testing.assert_allclose(fit.estimate, g.coef, rtol=1e-8)
    # glm, as R's, takes its standard errors with the weights of its last iteration, one step
    # before its estimates: they agree with the exact ones to the size of that last step
    np.testing.assert_allclose(fit.se, g.se, rtol=1e-5)
    np.testing.assert_allclose(fit.vcov, interp.get("v"), rtol=2e-5, atol=1e-7)
    # and mle's are the inverse information X'diag(mu)X at its estimates
    mu = np.exp(X @ fit.estimate)
    np.testing.assert_allclose(fit.vcov, np.linalg.inv(X.T @ (X * mu[:, None])), rtol=1e-10)


def test_logreg_standard_errors_agree_with_mle_of_the_bernoulli_likelihood():
    rng = np.random.default_rng(8)
    A = rng.normal(size=(150, 2))
    t = (rng.random(150) < special.expit(0.3 + A @ [1.0, -0.7])).astype(np.float64)
    X = np.column_stack([np.ones(150), A])
    interp, _, _ = run("lr = logreg(A, t)\n"
                       "nll = b -> sum(log(1 + exp(X * b))) - t' * (X * b)\n"
                       "fit = mle(nll, zeros(3))", A=A, t=t, X=X)
    lr, fit = interp.get("lr"), interp.get("fit")
    np.testing.assert_allclose(fit.estimate, lr.get("coef"), rtol=1e-6)
    np.testing.assert_allclose(fit.se, lr.se, rtol=1e-6)
    np.testing.assert_allclose(fit.p, lr.p, rtol=1e-5)


# -- the printout and the fields ------------------------------------------------------------
def test_the_printout_reads_as_r_summary_with_statsmodels_numbers():
    # statsmodels' Poisson of these data: params -0.70433001, 0.72584752; bse 0.64533772,
    # 0.19973762; z -1.09141304, 3.63400501; p 0.27509117, 0.00027906; llf without the
    # constant log(y!) 15.06457037.
    _, lines, err = run(SMALL + "print(mle(b -> -(y' * (X * b) - sum(exp(X * b))), [0.0, 0.0], nobs = 8))")
    assert err == ""
    assert lines == [
        "Maximum likelihood fit (n = 8, 2 parameters; BFGS: 9 iterations, converged)",
        "",
        "Coefficients:",
        "            Estimate  Std. Error  z value  Pr(>|z|)",
        "  theta[0]   -0.7043      0.6453   -1.091  0.275091",
        "  theta[1]    0.7258      0.1997    3.634  0.000279  ***",
        "---",
        "Signif. codes: 0 '***' 0.001 '**' 0.01 '*' 0.05 '.' 0.1 ' ' 1",
        "",
        "-2 log L: -30.12914  (log-likelihood 15.06457, df = 2)",
        "AIC: -26.12914  BIC: -25.97026"]


def test_without_nobs_bic_is_nan_and_the_printout_says_why():
    fit, _ = fitted(NORMAL + NORMAL_NLL + "fit = mle(nll, {mu = 4.0, sigma = 2.0})")
    assert np.isnan(fit.bic) and np.isnan(fit.nobs)
    assert "BIC: NaN (needs nobs = the number of observations)" in fit.describe()
    assert fit.describe().startswith("Maximum likelihood fit (2 parameters; BFGS: ")


def test_a_normal_sample_gives_the_closed_forms_on_either_scale():
    y = np.array([4.1, 5.3, 3.8, 6.2, 5.0, 4.4, 5.9, 4.7])
    mu, sigma, n = y.mean(), y.std(), y.size
    plain, _ = fitted(NORMAL + NORMAL_NLL + "fit = mle(nll, {mu = 4.0, sigma = 2.0})")
    logged, _ = fitted(NORMAL + NORMAL_NLL + "fit = mle(nll, {mu = 4.0, sigma = 2.0}, transform = {sigma = \"log\"})")
    for fit in (plain, logged):
        np.testing.assert_allclose(fit.estimate, [mu, sigma], rtol=1e-12)
        # the observed information of (mu, sigma) at the MLE is diag(n / sigma^2, 2 n / sigma^2)
        np.testing.assert_allclose(fit.vcov, np.diag([sigma ** 2 / n, sigma ** 2 / (2 * n)]), rtol=1e-9, atol=1e-14)
        assert fit.get("terms") == ["mu", "sigma"]
    assert "Fitted as log(sigma); standard errors by the delta method." in logged.describe()
    np.testing.assert_allclose(logged.se_eta, [sigma / np.sqrt(n), 1 / np.sqrt(2 * n)], rtol=1e-9)
    # the Hessian on the fitting scale: log(sigma)'s entry is 2 n
    assert logged.hessian[1, 1] == pytest.approx(2 * n, rel=1e-9)


def test_fields_are_shaped_as_start():
    interp, _, _ = run(SMALL + "fit = mle(p -> sum(exp(p.b[0] + p.b[1] * x)) - y' * (p.b[0] + p.b[1] * x) "
                       "+ (p.c - 1) ^ 2, {b = [0.0, 0.0], c = 0.0})\n"
                       "f = [fit.coef.b[1], fit.se.b[1], fit.z.c, fit.p.c, fit.gradient.b[0], fit.df, "
                       "fit.iterations > 0, fit.evaluations > 0]\nterms = fit.terms\nm = fit.method")
    f = interp.get("f")
    assert f[0] == pytest.approx(0.72584752, rel=1e-7) and f[1] == pytest.approx(0.19973762, rel=1e-7)
    assert f[2] == pytest.approx(1 / np.sqrt(0.5), rel=1e-9)     # c = 1, se = 1 / sqrt(2)
    assert abs(f[4]) < 1e-8 and list(f[5:]) == [3, 1, 1]
    assert interp.get("terms") == ["b[0]", "b[1]", "c"] and interp.get("m") == "bfgs"


def test_data_after_start_is_passed_to_nll():
    X, y = poisson_data(n=60, seed=4)
    a, _ = fitted("fit = mle((b, X, y) -> sum(exp(X * b)) - y' * (X * b), zeros(4), X, y)", X=X, y=y)
    b, _ = fitted("fit = mle(b -> sum(exp(X * b)) - y' * (X * b), zeros(4))", X=X, y=y)
    np.testing.assert_allclose(a.estimate, b.estimate, rtol=1e-12)
    np.testing.assert_allclose(a.se, b.se, rtol=1e-12)


@pytest.mark.parametrize("method", ["newton", "lbfgs", "nelder_mead"])
def test_every_method_reaches_the_same_fit_after_the_newton_steps(method):
    X, y = poisson_data(n=80, seed=6)
    ref = sm.Poisson(y, X).fit(disp=0, tol=1e-12)
    fit, _ = fitted(f"fit = mle(b -> sum(exp(X * b)) - y' * (X * b), zeros(4), method = \"{method}\")", X=X, y=y)
    assert fit.converged and fit.method == method
    np.testing.assert_allclose(fit.estimate, ref.params, rtol=1e-8)
    np.testing.assert_allclose(fit.se, ref.bse, rtol=1e-8)


# -- confint and vcov ------------------------------------------------------------------------
def test_confint_is_wald_and_a_log_parameter_is_mapped_back_from_its_scale():
    y = np.array([4.1, 5.3, 3.8, 6.2, 5.0, 4.4, 5.9, 4.7])
    mu, sigma, n = y.mean(), y.std(), y.size
    interp, lines, _ = run(NORMAL + NORMAL_NLL + "fit = mle(nll, {mu = 4.0, sigma = 2.0}, transform = "
                           "{sigma = \"log\"})\nci = confint(fit, level = 0.9)\nprint(ci)")
    ci, q = interp.get("ci"), stats.norm.ppf(0.95)
    np.testing.assert_allclose(ci.get("lower"), [mu - q * sigma / np.sqrt(n), sigma * np.exp(-q / np.sqrt(2 * n))],
                               rtol=1e-9)
    np.testing.assert_allclose(ci.get("upper"), [mu + q * sigma / np.sqrt(n), sigma * np.exp(q / np.sqrt(2 * n))],
                               rtol=1e-9)
    assert lines[0] == ("90% confidence intervals (Wald, normal quantiles; log(sigma) on that scale, mapped "
                        "back): a table of term, lower, upper")
    assert lines[1].split() == ["5", "%", "95", "%"] and lines[2].split()[0] == "mu"


def test_vcov_of_linreg_and_glm_equals_statsmodels_cov_params():
    rng = np.random.default_rng(11)
    A = rng.normal(size=(40, 2))
    y = 1 + A @ [0.5, -1.0] + rng.normal(size=40)
    counts = rng.poisson(np.exp(0.2 + A @ [0.3, 0.1])).astype(np.float64)
    gamma_y = rng.gamma(3.0, np.exp(0.5 + A @ [0.2, 0.1]) / 3.0)
    interp, _, _ = run("a = vcov(linreg(A, y))\ng = glm(A, counts, family = \"poisson\")\nb = vcov(g)\nse_b = g.se\n"
                       "c = vcov(glm(A, gamma_y, family = \"gamma\", link = \"log\"))", A=A, y=y, counts=counts,
                       gamma_y=gamma_y)
    X = sm.add_constant(A)
    np.testing.assert_allclose(interp.get("a"), sm.OLS(y, X).fit().cov_params(), rtol=1e-10)
    # IRLS stops at a deviance that changes by less than 1e-8: the two programs' last iterates,
    # whose weights give the covariance, differ by about 1e-5 and 1e-6
    poisson = sm.GLM(counts, X, family=sm.families.Poisson()).fit(tol=1e-12)
    np.testing.assert_allclose(interp.get("b"), poisson.cov_params(), rtol=5e-5)
    gamma = sm.GLM(gamma_y, X, family=sm.families.Gamma(sm.families.links.Log())).fit(tol=1e-12)
    np.testing.assert_allclose(interp.get("c"), gamma.cov_params(), rtol=5e-6)
    np.testing.assert_allclose(np.sqrt(np.diag(interp.get("b"))), interp.get("se_b"), rtol=1e-13)


def test_vcov_refuses_a_logistic_model_and_what_is_no_fit():
    e = error("v = vcov(logreg([1, 2, 3, 4, 5], [0, 1, 0, 1, 1]))")
    assert e.kind == "TypeError" and "fit glm(t, \"y ~ x\", family = \"binomial\")" in e.message
    e = error("v = vcov([1, 2])")
    assert e.kind == "TypeError" and e.message.startswith("vcov takes a fitted model (linreg, glm or mle), not")


# -- what goes wrong -------------------------------------------------------------------------
def test_a_singular_hessian_gives_nan_standard_errors_and_a_warning():
    # only a + b is identified: the Hessian is singular everywhere
    fit, err = fitted(NORMAL + "fit = mle(p -> sum((y - p.a - p.b) .^ 2) / 2, {a = 0.0, b = 0.0})")
    assert fit.estimate.sum() == pytest.approx(4.925, rel=1e-9)
    assert np.all(np.isnan(fit.se)) and np.all(np.isnan(fit.vcov))
    assert err == ("warning: mle: the Hessian of the negative log-likelihood at the estimates is singular, so "
                   "the standard errors are NaN (a parameter may not be identified by the data, or the fit "
                   "stopped away from a minimum). (m.lam:2)\n")
    assert "singular or not positive definite: the standard" in fit.describe()


def test_a_start_at_a_maximum_is_not_a_minimum():
    fit, err = fitted("fit = mle(b -> -(b ^ 2), 0.0)")
    assert not fit.converged and np.isnan(fit.se)
    assert "not positive definite (the estimates are not at a minimum of it)" in err
    assert "warning: mle did not converge" in err


def test_a_fit_that_does_not_converge_warns_and_says_so():
    # Newton steps on cosh from 50 move about 1 a step: ten of them do not reach 0
    fit, err = fitted("fit = mle(b -> exp(b) + exp(-b), 50.0, method = \"nelder_mead\", max_iter = 1)")
    assert not fit.converged
    assert err.startswith("warning: mle did not converge: Maximum number of iterations has been exceeded. "
                          "Newton decrement")
    assert "The fit did not converge (" in fit.describe()


@pytest.mark.parametrize("code, kind, words", [
    (NORMAL + NORMAL_NLL + "fit = mle(nll, {mu = 4.0, sigma = -1.0})", "ValueError",
     "mle: the negative log-likelihood is NaN at start {mu=4, sigma=-1}; start where every observation has "
     "a finite likelihood"),
    (NORMAL + NORMAL_NLL + "fit = mle(nll, {mu = 4.0, sigma = 0.0}, transform = {sigma = \"log\"})", "ValueError",
     "mle's start has sigma = 0, but it is fitted as log(sigma), so it must be above 0."),
    (NORMAL + NORMAL_NLL + "fit = mle(nll, {mu = 4.0, sigma = 1.0}, transform = {s = \"log\"})", "ValueError",
     "mle's transform names s, which start does not have (its fields: mu, sigma)."),
    (NORMAL + NORMAL_NLL + "fit = mle(nll, {mu = 4.0, sigma = 1.0}, transform = {sigma = \"exp\"})", "ValueError",
     "mle's transform.sigma is \"log\" (a parameter above 0), \"logit\" (between 0 and 1) or \"identity\""),
    (NORMAL + NORMAL_NLL + "fit = mle(nll, {mu = 4.0, sigma = 1.0}, transform = \"log\")", "TypeError",
     "mle's transform for a record start is a record naming the fields"),
    ("fit = mle(b -> b ^ 2, 1.0, nobs = 2.5)", "ValueError", "mle's nobs is the number of observations"),
    ("fit = mle(b -> [b, b], 1.0)", "TypeError", "mle's nll must return a number"),
    ("fit = mle(2, 1.0)", "TypeError", "mle's first argument must be the negative log-likelihood"),
    ("fit = mle(b -> b ^ 2, 1.0, method = \"sgd\")", "ValueError", "mle's method is one of"),
])
def test_bad_calls_are_clear(code, kind, words):
    e = error(code)
    assert e.kind == kind and words in e.message, e.message


def test_a_logit_parameter_stays_in_the_unit_interval():
    # binomial: 7 successes in 20, p fitted as logit(p): p = 0.35, se sqrt(p (1 - p) / n)
    fit, _ = fitted("fit = mle(p -> -(7 * log(p) + 13 * log(1 - p)), 0.5, transform = \"logit\")")
    assert fit.estimate[0] == pytest.approx(0.35, rel=1e-12)
    assert fit.se[0] == pytest.approx(np.sqrt(0.35 * 0.65 / 20), rel=1e-9)
    assert fit.get("terms") == ["theta"] and type(fit.get("coef")) is float


# -- examples/likelihood.lam -----------------------------------------------------------------
def test_the_example_fits_agree_with_statsmodels():
    source = (ROOT / "examples" / "likelihood.lam").read_text()
    interp, lines, err = run(source)
    assert err == ""
    pumps, counts = interp.get("pumps"), interp.get("counts")
    load, time, failed = (interp.get(k) for k in ("load", "time", "failed"))
    X = np.column_stack([np.ones(load.size), load])

    class Censored(GenericLikelihoodModel):
        def loglike(self, params):
            b0, b1, k = params
            scale = np.exp(b0 + b1 * load)
            return np.sum(failed * stats.weibull_min.logpdf(time, k, scale=scale)
                          - (1 - failed) * (time / scale) ** k)
    ref = Censored(time, X).fit(start_params=pumps.estimate, method="bfgs", disp=0, gtol=1e-9)
    np.testing.assert_allclose(pumps.estimate, ref.params, rtol=1e-7)
    np.testing.assert_allclose(pumps.se, ref.bse, rtol=1e-5)
    assert pumps.loglik == pytest.approx(ref.llf, rel=1e-12)
    # statsmodels' NB2: the variance mu + alpha mu^2, alpha = 1 / size; se(size) = se(alpha) / alpha^2
    speed, defects = interp.get("speed"), interp.get("defects")
    nb = sm.NegativeBinomial(defects, sm.add_constant(speed)).fit(disp=0, method="newton", tol=1e-12, maxiter=100)
    b0, b1, alpha = nb.params
    np.testing.assert_allclose(counts.estimate, [b0, b1, 1 / alpha], rtol=1e-7)
    np.testing.assert_allclose(counts.se, [nb.bse[0], nb.bse[1], nb.bse[2] / alpha ** 2], rtol=1e-6)
    assert counts.loglik == pytest.approx(nb.llf, rel=1e-12)
    assert lines[0] == "pumps: 200, failed: 177, censored: 23"
    assert lines[-1].startswith("negative binomial: b1 = ") and any("Fitted as log(k)" in s for s in lines)


# -- profile-likelihood intervals (stats/profile.py) -----------------------------------------
ZIP = ("y = [0, 6, 0, 0, 5, 0, 4, 0, 1, 0, 0, 5, 0, 0, 6, 1, 1, 0, 0, 0, 2, 0, 2, 0, 0, 2, 1, 4, 0, 0, 2, 3, 4, "
       "0, 0, 1, 0, 3, 0, 2]\nzero = float64(y == 0)\n"
       "nll = p -> -sum(zero .* log(p.pi + (1 - p.pi) * exp(-p.lambda)) + (1 - zero) .* (log(1 - p.pi) "
       "+ y * log(p.lambda) - p.lambda - lgamma(y + 1)))\n"
       "fit = mle(nll, {pi = 0.5, lambda = 1.0}, transform = {pi = \"logit\", lambda = \"log\"})\n")


def zip_nll(pi, lam, y):
    return -np.sum(np.where(y == 0, np.log(pi + (1 - pi) * np.exp(-lam)),
                            np.log(1 - pi) + stats.poisson.logpmf(y, lam)))


def test_profile_intervals_of_a_zero_inflated_poisson_equal_scipy_root_finding():
    y = np.array([0, 6, 0, 0, 5, 0, 4, 0, 1, 0, 0, 5, 0, 0, 6, 1, 1, 0, 0, 0, 2, 0, 2, 0, 0, 2, 1, 4, 0, 0, 2, 3,
                  4, 0, 0, 1, 0, 3, 0, 2], dtype=np.float64)
    interp, lines, err = run(ZIP + "ci = confint(fit, method = \"profile\", level = 0.9)\nprint(ci)")
    ci, fit = interp.get("ci"), interp.get("fit")
    assert err == ""
    q = stats.chi2.ppf(0.9, 1)
    best = zip_nll(*fit.estimate, y)
    # profile of pi: lambda minimized (bounded scalar search) at each pi, root of the deviance
    prof_pi = lambda pi: 2 * (optimize.minimize_scalar(lambda lam: zip_nll(pi, lam, y), bounds=(0.5, 10),  # noqa: E731
                                                       method="bounded", options={"xatol": 1e-12}).fun - best) - q
    prof_lam = lambda lam: 2 * (optimize.minimize_scalar(lambda pi: zip_nll(pi, lam, y), bounds=(1e-6, 1 - 1e-6),  # noqa: E731
                                                         method="bounded", options={"xatol": 1e-12}).fun - best) - q
    pi_hat, lam_hat = fit.estimate
    expected_lower = [optimize.brentq(prof_pi, 0.05, pi_hat), optimize.brentq(prof_lam, 1.0, lam_hat)]
    expected_upper = [optimize.brentq(prof_pi, pi_hat, 0.95), optimize.brentq(prof_lam, lam_hat, 8.0)]
    np.testing.assert_allclose(ci.get("lower"), expected_lower, rtol=1e-7)
    np.testing.assert_allclose(ci.get("upper"), expected_upper, rtol=1e-7)
    # R 4.2.2's stats4 confint(mle(...), level = 0.9) (interpolating its profile by splines):
    # pi 0.3486202479 0.6276516228, lambda 2.0805974345 3.4156225145
    np.testing.assert_allclose(ci.get("lower"), [0.3486202479, 2.0805974345], rtol=1e-4)
    np.testing.assert_allclose(ci.get("upper"), [0.6276516228, 3.4156225145], rtol=1e-4)
    assert lines[0] == "90% confidence intervals (profile likelihood): a table of term, lower, upper"


def test_a_one_parameter_profile_is_the_likelihood_ratio_interval():
    # Poisson mean of counts summing to 7 in 5: D(m) = 2 (5 m - 7 log m - (7 - 7 log(7 / 5)))
    fit, _ = fitted("y = [2, 0, 1, 3, 1]\nfit = mle(m -> 5 * m - sum(y) * log(m), 1.0, transform = \"log\")")
    interp, _, _ = run("y = [2, 0, 1, 3, 1]\nfit = mle(m -> 5 * m - sum(y) * log(m), 1.0, transform = \"log\")\n"
                       "ci = confint(fit, method = \"profile\")")
    ci = interp.get("ci")
    d = lambda m: 2 * (5 * m - 7 * np.log(m) - (7 - 7 * np.log(7 / 5))) - stats.chi2.ppf(0.95, 1)  # noqa: E731
    assert ci.get("lower")[0] == pytest.approx(optimize.brentq(d, 0.1, 1.4), rel=1e-9)
    assert ci.get("upper")[0] == pytest.approx(optimize.brentq(d, 1.4, 10), rel=1e-9)
    assert fit.estimate[0] == pytest.approx(1.4, rel=1e-12)


def test_a_profile_that_never_reaches_the_bound_gives_an_infinite_limit_and_a_warning():
    # nll = 1 - exp(-b^2): its minimum 0 at b = 0, and it never rises above 1 < chi2(0.95, 1) / 2
    interp, _, err = run("fit = mle(b -> 1 - exp(-(b ^ 2)), 0.5)\nci = confint(fit, method = \"profile\")")
    ci = interp.get("ci")
    assert list(ci.get("lower")) == [-np.inf] and list(ci.get("upper")) == [np.inf]
    assert err == ("warning: confint: the profile likelihood of theta stays within the interval's bound as far "
                   "as it was followed, so its lower and upper limits are -Inf and Inf on its fitting scale (R gives NA). "
                   "(m.lam:2)\n")


def test_profile_intervals_are_for_mle_fits_and_the_method_is_checked():
    e = error("ci = confint(linreg([1, 2, 3, 4], [1.0, 2.5, 2.9, 4.2]), method = \"profile\")")
    assert e.kind == "ValueError" and "method = \"profile\" is for a fit of mle" in e.message
    e = error(ZIP + "ci = confint(fit, method = \"exact\")")
    assert e.kind == "ValueError" and e.message == "confint's method is \"wald\" or \"profile\", not \"exact\"."


@pytest.mark.parametrize("data", ["param([1.0, 2.0, 3.0])", "2 * param([1.0, 2.0, 3.0])"])
def test_a_likelihood_that_reads_tracked_data_is_refused(data):
    # the estimates would depend on the data, handed out as plain numbers: a later grad against
    # the data would silently take them as constants (tracked data passed as an argument is
    # refused as every builtin refuses one)
    err = error(f"y = {data}\nfunction nll(p)\n    return sum((y - p.m) .^ 2)\nend function\n"
                f"fit = mle(nll, {{m = 0.0}})")
    assert err.kind == "TypeError" and "nll reads values that are tracked" in err.message
    assert "detach" in err.message and err.span.line == 5
