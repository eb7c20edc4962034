"""Generalized linear models fitted by iteratively reweighted least squares, as R's glm.fit.

With the family's variance V, the link g (eta = g(mu)), prior weights w and an offset o, each
iteration from the current eta and mu takes the working response and weights
    z = eta - o + (y - mu) / mu'(eta),   W = w mu'(eta)^2 / V(mu),
solves the weighted least squares of z on X with weights W for the coefficients b, and moves to
eta = X b + o, halving the step back towards the last coefficients while the deviance is not
finite or eta or mu leave the link's or family's range. It stops when the deviance D changes by
less than epsilon (1e-8) relative, |D - D_old| / (|D| + 0.1), after at most max_iter (25)
iterations, counting them as R's "Number of Fisher Scoring iterations". It starts from the
family's starting means (R's initialize: (w y + 0.5) / (w + 1) for binomial, y + 0.1 for
poisson, y otherwise).

As R's summary.glm: the dispersion phi is 1 for binomial and poisson (not their quasi forms) and otherwise the Pearson
statistic sum(W r^2) / (n - p) with the working residuals r = (y - mu) / mu'(eta); the
coefficients' covariance phi (X'WX)^-1 with the weights of the last iteration; z (or t, when phi
is estimated) = b / se, its p-value from the normal (or Student's t on n - p degrees of freedom).
The null deviance is that of the weighted mean of y (of g^-1(o) without an intercept; with an
intercept and an offset, of the fit of the intercept alone with the offset, as R refits it). AIC
is the family's -2 log-likelihood (families.py) + 2 p; logLik = p' - AIC / 2 with p' = p, plus 1
for a family whose dispersion is estimated; BIC = -2 logLik + log(n) p'.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import LaminaError
from ..values import LibObject, as_float, as_int, describe, format_number
from ..warnings import warn
from .args import matrix, same_rows, vector
from .families import Family, Link
from .leastsq import least_squares
from .linreg import finite
from .separation import separation
from .summary import CoefficientReport, coefficient_table, joint

EPSILON, MAX_ITER = 1e-8, 25      # R's glm.control()
SEPARATED = {"complete": "Complete separation: a line puts every 1 on one side and every 0 on the other",
             "quasi": "Quasi-complete separation: a line puts every 1 on one side and every 0 on the "
                      "other, with some of both on the line"}


@dataclass(frozen=True, eq=False)
class GeneralizedLinearModel(CoefficientReport, LibObject):
    family: Family
    link: Link
    title: str                  # the formula, or "y ~ x0 + x1" for a matrix
    terms: list
    coef: np.ndarray
    se: np.ndarray
    stat: np.ndarray            # z or t, by family.statistic
    p: np.ndarray
    converged: bool
    iterations: int
    deviance: float
    null_deviance: float
    df_residual: int
    df_null: int
    dispersion: float
    aic: float
    loglik: float
    bic: float
    fitted: np.ndarray          # mu, on the response's scale
    linear_predictor: np.ndarray
    separation: str             # binomial: "complete", "quasi" or "none"; "" for the others
    # What predict, residuals, anova and confint read (not fields a program sees): the model
    # matrix (intercept column first), the response, prior weights, offset, the last iteration's
    # working weights, (X'WX)^-1 and the formula's Design (None for a matrix).
    design: np.ndarray
    y: np.ndarray
    prior_weights: np.ndarray
    offset: np.ndarray
    working_weights: np.ndarray
    cov_unscaled: np.ndarray
    formula: object = None
    type_name = "generalized linear model"

    def field_names(self) -> list[str]:
        return (["coef", "se", self.family.statistic, "p", "terms", "converged", "deviance",
                 "null_deviance", "df_residual", "df_null", "dispersion", "aic", "bic", "loglik",
                 "iterations", "fitted", "linear_predictor", "family", "link", "n"]
                + (["separation"] if self.family.name == "binomial" else []))

    def get(self, name: str):
        if name not in self.field_names():
            return super().get(name)            # the error that lists the fields
        derived = {"family": self.family.name, "link": self.link.name, "n": float(self.y.size),
                   self.family.statistic: self.stat, "df_residual": float(self.df_residual),
                   "df_null": float(self.df_null), "iterations": float(self.iterations)}
        value = derived[name] if name in derived else getattr(self, name)
        return value.copy() if isinstance(value, (np.ndarray, list)) else value

    def _report(self) -> tuple:
        """The parts of R's print(summary(glm)) (R 4.3 and later: no deviance residuals)."""
        from .summary import SIGNIF
        fam = self.family
        head = (f"Generalized linear model: {self.title}  ({fam.r_name} family, {self.link.name} link, "
                f"n = {self.y.size})")
        header, rows = coefficient_table(self.terms, self.coef, self.se, self.stat, self.p, fam.statistic)
        # R's format() of each pair pads them to one width
        deviances = joint([self.null_deviance, self.deviance], 5)
        dfs = [str(self.df_null), str(self.df_residual)]
        width, dev_width = max(map(len, dfs)), max(map(len, deviances))
        foot = ["---", SIGNIF, "",
                f"(Dispersion parameter for {fam.r_name} family taken to be {joint([self.dispersion], 7)[0]})", "",
                f"    Null deviance: {deviances[0]:>{dev_width}}  on {dfs[0]:>{width}}  degrees of freedom",
                f"Residual deviance: {deviances[1]:>{dev_width}}  on {dfs[1]:>{width}}  degrees of freedom",
                f"AIC: {joint([self.aic], 5)[0] if np.isfinite(self.aic) else 'NA'}", "",
                f"Number of Fisher Scoring iterations: {self.iterations}"]
        if self.separation not in ("", "none"):
            foot += ["", SEPARATED[self.separation] + ": the maximum-likelihood estimate does not exist, "
                     "so these estimates, standard errors and p values mean nothing."]
        elif not self.converged:
            foot += ["", f"The fit did not converge in {self.iterations} iterations: these numbers are "
                     "where it stopped."]
        return head, header, rows, foot


