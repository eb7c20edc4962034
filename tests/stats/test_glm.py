"""stats/glm.py and stats/families.py (glm by IRLS, R's summary(glm)), logreg of a formula, and
aic, bic and loglik of every fit: against R 4.2.2's printed output and numbers (mtcars and
InsectSprays, written out in tests/stats/data) and statsmodels' GLM for every family and link."""
import contextlib
import io
import pathlib
import warnings

import numpy as np
import pytest

from lamina import warnings as channel
from lamina.errors import LaminaError
from lamina.interpreter import Interpreter
from lamina.stats.glm import glm

DATA = pathlib.Path(__file__).parent / "data"
LOAD = (f'cars = read_csv("{DATA / "mtcars.csv"}")\n'
        f'sprays = read_csv("{DATA / "insectsprays.csv"}")\n')


@pytest.fixture(autouse=True)
def fresh_channel():
    channel.reset()
    yield
    channel.reset()


def run(code: str) -> tuple[Interpreter, list[str], list[str]]:
    out, err = io.StringIO(), io.StringIO()
    interp = Interpreter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        interp.run(LOAD + code, "g.lam")
    return interp, out.getvalue().splitlines(), err.getvalue().splitlines()


def fitted(call: str):
    interp, _, _ = run(f"fit = {call}")
    return interp.get("fit")


# R 4.2.2, print(summary(glm(...))) from "Coefficients:" on (R 4.3 prints the same without the
# deviance residuals above it); the quotes of the Signif. codes line are R's UTF-8 ones.
R_AM_WT = """\
Coefficients:
            Estimate Std. Error z value Pr(>|z|)   
(Intercept)   12.040      4.510   2.670  0.00759 **
wt            -4.024      1.436  -2.801  0.00509 **
---
Signif. codes:  0 ‘***’ 0.001 ‘**’ 0.01 ‘*’ 0.05 ‘.’ 0.1 ‘ ’ 1

(Dispersion parameter for binomial family taken to be 1)

    Null deviance: 43.230  on 31  degrees of freedom
Residual deviance: 19.176  on 30  degrees of freedom
AIC: 23.176

Number of Fisher Scoring iterations: 6"""
R_SPRAYS = """\
Coefficients:
            Estimate Std. Error z value Pr(>|z|)    
(Intercept)  2.67415    0.07581  35.274  < 2e-16 ***
sprayB       0.05588    0.10574   0.528    0.597    
sprayC      -1.94018    0.21389  -9.071  < 2e-16 ***
sprayD      -1.08152    0.15065  -7.179 7.03e-13 ***
sprayE      -1.42139    0.17192  -8.268  < 2e-16 ***
sprayF       0.13926    0.10367   1.343    0.179    
---
Signif. codes:  0 ‘***’ 0.001 ‘**’ 0.01 ‘*’ 0.05 ‘.’ 0.1 ‘ ’ 1

(Dispersion parameter for poisson family taken to be 1)

    Null deviance: 409.041  on 71  degrees of freedom
Residual deviance:  98.329  on 66  degrees of freedom
AIC: 376.59

Number of Fisher Scoring iterations: 5"""
R_GAMMA = """\
Coefficients:
             Estimate Std. Error t value Pr(>|t|)    
(Intercept) 8.923e-03  2.960e-03   3.015 0.005303 ** 
wt          9.826e-03  1.460e-03   6.731 2.19e-07 ***
hp          8.887e-05  2.226e-05   3.993 0.000408 ***
---
Signif. codes:  0 ‘***’ 0.001 ‘**’ 0.01 ‘*’ 0.05 ‘.’ 0.1 ‘ ’ 1

(Dispersion parameter for Gamma family taken to be 0.01161212)

    Null deviance: 2.73529  on 31  degrees of freedom
Residual deviance: 0.33449  on 29  degrees of freedom
AIC: 142.2

Number of Fisher Scoring iterations: 4"""

