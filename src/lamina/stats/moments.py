"""Moments of data, differentiable: var, std, zscore, cov, corr.

The value is NumPy's, computed as for untracked data; a tracked argument also gets
its vector-Jacobian product recorded beside it (autodiff.tape.record keeps it only
for a live tracked input, and the VJP's work is done only if grad reaches it).
With skipnan a NaN is left out: it gets no gradient, like a constant.

The formulas, for the n values of one slice with mean m, deviations e = x - m and
d = n - ddof: var = sum(e^2) / d has gradient 2 e / d; std = sqrt(var) has
2 e / (2 d std); a covariance matrix C = E'E / d of centred columns E has gradient
E (G + G') / d (the centring needs no term of its own: E's columns sum to 0).
"""
from __future__ import annotations

import math

import numpy as np

from ..autodiff.reductions import kept_shape
from ..autodiff.tape import record
from ..errors import LaminaError
from ..values import as_int, lamina_value
from .args import flag, matrix, shaped_like
from .descriptive import quiet, setup


def constant(a: np.ndarray, axis=None, skip: bool = False, keepdims: bool = False):
    """Whether each slice of a (all of a, or along axis) is constant: its values all equal, or
    spread by no more than rounding (max - min <= 10 eps max |x|), where a mean and a standard
    deviation are rounding noise (R's t.test calls such data "essentially constant"). A slice
    with a NaN is not (unless skip leaves NaNs out), nor is an empty one."""
    big, small = (np.fmax, np.fmin) if skip else (np.maximum, np.minimum)
    hi = big.reduce(a, axis=axis, keepdims=keepdims, initial=-np.inf)
    lo = small.reduce(a, axis=axis, keepdims=keepdims, initial=np.inf)
    with np.errstate(all="ignore"):
        spread = hi - lo
        tol = 10 * np.finfo(a.dtype).eps * np.maximum(np.abs(hi), np.abs(lo))
        return (hi == lo) | ((spread >= 0) & np.isfinite(spread) & (spread <= tol))


def power_scale(a: np.ndarray, axis=None):
    """A power of 2 near max |a| (of each slice along axis, kept as a row), 1 for zeros or
    non-finite values: in its units squares of tiny or huge values neither underflow nor
    overflow, and dividing by it is exact."""
    if axis is None:                    # one number: Python's frexp and ldexp, as exact and cheaper
        top = float(np.max(np.abs(a), initial=0.0))
        return np.float64(math.ldexp(1.0, math.frexp(top)[1] - 1) if 0 < top < math.inf else 1.0)
    with np.errstate(all="ignore"):          # max |a| without |a|, an array as large as a
        top = np.maximum(np.max(a, axis=axis, keepdims=True, initial=-np.inf),
                         -np.min(a, axis=axis, keepdims=True, initial=np.inf))
        usable = (top > 0) & np.isfinite(top)
        return np.where(usable, np.ldexp(1.0, np.frexp(np.where(usable, top, 1.0))[1] - 1), 1.0)


def _ddof(ddof, what: str) -> int:
    return as_int(ddof, f"{what}'s ddof", minimum=0)


def _deviations(a: np.ndarray, k, skip: bool, d: int):
    """(the mask of values used, deviations from the slice mean (0 where not used), n - ddof)."""
    keep = ~np.isnan(a) if skip else np.ones(a.shape, dtype=bool)
    n = keep.sum(axis=k, keepdims=True)
    with np.errstate(all="ignore"):
        mean = np.where(keep, a, 0.0).sum(axis=k, keepdims=True) / n
        return keep, np.where(keep, a - mean, 0.0), n - d


def _var_grad(g, a: np.ndarray, k, skip: bool, d: int) -> np.ndarray:
    _, dev, dof = _deviations(a, k, skip, d)
    with np.errstate(all="ignore"):
        return np.where(dof > 0, 2.0 * dev * g / dof, np.nan)


def var(x, axis=None, ddof=1.0, skipnan=False):
    a, k, skip = setup(x, axis, skipnan, "var")
    d = _ddof(ddof, "var")
    out = _variance(a, k, skip, d)
    return record(out, (x,), (lambda g: shaped_like(_var_grad(g, a, k, skip, d), x),))


def _unit(a: np.ndarray, k, skip: bool) -> np.ndarray:
    """power_scale of each slice (NaNs that skip leaves out aside), in a's dtype, kept as a
    row or column along an axis: data in its units has squares that neither overflow nor
    underflow, so std([1e-200, 2e-200, 3e-200]) is 1e-200, not 0."""
    return power_scale(np.where(np.isnan(a), 0.0, a) if skip else a, k).astype(a.dtype)