def fit(X: np.ndarray, y: np.ndarray, family: Family, link: Link, weights: np.ndarray,
        offset: np.ndarray, terms: list, intercept: bool, title: str, fn: str,
        max_iter: int = MAX_ITER, formula=None, epsilon: float = EPSILON) -> GeneralizedLinearModel:
    """The GLM of y on the model matrix X (its intercept column, if any, first)."""
    n, p = X.shape
    if n <= p:
        raise LaminaError("ValueError", f"{fn} needs more rows than coefficients, but has {n} rows for "
                          f"{p} coefficients.")
    mu0 = family.start(y, weights, fn, link.name)
    run = _irls(X, y, weights, offset, family, link, mu0, max_iter, epsilon, fn)
    coef, eta, mu, dev, w, iterations, converged, cov = run
    df_r, df_null = n - p, n - int(intercept)
    separated = ""
    if family.name == "binomial":
        separated = _separation(X, y, mu, intercept) if ((y == 0) | (y == 1)).all() else "none"
    _warn(fn, family, mu, separated, converged, iterations)
    converged = converged and separated in ("", "none")
    residuals = (y - mu) / link.mu_eta(eta)
    if family.fixed_dispersion:
        dispersion = 1.0
    else:
        dispersion = float(np.sum(w ** 2 * residuals ** 2) / df_r) if df_r > 0 else float("nan")
    from scipy import stats
    se = np.sqrt(dispersion * np.diag(cov))
    with np.errstate(divide="ignore", invalid="ignore"):
        stat = coef / se
    pv = 2 * (stats.norm.sf(np.abs(stat)) if family.fixed_dispersion else stats.t.sf(np.abs(stat), df_r))
    null_dev = _null_deviance(y, weights, offset, family, link, intercept, mu, max_iter, epsilon, fn)
    aic = float(family.aic_part(y, mu, weights, dev) + 2 * p)
    k = p + (0 if family.fixed_dispersion else 1)
    loglik = k - aic / 2
    return GeneralizedLinearModel(family, link, title, list(terms), coef, se, stat, pv, bool(converged),
                                  iterations, float(dev), float(null_dev), df_r, df_null, dispersion, aic,
                                  float(loglik), float(-2 * loglik + np.log(n) * k), mu, eta, separated,
                                  X, y, weights, offset, w ** 2, cov, formula)


def _irls(X, y, wt, offset, family: Family, link: Link, mu, max_iter: int, epsilon: float, fn: str) -> tuple:
    """R's glm.fit loop: (coef, eta, mu, deviance, last weights sqrt(W), iterations, converged,
    (X'WX)^-1 at the last weights, from the singular values and V' of X sqrt(W))."""
    eta = link.fun(mu)
    mu = link.inverse(eta)
    if not (link.valid_eta(eta) and family.valid_mu(mu)):
        raise LaminaError("ValueError", f"{fn} cannot find valid starting values for the {family.name} "
                          f"family with the {link.name} link; try another link.")
    dev_old = float(np.sum(family.deviance_residuals(y, mu, wt)))
    coef_old = None
    n, p = X.shape
    X = np.asfortranarray(X)        # column by column, as each iteration's X w is written
    for iteration in range(1, max_iter + 1):
        slope = link.mu_eta(eta)
        z = eta - offset + (y - mu) / slope
        w = np.sqrt(wt * slope ** 2 / family.variance(mu))
        weighted = np.empty((n, p + 1), order="F")         # [X w, z w], as LAPACK takes it
        np.multiply(X, w[:, None], out=weighted[:, :p])
        np.multiply(z, w, out=weighted[:, p])
        coef, rank, sv, vt = least_squares(weighted)
        if rank < X.shape[1]:
            raise LaminaError("ValueError", f"{fn}'s predictors are collinear (the model matrix has rank "
                              f"{rank} < {X.shape[1]} columns): some column is a combination of others "
                              f"(or of the intercept); drop it.")
        coef, eta, mu, dev = _step(X, y, wt, offset, family, link, coef, coef_old, max_iter, fn)
        if abs(dev - dev_old) / (abs(dev) + 0.1) < epsilon:
            return coef, eta, mu, dev, w, iteration, True, (vt.T / sv ** 2) @ vt
        dev_old, coef_old = dev, coef
    return coef, eta, mu, dev, w, max_iter, False, (vt.T / sv ** 2) @ vt


