"""Intervals of a fitted model: confint of its coefficients, predict's of its predictions.

confint: b_j +- q se_j, with q Student's t quantile on the residual degrees of freedom for a
linear model (exact, R's confint.lm) and the normal quantile for a GLM or logistic regression
(Wald intervals, R's confint.default; R's confint of a glm profiles the likelihood instead).

predict of a linear model at new rows x0 (a row of the model matrix): fit = x0'b, its standard
error se = sigma sqrt(x0'(X'X)^-1 x0); the confidence interval of the mean is fit +- q se, the
prediction interval of a new observation fit +- q sqrt(se^2 + sigma^2), q the t quantile on the
residual degrees of freedom (R's predict.lm). A GLM predicts the linear predictor eta = x0'b
(type "link") with se sqrt(dispersion x0'(X'WX)^-1 x0), or the mean mu = g^-1(eta) (type
"response") with the delta method's se |dmu/deta| se_eta (R's predict.glm).

A maximum likelihood fit (mle.py) has Wald intervals, estimate +- q se with q the normal
quantile; a parameter fitted on a log or logit scale has its interval taken there, eta +- q
se_eta, and mapped back, so it stays within the parameter's range (R's confint.default on the
fitting scale, transformed), or with method = "profile" profile-likelihood intervals
(profile.py). vcov: a fit's covariance of its estimates: dispersion (X'WX)^-1
for a linear model or GLM (R's vcov), the inverse Hessian (through the delta method) for mle.
"""
from __future__ import annotations

import numpy as np

from ..errors import LaminaError
from ..values import as_float, as_str, describe, format_number
from . import fitparts as FP
from .args import matrix
from .mle import MaximumLikelihoodFit
from .models import LogisticModel
from .profile import profile_limits
from .summary import joint, layout
from .table import Table

INTERVALS = ("none", "confidence", "prediction")
TYPES = ("link", "response")


def check_level(level, who: str) -> float:
    value = as_float(level, f"{who}'s level")
    if not 0 < value < 1:
        raise LaminaError("ValueError", f"{who}'s level is a probability between 0 and 1 (0.95 for 95% "
                          f"intervals), not {format_number(value)}.")
    return value


class IntervalTable(Table):
    """confint's table (term, lower, upper), printed as R prints confint's matrix."""

    def __init__(self, columns: dict, level: float, method: str):
        super().__init__(columns)
        self.level, self.method = level, method

    def describe(self) -> str:
        a = (1 - self.level) / 2
        percents = [p + " %" for p in joint([100 * a, 100 * (1 - a)], 3)]
        lower, upper = (joint(self.columns[k], 7) for k in ("lower", "upper"))
        rows = [[t, lo, up] for t, lo, up in zip(self.get("term"), lower, upper)]
        head = (f"{method_title(self.level, self.method)}: a table of term, lower, upper")
        return "\n".join([head] + layout([""] + percents, rows))


def method_title(level: float, method: str) -> str:
    return f"{format_number(round(100 * level, 10))}% confidence intervals ({method})"


METHODS = ("wald", "profile")


def confint(fit, level=0.95, method=None) -> IntervalTable:
    from scipy import stats
    p = check_level(level, "confint")
    how = "wald" if method is None else as_str(method, "confint's method")
    if how not in METHODS:
        raise LaminaError("ValueError", f"confint's method is \"wald\" or \"profile\", not \"{how}\".")
    if isinstance(fit, MaximumLikelihoodFit):
        return _mle_intervals(fit, p) if how == "wald" else _profile_intervals(fit, p)
    if how == "profile":
        raise LaminaError("ValueError", "confint's method = \"profile\" is for a fit of mle; for a GLM "
                          "fit the same likelihood with mle (its Wald intervals are the GLM's).")
    if isinstance(fit, LogisticModel):
        coef, se, terms, q, method = fit.get("coef"), fit.se, fit.terms, None, "Wald, normal quantiles"
    elif FP.is_glm(fit):
        coef, se, terms, q, method = fit.coef, fit.se, fit.terms, None, "Wald, normal quantiles"
    else:
        parts = FP.parts(fit, "confint")
        coef, se, terms = parts.coef, fit.se, parts.terms
        q = stats.t.ppf(1 - (1 - p) / 2, parts.df)
        method = f"t with {format_number(parts.df)} degrees of freedom"
    if q is None:
        q = stats.norm.ppf(1 - (1 - p) / 2)
    coef, se = np.asarray(coef, dtype=np.float64), np.asarray(se, dtype=np.float64)
    return IntervalTable({"term": list(terms), "lower": coef - q * se, "upper": coef + q * se}, p, method)


