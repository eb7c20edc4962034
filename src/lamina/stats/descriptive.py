"""Descriptive statistics on vectors and matrices.

One rule for `axis` everywhere (the same as sum and mean): no axis means every
element of the tensor; axis 0 works down the rows, giving one result per column as
a 1 x n row; axis 1 works along each row, giving one result per row as an m x 1
column (a reduction keeps its orientation). NaN in gives NaN out,
unless `skipnan` asks to leave NaNs out.
"""
from __future__ import annotations

import warnings

import numpy as np

from ..autodiff.tape import is_live, record
from ..errors import LaminaError, shape_str
from ..values import Record, as_int, describe, lamina_value, value_of
from .args import axis_of, data, flag, shaped_like, vector


def quiet(fn, *args, **kwargs):
    """Call a NumPy reduction without its warnings for empty or all-NaN slices."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        return fn(*args, **kwargs)


def _setup(x, axis, skipnan, what: str):
    a = data(x, f"{what}'s data")
    return a, axis_of(a.shape, axis, what), flag(skipnan, f"{what}'s skipnan")


def median(x, axis=None, skipnan=False):
    a, k, skip = _setup(x, axis, skipnan, "median")
    out = lamina_value(quiet(np.nanmedian if skip else np.median, a, axis=k, keepdims=k is not None))
    return record(out, (x,), (lambda g: shaped_like(_order_grad(g, a, k, np.asarray(0.5), skip), x),))


def quantile(x, q, axis=None, skipnan=False):
    a, k, skip = _setup(x, axis, skipnan, "quantile")
    if is_live(q):
        raise LaminaError("TypeError", "quantile passes no gradient to its probabilities, and q is "
                          "tracked; pass detach(q) to use its number as a constant.")
    qs = data(q, "quantile's probabilities")
    if not isinstance(value_of(q), np.ndarray):
        qs = qs.reshape(())
    if qs.ndim > 1:
        raise LaminaError("ShapeError", f"quantile's probabilities must be a number or a vector, "
                          f"not a {shape_str(qs.shape)} matrix.")
    if np.any(np.isnan(qs)) or np.any((qs < 0) | (qs > 1)):
        raise LaminaError("ValueError", "quantile's probabilities must lie from 0 to 1.")
    one = qs.ndim == 0 and k is not None      # one q along an axis: a row or column, as sum gives
    if a.size == 0:               # NumPy cannot take quantiles of nothing; they are NaN
        kept = () if k is None else (a.shape[1 - k],) if a.ndim == 2 else ()
        result = np.full(qs.shape + kept, np.nan, dtype=a.dtype)
        if one:
            result = result.reshape((1, -1) if k == 0 else (-1, 1))
    else:
        result = quiet(np.nanquantile if skip else np.quantile, a, qs, axis=k, keepdims=one).astype(a.dtype, copy=False)
    if k == 1 and qs.ndim == 1:
        result = result.T               # rows of the input stay rows
    return record(lamina_value(result), (x,), (lambda g: shaped_like(_order_grad(g, a, k, qs, skip), x),))


def _slices(a: np.ndarray, k) -> np.ndarray:
    """The data as rows of slices to take order statistics of (a view; see _unslice)."""
    return a.reshape(1, -1) if k is None else (a.T if k == 0 else a)


def _unslice(ga: np.ndarray, a: np.ndarray, k) -> np.ndarray:
    return ga.reshape(a.shape) if k is None else (ga.T if k == 0 else ga)


def _order_grad(g, a: np.ndarray, k, qs: np.ndarray, skip: bool) -> np.ndarray:
    """The gradient of quantiles qs by linear interpolation between order statistics: the
    weights 1 - f and f go to the two sorted values at position q (n - 1) = lo + f."""
    rows = _slices(a, k)
    s, n = rows.shape
    per_slice = np.reshape(g, (1, -1)) if k is None else (
        np.reshape(g, (s, 1)) if qs.ndim == 0 else (np.transpose(g) if k == 0 else np.asarray(g)))
    out = np.zeros(rows.shape)
    for i in range(s):
        values = rows[i]
        nan = np.isnan(values)
        if nan.any() and not skip:
            out[i] = np.nan                 # the result is NaN
            continue
        m = n - int(nan.sum())
        if m == 0:
            continue
        order = np.argsort(values, kind="stable")   # NaNs last
        for j, q in enumerate(np.atleast_1d(qs)):
            pos = float(q) * (m - 1)
            lo = int(np.floor(pos))
            hi = min(lo + 1, m - 1)
            frac = pos - lo
            out[i, order[lo]] += per_slice[i, j] * (1.0 - frac)
            out[i, order[hi]] += per_slice[i, j] * frac
    return _unslice(out, a, k)


def cumsum(x, axis=None, skipnan=False):
    a, k, skip = _setup(x, axis, skipnan, "cumsum")
    flat = a if k is not None else a.reshape(-1)
    ax = 0 if k is None else k

    def vjp(g):
        back = np.flip(np.cumsum(np.flip(g, ax), axis=ax), ax)       # the sum of g from i on
        return shaped_like(np.where(np.isnan(flat), 0.0, back) if skip else back, x)
    return record(lamina_value((np.nancumsum if skip else np.cumsum)(flat, axis=ax)), (x,), (vjp,))


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