def _step(X, y, wt, offset, family, link, coef, coef_old, max_iter, fn) -> tuple:
    """coef, or halved back towards coef_old until the deviance is finite and eta and mu valid."""
    for _ in range(max_iter + 1):
        eta = X @ coef + offset
        mu = link.inverse(eta)
        with np.errstate(all="ignore"):
            dev = float(np.sum(family.deviance_residuals(y, mu, wt)))
        if np.isfinite(dev) and link.valid_eta(eta) and family.valid_mu(mu):
            return coef, eta, mu, dev
        if coef_old is None:
            raise LaminaError("ValueError", f"{fn}'s first step with the {link.name} link leaves the "
                              f"{family.name} family's range of means (no valid coefficients were "
                              f"found, as R says); try another link.")
        coef = (coef + coef_old) / 2
    raise LaminaError("ValueError", f"{fn} could not find valid coefficients by halving its step "
                      f"with the {link.name} link; try another link.")


def _null_deviance(y, wt, offset, family, link, intercept, mu, max_iter, epsilon, fn) -> float:
    if intercept and offset.any():
        ones = np.ones((y.size, 1))
        run = _irls(ones, y, wt, offset, family, link, mu, max_iter, epsilon, fn)
        return float(run[3])
    centre = np.full(y.size, np.sum(wt * y) / np.sum(wt)) if intercept else link.inverse(offset)
    return float(np.sum(family.deviance_residuals(y, centre, wt)))


def _separation(X, y, mu, intercept: bool) -> str:
    return separation(X[:, 1:] if intercept else X, y, fitted=mu)


def _warn(fn: str, family: Family, mu, separated: str, converged: bool, iterations: int) -> None:
    small = 10 * np.finfo(float).eps
    if separated not in ("", "none"):
        how = "perfectly" if separated == "complete" else \
            "but for examples of both classes on the line (quasi-complete separation)"
        warn(f"{fn}: a line separates the two classes {how}, so the maximum-likelihood "
             "coefficients are infinite: the fit stopped at large ones and its standard errors "
             "mean nothing.", once_key=f"{fn}: separation")
        return
    if not converged:
        warn(f"{fn} did not converge in {iterations} iterations of Fisher scoring (R's glm.fit "
             f"warns the same); raise max_iter, or try another link.", once_key=f"{fn}: not converged")
    if family.name == "binomial" and ((mu > 1 - small) | (mu < small)).any():
        warn(f"{fn}: fitted probabilities numerically 0 or 1 occurred.", once_key=f"{fn}: probabilities 0 or 1")
    if family.name == "poisson" and (mu < small).any():
        warn(f"{fn}: fitted rates numerically 0 occurred.", once_key=f"{fn}: rates 0")


def glm(data, y, family="gaussian", link=None, weights=None, offset=None, names=None,
        max_iter=MAX_ITER, tolerance=EPSILON, fn: str = "glm") -> GeneralizedLinearModel:
    """A GLM of a table and a formula, or of a matrix of predictors (an intercept added) and a
    response vector; weights and offset each a vector of one number per row or a column's name."""
    from . import formula as F
    from .families import family_and_link
    from .table import Table

    fam, lk = family_and_link(family, link, fn)
    iterations = as_int(max_iter, f"{fn}'s max_iter", minimum=1)
    epsilon = as_float(tolerance, f"{fn}'s tolerance")
    if not 0 < epsilon < 1:
        raise LaminaError("ValueError", f"{fn}'s tolerance must lie between 0 and 1 (R's epsilon, "
                          f"1e-8 by default), not {format_number(epsilon)}.")
    if isinstance(data, Table):
        if not F.is_formula(y):
            got = f'"{y}"' if isinstance(y, str) else describe(y)
            raise LaminaError("ValueError", f"{fn} of a table needs a formula with the response left of ~, "
                              f"as \"y ~ x + g\", not {got}.")
        if names is not None:
            raise LaminaError("TypeError", f"{fn} with a formula takes its predictors from the formula, "
                              f"so it takes no list of predictor names besides; add them to the formula.")
        d = F.design(data, y, fn)
        X, response, terms, intercept, title = d.X, d.y, d.columns, d.intercept, d.formula
    else:
        A = finite(matrix(data, f"{fn}'s predictors X"), f"{fn}'s predictors X", fn).astype(np.float64)
        response = finite(vector(y, f"{fn}'s response y"), f"{fn}'s response y", fn).astype(np.float64)
        same_rows(A, response, f"{fn}'s X and y")
        terms = ["(Intercept)"] + _names(names, A.shape[1], fn)
        X, intercept, d = np.hstack([np.ones((A.shape[0], 1)), A]), True, None
        title = f"y ~ {' + '.join(terms[1:]) or '1'}"
    n = response.size
    wt = _per_row(weights, data, n, "weights", fn, 1.0)
    if (wt <= 0).any():
        raise LaminaError("ValueError", f"{fn}'s weights must be above 0, but one is "
                          f"{format_number(float(wt[wt <= 0][0]))}; drop the rows that should not count.")
    off = _per_row(offset, data, n, "offset", fn, 0.0)
    return fit(X, response, fam, lk, wt, off, terms, intercept, title, fn, iterations, d, epsilon)


