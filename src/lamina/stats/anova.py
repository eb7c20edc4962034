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

The table prints as R's print.anova prints it (printCoefmat with digits 5): sums of squares
zapped and formatted together, test statistics rounded to 4 decimals, p-values by format.pval
to 4 digits, stars when any p < 0.1.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import LaminaError
from ..printing import html_table
from ..values import LibObject, as_str
from . import fitparts as FP
from .summary import SIGNIF, joint, layout, p_values, stars, zapsmall

DIGITS = 5                          # print.anova's max(getOption("digits") - 2, 3)
TESTS = ("Chisq", "F")


@dataclass(frozen=True, eq=False)
class AnovaTable(LibObject):
    heading: list               # the lines above the table
    row_names: list
    headers: list               # R's column names, in order
    fields: list                # the field each column is read as (df, sum_sq, F, p ...)
    columns: list               # one float vector per column, NaN where R prints nothing
    type_name = "anova table"

    def field_names(self) -> list[str]:
        return ["rows"] + list(self.fields)

    def get(self, name: str):
        if name == "rows":
            return list(self.row_names)
        if name in self.fields:
            return self.columns[self.fields.index(name)].copy()
        return super().get(name)

    def describe(self) -> str:
        header, rows, right, legend = self._cells()
        lines = list(self.heading) + layout(header, rows, right=right)
        return "\n".join(lines + (["---", SIGNIF] if legend else []))

    def html(self) -> str:
        header, rows, right, legend = self._cells()
        return html_table(header, rows, right, caption="\n".join(self.heading).strip(),
                          footer=[SIGNIF] if legend else [])

    def _cells(self) -> tuple:
        """R's printCoefmat of the table: the header, the rows of text, which columns are flush
        right (the numbers) and whether stars show."""
        shown = [_column(h, c) for h, c in zip(self.headers, self.columns)]
        rows = [[name] + [col[i] for col in shown] for i, name in enumerate(self.row_names)]
        header = [""] + list(self.headers)
        p = self.columns[-1] if self.headers[-1].startswith("Pr(") else None
        legend = p is not None and bool(np.any(p[~np.isnan(p)] < 0.1))
        if legend:
            header.append("")
            for row, pv in zip(rows, p):
                row.append(stars(pv))
        return header, rows, [False] + [True] * len(self.headers) + [False] * legend, legend


def _column(header: str, values: np.ndarray) -> list[str]:
    """One column as print.anova formats it; NaN (R's NA) prints as nothing."""
    there = ~np.isnan(values)
    out = [""] * values.size
    if not there.any():
        return out
    kept = values[there]
    if header.startswith("Pr("):
        texts = p_values(kept, DIGITS - 1)
    elif header in ("F", "Chisq") or header.endswith(" value"):
        texts = joint(np.round(kept, DIGITS - 1), DIGITS)
    else:
        if not header.endswith("Df"):
            kept = np.array(zapsmall(kept, DIGITS))
        texts = joint(kept, DIGITS)
        # printCoefmat: a number that is not 0 but formats as 0 is shown alone, to 4 digits
        texts = [joint([v], DIGITS - 1)[0] if v != 0 and float(t) == 0 else t for v, t in zip(kept, texts)]
    for i, text in zip(np.flatnonzero(there), texts):
        out[i] = text
    return out


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
        from .anova_glm import sequential
        return sequential(p, chosen)
    _check_nested(all_parts)
    heading = ["Analysis of Variance Table" if kinds == {"linear"} else "Analysis of Deviance Table", ""]
    heading += [f"Model {i + 1}: {FP.formula_text(f)}" for i, f in enumerate(fits)]
    if kinds == {"linear"}:
        return _compare_linear(all_parts, heading)
    from .anova_glm import compare
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
    for term, cols in grouped_terms(p.fit):
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
    return AnovaTable(["Analysis of Variance Table", "", f"Response: {getattr(p.fit, 'response', 'y')}"],
                      names + ["Residuals"], ["Df", "Sum Sq", "Mean Sq", "F value", "Pr(>F)"],
                      ["df", "sum_sq", "mean_sq", "F", "p"], [df_v, ss_v, mean, F, pv])


def grouped_terms(fit) -> list[tuple[str, list[int]]]:
    """(term, its columns of the model matrix) in the order the terms first appear, the
    intercept left out."""
    groups: dict[str, list[int]] = {}
    for j, term in enumerate(FP.term_of_column(fit)):
        if term != "(Intercept)":
            groups.setdefault(term, []).append(j)
    return list(groups.items())


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
    return str(getattr(p.fit, "response", "y"))


def _same_family(first: FP.Parts, p: FP.Parts, i: int) -> None:
    a, b = (first.fit.family, first.fit.link), (p.fit.family, p.fit.link)
    if a != b:
        raise LaminaError("ValueError", f"anova compares GLMs of one family and link, but model 1 is "
                          f"{a[0]} with link {a[1]} and model {i} is {b[0]} with link {b[1]}.")
