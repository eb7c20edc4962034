"""Generalized linear models and the likelihood of any fit: glm, aic, bic, loglik (the numerics
are stats/glm.py's and stats/families.py's)."""
from __future__ import annotations

from ..stats import glm as G
from .registry import FLOAT64_STATISTICS, Shape, builtin, refuse_tracked
from .regression import FORMULA

CATEGORY = "Statistics"
FITS = "takes a fitted model, which holds no tracked values"
COUNTS = ("t = table({deaths = [2, 3, 6, 7, 8, 9, 10, 12, 15], dose = [1, 2, 3, 4, 5, 6, 7, 8, 9],\n"
          "           site = [\"a\", \"b\", \"c\", \"a\", \"b\", \"c\", \"a\", \"b\", \"c\"]})\n")
CARS = ("cars = table({am = [1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 0],\n"
        "              wt = [2.62, 2.875, 2.32, 3.215, 3.44, 3.46, 3.57, 3.19, 2.465, 3.17, 2.14, 3.15]})\n")
FAMILIES = ("family and link: binomial (logit, probit, cauchit, log, cloglog), poisson (log, identity, "
            "sqrt), gaussian (identity, log, inverse), gamma (inverse, identity, log) and "
            "inverse_gaussian (1/mu^2, inverse, identity, log), quasibinomial and quasipoisson "
            "(binomial's and poisson's links), the first link of each the default (canonical); "
            "family = \"gaussian\" when none is given, as R's glm.")


@builtin("glm", pure="a value", tracked="refuses", category=CATEGORY,
         probes=["glm(q, [1, 2, 4, 3], family = \"poisson\")", "glm(q, p)"],
         float64_results=(FLOAT64_STATISTICS, ("result",)),
         shapes=[Shape("glm(t, \"y ~ x + g\", family = \"poisson\")", "table, formula, family name",
                       "generalized linear model", "R's glm(y ~ x + g, poisson, t)."),
                 Shape("glm(t, formula, family = \"binomial\", link = \"probit\")", "the same, link name",
                       "generalized linear model", "Another link than the family's canonical one."),
                 Shape("glm(t, formula, family, weights = \"w\", offset = \"o\")",
                       "the same, column names or vectors", "generalized linear model",
                       "Prior weights (a binomial's trials) and an offset (log exposure)."),
                 Shape("glm(X, y, family = \"gamma\")", "n x k matrix (or vector), vector of n",
                       "generalized linear model", "From a matrix of predictors; an intercept is added.")],
         summary="Fits a generalized linear model by iteratively reweighted least squares (Fisher "
                 "scoring), as R's glm, and prints R's summary(glm): coefficients with z or t "
                 "values, the dispersion, null and residual deviance, AIC and the iterations.",
         examples=[COUNTS + "fit = glm(t, \"deaths ~ dose + site\", family = \"poisson\")\nprint(fit)",
                   "t = table({y = [0, 1, 4, 2, 9, 3, 12, 7, 20, 11], x = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]})\n"
                   "fit = glm(t, \"y ~ x\", family = \"quasipoisson\")\n"
                   "print(round(fit.dispersion, 4), round(fit.se, 4), fit.aic)",
                   CARS + "fit = glm(cars, \"am ~ wt\", family = \"binomial\")\n"
                   "print(fit.terms, round(fit.coef, 4), round(fit.p, 4))\n"
                   "print(round(fit.deviance, 4), round(fit.aic, 4), fit.iterations, fit.converged)",
                   "y = [1.2, 2.3, 2.1, 3.9, 4.4, 6.8, 6.1, 9.3]\nx = [1, 2, 3, 4, 5, 6, 7, 8]\n"
                   "fit = glm(x, y, family = \"gamma\", link = \"log\", names = [\"x\"])\n"
                   "print(round(fit.coef, 4), round(fit.dispersion, 5))\nprint(round(fit.fitted[1:3], 3))"],
         notes="With the family's variance V(mu), the link g (the linear predictor eta = g(mu) = X b + "
               "offset) and prior weights w, each iteration solves the weighted least squares of the "
               "working response z = eta - offset + (y - mu) / mu'(eta) with weights w mu'(eta)^2 / "
               "V(mu), halving a step that leaves the link's or family's range, until the deviance "
               "changes by less than tolerance (1e-8) relative, |D - D_old| / (|D| + 0.1), or "
               "max_iter (25) iterations have run: R's glm.fit, its starting values and its "
               "iteration count. " + FAMILIES + " The dispersion is 1 for binomial and poisson "
               "(z values, normal p-values) and otherwise the Pearson statistic / residual df (t "
               "values on n - p df); se = sqrt(dispersion diag((X'WX)^-1)). quasibinomial and "
               "quasipoisson are binomial and poisson with the dispersion estimated, for "
               "overdispersed counts and proportions: the same coefficients, standard errors "
               "scaled by sqrt(dispersion), and no likelihood, so aic, bic and loglik are NaN (R's "
               "NA; the printout says AIC: NA). The null deviance is "
               "that of the weighted mean (with an offset, of the intercept refitted with it). AIC "
               "is R's: the family's -2 log-likelihood (the gaussian, gamma and inverse Gaussian "
               "at their maximum-likelihood dispersion, deviance / n) + 2 p; loglik and bic count "
               "the dispersion as a parameter where it is estimated, as R's logLik. The printout "
               "follows R 4.3 and later, which left the deviance residuals out of summary(glm) (R "
               "4.2 and before print their quantiles first). Fields: coef, se, z (binomial, poisson) "
               "or t (the others), p, terms, converged, deviance, null_deviance, df_residual, "
               "df_null, dispersion, aic, bic, loglik, iterations, fitted (mu, on the response's "
               "scale), linear_predictor (eta), family, link, n, and for binomial separation. The "
               "response must lie in the family's support: binomial in [0, 1] (0/1 outcomes, or "
               "proportions of successes with the trials as weights: a non-whole number of "
               "successes warns, as in R), poisson whole counts at least 0 (R only warns on a "
               "fraction; for rates use offset = log(exposure)), quasipoisson any number at least 0, "
               "quasibinomial in [0, 1], gamma and inverse_gaussian above "
               "0: otherwise a ValueError names the value. weights must be above 0 and weights and "
               "offset finite, one per row (a vector, or the name of a table column). A binomial fit "
               "whose 0/1 classes a line separates warns as logreg does, reports separation "
               "(\"complete\" or \"quasi\") and converged = false; a fit that runs out of "
               "iterations warns and reports converged = false. Collinear columns are a ValueError. "
               "Checked against R 4.2's glm (mtcars, InsectSprays) and statsmodels' GLM for every "
               "family, with canonical and other links, weights and offsets. " + FORMULA)