def _per_row(x, data, n: int, what: str, fn: str, default: float) -> np.ndarray:
    """weights or offset: one finite number per row, from a vector or a table column's name."""
    from .table import Table

    if x is None:
        return np.full(n, default)
    if isinstance(x, str):
        if not isinstance(data, Table):
            raise LaminaError("TypeError", f"{fn}'s {what} names a column (\"{x}\"), but the data is no table; "
                              f"pass a vector of {n} numbers.")
        x = data.get(x)
        if not isinstance(x, np.ndarray):
            raise LaminaError("TypeError", f"{fn}'s {what} column holds {describe(x)}; it must hold numbers.")
    v = finite(vector(x, f"{fn}'s {what}"), f"{fn}'s {what}", fn).astype(np.float64)
    if v.size != n:
        raise LaminaError("ShapeError", f"{fn}'s {what} needs one number per row ({n}), but has {v.size}.")
    return v


def _names(names, k: int, fn: str) -> list[str]:
    if names is None:
        return [f"x{j}" for j in range(k)]
    if not isinstance(names, list) or len(names) != k or not all(isinstance(s, str) for s in names):
        raise LaminaError("TypeError", f"{fn}'s names must be a list of {k} strings, one per column of X, "
                          f"not {describe(names)}.")
    if len(set(names)) < k or "(Intercept)" in names:
        raise LaminaError("ValueError", f"Each coefficient needs a name of its own, but {fn}'s names "
                          f"{names} repeat one or name the intercept.")
    return list(names)


def likelihood(fit, fn: str) -> tuple[float, float, float]:
    """(log-likelihood, its degrees of freedom, observations) of a linear model (R's logLik.lm:
    sigma counts, df = p + 1), a logistic model, a GLM (R's logLik.glm) or a likelihood fit
    (its parameters; NaN observations without nobs)."""
    from .linreg import LinearModel
    from .mle import MaximumLikelihoodFit
    from .models import LogisticModel

    if isinstance(fit, MaximumLikelihoodFit):
        return fit.loglik, float(fit.df), float(fit.nobs)
    if isinstance(fit, GeneralizedLinearModel):
        k = fit.coef.size + (0 if fit.family.fixed_dispersion else 1)
        return fit.loglik, float(k), float(fit.y.size)
    if isinstance(fit, LinearModel):
        n, rss = fit.residuals.size, float(fit.residuals @ fit.residuals)
        return -0.5 * n * (np.log(2 * np.pi) + 1 - np.log(n) + np.log(rss)), float(fit.coef.size + 1), float(n)
    if isinstance(fit, LogisticModel):
        # the mean log loss where L-BFGS stopped, less the penalty it carried
        loss = float(fit.loss_history[-1]) - 0.5 * fit.l2 * float(fit.weights @ fit.weights)
        return -fit.n * loss, float(fit.weights.size + 1), fit.n
    raise LaminaError("TypeError", f"{fn} takes a fitted model (linreg, logreg, glm or mle), not {describe(fit)}.")


def information(fit, per_parameter: str, fn: str) -> float:
    """AIC (per_parameter "2") or BIC ("log n"): -2 log-likelihood + that per degree of freedom."""
    from .models import LogisticModel

    if isinstance(fit, LogisticModel) and fit.l2:
        raise LaminaError("ValueError", f"{fn} of a logistic model fitted with a penalty (l2 = "
                          f"{format_number(fit.l2)}) is not defined: the penalty leaves its weights "
                          f"fewer than {fit.weights.size + 1} free parameters. Fit it with l2 = 0.")
    ll, df, n = likelihood(fit, fn)
    return -2 * ll + (2.0 if per_parameter == "2" else np.log(n)) * df
