"""anova of GLMs: the analysis of deviance, as R's anova.glmlist (models compared) and anova.glm
(a model's terms added in turn) with R's stat.anova tests.

Compared models: each row a model's residual df and deviance, then the change from the row before.
One model: the NULL row (the null deviance on df_null), then each term's deviance, the drop in
residual deviance when it joins the terms before it (never below 0), each prefix of the terms
fitted again by IRLS with the model's family, link, prior weights and offset.

The test divides each change of deviance by the dispersion phi of the largest model (1 for
binomial and poisson): "Chisq" refers D / phi to chi-squared on |change of df| degrees of freedom;
"F" takes F = (D / change of df) / phi on (|change of df|, df of phi) degrees of freedom, the
second infinite when phi is fixed. A change with no degrees of freedom, or a negative statistic,
gets no test (NaN), as in R.
"""
from __future__ import annotations

import numpy as np

from . import fitparts as FP
from .anova_table import AnovaTable


def compare(all_parts, heading, test: str) -> AnovaTable:
    resdf = np.array([p.df for p in all_parts])
    resdev = np.array([p.fit.deviance for p in all_parts])
    df = np.concatenate([[np.nan], -np.diff(resdf)])
    dev = np.concatenate([[np.nan], -np.diff(resdev)])
    big = all_parts[int(np.argmin(resdf))]
    scale, df_scale = _scale(big.fit, resdf.min())
    headers, fields, columns = ["Resid. Df", "Resid. Dev", "Df", "Deviance"], ["res_df", "res_dev", "df", "deviance"], \
        [resdf, resdev, df, dev]
    _add_test(headers, fields, columns, df, dev, test, scale, df_scale)
    return AnovaTable(heading, [str(i + 1) for i in range(len(all_parts))], headers, fields, columns)


def sequential(p: FP.Parts, test: str) -> AnovaTable:
    from . import glm as G
    fit = p.fit
    groups = FP.grouped_terms(fit)
    intercept = [j for j, t in enumerate(FP.term_of_column(fit)) if t == "(Intercept)"]
    resdf, resdev = [float(fit.df_null)], [float(fit.null_deviance)]
    for k in range(1, len(groups)):
        cols = intercept + [j for _, js in groups[:k] for j in js]
        sub = G.fit(p.X[:, cols], p.y, fit.family, fit.link, fit.prior_weights, fit.offset,
                    [fit.terms[j] for j in cols], bool(intercept), fit.title, "anova")
        resdf.append(float(sub.df_residual))
        resdev.append(sub.deviance)
    if groups:
        resdf.append(float(fit.df_residual))
        resdev.append(fit.deviance)
    resdf_v, resdev_v = np.array(resdf), np.array(resdev)
    df = np.concatenate([[np.nan], -np.diff(resdf_v)])
    dev = np.concatenate([[np.nan], np.maximum(0, -np.diff(resdev_v))])
    scale, df_scale = _scale(fit, fit.df_residual)
    headers, fields, columns = ["Df", "Deviance", "Resid. Df", "Resid. Dev"], ["df", "deviance", "res_df", "res_dev"], \
        [df, dev, resdf_v, resdev_v]
    _add_test(headers, fields, columns, df, dev, test, scale, df_scale)
    heading = ["Analysis of Deviance Table", "", f"Model: {fit.family.r_name}, link: {fit.link.name}", "",
               f"Response: {FP.response_name(fit)}", "", "Terms added sequentially (first to last)", "", ""]
    return AnovaTable(heading, ["NULL"] + [t for t, _ in groups], headers, fields, columns)


def _scale(fit, df_residual) -> tuple[float, float]:
    """The dispersion the tests divide by, and its degrees of freedom (infinite when fixed)."""
    if fit.family.fixed_dispersion:
        return 1.0, np.inf
    return float(fit.dispersion), float(df_residual)


def _add_test(headers, fields, columns, df, dev, test: str, scale: float, df_scale: float) -> None:
    from scipy import stats
    with np.errstate(divide="ignore", invalid="ignore"):
        if test == "Chisq":
            vals = dev / scale * np.sign(df)
            vals[(df == 0) | (vals < 0)] = np.nan
            headers.append("Pr(>Chi)")
            fields.append("p")
            columns.append(stats.chi2.sf(vals, np.abs(df)))
            return
        F = dev / df / scale
        F[(df == 0) | (F < 0)] = np.nan
        p = stats.chi2.sf(F * np.abs(df), np.abs(df)) if np.isinf(df_scale) else stats.f.sf(F, np.abs(df), df_scale)
    headers += ["F", "Pr(>F)"]
    fields += ["F", "p"]
    columns += [F, p]