def _scaled_variance(a: np.ndarray, k, skip: bool, d: int):
    """(the variance of a / unit, unit): the variance is that times unit^2."""
    if k is None and not skip and a.size - d > 0:
        whole = _whole_scaled_variance(a, d)
        if whole is not None:
            return whole
    kept = k is not None         # along an axis the result keeps its orientation: a row or a column
    unit = _unit(a, k, skip)
    if skip:
        result = np.asarray(quiet(np.nanvar, a / unit, axis=k, ddof=d, keepdims=kept), dtype=a.dtype)
        counts = (~np.isnan(a)).sum(axis=k, keepdims=kept)
        return np.where(counts - d > 0, result, np.nan), unit
    if (a.size if k is None else math.prod(a.shape[i] for i in k)) - d <= 0:
        return np.full(kept_shape(a.shape, k) if kept else (), np.nan, dtype=a.dtype), unit
    with np.errstate(all="ignore"):
        return np.asarray(np.var(a / unit, axis=k, ddof=d, keepdims=kept), dtype=a.dtype), unit


def _whole_scaled_variance(a: np.ndarray, d: int):
    """_scaled_variance of all of finite data with a nonzero value, or None for other data: the
    operations np.var does on a / unit, in the same order (so the same bits), in one array:
    max |a| from two reductions that write nothing, the quotient's memory reused for the
    deviations and their squares (np.var writes three new arrays), and no warning state to
    set, as none of these steps can overflow (|a / unit| < 2)."""
    top = max(float(np.maximum.reduce(a, axis=None)), -float(np.minimum.reduce(a, axis=None)))
    if not 0 < top < math.inf:          # NaN, an infinity or all zeros: the general path
        return None
    unit = a.dtype.type(math.ldexp(1.0, math.frexp(top)[1] - 1))    # power_scale's
    b = np.divide(a, unit)
    mean = np.add.reduce(b, axis=None, keepdims=True)
    np.true_divide(mean, a.size, out=mean)
    np.subtract(b, mean, out=b)
    np.square(b, out=b)
    return np.asarray(np.add.reduce(b, axis=None) / (a.size - d), dtype=a.dtype), unit


def _variance(a: np.ndarray, k, skip: bool, d: int):
    v, unit = _scaled_variance(a, k, skip, d)
    with np.errstate(over="ignore"):
        return lamina_value(v * unit * unit)


def std(x, axis=None, ddof=1.0, skipnan=False):
    a, k, skip = setup(x, axis, skipnan, "std")
    d = _ddof(ddof, "std")
    v, unit = _scaled_variance(a, k, skip, d)
    out = lamina_value(np.sqrt(v) * unit)

    def vjp(g):
        # where the spread is 0 the gradient is 0, as torch's std gives (the deviations are 0,
        # and g / (2 * 0) times them would be NaN)
        s = np.asarray(out)
        with np.errstate(all="ignore"):
            return shaped_like(_var_grad(np.where(s == 0, 0.0, np.divide(g, 2.0 * s)), a, k, skip, d), x)
    return record(out, (x,), (vjp,))


def zscore(x, axis=None, ddof=1.0, skipnan=False):
    a, k, skip = setup(x, axis, skipnan, "zscore")
    d = _ddof(ddof, "zscore")
    unit = _unit(a, k, skip)
    b = a / unit                                    # z does not change
    center = quiet(np.nanmean if skip else np.mean, b, axis=k, keepdims=True)
    spread = np.sqrt(quiet(np.nanvar if skip else np.var, b, axis=k, ddof=d, keepdims=True))
    flat = constant(a, k, skip, keepdims=True)     # its spread is rounding noise: 0 / 0
    out = lamina_value(np.where(flat, np.nan, quiet(np.divide, b - center, spread)))

    def vjp(g):
        # z = e / s: dz/dx = (g - mean(g)) / s - e * sum(g e) / (d s^3), per slice, in units of
        # unit (so divided by it at the end)
        keep, dev, dof = _deviations(b, k, skip, d)
        gg = np.where(keep, np.reshape(g, a.shape), 0.0)
        with np.errstate(all="ignore"):
            mean_g = gg.sum(axis=k, keepdims=True) / keep.sum(axis=k, keepdims=True)
            inner = (gg * dev).sum(axis=k, keepdims=True)
            gx = ((gg - mean_g) / spread - dev * inner / (dof * spread ** 3)) / unit
        return shaped_like(np.where(keep, np.where(flat, np.nan, gx), 0.0), x)
    return record(out, (x,), (vjp,))


