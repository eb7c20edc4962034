"""Ordinary least squares with the inference R's summary(lm(...)) reports.

The coefficients solve min |y - A b|^2 with A = [1, X] (NumPy's lstsq, an SVD);
then, with n rows, p coefficients and df = n - p:
    sigma^2 = RSS / df,  Cov(b) = sigma^2 (A'A)^-1,  se = sqrt(diag Cov(b)),
    t = b / se,  p = 2 P(T_df > |t|),  R^2 = MSS / (MSS + RSS),
    adjusted R^2 = 1 - (1 - R^2) (n - i) / df,  F = (MSS / (p - i)) / (RSS / df),
where i is 1 with an intercept and 0 without, and the explained sum of squares MSS is taken
from the fitted values about their mean with an intercept and about 0 without, as R's
summary.lm does: a sum of squares, so R^2 and F are never negative. When the response does not
vary (every value the same with an intercept, every value 0 without) there is nothing to
explain: R^2, adjusted R^2, F and its p-value are NaN.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import LaminaError
from ..values import LibObject, as_str, describe
from .args import flag, matrix, no_nan, vector
from .leastsq import least_squares
from .moments import power_scale

FIELDS = ("coef", "se", "t", "p", "terms", "intercept", "weights", "r2", "adj_r2", "sigma",
          "df", "fstat", "f_p", "fitted", "residuals", "n")


@dataclass(frozen=True, eq=False)
class LinearModel(LibObject):
    response: str
    terms: list
    coef: np.ndarray
    se: np.ndarray
    t: np.ndarray
    p: np.ndarray
    has_intercept: bool
    r2: float
    adj_r2: float
    sigma: float
    df: float
    fstat: float
    f_p: float
    fitted: np.ndarray
    residuals: np.ndarray
    # The model matrix, intercept column first, in the data's units: what anova, predict's
    # intervals and the diagnostics (leverage) read; not a field a program sees.
    design: np.ndarray | None = None
    # formula.Design when fitted from a formula: its text, R's term labels and assign, and the
    # ModelSpec that builds the model matrix of new rows (formula.new_matrix); not a field either.
    formula: object = None
    type_name = "linear model"

    def field_names(self) -> list[str]:
        return list(FIELDS)

    def get(self, name: str):
        if name == "intercept":
            return float(self.coef[0]) if self.has_intercept else 0.0
        if name == "weights":
            return self.coef[1:].copy() if self.has_intercept else self.coef.copy()
        if name == "n":
            return float(self.fitted.size)
        value = super().get(name)
        return value.copy() if isinstance(value, np.ndarray) else (list(value) if isinstance(value, list) else value)

    def predict(self, X) -> np.ndarray:
        A = matrix(X, "The predictors")
        k = self.coef.size - self.has_intercept
        if A.shape[1] != k:
            raise LaminaError("ShapeError", f"This linear model has {k} predictor(s), but the data "
                              f"has {A.shape[1]} column(s).")
        return A @ self.get("weights") + self.get("intercept")

    def describe(self) -> str:
        from .summary import linreg_summary
        return linreg_summary(self)

    def html(self) -> str:
        from .summary import linreg_html
        return linreg_html(self)


def finite(a: np.ndarray, what: str, fn: str) -> np.ndarray:
    """a without NaN or Inf; checked here because LAPACK fails on Inf (and prints to the terminal)."""
    no_nan(a, what)
    if not np.isfinite(a).all():
        raise LaminaError("ValueError", f"{what} contains Inf; {fn} needs finite numbers, so remove "
                          "those rows first.")
    return a


def fit(X, y, intercept=True, names=None, response="y", formula=None) -> LinearModel:
    from scipy import stats
    with_intercept = flag(intercept, "linreg's intercept")
    if formula is not None:         # the formula's own model matrix (checked finite), its intercept first if any
        design = formula.X
        A = design[:, int(with_intercept):]
    else:
        A = finite(matrix(X, "linreg's predictors X"), "linreg's predictors X", "linreg").astype(np.float64)
        design = np.hstack([np.ones((A.shape[0], 1)), A]) if with_intercept else A
    b = finite(vector(y, "linreg's response y"), "linreg's response y", "linreg").astype(np.float64)
    if A.shape[0] != b.size:
        raise LaminaError("ShapeError", f"linreg needs one response per row of X, but X has "
                          f"{A.shape[0]} rows and y has {b.size} values.")
    terms = (["(Intercept)"] if with_intercept else []) + _names(names, A.shape[1])
    n, p = design.shape
    if n <= p:
        raise LaminaError("ValueError", f"linreg needs more rows than coefficients to estimate "
                          f"the noise, but has {n} rows for {p} coefficients.")
    # In units of a power of 2 per column (and for y), exact to divide by: the rank test does not
    # mistake a column of large or small numbers for a zero one, and no square underflows or overflows.
    cols, unit = power_scale(design, axis=0)[0], float(power_scale(b))
    scaled = np.empty((n, p + 1), order="F")        # [design / cols, b / unit], as LAPACK takes it
    np.divide(design, cols, out=scaled[:, :p])
    np.divide(b, unit, out=scaled[:, p])
    coef, rank, sv, vt = least_squares(scaled)
    del scaled
    if rank < p:
        raise LaminaError("ValueError", f"linreg's predictors are collinear (the design matrix has "
                          f"rank {rank} < {p} columns): some column is a combination of others "
                          f"(or of the intercept); drop it.")
    fitted = design @ (coef / cols)
    resid = b / unit - fitted
    df = n - p
    rss = float(resid @ resid)
    sigma2 = rss / df
    se = np.sqrt(sigma2 * ((vt / sv[:, None]) ** 2).sum(axis=0))     # diag of sigma^2 (A'A)^-1
    with np.errstate(divide="ignore", invalid="ignore"):
        t = coef / se
    pvals = 2 * stats.t.sf(np.abs(t), df)
    i = 1 if with_intercept else 0
    # Tested on the data itself: a sum of squares about a rounded mean is never exactly 0.
    varies = b.max() > b.min() if with_intercept else bool(b.any())
    centred = fitted - fitted.mean() if with_intercept else fitted
    mss = float(centred @ centred)
    r2 = mss / (mss + rss) if varies else float("nan")
    adj = 1 - (1 - r2) * (n - i) / df
    if p - i > 0 and varies:
        fstat = (mss / (p - i)) / sigma2 if sigma2 > 0 else float("inf")    # an exact fit, as in R
        f_p = float(stats.f.sf(fstat, p - i, df))
    else:
        fstat = f_p = float("nan")
    return LinearModel(as_str(response, "linreg's response name"), terms, coef * unit / cols,
                       se * unit / cols, t, pvals, with_intercept, float(r2), float(adj),
                       float(np.sqrt(sigma2) * unit), float(df), float(fstat), f_p, fitted * unit,
                       resid * unit, design, formula)


def _names(names, k: int) -> list[str]:
    if names is None:
        return [f"x{j}" for j in range(k)]
    if not isinstance(names, list) or not all(isinstance(s, str) for s in names):
        raise LaminaError("TypeError", f"linreg's names must be a list of strings, not {describe(names)}.")
    if len(names) != k:
        raise LaminaError("ValueError", f"linreg got {len(names)} names for {k} predictor columns.")
    for at, name in enumerate(names):
        if name == "(Intercept)" or name in names[:at]:
            why = "names the intercept" if name == "(Intercept)" else "is repeated"
            raise LaminaError("ValueError", f"Each coefficient needs a name of its own, but the predictor "
                              f"name \"{name}\" {why}.")
    return list(names)
