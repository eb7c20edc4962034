"""Checking a fitted model: anova, confint, residuals, fitted, influence (the numerics are in
stats/anova.py, stats/intervals.py and stats/diagnostics.py; predict's intervals are predict's,
in builtins/models.py, and plot(fit)'s panels plot's, in builtins/figures.py)."""
from __future__ import annotations

from ..stats import anova as A
from ..stats import diagnostics as D
from ..stats import intervals as I
from .registry import FLOAT64_STATISTICS, Shape, builtin, refuse_tracked

CATEGORY = "Statistics"
FITS = "takes fitted models, which hold no tracked values"
DATA = ("x = [1.2, 2.0, 2.9, 4.1, 5.0, 6.2, 6.8, 8.1, 9.0, 9.8]\n"
        "y = [2.3, 3.1, 5.8, 6.2, 8.9, 9.7, 12.8, 13.1, 15.9, 16.2]\n")
PLOTS = ("t = table({variety = [\"a\", \"a\", \"a\", \"a\", \"a\", \"b\", \"b\", \"b\", \"b\", \"b\", "
         "\"c\", \"c\", \"c\", \"c\", \"c\"],\n"
         "           nitrogen = [0, 40, 80, 120, 160, 0, 40, 80, 120, 160, 0, 40, 80, 120, 160],\n"
         "           yield = [3.0, 3.23, 4.19, 4.41, 5.63, 3.44, 4.67, 5.68, 5.51, 7.01, 4.2, 5.22, 6.55, 6.83, 8.38],\n"
         "           aphids = [5, 8, 4, 4, 14, 3, 1, 3, 6, 8, 8, 6, 9, 6, 9]})\n")
ONE_FIT = ("fit is what linreg or glm returned (a logistic regression from logreg: fit it with glm(t, "
           "\"y ~ x\", family = \"binomial\") for these).")


@builtin("anova", elsewhere={"aov": "R"},
         pure="an anova table", tracked="refuses", category=CATEGORY, probes=FITS,
         shapes=[Shape("anova(small, big)", "two fitted models, one nested in the other", "anova table",
                       "Does the larger model fit better? F test (linear models) or deviance test (GLMs)."),
                 Shape("anova(m1, m2, m3)", "nested models", "anova table", "Each against the one before."),
                 Shape("anova(fit)", "one fitted model", "anova table",
                       "The sequential (type I) table: each term added in turn."),
                 Shape("anova(g1, g2, test = \"F\")", "GLMs, \"Chisq\" or \"F\"", "anova table",
                       "A GLM comparison by the test named.")],
         summary="Compares nested models, or adds a model's terms one at a time, and prints the "
                 "table as R's anova prints it.",
         examples=[DATA + "x2 = x .^ 2\nsmall = linreg(x, y, names = [\"x\"])\nbig = linreg(hcat(x, x2), y, names = [\"x\", \"x2\"])\n"
                   "a = anova(small, big)\nprint(a)\nprint(round(a.p, 4))",
                   DATA + "print(anova(linreg(hcat(x, x .^ 2), y, names = [\"x\", \"x2\"])))",
                   PLOTS + "print(anova(linreg(t, \"yield ~ nitrogen * variety\")))\n"
                   "print(anova(glm(t, \"aphids ~ nitrogen + variety\", family = \"poisson\")))"],
         notes="Several models, in either order: each row is a model with its residual degrees of "
               "freedom and residual sum of squares (Res.Df, RSS; for GLMs Resid. Df and Resid. Dev), "
               "then what it changes from the row before (Df, Sum of Sq or Deviance) and the test. "
               "Linear models: F = (change of RSS / change of df) / (RSS / df of the largest "
               "model), as R's anova.lmlist. GLMs: the change of deviance, referred to chi-squared "
               "where the family fixes the dispersion (binomial, poisson) and by F = (change of "
               "deviance / change of df) / dispersion of the largest model where it is estimated "
               "(gaussian, gamma, inverse_gaussian): R >= 4.4's default choice of anova.glm's test; "
               "test = \"Chisq\" or \"F\" chooses. The models must be fitted to the same rows and "
               "response (and a GLM's to the same family and link), and each smaller model's columns "
               "must lie in the span of the larger's: otherwise a ValueError names the column. One "
               "model: the sequential table, each term's sum of squares (a GLM's deviance) being "
               "what it adds to the terms before it, as R's anova.lm and anova.glm; a factor and an "
               "interaction from a formula are one term each (a model fitted from a matrix has a term "
               "per column). The table prints as R's print.anova does (sums of squares zapped to 5 "
               "digits, statistics to 4 decimals, p-values by format.pval, stars). Fields: rows (the "
               "row names) and one vector per column, NaN where R prints nothing: res_df, rss, df, "
               "sum_sq, F, p for compared linear models; df, sum_sq, mean_sq, F, p for a sequential "
               "table; res_df, res_dev, df, deviance and p (with F under an F test) for GLMs. Agrees "
               "with statsmodels' anova_lm.")
def anova(*fits, test=None):
    refuse_tracked("anova", fits)
    return A.anova(list(fits), test=test)