R_QUASIPOISSON = """\
Coefficients:
            Estimate Std. Error t value Pr(>|t|)    
(Intercept)  2.67415    0.09309  28.728  < 2e-16 ***
sprayB       0.05588    0.12984   0.430    0.668    
sprayC      -1.94018    0.26263  -7.388 3.30e-10 ***
sprayD      -1.08152    0.18499  -5.847 1.70e-07 ***
sprayE      -1.42139    0.21110  -6.733 4.82e-09 ***
sprayF       0.13926    0.12729   1.094    0.278    
---
Signif. codes:  0 ‘***’ 0.001 ‘**’ 0.01 ‘*’ 0.05 ‘.’ 0.1 ‘ ’ 1

(Dispersion parameter for quasipoisson family taken to be 1.507713)

    Null deviance: 409.041  on 71  degrees of freedom
Residual deviance:  98.329  on 66  degrees of freedom
AIC: NA

Number of Fisher Scoring iterations: 5"""
R_QUASIBINOMIAL = """\
Coefficients:
            Estimate Std. Error t value Pr(>|t|)   
(Intercept)   12.040      4.122   2.921  0.00657 **
wt            -4.024      1.313  -3.065  0.00458 **
---
Signif. codes:  0 ‘***’ 0.001 ‘**’ 0.01 ‘*’ 0.05 ‘.’ 0.1 ‘ ’ 1

(Dispersion parameter for quasibinomial family taken to be 0.8355128)

    Null deviance: 43.230  on 31  degrees of freedom
Residual deviance: 19.176  on 30  degrees of freedom
AIC: NA

Number of Fisher Scoring iterations: 6"""


def words(text: str) -> list[list[str]]:
    """Each line's words: R's table is two spaces narrower and its quotes are curly."""
    return [line.replace("‘", "'").replace("’", "'").split() for line in text.splitlines()]


@pytest.mark.parametrize("call, title, r_text", [
    ('glm(cars, "am ~ wt", family = "binomial")',
     "Generalized linear model: am ~ wt  (binomial family, logit link, n = 32)", R_AM_WT),
    ('glm(sprays, "count ~ spray", family = "poisson")',
     "Generalized linear model: count ~ spray  (poisson family, log link, n = 72)", R_SPRAYS),
    ('glm(cars, "mpg ~ wt + hp", family = "gamma")',
     "Generalized linear model: mpg ~ wt + hp  (Gamma family, inverse link, n = 32)", R_GAMMA),
    ('glm(sprays, "count ~ spray", family = "quasipoisson")',
     "Generalized linear model: count ~ spray  (quasipoisson family, log link, n = 72)", R_QUASIPOISSON),
    ('glm(cars, "am ~ wt", family = "quasibinomial")',
     "Generalized linear model: am ~ wt  (quasibinomial family, logit link, n = 32)", R_QUASIBINOMIAL),
])
def test_summary_prints_r_s_numbers(call, title, r_text):
    _, out, err = run(f"print({call})")
    assert out[:2] == [title, ""] and err == []
    assert words("\n".join(out[2:])) == words(r_text)
    # R's deviance lines pad both deviances and both dfs to one width
    deviance_lines = [line for line in out if "deviance:" in line]
    assert deviance_lines == [line for line in r_text.splitlines() if "deviance:" in line]


