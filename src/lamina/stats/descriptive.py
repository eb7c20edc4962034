"""Descriptive statistics on vectors and matrices.

One rule for `axis` everywhere (the same as sum and mean): no axis means every
element of the tensor; axis 0 works down the rows, giving one result per column;
axis 1 works along each row, giving one result per row. NaN in gives NaN out,
unless `skipnan` asks to leave NaNs out.
"""
from __future__ import annotations

import warnings

import numpy as np

from ..errors import LaminaError, shape_str
from ..values import Record, as_int, describe, lamina_value, value_of
from .args import axis_of, data, flag, matrix, vector


def _quiet(fn, *args, **kwargs):
    """Call a NumPy reduction without its warnings for empty or all-NaN slices."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        return fn(*args, **kwargs)


def _setup(x, axis, skipnan, what: str):
    a = data(x, f"{what}'s data")
    return a, axis_of(a.shape, axis, what), flag(skipnan, f"{what}'s skipnan")


def median(x, axis=None, skipnan=False):
    a, k, skip = _setup(x, axis, skipnan, "median")
    return lamina_value(_quiet(np.nanmedian if skip else np.median, a, axis=k))


def _ddof(ddof, what: str) -> int:
    return as_int(ddof, f"{what}'s ddof", minimum=0)


def var(x, axis=None, ddof=1.0, skipnan=False, what: str = "var"):
    a, k, skip = _setup(x, axis, skipnan, what)
    d = _ddof(ddof, what)
    result = np.asarray(_quiet(np.nanvar if skip else np.var, a, axis=k, ddof=d), dtype=np.float64)
    counts = (~np.isnan(a) if skip else np.ones_like(a, dtype=bool)).sum(axis=k)
    return lamina_value(np.where(counts - d > 0, result, np.nan))


def std(x, axis=None, ddof=1.0, skipnan=False):
    return lamina_value(np.sqrt(var(x, axis, ddof, skipnan, "std")))


def quantile(x, q, axis=None, skipnan=False):
    a, k, skip = _setup(x, axis, skipnan, "quantile")
    qs = data(q, "quantile's probabilities")
    if not isinstance(value_of(q), np.ndarray):
        qs = qs.reshape(())
    if qs.ndim > 1:
        raise LaminaError("ShapeError", f"quantile's probabilities must be a number or a vector, "
                          f"not a {shape_str(qs.shape)} matrix.")
    if np.any(np.isnan(qs)) or np.any((qs < 0) | (qs > 1)):
        raise LaminaError("ValueError", "quantile's probabilities must lie from 0 to 1.")
    if a.size == 0:               # NumPy cannot take quantiles of nothing; they are NaN
        kept = () if k is None else (a.shape[1 - k],) if a.ndim == 2 else ()
        result = np.full(qs.shape + kept, np.nan)
    else:
        result = _quiet(np.nanquantile if skip else np.quantile, a, qs, axis=k)
    if k == 1 and qs.ndim == 1:
        result = result.T               # rows of the input stay rows
    return lamina_value(result)


def _pairs(x, y, what: str) -> np.ndarray:
    """Observations as rows of a matrix: x's columns, then y's (when given)."""
    a = matrix(x, f"{what}'s data")
    if y is None:
        return a
    b = matrix(y, f"{what}'s second argument")
    if a.shape[0] != b.shape[0]:
        raise LaminaError("ShapeError", f"{what}(x, y) needs x and y with the same number of "
                          f"observations, but got {a.shape[0]} and {b.shape[0]}.")
    return np.hstack([a, b])


def _complete(a: np.ndarray, skip: bool) -> np.ndarray:
    return a[~np.isnan(a).any(axis=1)] if skip else a


def cov(x, y=None, ddof=1.0, skipnan=False):
    a = _complete(_pairs(x, y, "cov"), flag(skipnan, "cov's skipnan"))
    d = _ddof(ddof, "cov")
    if a.shape[0] - d <= 0:
        c = np.full((a.shape[1], a.shape[1]), np.nan)
    else:
        centered = a - a.mean(axis=0)
        c = centered.T @ centered / (a.shape[0] - d)
    return _matrix_result(c, y)


def _matrix_result(c: np.ndarray, y):
    """cov(x, y) of two vectors is a number, as is cov(v); otherwise the whole matrix."""
    if y is not None and c.shape == (2, 2):
        return float(c[0, 1])
    return float(c[0, 0]) if c.shape == (1, 1) else lamina_value(c)


def corr(x, y=None, skipnan=False):
    a = _complete(_pairs(x, y, "corr"), flag(skipnan, "corr's skipnan"))
    if a.shape[0] < 2:
        c = np.full((a.shape[1], a.shape[1]), np.nan)
    else:
        c = np.clip(np.atleast_2d(_quiet(np.corrcoef, a, rowvar=False)), -1.0, 1.0)
    return _matrix_result(c, y)


def zscore(x, axis=None, ddof=1.0, skipnan=False):
    a, k, skip = _setup(x, axis, skipnan, "zscore")
    d = _ddof(ddof, "zscore")
    center = _quiet(np.nanmean if skip else np.mean, a, axis=k, keepdims=True)
    spread = np.sqrt(_quiet(np.nanvar if skip else np.var, a, axis=k, ddof=d, keepdims=True))
    return lamina_value(_quiet(np.divide, a - center, spread))


def cumsum(x, axis=None, skipnan=False):
    a, k, skip = _setup(x, axis, skipnan, "cumsum")
    return lamina_value((np.nancumsum if skip else np.cumsum)(a if k is not None else a.reshape(-1), axis=k))


def sort(x, axis=None, descending=False):
    down = flag(descending, "sort's descending")
    if isinstance(x, list):
        if axis is not None:
            raise LaminaError("TypeError", "sort of a list takes no axis.")
        return _sort_list(x, down)
    a = data(x, "sort's data")
    k = axis_of(a.shape, axis, "sort")
    flat = a if k is not None else a.reshape(-1)
    k = -1 if k is None else k
    return lamina_value(-np.sort(-flat, axis=k) if down else np.sort(flat, axis=k))


def _sort_list(xs: list, down: bool) -> list:
    kinds = {type(v) for v in xs}
    if not (kinds <= {str} or kinds <= {float, int}):
        raise LaminaError("TypeError", "sort of a list needs all strings or all numbers.")
    return sorted(xs, reverse=down)


def unique(x, counts=False):
    with_counts = flag(counts, "unique's counts")
    if isinstance(x, list):
        kinds = {type(v) for v in x}
        if not (kinds <= {str} or kinds <= {float, int}):
            raise LaminaError("TypeError", "unique of a list needs all strings or all numbers.")
        values = sorted(set(x))
        if not with_counts:
            return values
        return Record({"values": values, "counts": np.array([float(x.count(v)) for v in values])})
    a = data(x, "unique's data").reshape(-1)
    values, n = np.unique(a, return_counts=True)
    if not with_counts:
        return lamina_value(values)
    return Record({"values": lamina_value(values), "counts": lamina_value(n)})


def bin_spec(bins, who: str):
    """A number of bins (a whole number, at least 1) or a vector of increasing, finite edges."""
    if isinstance(value_of(bins), np.ndarray):
        edges = vector(bins, f"{who}'s bin edges")
        if edges.size < 2 or not np.isfinite(edges).all() or np.any(np.diff(edges) <= 0):
            raise LaminaError("ValueError", f"{who}'s bin edges must be at least two increasing, finite numbers.")
        return edges
    return as_int(bins, f"{who}'s number of bins", minimum=1)


def check_span(a: np.ndarray, who: str) -> None:
    """Bins of equal width need max - min to be a finite number."""
    if a.size and not np.isfinite(a.max() - a.min()):
        raise LaminaError("ValueError", f"{who} cannot make bins over values from "
                          f"{a.min():g} to {a.max():g}: the width of that range overflows; scale "
                          f"the data first.")


def histogram(x, bins=10.0, range=None, skipnan=False):
    a = data(x, "histogram's data").reshape(-1)
    if np.isnan(a).any():
        if not flag(skipnan, "histogram's skipnan"):
            raise LaminaError("ValueError", "histogram's data contains NaN, which falls in no bin; "
                              "pass skipnan = true to leave NaNs out.")
        a = a[~np.isnan(a)]
    spec = bin_spec(bins, "histogram")
    if range is not None and isinstance(spec, np.ndarray):
        raise LaminaError("TypeError", "histogram takes range only with a number of bins, not with edges.")
    lo_hi = None
    if range is not None:
        r = vector(range, "histogram's range")
        if r.size != 2 or not r[0] < r[1]:
            raise LaminaError("ValueError", f"histogram's range must be [low, high] with low < high, "
                              f"not {describe(range)}.")
        lo_hi = (float(r[0]), float(r[1]))
    if not np.isfinite(a).all():
        raise LaminaError("ValueError", "histogram's data contains Inf, which falls in no bin.")
    if lo_hi is None and not isinstance(spec, np.ndarray):
        check_span(a, "histogram")
    try:
        counts, edges = np.histogram(a, bins=spec, range=lo_hi)
    except ValueError as exc:     # bins of equal width cannot be formed near the largest float
        raise LaminaError("ValueError", f"histogram cannot make equal bins over these values "
                          f"({exc}); scale the data first.") from None
    return Record({"counts": lamina_value(counts), "edges": lamina_value(edges)})
