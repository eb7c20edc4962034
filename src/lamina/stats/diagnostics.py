"""Residuals, fitted values and influence of a linear model or GLM, as R's residuals, fitted,
hatvalues, rstandard and cooks.distance give them.

With y the response, mu the fitted mean, eta the linear predictor, w the prior weights, V the
family's variance function and d the unit deviance:
    response  y - mu
    working   (y - mu) / (dmu/deta)
    pearson   (y - mu) sqrt(w / V(mu))
    deviance  sign(y - mu) sqrt(w d(y, mu))
which are all y - mu for a linear model. The leverage h is the diagonal of the hat matrix
(fitparts.Parts.leverage); a standardized residual is r / sqrt(phi (1 - h)), phi the
dispersion (sigma^2 for a linear model, r its deviance residual for a GLM, as R's rstandard), and
Cook's distance (r_pearson / (1 - h))^2 h / (phi p), p the number of coefficients.
"""
from __future__ import annotations

import numpy as np

from ..errors import LaminaError
from ..values import as_str
from . import fitparts as FP
from .table import Table

TYPES = ("response", "pearson", "deviance", "working")


def fitted(fit) -> np.ndarray:
    """The fitted means: a linear model's fitted values, a GLM's mu (the response scale)."""
    parts = FP.parts(fit, "fitted")
    return np.array(parts.fit.fitted, dtype=np.float64)


def residuals(fit, type=None) -> np.ndarray:
    parts = FP.parts(fit, "residuals")
    kind = ("response" if parts.kind == "linear" else "deviance") if type is None else \
        as_str(type, "residuals' type")
    if kind not in TYPES:
        raise LaminaError("ValueError", f"residuals' type is \"response\", \"pearson\", \"deviance\" or "
                          f"\"working\", not \"{kind}\".")
    return of_type(parts, kind)


def of_type(parts: FP.Parts, kind: str) -> np.ndarray:
    mu = np.asarray(parts.fit.fitted, dtype=np.float64)
    r = parts.y - mu
    if parts.kind == "linear" or kind == "response":
        return r
    fit = parts.fit
    if kind == "working":
        return r / fit.link.mu_eta(np.asarray(fit.linear_predictor, dtype=np.float64))
    w = fit.prior_weights
    if kind == "pearson":
        return r * np.sqrt(w / fit.family.variance(mu))
    return np.sign(r) * np.sqrt(np.maximum(fit.family.deviance_residuals(parts.y, mu, w), 0))


def influence(fit) -> Table:
    """A table of leverage, standardized residual and Cook's distance, one row per row of data."""
    parts = FP.parts(fit, "influence")
    h, std, cooks = measures(parts)
    return Table({"leverage": h, "std_resid": std, "cooks": cooks})


def measures(parts: FP.Parts, standardize: str = "deviance") -> tuple:
    """(leverage, standardized residuals, Cook's distances). A point of leverage 1 (the fit goes
    through it whatever its y) has NaN for the other two, as R's Inf is dropped from plots."""
    h = np.clip(parts.leverage(), 0.0, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        left = np.where(h < 1 - 1e-10, 1 - h, np.nan)
        std = of_type(parts, standardize) / np.sqrt(parts.dispersion * left)
        pearson = of_type(parts, "pearson")
        cooks = (pearson / left) ** 2 * h / (parts.dispersion * parts.X.shape[1])
    return h, std, cooks


# -- a smoother for the panels --------------------------------------------------------
def lowess(x: np.ndarray, y: np.ndarray, frac: float = 2 / 3, iterations: int = 3) -> tuple:
    """R's lowess (Cleveland's clowess): at each x a line fitted by tricube weights to the
    nearest frac of the points, refitted `iterations` times with bisquare weights of the
    residuals; points within delta = 1% of the x range of the last one fitted are interpolated,
    so that at most about 200 lines are fitted however many points there are. Returns (x
    sorted, the smooth at each)."""
    order = np.argsort(x, kind="stable")
    xs, ys = x[order].astype(np.float64), y[order].astype(np.float64)
    n = xs.size
    if n < 2:
        return xs, ys.copy()
    span = xs[-1] - xs[0]
    delta = 0.01 * span
    ns = max(2, min(n, int(frac * n + 1e-7)))
    robust = None
    for step in range(iterations + 1):
        smooth = _smooth_pass(xs, ys, robust, ns, delta, span)
        if step == iterations:
            break
        resid = np.abs(ys - smooth)
        cmad = 6 * np.median(resid)
        if cmad < 1e-7 * resid.mean():
            break
        u = resid / cmad
        robust = np.where(u <= 0.001, 1.0, np.where(u > 0.999, 0.0, (1 - u ** 2) ** 2))
    return xs, smooth


def _smooth_pass(xs, ys, robust, ns, delta, span) -> np.ndarray:
    n = xs.size
    smooth = np.empty(n)
    nleft, nright, last, i = 0, ns - 1, -1, 0
    while True:
        while nright < n - 1 and xs[i] - xs[nleft] > xs[nright + 1] - xs[i]:
            nleft, nright = nleft + 1, nright + 1
        value = _local_line(xs, ys, robust, i, nleft, nright, span)
        smooth[i] = ys[i] if value is None else value
        if last < i - 1:        # the points skipped since the last fit: on the line between
            alpha = (xs[last + 1:i] - xs[last]) / (xs[i] - xs[last])
            smooth[last + 1:i] = alpha * smooth[i] + (1 - alpha) * smooth[last]
        last = i
        cut = xs[last] + delta
        i = last + 1
        while i < n and xs[i] <= cut:
            if xs[i] == xs[last]:
                smooth[i] = smooth[last]
                last = i
            i += 1
        i = max(last + 1, i - 1)
        if last >= n - 1:
            return smooth


def _local_line(xs, ys, robust, i, nleft, nright, span):
    """R's lowest: the weighted line at xs[i] through the window nleft..nright (and any point
    beyond it as near), or None when every weight is 0."""
    x0 = xs[i]
    h = max(x0 - xs[nleft], xs[nright] - x0)
    d = np.abs(xs[nleft:] - x0)
    near = d <= 0.999 * h
    d, x, y = d[near], xs[nleft:][near], ys[nleft:][near]
    w = np.where(d <= 0.001 * h, 1.0, (1 - (d / h) ** 3) ** 3) if h > 0 else np.ones(d.size)
    if robust is not None:
        w = w * robust[nleft:][near]
    total = w.sum()
    if total <= 0:
        return None
    w = w / total
    if h > 0:
        a = w @ x
        c = w @ (x - a) ** 2
        if np.sqrt(c) > 0.001 * span:
            w = w * ((x0 - a) / c * (x - a) + 1)
    return float(w @ y)