# R 4.2.2: print(coef(summary(f)), digits = 10) and f$deviance, f$null.deviance, f$aic,
# summary(f)$dispersion, logLik(f), BIC(f), f$iter, f$df.residual, f$df.null
R_FITS = {
    'glm(cars, "am ~ wt", family = "binomial")': (
        [[12.04036966, 4.509706105, 2.669879007, 0.007587858376],
         [-4.02396994, 1.436415784, -2.801396354, 0.005088198288]],
        [19.17608481, 43.22973328, 23.17608481, 1, -9.588042404, 26.10755661], 6, 30, 31),
    'glm(sprays, "count ~ spray", family = "poisson")': (
        [[2.67414864943, 0.07580980436, 35.2744433530, 1.448047686e-272],
         [0.05588045839, 0.10574454617, 0.5284476639, 5.971886629e-01],
         [-1.94017947435, 0.21388566132, -9.0711058532, 1.178151251e-19],
         [-1.08151785531, 0.15065284258, -7.1788745354, 7.028760969e-13],
         [-1.42138568093, 0.17192047650, -8.2676927718, 1.365762964e-16],
         [0.13926206733, 0.10366834829, 1.3433422026, 1.791611926e-01]],
        [98.32866302, 409.0411927, 376.589208, 1, -182.294604, 390.2492047], 5, 66, 71),
    'glm(cars, "mpg ~ wt + hp", family = "gamma")': (
        [[8.922600001e-03, 2.959836847e-03, 3.014558052, 5.302836105e-03],
         [9.826436155e-03, 1.459975331e-03, 6.730549448, 2.194206158e-07],
         [8.887335871e-05, 2.225967142e-05, 3.992572803, 4.082130751e-04]],
        [0.3344894457, 2.73528965, 142.2003876, 0.01161212173, -67.1001938, 148.0633312], 4, 29, 31),
    'glm(cars, "mpg ~ wt", family = "inverse_gaussian")': (
        [[-0.001348696493, 0.0003472280978, -3.884180174, 5.244309854e-04],
         [0.001344660968, 0.0001342151222, 10.018699435, 4.380372893e-11]],
        [0.03437859044, 0.1424889611, 161.9796175, 0.001154711075, -77.98980875, 166.3768252], 4, 30, 31),
    'glm(cars, "mpg ~ wt + factor(cyl)", family = "gaussian", link = "log")': (
        [[3.7136739190, 0.09010154661, 41.216539102, 1.308003195e-26],
         [-0.1899181541, 0.03949346446, -4.808850191, 4.677112956e-05],
         [-0.1419370616, 0.06362691151, -2.230770883, 3.388562042e-02],
         [-0.2516404241, 0.08194794915, -3.070734859, 4.712064645e-03]],
        [158.9907149, 1126.047187, 152.1115829, 5.678251196, -71.05579147, 159.4402625], 4, 28, 31),
    'glm(cars, "am ~ wt + hp", family = "binomial", link = "probit")': (
        [[10.40551954950, 3.620339724935, 2.874183182, 0.004050739464],
         [-4.54219151765, 1.512052934857, -3.003989750, 0.002664643021],
         [0.02125896084, 0.009190388858, 2.313173161, 0.020713120584]],
        [9.860507139, 43.22973328, 15.86050714, 1, -4.93025357, 20.25771485], 9, 29, 31),
    'glm(sprays, "count ~ spray", family = "poisson", link = "identity")': (
        [[14.5, 1.099242163, 13.1909059583, 9.898843331e-40],
         [0.8333333333, 1.576740661, 0.5285164226, 5.971409517e-01],
         [-12.4166666667, 1.175561332, -10.5623299546, 4.454652628e-26],
         [-9.5833333333, 1.272028127, -7.5339004939, 4.924666056e-14],
         [-11.0, 1.224744871, -8.9814623902, 2.671914458e-19],
         [2.1666666667, 1.611589967, 1.3444279940, 1.788100265e-01]],
        [98.32866302, 409.0411927, 376.589208, 1, -182.294604, 390.2492047], 3, 66, 71),
    # offset = log(rep(c(1, 2), 36)): the null deviance is the intercept's refit with the offset
    'glm(sprays, "count ~ spray", family = "poisson", offset = log(mod(range(72), 2) + 1))': (
        [[2.26868354132, 0.07580980436, 29.9259912436, 9.035444529e-197],
         [0.05588045839, 0.10574454617, 0.5284476639, 5.971886629e-01],
         [-1.94017947420, 0.21388418989, -9.0711682578, 1.177476596e-19],
         [-1.08151785531, 0.15065284231, -7.1788745484, 7.028760301e-13],
         [-1.42138568093, 0.17192047645, -8.2676927746, 1.365762932e-16],
         [0.13926206733, 0.10366834827, 1.3433422029, 1.791611925e-01]],
        [184.4374369, 495.1499666, 462.6979819, 1, -225.3489909, 476.3579786], 5, 66, 71),
}