# -- covariance and correlation -----------------------------------------------------
def _pairs(x, y, what: str, by_variable: bool = False) -> np.ndarray:
    """Observations as rows of a matrix: x's columns, then y's (when given). With by_variable,
    the matrix is the transpose of a k x n array, so each variable's values are contiguous."""
    a = matrix(x, f"{what}'s data")
    if y is not None:
        b = matrix(y, f"{what}'s second argument")
        if a.shape[0] != b.shape[0]:
            raise LaminaError("ShapeError", f"{what}(x, y) needs x and y with the same number of "
                              f"observations, but got {a.shape[0]} and {b.shape[0]}.")
        return np.vstack([a.T, b.T]).T if by_variable else np.hstack([a, b])
    return np.ascontiguousarray(a.T).T if by_variable else a


def _kept_rows(a: np.ndarray, skip: bool) -> np.ndarray:
    return ~np.isnan(a).any(axis=1) if skip else np.ones(a.shape[0], dtype=bool)


def _matrix_result(c: np.ndarray, y):
    """cov(x, y) of two vectors is a number, as is cov(v); otherwise the whole matrix."""
    if y is not None and c.shape == (2, 2):
        return float(c[0, 1])
    return float(c[0, 0]) if c.shape == (1, 1) else lamina_value(c)


def _matrix_grad(g, k: int, y) -> np.ndarray:
    """The k x k gradient of the whole matrix, from the gradient of what _matrix_result returned."""
    full = np.zeros((k, k))
    if y is not None and k == 2:
        full[0, 1] = g
    elif k == 1:
        full[0, 0] = g
    else:
        full[...] = g
    return full


def _split(ga: np.ndarray, x, y):
    """The gradients for x and y from the gradient of their columns side by side."""
    width = matrix(x, "x").shape[1]
    gx = shaped_like(ga[:, :width], x)
    return (gx,) if y is None else (gx, shaped_like(ga[:, width:], y))


def _record_pairs(out, x, y, grad_of_columns):
    """Record `out` from x (and y): `grad_of_columns(g)` is the gradient of the joined columns."""
    if y is None:
        return record(out, (x,), (lambda g: _split(grad_of_columns(g), x, None)[0],))
    return record(out, (x, y), (lambda g: _split(grad_of_columns(g), x, y)[0],
                                lambda g: _split(grad_of_columns(g), x, y)[1]))