def glm(data, y, family="gaussian", link=None, weights=None, offset=None, names=None,
        max_iter=G.MAX_ITER, tolerance=G.EPSILON):
    refuse_tracked("glm", (data, y, weights, offset))
    return G.glm(data, y=y, family=family, link=link, weights=weights, offset=offset, names=names,
                 max_iter=max_iter, tolerance=tolerance)


LIKELIHOOD = ("For linreg, R's logLik.lm: -n/2 (log(2 pi) + 1 - log(n) + log(RSS)), with df = p + 1 "
              "(sigma counts as a parameter). For logreg, the Bernoulli log-likelihood at the fitted "
              "weights (-n times the mean log loss, its penalty left out), df = k + 1. For glm, R's "
              "logLik.glm: p - AIC / 2 over the family's log-likelihood, df = p, + 1 for gaussian, "
              "gamma and inverse_gaussian, whose dispersion is estimated. For mle, the fit's own log-"
              "likelihood, df its number of parameters and n its nobs (bic is NaN without nobs).")


@builtin("loglik", pure="a number", tracked="refuses", category=CATEGORY, probes=FITS,
         shapes=[Shape("loglik(fit)", "linear, logistic, generalized linear or likelihood model", "number",
                       "The maximized log-likelihood.")],
         summary="The log-likelihood of a fitted model at its estimates, as R's logLik.",
         examples=[CARS + "fit = glm(cars, \"am ~ wt\", family = \"binomial\")\nprint(round(loglik(fit), 4))",
                   "fit = linreg([1, 2, 3, 4, 5, 6], [1.1, 2.3, 2.8, 4.2, 4.9, 6.3])\nprint(round(loglik(fit), 4))"],
         notes=LIKELIHOOD + " aic and bic are -2 loglik plus 2 or log(n) per degree of freedom.")
def loglik(fit):
    refuse_tracked("loglik", (fit,))
    return G.likelihood(fit, fn="loglik")[0]


@builtin("aic", pure="a number", tracked="refuses", category=CATEGORY, probes=FITS,
         shapes=[Shape("aic(fit)", "linear, logistic, generalized linear or likelihood model", "number",
                       "Akaike's information criterion: -2 loglik + 2 df.")],
         summary="Akaike's information criterion of a fitted model, as R's AIC: smaller is better "
                 "among models of the same response and rows.",
         examples=[COUNTS + "a = glm(t, \"deaths ~ dose\", family = \"poisson\")\n"
                   "b = glm(t, \"deaths ~ dose + site\", family = \"poisson\")\nprint(round(aic(a), 3), round(aic(b), 3))",
                   "x = [1, 2, 3, 4, 5, 6]\ny = [1.1, 2.3, 2.8, 4.2, 4.9, 6.3]\nprint(round(aic(linreg(x, y)), 4))"],
         notes="AIC = -2 loglik + 2 df, df the number of estimated parameters. " + LIKELIHOOD
               + " A glm's AIC is its field aic. A logistic model fitted with l2 > 0 has no AIC (its "
               "penalty leaves fewer free parameters than weights): a ValueError.")
def aic(fit):
    refuse_tracked("aic", (fit,))
    return G.information(fit, per_parameter="2", fn="aic")


@builtin("bic", pure="a number", tracked="refuses", category=CATEGORY, probes=FITS,
         shapes=[Shape("bic(fit)", "linear, logistic, generalized linear or likelihood model", "number",
                       "The Bayesian (Schwarz) criterion: -2 loglik + log(n) df.")],
         summary="The Bayesian information criterion of a fitted model, as R's BIC: smaller is "
                 "better, and it charges more than AIC for each parameter once n > 7.",
         examples=[COUNTS + "a = glm(t, \"deaths ~ dose\", family = \"poisson\")\n"
                   "b = glm(t, \"deaths ~ dose + site\", family = \"poisson\")\nprint(round(bic(a), 3), round(bic(b), 3))"],
         notes="BIC = -2 loglik + log(n) df, n the rows the model was fitted to. " + LIKELIHOOD
               + " A logistic model fitted with l2 > 0 has no BIC: a ValueError.")
def bic(fit):
    refuse_tracked("bic", (fit,))
    return G.information(fit, per_parameter="log n", fn="bic")