@pytest.mark.parametrize("call", list(R_FITS))
def test_numbers_equal_r_s_to_8_digits(call):
    table, scalars, iterations, df_residual, df_null = R_FITS[call]
    with contextlib.redirect_stderr(io.StringIO()):         # the probit fit warns, as R does
        fit = fitted(call)
    stat = "z" if fit.get("family") in ("binomial", "poisson") else "t"
    ours = np.column_stack([fit.get("coef"), fit.get("se"), fit.get(stat), fit.get("p")])
    np.testing.assert_allclose(ours, table, rtol=1e-8)
    np.testing.assert_allclose([fit.get(k) for k in ("deviance", "null_deviance", "aic", "dispersion",
                                                     "loglik", "bic")], scalars, rtol=1e-8)
    assert (fit.get("iterations"), fit.get("df_residual"), fit.get("df_null")) == (iterations, df_residual, df_null)
    assert fit.get("converged") is True and fit.get("n") == 32 + 40 * ("sprays" in call)


def test_the_probit_fit_warns_as_r_does():
    _, _, err = run('fit = glm(cars, "am ~ wt + hp", family = "binomial", link = "probit")')
    assert err == ["warning: glm: fitted probabilities numerically 0 or 1 occurred. (g.lam:3)"]


def test_logreg_of_a_formula_is_r_s_binomial_glm():
    fit = fitted('logreg(cars, "am ~ wt")')
    table = np.array(R_FITS['glm(cars, "am ~ wt", family = "binomial")'][0])
    np.testing.assert_allclose(np.column_stack([fit.get("coef"), fit.get("se"), fit.get("z"), fit.get("p")]),
                               table, rtol=1e-8)
    assert fit.get("terms") == ["(Intercept)", "wt"] and fit.get("separation") == "none"
    # the column shape (L-BFGS) agrees with it to its own precision
    by_columns = fitted('logreg(cars, "am", ["wt"])')
    np.testing.assert_allclose(by_columns.get("coef"), fit.get("coef"), rtol=1e-6)


@pytest.mark.parametrize("call, r", [
    # R: logLik(f), AIC(f), BIC(f)
    ('linreg(cars, "mpg ~ wt * factor(cyl)")', (-70.74054558, 155.4810912, 165.7412425)),
    ('logreg(cars, "am", ["wt"])', (-9.588042404, 23.17608481, 26.10755661)),
    ('logreg(cars, "am ~ wt")', (-9.588042404, 23.17608481, 26.10755661)),
    ('glm(cars, "mpg ~ wt + hp", family = "gamma")', (-67.1001938, 142.2003876, 148.0633312)),
    ('glm(cars, "mpg ~ wt + hp")', (-74.32616941, 156.6523388, 162.5152824)),
])
def test_loglik_aic_and_bic_equal_r_s(call, r):
    interp, out, _ = run(f"fit = {call}\nprint(loglik(fit), aic(fit), bic(fit))")
    np.testing.assert_allclose([float(s) for s in out[0].split()], r, rtol=1e-8)


def test_a_penalized_logistic_fit_has_no_aic():
    with pytest.raises(LaminaError) as info:
        run('print(aic(logreg(cars, "am", ["wt"], l2 = 0.1)))')
    assert info.value.message == ("aic of a logistic model fitted with a penalty (l2 = 0.1) is not defined: "
                                  "the penalty leaves its weights fewer than 2 free parameters. Fit it with l2 = 0.")


# -- against statsmodels' GLM, every family, canonical and other links, weights and offsets -------------
def _data(rng):
    n = 60
    x1, x2 = rng.normal(size=n), rng.uniform(0, 2, size=n)
    return n, np.column_stack([x1, x2]), rng.integers(1, 5, size=n).astype(float), rng.uniform(-0.3, 0.3, size=n)


def _response(rng, family, link, X, trials, offset):
    eta = 0.5 + 0.4 * X[:, 0] - 0.3 * X[:, 1]
    if family == "quasipoisson":        # overdispersed and not whole counts: what the family is for
        mean = np.exp(eta + offset) + (5 if link != "log" else 0)
        return rng.negative_binomial(2, 2 / (2 + mean)) / 2
    if family.endswith("binomial"):
        return rng.binomial(trials.astype(int), 1 / (1 + np.exp(-eta))) / trials
    if family == "poisson":
        return rng.poisson(np.exp(eta + offset) + (5 if link != "log" else 0)).astype(float)
    if family == "gaussian":
        return eta + 3 + 0.5 * rng.normal(size=eta.size)
    if family == "gamma":
        return rng.gamma(3, np.exp(eta) / 3)
    mean = np.exp(eta) if link == "log" else (1.0 + 0.1 * X[:, 0] + 0.2 * X[:, 1]) ** -0.5
    return rng.wald(mean, 4.0)