def _centred(a: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The kept rows' deviations from their column means, zero in the rows left out."""
    used = a[rows]
    out = np.zeros(a.shape)
    out[rows] = used - used.mean(axis=0)
    return out


def _nan_results(gc: np.ndarray, out: np.ndarray):
    """A result that involves an `out` column (one with a NaN or Inf, or constant for corr) is
    NaN: (gc without those results' gradients, the columns that the loss reaches through one,
    whose gradient is then NaN). The other columns get their gradient as if `out` were not there."""
    involves = out[:, None] | out[None, :]
    reached = (gc != 0) & involves
    return np.where(involves, 0.0, gc), reached.any(axis=0) | reached.any(axis=1)


def cov(x, y=None, ddof=1.0, skipnan=False):
    a = _pairs(x, y, "cov")
    rows = _kept_rows(a, flag(skipnan, "cov's skipnan"))
    d = _ddof(ddof, "cov")
    n, k = int(rows.sum()), a.shape[1]
    if n - d <= 0:
        c = np.full((k, k), np.nan, dtype=a.dtype)
    else:
        centered = a[rows] - a[rows].mean(axis=0)
        c = centered.T @ centered / (n - d)

    def columns_grad(g):
        if n - d <= 0:
            return np.full(a.shape, np.nan)
        out = ~np.isfinite(a[rows]).all(axis=0)
        gc, nan = _nan_results(_matrix_grad(g, k, y), out)
        e = _centred(a, rows)
        e[:, out] = 0.0
        ga = e @ (gc + gc.T) / (n - d)
        ga[:, nan] = np.nan
        return ga
    return _record_pairs(_matrix_result(c, y), x, y, columns_grad)


def _two_plain_vectors(x, y) -> bool:
    """x and y float64 vectors (not tracked) of one length, 2 or more: corr's common call."""
    return (type(x) is np.ndarray and type(y) is np.ndarray and x.ndim == 1 and y.ndim == 1
            and x.dtype == np.float64 and y.dtype == np.float64 and x.size == y.size and x.size >= 2)


def _corr_of_two(x: np.ndarray, y: np.ndarray) -> float:
    """corr(x, y)'s number as the general path computes it (the same operations in the same
    order: power_scale's units, constant's test, _pearson's sums and product, the clip), with
    its scalar steps in Python's floats: a third of the time on 1,000 values."""
    n = x.size
    cols = np.empty((2, n))
    cols[0], cols[1] = x, y
    his, los = np.maximum.reduce(cols, axis=1), np.minimum.reduce(cols, axis=1)
    eps10 = 10 * np.finfo(np.float64).eps
    units, flat = [], False
    for hi, lo in zip(his.tolist(), los.tolist()):
        top = max(abs(hi), abs(lo)) if hi == hi else math.nan        # max |x|, NaN with a NaN
        units.append(math.ldexp(1.0, math.frexp(top)[1] - 1) if 0 < top < math.inf else 1.0)
        spread = hi - lo
        flat = flat or hi == lo or (0 <= spread < math.inf and spread <= eps10 * top)
    scaled = cols / np.array(units)[:, None]
    e = scaled - (np.add.reduce(scaled, axis=1) / n)[:, None]
    c = np.dot(e, e.T)
    c *= np.true_divide(1, n - 1)
    r = float(c[0, 1]) / math.sqrt(c[0, 0]) / math.sqrt(c[1, 1]) if c[0, 0] > 0 and c[1, 1] > 0 \
        else float(c[0, 1] / np.sqrt(c[0, 0]) / np.sqrt(c[1, 1]))          # 0 / 0, NaN: NumPy's
    return math.nan if flat or r != r else min(max(r, -1.0), 1.0)


def _pearson(cols: np.ndarray) -> np.ndarray:
    """np.corrcoef of the rows of cols (k x n, n >= 2), step by step (its means are NumPy's
    pairwise sums along each contiguous row, as corrcoef's own)."""
    n = cols.shape[1]
    if cols.shape[0] == 1:                  # one row is contiguous either way: NumPy's own sum
        return np.atleast_2d(quiet(np.corrcoef, cols))
    e = cols - (np.add.reduce(cols, axis=1) / n)[:, None]
    c = np.dot(e, e.T)                      # e and its transpose share memory: a symmetric product
    c *= np.true_divide(1, n - 1)
    s = np.sqrt(np.diag(c))
    with np.errstate(all="ignore"):         # a constant column: 0 / 0, made NaN below
        c /= s[:, None]
        c /= s[None, :]
    return c


def corr(x, y=None, skipnan=False):
    if _two_plain_vectors(x, y) and skipnan is False:
        return _corr_of_two(x, y)
    a = _pairs(x, y, "corr", by_variable=True)    # a view of a k x n array: one variable per row
    rows = _kept_rows(a, flag(skipnan, "corr's skipnan"))
    used = a if rows.all() else a[rows]
    n, k = used.shape
    cols = used.T if rows.all() else np.ascontiguousarray(used.T)   # reductions over contiguous values
    unit = power_scale(cols, 1)             # r does not change; tiny squares do not underflow
    flat = constant(cols, 1)
    if n < 2:
        c = np.full((k, k), np.nan, dtype=a.dtype)
    else:
        c = np.clip(_pearson(cols / unit), -1.0, 1.0).astype(a.dtype)
        c = np.triu(c) + np.triu(c, 1).T        # symmetric, as corrcoef's rounding leaves it not always
        c[flat, :] = c[:, flat] = np.nan        # a constant variable has no correlation
    unit = unit.T                           # a row, as the data's columns

    def columns_grad(g):
        # R = S / (s s') with S the covariance and s its diagonal's roots, in units of unit
        if n < 2:
            return np.full(a.shape, np.nan)
        out = flat | ~np.isfinite(used).all(axis=0)
        gr, nan = _nan_results(_matrix_grad(g, k, y), out)
        e = _centred(a / unit, rows)
        e[:, out] = 0.0
        s_mat = e.T @ e / (n - 1)
        d = np.where(out, 1.0, np.diag(s_mat))
        s = np.sqrt(d)
        with np.errstate(all="ignore"):
            r = s_mat / np.outer(s, s)
            gs = gr / np.outer(s, s)
            gs[np.diag_indices(k)] -= ((gr * r).sum(axis=1) + (gr * r).sum(axis=0)) / (2 * d)
        ga = e @ (gs + gs.T) / ((n - 1) * unit)
        ga[:, nan] = np.nan
        return ga
    return _record_pairs(_matrix_result(c, y), x, y, columns_grad)
