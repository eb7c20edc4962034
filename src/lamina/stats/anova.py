"""anova: nested models compared, and a model's terms added one at a time, as R's anova does.

Several models, smallest or largest first (R's anova.lmlist and anova.glmlist): each row one
model, with its residual degrees of freedom and residual sum of squares (deviance for a GLM),
then what the model adds to the one before it. Linear models are compared by
    F = (delta RSS / delta df) / (RSS_big / df_big),
the big model the one with the fewest residual degrees of freedom; GLMs by the change of
deviance, over chi-squared with delta df degrees of freedom where the family fixes the
dispersion (binomial, Poisson) and by F = (delta deviance / delta df) / dispersion_big where
it is estimated (R >= 4.4 picks the same tests by default). The models must be fitted to the
same rows and response, and each model's columns must lie in the span of the next larger one's.

One model (R's anova.lm and anova.glm): the sequential (type I) table, each term's sum of
squares (or deviance) being what it adds to the terms before it. For a linear model those are
the squared effects Q'y of the QR decomposition of the model matrix, summed over each term's
columns; for a GLM each prefix of the terms is fitted again.

The GLM tables are anova_glm.py's; the table value and its printing, anova_table.py's.
"""
from __future__ import annotations

import numpy as np

from ..errors import LaminaError
from ..values import as_str
from . import fitparts as FP
from .anova_glm import compare, sequential
from .anova_table import AnovaTable

TESTS = ("Chisq", "F")


# -- comparing models -------------------------------------------------------------------
def anova(fits: list, test=None) -> AnovaTable:
    if not fits:
        raise LaminaError("TypeError", "anova needs a fitted model: anova(fit), or anova(fit1, fit2) "
                          "to compare nested models.")
    all_parts = [FP.parts(f, "anova") for f in fits]
    kinds = {p.kind for p in all_parts}
    if len(kinds) > 1:
        raise LaminaError("TypeError", "anova compares models of one kind, but got " +
                          " and ".join(sorted(FP.kind_text(f) for f in fits)) +
                          "; fit a linear model with glm(..., family = \"gaussian\") to compare it with a GLM.")
    chosen = _test(test, all_parts)
    if len(fits) == 1:
        p = all_parts[0]
        if p.kind == "linear":
            return _sequential_linear(p)
        return sequential(p, chosen)
    _check_nested(all_parts)
    heading = ["Analysis of Variance Table" if kinds == {"linear"} else "Analysis of Deviance Table", ""]
    heading += [f"Model {i + 1}: {FP.formula_text(f)}" for i, f in enumerate(fits)]
    if kinds == {"linear"}:
        return _compare_linear(all_parts, heading)
    return compare(all_parts, heading, chosen)


def _test(test, all_parts) -> str:
    """The test of a GLM table: as given, or R's default, chi-squared where the family fixes the
    dispersion and F where it is estimated. A linear model's is F."""
    if test is None:
        return "F" if all_parts[0].kind == "linear" or all_parts[0].estimated else "Chisq"
    name = as_str(test, "anova's test")
    if name not in TESTS:
        raise LaminaError("ValueError", f"anova's test is \"Chisq\" or \"F\", not \"{name}\".")
    if all_parts[0].kind == "linear" and name != "F":
        raise LaminaError("ValueError", "anova compares linear models by F; test = \"Chisq\" is "
                          "for GLMs.")
    return name


def _compare_linear(all_parts, heading) -> AnovaTable:
    from scipy import stats
    resdf = np.array([p.df for p in all_parts])
    rss = np.array([float(p.fit.residuals @ p.fit.residuals) for p in all_parts])
    df = np.concatenate([[np.nan], -np.diff(resdf)])
    ss = np.concatenate([[np.nan], -np.diff(rss)])
    big = int(np.argmin(resdf))
    scale = rss[big] / resdf[big]
    with np.errstate(divide="ignore", invalid="ignore"):
        F = ss / df / scale
    F[(df == 0) | (F < 0)] = np.nan
    p = stats.f.sf(F, np.abs(df), resdf[big])
    return AnovaTable(heading, [str(i + 1) for i in range(len(all_parts))],
                      ["Res.Df", "RSS", "Df", "Sum of Sq", "F", "Pr(>F)"],
                      ["res_df", "rss", "df", "sum_sq", "F", "p"], [resdf, rss, df, ss, F, p])


