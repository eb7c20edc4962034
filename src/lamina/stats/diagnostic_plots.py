"""plot(fit): R's four diagnostic panels of a linear model or GLM (plot.lm's which = c(1, 2, 3, 5)),
drawn on the 2 x 2 axes figures.py hands over.

    Residuals vs Fitted   residuals (a GLM's deviance residuals) against the fitted values (a
                          GLM's linear predictor), with a lowess smooth and a line at 0
    Q-Q Residuals         the standardized residuals, sorted, against the normal quantiles of
                          ppoints(n), with the line through the quartiles (R's qqline)
    Scale-Location        sqrt(|standardized residual|) (a GLM's standardized Pearson
                          residual) against the fitted values, smoothed
    Residuals vs Leverage standardized (a GLM's standardized Pearson) residuals against the
                          leverage, smoothed, with Cook's distance 0.5 and 1 as dashed curves
                          r = +-sqrt(D p (1 - h) / h)

As R does, each panel names the three most extreme points (by |residual|, and by Cook's
distance on the last), here by their row number counted from 0, and leaves out points of
leverage 1.
"""
from __future__ import annotations

import numpy as np

from . import diagnostics as D
from . import fitparts as FP

LABELLED = 3        # R's id.n
SMOOTH = "tab:red"


def draw(grid, fit) -> None:
    """Draw the panels of `fit` on a 2 x 2 array of matplotlib axes."""
    from scipy import stats
    parts = FP.parts(fit, "plot")
    glm = parts.kind == "glm"
    h, std_dev, cooks = D.measures(parts, "deviance")
    std = D.measures(parts, "pearson")[1] if glm else std_dev
    r = D.of_type(parts, "deviance")
    x = np.asarray(parts.fit.linear_predictor if glm else parts.fit.fitted, dtype=np.float64)
    x_label = "Predicted values" if glm else "Fitted values"
    std_label = "Std. Pearson resid." if glm else "Standardized residuals"
    kept = ~np.isnan(std)
    rows = np.arange(r.size)

    ax = grid[0][0]
    _points(ax, x, r)
    ax.axhline(0, color="gray", linestyle=":", linewidth=1)
    _smooth(ax, x, r)
    _label(ax, x, r, rows, np.abs(r))
    _titles(ax, "Residuals vs Fitted", x_label, "Residuals")

    ax = grid[0][1]
    q_std = std_dev[kept]
    order = np.argsort(q_std, kind="stable")
    theoretical = stats.norm.ppf(_ppoints(q_std.size))
    _points(ax, theoretical, q_std[order])
    if q_std.size >= 2:
        qx, qy = stats.norm.ppf([0.25, 0.75]), np.quantile(q_std, [0.25, 0.75])
        slope = (qy[1] - qy[0]) / (qx[1] - qx[0])
        ax.axline((qx[0], qy[0]), slope=slope, color="gray", linestyle=":", linewidth=1)
    _label(ax, theoretical, q_std[order], rows[kept][order], np.abs(q_std[order]))
    _titles(ax, "Q-Q Residuals", "Theoretical Quantiles",
            "Std. deviance resid." if glm else "Standardized residuals")

    ax = grid[1][0]
    root = np.sqrt(np.abs(std))
    _points(ax, x[kept], root[kept])
    _smooth(ax, x[kept], root[kept])
    _label(ax, x[kept], root[kept], rows[kept], root[kept])
    _titles(ax, "Scale-Location", x_label, "\u221a|" + std_label + "|")

    ax = grid[1][1]
    _points(ax, h[kept], std[kept])
    ax.axhline(0, color="gray", linestyle=":", linewidth=1)
    _smooth(ax, h[kept], std[kept])
    _cook_curves(ax, h[kept], std[kept], parts.X.shape[1])
    _label(ax, h[kept], std[kept], rows[kept], cooks[kept])
    _titles(ax, "Residuals vs Leverage", "Leverage", std_label)


def _ppoints(n: int) -> np.ndarray:
    """R's ppoints: (i - a) / (n + 1 - 2a), a = 3/8 for n <= 10 and 1/2 above."""
    a = 3 / 8 if n <= 10 else 0.5
    return (np.arange(1, n + 1) - a) / (n + 1 - 2 * a)


def _points(ax, x, y) -> None:
    ax.scatter(x, y, s=14, facecolors="none", edgecolors="black", linewidths=0.8)


def _smooth(ax, x, y) -> None:
    if x.size >= 2 and np.ptp(x) > 0:
        xs, ys = D.lowess(x, y)
        ax.plot(xs, ys, color=SMOOTH, linewidth=1)


def _label(ax, x, y, rows, size) -> None:
    """The row numbers of the LABELLED points largest by `size`, beside them."""
    if size.size == 0:
        return
    for i in np.argsort(-np.nan_to_num(size, nan=-np.inf), kind="stable")[:LABELLED]:
        ax.annotate(str(int(rows[i])), (x[i], y[i]), xytext=(4, 0), textcoords="offset points",
                    fontsize=8, va="center")


def _cook_curves(ax, h, std, p: int) -> None:
    """Cook's distance 0.5 and 1: the standardized residual r with r^2 h / (p (1 - h)) = D."""
    if h.size == 0 or h.max() <= 0:
        return
    hs = np.linspace(max(h.max() / 100, 1e-3), h.max() * 1.05, 101)
    hs = hs[hs < 1]
    low, high = ax.get_ylim()
    for level in (0.5, 1.0):
        bound = np.sqrt(level * p * (1 - hs) / hs)
        for sign in (1, -1):
            ax.plot(hs, sign * bound, color=SMOOTH, linestyle="--", linewidth=0.8,
                    label="Cook's distance" if level == 0.5 and sign == 1 else None)
    ax.set_ylim(low, high)      # the curves run off the panel, as in R
    ax.legend(loc="best", fontsize=8, frameon=False)


def _titles(ax, title, xlabel, ylabel) -> None:
    ax.set_title(title, fontsize=10)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