def _mle_intervals(fit: MaximumLikelihoodFit, level: float) -> IntervalTable:
    from scipy import stats
    q = stats.norm.ppf(1 - (1 - level) / 2)
    lower = [s.inverse(e - q * se) for s, e, se in zip(fit.scales, fit.eta, fit.se_eta)]
    upper = [s.inverse(e + q * se) for s, e, se in zip(fit.scales, fit.eta, fit.se_eta)]
    method = "Wald, normal quantiles"
    scaled = [f"{s.name}({t})" for s, t in zip(fit.scales, fit.terms) if s.name != "identity"]
    if scaled:
        method += f"; {', '.join(scaled)} on that scale, mapped back"
    return IntervalTable({"term": list(fit.terms), "lower": np.array(lower, dtype=np.float64),
                          "upper": np.array(upper, dtype=np.float64)}, level, method)


def _profile_intervals(fit: MaximumLikelihoodFit, level: float) -> IntervalTable:
    limits = [profile_limits(fit, j, level) for j in range(len(fit.terms))]
    return IntervalTable({"term": list(fit.terms), "lower": np.array([lo for lo, _ in limits]),
                          "upper": np.array([hi for _, hi in limits])}, level, "profile likelihood")


def vcov(fit) -> np.ndarray:
    """The covariance matrix of a fit's estimates, in the order of its terms."""
    from scipy.linalg import solve_triangular
    if isinstance(fit, MaximumLikelihoodFit):
        return fit.vcov.copy()
    if isinstance(fit, LogisticModel):
        raise LaminaError("TypeError", "vcov needs the data of a logistic regression, which logreg(X, y) "
                          "does not keep; fit glm(t, \"y ~ x\", family = \"binomial\") (the same "
                          "coefficients and standard errors) and take its vcov.")
    if not FP.is_fit(fit):
        raise LaminaError("TypeError", f"vcov takes a fitted model (linreg, glm or mle), not {describe(fit)}.")
    parts = FP.parts(fit, "vcov")
    inverse = solve_triangular(parts.r_factor(), np.eye(len(parts.terms)))
    return parts.dispersion * (inverse @ inverse.T)


# -- predict -----------------------------------------------------------------------------
def predict(fit, newdata=None, interval="none", level=0.95, type=None, se=False):
    """A linear model's or GLM's predictions at new rows (its own rows when newdata is None): a
    vector, or a table of fit with se, lower and upper as asked."""
    parts = FP.parts(fit, "predict")
    kind = as_str(interval, "predict's interval")
    if kind not in INTERVALS:
        raise LaminaError("ValueError", f"predict's interval is \"confidence\", \"prediction\" or "
                          f"\"none\", not \"{kind}\".")
    if not isinstance(se, bool):
        raise LaminaError("TypeError", f"predict's se must be true or false, not {describe(se)}.")
    p = check_level(level, "predict")
    X0, offset = rows_of(fit, parts, newdata)
    if parts.kind == "linear":
        if type is not None:
            raise LaminaError("TypeError", "predict's type (\"link\" or \"response\") is for a GLM; a "
                              "linear model predicts the response itself.")
        return _linear(parts, X0, kind, p, se)
    if kind != "none":
        raise LaminaError("ValueError", "predict gives a GLM's predictions with their standard errors "
                          "(se = true), not intervals: interval = \"confidence\" and \"prediction\" are "
                          "for linear models. For a Wald interval of the link take fit +- 1.96 se with "
                          "type = \"link\".")
    scale = as_str("link" if type is None else type, "predict's type")
    if scale not in TYPES:
        raise LaminaError("ValueError", f"predict's type is \"link\" or \"response\", not \"{scale}\".")
    return _glm(parts, X0, offset, scale, se)