def _sequential_linear(p: FP.Parts) -> AnovaTable:
    from scipy import stats
    q, _ = np.linalg.qr(p.X)
    effects = q.T @ p.y
    names, df, ss = [], [], []
    for term, cols in FP.grouped_terms(p.fit):
        names.append(term)
        df.append(len(cols))
        ss.append(float(effects[cols] @ effects[cols]))
    rss = float(p.fit.residuals @ p.fit.residuals)
    df_v = np.array(df + [p.df], dtype=np.float64)
    ss_v = np.array(ss + [rss])
    mean = ss_v / df_v
    with np.errstate(divide="ignore", invalid="ignore"):
        F = np.append(mean[:-1] / mean[-1], np.nan)
    pv = stats.f.sf(F, df_v, p.df)
    return AnovaTable(["Analysis of Variance Table", "", f"Response: {FP.response_name(p.fit)}"],
                      names + ["Residuals"], ["Df", "Sum Sq", "Mean Sq", "F value", "Pr(>F)"],
                      ["df", "sum_sq", "mean_sq", "F", "p"], [df_v, ss_v, mean, F, pv])


# -- what makes models comparable -------------------------------------------------------
NESTED_TOLERANCE = 1e-7     # a column lies in a span when its least-squares residual is this small


def _check_nested(all_parts) -> None:
    first = all_parts[0]
    for i, p in enumerate(all_parts[1:], start=2):
        if p.y.size != first.y.size:
            raise LaminaError("ValueError", f"anova compares models fitted to the same rows, but model 1 "
                              f"has {first.y.size} rows and model {i} has {p.y.size}.")
        if not np.allclose(p.y, first.y, rtol=1e-9, atol=1e-12 * max(1.0, float(np.abs(first.y).max()))):
            raise LaminaError("ValueError", f"anova compares models of one response, but model {i}'s "
                              f"response ({_response(p)}) differs from model 1's ({_response(first)}).")
        if p.kind == "glm":
            _same_family(first, p, i)
    for i in range(len(all_parts) - 1):
        a, b = all_parts[i], all_parts[i + 1]
        small, big, s, g = (a, b, i + 1, i + 2) if a.df >= b.df else (b, a, i + 2, i + 1)
        outside = _outside_span(small.X, big.X)
        if outside is not None:
            raise LaminaError("ValueError", f"anova compares nested models, but model {s}'s column "
                              f"{small.terms[outside]} is not in the span of model {g}'s columns "
                              f"({', '.join(big.terms)}); the smaller model's terms must all be in the larger.")


def _outside_span(small: np.ndarray, big: np.ndarray):
    """The first column of `small` outside the column span of `big`, or None."""
    coef, *_ = np.linalg.lstsq(big, small, rcond=None)
    resid = small - big @ coef
    size = np.maximum(np.linalg.norm(small, axis=0), np.finfo(float).tiny)
    bad = np.flatnonzero(np.linalg.norm(resid, axis=0) / size > NESTED_TOLERANCE)
    return int(bad[0]) if bad.size else None


def _response(p: FP.Parts) -> str:
    return FP.response_name(p.fit)


def _same_family(first: FP.Parts, p: FP.Parts, i: int) -> None:
    a = (first.fit.family.name, first.fit.link.name)
    b = (p.fit.family.name, p.fit.link.name)
    if a != b:
        raise LaminaError("ValueError", f"anova compares GLMs of one family and link, but model 1 is "
                          f"{a[0]} with link {a[1]} and model {i} is {b[0]} with link {b[1]}.")