@builtin("confint", pure="a table", tracked="refuses", category=CATEGORY, probes=FITS,
         float64_results=(FLOAT64_STATISTICS, ("result.lower", "result.upper")),
         shapes=[Shape("confint(fit)", "fitted model", "table {term, lower, upper}",
                       "95% confidence intervals of the coefficients."),
                 Shape("confint(fit, level = 0.9)", "fitted model, probability", "table", "At another level."),
                 Shape("confint(fit, method = \"profile\")", "maximum likelihood fit (mle), method",
                       "table", "Profile-likelihood intervals.")],
         summary="Confidence intervals of a fitted model's coefficients: exact t intervals for a "
                 "linear model, Wald intervals for a GLM, logistic regression or mle fit, and "
                 "profile-likelihood intervals for an mle fit.",
         examples=[DATA + "ci = confint(linreg(x, y))\nprint(ci)\nprint(round(ci.upper - ci.lower, 4))",
                   PLOTS + "print(confint(glm(t, \"aphids ~ nitrogen\", family = \"poisson\"), level = 0.9))"],
         notes="coef +- q se, with q the (1 + level) / 2 quantile of Student's t on the residual "
               "degrees of freedom for a linear model (R's confint.lm) and of the normal "
               "distribution for a GLM or a logistic regression (Wald intervals, R's confint.default; "
               "R's confint of a glm profiles the likelihood instead, which gives other numbers). The "
               "result is a table with columns term, lower and upper, printed as R prints confint's "
               "matrix (columns named by the percentages, 2.5 % and 97.5 %). level must lie strictly "
               "between 0 and 1. Agrees with statsmodels' conf_int(). A fit of mle has Wald intervals "
               "coef +- q se (a parameter fitted on a log or logit scale has its interval taken on that "
               "scale and mapped back, so it stays in range), or with method = \"profile\" (mle fits "
               "only) the parameter values whose profile deviance 2 (nll minimized over the other "
               "parameters - nll at the estimates) is within the chi-squared(1) quantile at level, as "
               "R's confint(profile(fit)) (stats/profile.py; docs/likelihood.md).")
def confint(fit, level=0.95, method=None):
    refuse_tracked("confint", (fit, level))
    return I.confint(fit, level=level, method=method)


@builtin("residuals", pure="a vector", tracked="refuses", category=CATEGORY, probes=FITS,
         float64_results=(FLOAT64_STATISTICS, ("result",)),
         shapes=[Shape("residuals(fit)", "fitted model", "vector",
                       "y - fitted for a linear model; deviance residuals for a GLM."),
                 Shape("residuals(fit, type = \"pearson\")", "fitted model, type", "vector",
                       "\"response\", \"pearson\", \"deviance\" or \"working\".")],
         summary="The residuals of a fitted model, one per row of its data, of the type R's "
                 "residuals gives.",
         examples=[DATA + "fit = linreg(x, y)\nprint(round(residuals(fit), 4))\n"
                   "print(round(sum(residuals(fit) .^ 2), 4))",
                   PLOTS + "counts = glm(t, \"aphids ~ nitrogen\", family = \"poisson\")\n"
                   "print(round(residuals(counts, type = \"pearson\")[0:4], 4))\n"
                   "print(round(sum(residuals(counts) .^ 2), 6), round(counts.deviance, 6))"],
         notes="With y the response, mu the fitted mean, eta the linear predictor, w the prior weights, "
               "V the family's variance and d its unit deviance: response y - mu; working (y - mu) / "
               "(dmu/deta); pearson (y - mu) sqrt(w / V(mu)); deviance sign(y - mu) sqrt(w d(y, mu)), "
               "whose squares add up to the deviance. For a linear model all four are y - mu. The "
               "default is R's: response for a linear model, deviance for a GLM. " + ONE_FIT +
               " Agrees with statsmodels' resid_response, resid_pearson, resid_deviance and "
               "resid_working.")
def residuals(fit, type=None):
    refuse_tracked("residuals", (fit,))
    return D.residuals(fit, type=type)


@builtin("fitted", pure="a vector", tracked="refuses", category=CATEGORY, probes=FITS,
         float64_results=(FLOAT64_STATISTICS, ("result",)),
         shapes=[Shape("fitted(fit)", "fitted model", "vector", "The fitted means, one per row of its data.")],
         summary="A fitted model's fitted values: the predictions at its own rows, on the response "
                 "scale.",
         examples=[DATA + "fit = linreg(x, y)\nprint(round(fitted(fit), 3))\n"
                   "print(round(fitted(fit) + residuals(fit) - y, 10))"],
         notes="For a linear model X b; for a GLM the mean mu = g^-1(X b + offset), as R's fitted "
               "(predict(fit, type = \"link\") gives the linear predictor). " + ONE_FIT)
def fitted(fit):
    refuse_tracked("fitted", (fit,))
    return D.fitted(fit)


@builtin("influence", pure="a table", tracked="refuses", category=CATEGORY, probes=FITS,
         float64_results=(FLOAT64_STATISTICS, ("result.leverage", "result.std_resid", "result.cooks")),
         shapes=[Shape("influence(fit)", "fitted model", "table {leverage, std_resid, cooks}",
                       "Each row's leverage, standardized residual and Cook's distance.")],
         summary="How much each row of the data sways a fitted model: its leverage (the diagonal of "
                 "the hat matrix), standardized residual and Cook's distance.",
         examples=[DATA + "inf = influence(linreg(x, y))\nprint(round(inf.leverage, 4))\n"
                   "print(argmax(inf.cooks), round(max(inf.cooks), 4))"],
         notes="The hat matrix H = W^1/2 X (X'WX)^-1 X' W^1/2 (W the GLM's working weights, 1 for a "
               "linear model); its diagonal h is the leverage, adding up to the number of "
               "coefficients p. std_resid = r / sqrt(phi (1 - h)), r the residual (a GLM's deviance "
               "residual) and phi the dispersion (sigma^2 for a linear model): R's rstandard. cooks = "
               "(r_pearson / (1 - h))^2 h / (phi p): R's cooks.distance. A row of leverage 1 has "
               "NaN for the other two. plot(fit) draws them. " + ONE_FIT + " Agrees with "
               "statsmodels' get_influence() (hat_matrix_diag, resid_studentized_internal, "
               "cooks_distance).")
def influence(fit):
    refuse_tracked("influence", (fit,))
    return D.influence(fit)