def _linear(parts: FP.Parts, X0: np.ndarray, kind: str, level: float, se: bool):
    from scipy import stats
    fit = X0 @ parts.coef
    if kind == "none" and not se:
        return fit
    se_fit = _se(parts, X0)
    columns = {"fit": fit}
    if se:
        columns["se"] = se_fit
    if kind != "none":
        q = stats.t.ppf(1 - (1 - level) / 2, parts.df)
        half = q * (se_fit if kind == "confidence" else np.sqrt(se_fit ** 2 + parts.dispersion))
        columns["lower"], columns["upper"] = fit - half, fit + half
    return Table(columns)


def _glm(parts: FP.Parts, X0: np.ndarray, offset: np.ndarray, scale: str, se: bool):
    link = parts.fit.link
    eta = X0 @ parts.coef + offset
    fit = eta if scale == "link" else link.inverse(eta)
    if not se:
        return fit
    se_fit = _se(parts, X0)
    if scale == "response":
        se_fit = se_fit * np.abs(link.mu_eta(eta))
    return Table({"fit": fit, "se": se_fit})


def _se(parts: FP.Parts, X0: np.ndarray) -> np.ndarray:
    """sqrt(dispersion x0'(X'WX)^-1 x0) for each row x0, through R^-T x0."""
    from scipy.linalg import solve_triangular
    z = solve_triangular(parts.r_factor(), X0.T, trans="T")
    return np.sqrt(parts.dispersion * np.einsum("ij,ij->j", z, z))


def rows_of(fit, parts: FP.Parts, newdata) -> tuple[np.ndarray, np.ndarray]:
    """The model matrix of newdata (and its offset): the fit's own rows when None; a table
    through the formula's ModelSpec; a matrix of the predictor columns for a fit made from one."""
    n = parts.X.shape[0]
    if newdata is None:
        return parts.X, FP.offset_of(fit, n)
    design = FP.formula_design(fit)
    if isinstance(newdata, Table):
        if design is not None:
            from .formula import new_matrix
            X0 = new_matrix(design, newdata, "predict")
        else:
            X0 = _named_columns(fit, parts, newdata)
        return X0, FP.new_offset(fit, newdata)
    if design is not None:
        raise LaminaError("TypeError", f"predict of a model fitted from the formula \"{FP.design_text(design)}\" "
                          f"takes its new data as a table with the columns the formula reads "
                          f"({', '.join(design.variables)}), not {describe(newdata)}.")
    A = matrix(newdata, "predict's new data")
    intercept = "(Intercept)" in parts.terms
    k = len(parts.terms) - intercept
    if A.shape[1] != k:
        raise LaminaError("ShapeError", f"predict's new data needs one column per predictor of the fit "
                          f"({k}: {', '.join(t for t in parts.terms if t != '(Intercept)')}), but has "
                          f"{A.shape[1]}.")
    X0 = np.hstack([np.ones((A.shape[0], 1)), A]) if intercept else A.astype(np.float64)
    return X0, FP.new_offset(fit, None, rows=A.shape[0])


def _named_columns(fit, parts: FP.Parts, t: Table) -> np.ndarray:
    """A table's columns named as the predictors of a fit made from a table's columns."""
    names = [k for k in parts.terms if k != "(Intercept)"]
    missing = [k for k in names if k not in t.names]
    if missing:
        raise LaminaError("ValueError", f"predict's new data has no column {', '.join(map(repr, missing))}, "
                          f"a predictor of the fit (its predictors: {', '.join(names)}); a fit made from "
                          f"a formula takes the table's own columns and factors.")
    from .data import as_matrix
    A = as_matrix(t, names, who="predict's new data")
    intercept = "(Intercept)" in parts.terms
    return np.hstack([np.ones((A.shape[0], 1)), A]) if intercept else A