CASES = [("binomial", "logit"), ("binomial", "probit"), ("binomial", "cloglog"), ("binomial", "cauchit"),
         ("poisson", "log"), ("poisson", "identity"), ("poisson", "sqrt"), ("gaussian", "identity"),
         ("gaussian", "log"), ("gamma", "inverse"), ("gamma", "log"), ("inverse_gaussian", "1/mu^2"),
         ("inverse_gaussian", "log"), ("quasibinomial", "logit"), ("quasipoisson", "log"), ("quasipoisson", "sqrt")]


@pytest.mark.parametrize("family, link", CASES)
@pytest.mark.parametrize("weighted", [False, True])
def test_against_statsmodels_glm(family, link, weighted):
    sm = pytest.importorskip("statsmodels.api")
    L = sm.families.links
    links = {"logit": L.Logit, "probit": L.Probit, "cloglog": L.CLogLog, "cauchit": L.Cauchy, "log": L.Log,
             "identity": L.Identity, "sqrt": L.Sqrt, "inverse": L.InversePower, "1/mu^2": L.InverseSquared}
    families = {"binomial": sm.families.Binomial, "poisson": sm.families.Poisson, "gaussian": sm.families.Gaussian,
                "gamma": sm.families.Gamma, "inverse_gaussian": sm.families.InverseGaussian,
                "quasibinomial": sm.families.Binomial, "quasipoisson": sm.families.Poisson}
    rng = np.random.default_rng(7 + 13 * CASES.index((family, link)) + weighted)
    n, X, trials, offset = _data(rng)
    y = _response(rng, family, link, X, trials if weighted else np.ones(n), offset)
    weights = trials if weighted else None
    off = offset if weighted and link == "log" else None       # an offset on another link leaves its range
    # Tight: at R's 1e-8 a non-canonical link's Fisher scoring stops ~1e-6 from the optimum
    ours = glm(X, y, family, link, weights=weights, offset=off, tolerance=1e-14)
    estimated = family not in ("binomial", "poisson")
    A = sm.add_constant(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # R's proportions and trials: statsmodels' (successes, failures); for the quasibinomial its
        # var_weights, since its Pearson dispersion of the two-column form is not R's
        if family == "binomial" and weighted:
            model = sm.GLM(np.column_stack([y * trials, trials - y * trials]), A, family=families[family](links[link]()))
        else:
            model = sm.GLM(y, A, family=families[family](links[link]()), var_weights=weights, offset=off)
        # a quasi family: the same fit, its dispersion the Pearson statistic / residual df
        ref = model.fit(tol=1e-14, maxiter=200, use_t=estimated, scale="X2" if family.startswith("quasi") else None)
    # Both stop on the deviance, which is flat at the optimum: a coefficient near 0 agrees to 1e-6
    # of its standard error, not of itself (its p-value likewise to 1e-9).
    np.testing.assert_allclose(ours.coef, ref.params, rtol=1e-6, atol=1e-6 * ref.bse.min())
    np.testing.assert_allclose(ours.p, ref.pvalues, rtol=1e-6, atol=1e-9)
    for ours_value, theirs in [(ours.se, ref.bse), (ours.deviance, ref.deviance),
                               (ours.null_deviance, ref.null_deviance), (ours.dispersion, ref.scale)]:
        np.testing.assert_allclose(ours_value, theirs, rtol=1e-6)
    if not estimated:       # statsmodels' log-likelihood is R's where the dispersion is 1
        np.testing.assert_allclose([ours.loglik, ours.aic], [ref.llf, ref.aic], rtol=1e-6)
    elif family.startswith("quasi"):        # no likelihood: R's AIC and logLik are NA
        assert np.isnan(ours.aic) and np.isnan(ours.loglik) and np.isnan(ours.bic)
    else:
        np.testing.assert_allclose(ours.aic, _r_aic(family, y, ours.fitted, weights, ours.deviance, X.shape[1] + 1),
                                   rtol=1e-9)


def _r_aic(family, y, mu, weights, deviance, p):
    """R's AIC where the dispersion is estimated, from SciPy's densities at the maximum-likelihood
    dispersion deviance / sum(w), with the dispersion counted as a parameter."""
    from scipy import stats
    w = np.ones(y.size) if weights is None else weights
    phi = deviance / w.sum()
    if family == "gaussian":        # variance phi / w for row i: R's gaussian()$aic uses deviance / n
        phi = deviance / y.size
        density = stats.norm.logpdf(y, mu, np.sqrt(phi / w))
        return -2 * density.sum() + 2 * (p + 1)
    if family == "gamma":
        density = stats.gamma.logpdf(y, 1 / phi, scale=mu * phi)
    else:                           # inverse Gaussian with shape 1 / phi
        density = stats.invgauss.logpdf(y, mu * phi, scale=1 / phi)
    return -2 * (w * density).sum() + 2 * (p + 1)


# -- bad input, warnings and the fields ---------------------------------------------------------------
@pytest.mark.parametrize("call, kind, message", [
    ('glm(cars, "am ~ wt", family = "logistic")', "ValueError",
     'glm\'s family must be one of binomial, poisson, gaussian, gamma, inverse_gaussian, quasibinomial, quasipoisson, not "logistic".'),
    ('glm(cars, "am ~ wt", family = "poisson", link = "logit")', "ValueError",
     'glm\'s poisson family takes the link log, identity, sqrt (as R\'s does), not "logit".'),
    ('glm(cars, "mpg ~ wt", family = "binomial")', "ValueError",
     "glm's binomial response must lie in [0, 1] (0/1 outcomes, or proportions with the trials as weights), "
     "but holds 21."),
    ('glm(table({y = [1, -2, 3, 4], x = [1, 2, 3, 4]}), "y ~ x", family = "poisson")', "ValueError",
     "glm's poisson response must be counts (whole numbers at least 0), but holds -2; for rates, model the "
     "counts with offset = log(exposure)."),
    ('glm(cars, "wt ~ mpg", family = "poisson")', "ValueError",
     "glm's poisson response must be counts (whole numbers at least 0), but holds 2.62; for rates, model the "
     "counts with offset = log(exposure)."),
    ('glm(cars, "am ~ wt", family = "gamma")', "ValueError", "glm's gamma response must be above 0, but holds 0."),
    ('glm(cars, "am ~ wt", family = "inverse_gaussian")', "ValueError",
     "glm's inverse_gaussian response must be above 0, but holds 0."),
    ('glm(cars, "mpg ~ wt", weights = "am")', "ValueError",
     "glm's weights must be above 0, but one is 0; drop the rows that should not count."),
    ('glm(cars, "mpg ~ wt", weights = [1, 2])', "ShapeError", "glm's weights needs one number per row (32), but has 2."),
    ('glm(cars, "mpg ~ wt", offset = "exposure")', "NameError",
     "The table has no column 'exposure'; its columns are mpg, cyl, hp, wt, am."),
    ('glm(cars, "mpg")', "ValueError", 'glm of a table needs a formula with the response left of ~, as "y ~ x + g", not "mpg".'),
    ('glm(cars, "mpg ~ wt", tolerance = 2)', "ValueError",
     "glm's tolerance must lie between 0 and 1 (R's epsilon, 1e-8 by default), not 2."),
    ('glm(cars, "mpg ~ wt + I(2 * wt)")', "ValueError",
     "glm's predictors are collinear (the model matrix has rank 2 < 3 columns): some column is a combination "
     "of others (or of the intercept); drop it."),
    ('glm(cars, "mpg ~ zz")', "NameError",
     "The formula \"mpg ~ zz\" names 'zz', which is no column of the table (its columns are am, cyl, hp, mpg, wt)."),
    ('logreg(cars, "am ~ wt", l2 = 0.1)', "ValueError",
     'logreg with a formula fits R\'s glm(formula, binomial), which has no penalty; for l2 > 0 give the '
     'predictors as a list of columns: logreg(t, "y", ["x"], l2 = 0.1).'),
])
def test_bad_input_is_an_error_that_names_it(call, kind, message):
    with pytest.raises(LaminaError) as info:
        run(f"fit = {call}")
    assert (info.value.kind, info.value.message) == (kind, message)


def test_a_separated_binomial_fit_warns_and_has_not_converged():
    _, out, err = run('t = table({y = [0, 0, 0, 1, 1, 1], x = [1, 2, 3, 4, 5, 6]})\n'
                      'fit = glm(t, "y ~ x", family = "binomial")\nprint(fit.converged, fit.separation)\n'
                      'print(split(string(fit), "\\n")[-1])')
    assert out == ["false complete",
                   "Complete separation: a line puts every 1 on one side and every 0 on the other: the "
                   "maximum-likelihood estimate does not exist, so these estimates, standard errors and p "
                   "values mean nothing."]
    assert err == ["warning: glm: a line separates the two classes perfectly, so the maximum-likelihood "
                   "coefficients are infinite: the fit stopped at large ones and its standard errors mean "
                   "nothing. (g.lam:4)"]


def test_running_out_of_iterations_warns_and_says_so():
    _, out, err = run('fit = glm(sprays, "count ~ spray", family = "poisson", max_iter = 2)\n'
                      'print(fit.converged, fit.iterations)')
    assert out == ["false 2"]
    assert err == ["warning: glm did not converge in 2 iterations of Fisher scoring (R's glm.fit warns the "
                   "same); raise max_iter, or try another link. (g.lam:3)"]


def test_non_whole_successes_warn_as_r_does():
    _, _, err = run('t = table({y = [0.1, 0.5, 0.3, 0.9], x = [1, 2, 3, 4]})\nfit = glm(t, "y ~ x", family = "binomial")')
    assert err == ["warning: glm: a binomial response times its weights should count successes, but some are "
                   "not whole numbers (R warns: non-integer #successes in a binomial glm). (g.lam:4)"]


def test_proportions_with_trials_as_weights_equal_the_0_1_rows():
    """R's binomial: a proportion with its trials as weights is the same fit as the 0/1 rows."""
    grouped = fitted('glm(table({y = [0.25, 0.5, 0.75], x = [1, 2, 3]}), "y ~ x", family = "binomial", '
                     'weights = [4, 4, 4], tolerance = 1e-13)')
    rows = fitted('glm(table({y = [1, 0, 0, 0, 1, 1, 0, 0, 1, 1, 1, 0], x = [1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3]}), '
                  '"y ~ x", family = "binomial", tolerance = 1e-13)')
    np.testing.assert_allclose(grouped.get("coef"), rows.get("coef"), rtol=1e-10)
    np.testing.assert_allclose(grouped.get("se"), rows.get("se"), rtol=1e-8)


def test_fields_and_the_matrix_shape():
    fit = fitted('glm([1, 2, 3, 4, 5, 6], [2, 3, 6, 7, 8, 12], family = "poisson", names = ["dose"])')
    assert fit.field_names() == ["coef", "se", "z", "p", "terms", "converged", "deviance", "null_deviance",
                                 "df_residual", "df_null", "dispersion", "aic", "bic", "loglik", "iterations",
                                 "fitted", "linear_predictor", "family", "link", "n"]
    assert fit.get("terms") == ["(Intercept)", "dose"] and (fit.get("family"), fit.get("link")) == ("poisson", "log")
    np.testing.assert_allclose(fit.get("fitted"), np.exp(fit.get("linear_predictor")))
    np.testing.assert_allclose(fit.get("linear_predictor"), fit.get("coef")[0] + fit.get("coef")[1] * np.arange(1, 7))
    gaussian = fitted('glm(cars, "mpg ~ wt")')
    assert "t" in gaussian.field_names() and "z" not in gaussian.field_names()
    ols = fitted('linreg(cars, "mpg ~ wt")')
    np.testing.assert_allclose(gaussian.get("coef"), ols.get("coef"), rtol=1e-12)
    np.testing.assert_allclose(gaussian.get("se"), ols.get("se"), rtol=1e-10)
    assert "<table" in gaussian.html()
