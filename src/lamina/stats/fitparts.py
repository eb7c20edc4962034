"""What anova, confint, predict's intervals and the diagnostics read of a fitted model.

A linear model (linreg.py) and a generalized linear model (glm.py) both come down to the same
few things once fitted: the model matrix X (intercept column first), the response y, the
weights W of the last least-squares step (1 for a linear model; a GLM's IRLS working weights),
the coefficients, the dispersion (sigma^2 for a linear model) and the residual degrees of
freedom. Then Cov(b) = dispersion (X'WX)^-1, the hat matrix is W^1/2 X (X'WX)^-1 X' W^1/2, and
everything here is computed from the R factor of the QR decomposition of W^1/2 X, as R's
lm and glm objects keep it.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import LaminaError
from ..values import describe, with_article
from .linreg import LinearModel
from .models import LogisticModel


@dataclass(frozen=True, eq=False)
class Parts:
    kind: str               # "linear" or "glm"
    X: np.ndarray           # n x p model matrix, the intercept column first when there is one
    y: np.ndarray
    coef: np.ndarray
    terms: list
    weights: np.ndarray     # the working weights of the last least-squares step
    dispersion: float       # sigma^2 of a linear model, a GLM's dispersion
    df: float               # residual degrees of freedom
    estimated: bool         # dispersion estimated from the data (t and F) or known (z, chi-squared)
    fit: object             # the model itself, for what only one kind has (family, link)

    def r_factor(self) -> np.ndarray:
        """R of W^1/2 X = QR: (X'WX)^-1 = R^-1 R^-T."""
        return np.linalg.qr(self.X * np.sqrt(self.weights)[:, None], mode="r")

    def leverage(self) -> np.ndarray:
        """The diagonal of the hat matrix: the squared row norms of W^1/2 X R^-1."""
        from scipy.linalg import solve_triangular
        rows = solve_triangular(self.r_factor(), (self.X * np.sqrt(self.weights)[:, None]).T,
                                trans="T").T
        return np.einsum("ij,ij->i", rows, rows)


def is_glm(fit) -> bool:
    return getattr(fit, "type_name", "") == "generalized linear model"


def parts(fit, who: str) -> Parts:
    """The parts of a linear model or GLM; anything else is a TypeError naming `who`."""
    if isinstance(fit, LinearModel):
        if fit.design is None:
            raise LaminaError("ValueError", f"{who} needs the model matrix of this linear model, "
                              "which it does not keep; fit it again with linreg.")
        y = fit.fitted + fit.residuals
        return Parts("linear", fit.design, y, fit.coef, list(fit.terms), np.ones(y.size),
                     fit.sigma ** 2, fit.df, True, fit)
    if is_glm(fit):
        return _glm_parts(fit)
    raise not_a_fit(fit, who)


def _glm_parts(fit) -> Parts:
    """A GLM's parts, with the working weights of its last IRLS iteration, as R's glm keeps them
    (its hat values, predict's standard errors and rstandard read those)."""
    return Parts("glm", fit.design, fit.y, fit.coef, list(fit.terms), fit.working_weights,
                 fit.dispersion, float(fit.df_residual), not fit.family.fixed_dispersion, fit)


def not_a_fit(fit, who: str) -> LaminaError:
    if isinstance(fit, LogisticModel):
        return LaminaError("TypeError", f"{who} takes a linear model (linreg) or a generalized linear "
                           f"model (glm); for a logistic regression fit glm(t, \"y ~ x\", family = "
                           f"\"binomial\"), which gives logreg's numbers.")
    return LaminaError("TypeError", f"{who} takes a fitted linear model (linreg) or generalized linear "
                       f"model (glm), not {describe(fit)}.")


def formula_text(fit) -> str:
    """The model as R writes it in anova's "Model 1:" lines: its formula, or response ~ terms."""
    design = formula_design(fit)
    if design is not None:
        return design_text(design)
    if is_glm(fit):
        return fit.title
    terms = list(fit.terms)
    intercept = "(Intercept)" in terms
    preds = [t for t in terms if t != "(Intercept)"]
    rhs = " + ".join(preds) or ("1" if intercept else "0")
    if not intercept and preds:
        rhs += " - 1"
    return f"{getattr(fit, 'response', 'y')} ~ {rhs}"


def term_of_column(fit) -> list[str]:
    """The term each column of the model matrix belongs to (a factor's columns share one): the
    fit's own record of it when a formula made it, else each column a term of its own."""
    design = formula_design(fit)
    if design is not None:      # R's assign: 0 for the intercept, j for the j-th term label
        return ["(Intercept)" if a == 0 else design.terms[a - 1] for a in design.assign]
    return list(fit.terms)


def response_name(fit) -> str:
    design = formula_design(fit)
    return design.response if design is not None else str(getattr(fit, "response", "y"))


def kind_text(fit) -> str:
    return with_article(getattr(fit, "type_name", "value"))


def grouped_terms(fit) -> list[tuple[str, list[int]]]:
    """(term, its columns of the model matrix) in the order the terms first appear, the
    intercept left out."""
    groups: dict[str, list[int]] = {}
    for j, term in enumerate(term_of_column(fit)):
        if term != "(Intercept)":
            groups.setdefault(term, []).append(j)
    return list(groups.items())


def formula_design(fit):
    """The formula's Design (formula.py) a fit was made from, or None for a fit made from a
    matrix or a table's columns."""
    design = getattr(fit, "formula", None)
    return design if hasattr(design, "spec") else None


def design_text(design) -> str:
    """The formula as the program wrote it (formula.Design has named it text and formula)."""
    text = getattr(design, "text", None)
    return text if isinstance(text, str) else design.formula


def offset_of(fit, n: int) -> np.ndarray:
    """The offset of the fit's own rows (0 for a linear model)."""
    offset = getattr(fit, "offset", None)
    return np.zeros(n) if offset is None else np.asarray(offset, dtype=np.float64)


def new_offset(fit, newdata, rows: int | None = None) -> np.ndarray:
    """The offset of new rows: 0, unless the fit has one, which new rows cannot know."""
    n = newdata.nrows if rows is None else rows
    offset = getattr(fit, "offset", None)
    if offset is not None and np.any(np.asarray(offset) != 0):
        raise LaminaError("ValueError", "predict cannot give new rows the offset this GLM was fitted "
                          "with (a vector for the fit's own rows); predict(fit) gives the fit's rows, "
                          "or refit without the offset.")
    return np.zeros(n)


def is_fit(x) -> bool:
    """A linear model or GLM: what plot draws as diagnostic panels."""
    return isinstance(x, LinearModel) or is_glm(x)
