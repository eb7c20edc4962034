"""Descriptive statistics on tensors of any rank.

One rule for `axis` everywhere (the same as sum and mean, autodiff/reductions.py): no axis
means every element of the tensor; axis 0 of a matrix works down the rows, giving one result
per column as a 1 x n row; axis 1 works along each row, giving one result per row as an m x 1
column (a reduction keeps its orientation); on any rank axis = k keeps axis k with length 1,
axis = [0, 2] reduces both, and a negative axis counts from the end. NaN in gives NaN out,
unless `skipnan` asks to leave NaNs out.
"""
from __future__ import annotations

import math
import warnings
from collections import Counter

import numpy as np

from ..autodiff.reductions import axis_value, gathered, reduced_axes
from ..autodiff.tape import is_live, record
from ..errors import LaminaError, shape_str
from ..values import LibObject, Record, as_int, describe, format_number, lamina_value, value_of
from .args import axis_of, data, flag, shaped_like, vector


def quiet(fn, *args, **kwargs):
    """Call a NumPy reduction without its warnings for empty or all-NaN slices."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        return fn(*args, **kwargs)


def setup(x, axis, skipnan, what: str):
    """(the data as an array, the axes a reduction takes away or None for all, skipnan)."""
    a = data(x, f"{what}'s data")
    return a, reduced_axes(a.shape, axis_value(axis, f"{what}'s axis"), what), flag(skipnan, f"{what}'s skipnan")


def median(x, axis=None, skipnan=False):
    a, axes, skip = setup(x, axis, skipnan, "median")
    half = np.asarray(0.5)
    if axes is None and not skip and a.dtype == np.float64 and a.size:
        out = _median_of_all(a.reshape(-1))
    else:
        out = lamina_value(slice_quantiles(a, half, axes, skip))
    return record(out, (x,), (lambda g: shaped_like(_order_grad(g, a, axes, half, skip), x),))


def _median_of_all(v: np.ndarray) -> float:
    """slice_quantiles' median of a non-empty float64 vector, the same number, in a few calls:
    one partition at the middle order statistics and the last (which is then the largest, NaN
    if there is one, as np.median finds it), and `between` in Python's floats."""
    m = v.size
    lo, hi = (m - 1) // 2, min((m - 1) // 2 + 1, m - 1)
    part = np.partition(v, [lo, hi, m - 1])
    if math.isnan(part[m - 1]):
        return math.nan
    low = float(part[lo])
    if m % 2:                                    # q (m - 1) falls on an order statistic
        return low
    diff = float(part[hi]) - low
    if not math.isfinite(diff):
        return float(between(part[lo], part[hi], 0.5))
    return float(part[hi]) - diff * 0.5         # between's step back from hi for frac >= 0.5


def quantile(x, q, axis=None, skipnan=False):
    a, axes, skip = setup(x, axis, skipnan, "quantile")
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
    result = slice_quantiles(a, qs, axes, skip)
    return record(lamina_value(result), (x,), (lambda g: shaped_like(_order_grad(g, a, axes, qs, skip), x),))


def _position(q, m):
    """Where the q-quantile of m sorted values sits, q (m - 1) = lo + frac: (lo, hi, frac)."""
    pos = np.asarray(q, dtype=np.float64) * (m - 1)
    lo = np.maximum(np.floor(pos), 0)
    frac = np.where(m > 0, pos - lo, 0.0)
    return lo.astype(np.intp), np.maximum(np.minimum(lo + 1, m - 1), 0).astype(np.intp), frac


def between(lo, hi, frac):
    """R's type 7 step lo + frac (hi - lo) from the order statistic lo towards hi (>= lo), with
    its limits where one is infinite (an infinite end wins; -Inf and Inf give NaN) and without
    overflow; frac = 0 is lo itself. For frac >= 0.5 it steps back from hi, as NumPy does, so
    that it stays within [lo, hi]."""
    with np.errstate(all="ignore"):
        diff = hi - lo
        out = np.where(frac >= 0.5, hi - diff * (1 - frac), lo + diff * frac)
        if not np.isfinite(diff).all():     # a finite diff everywhere has finite ends: nothing to fix
            finite = np.isfinite(lo) & np.isfinite(hi)
            out = np.where(finite & np.isinf(diff), lo * (1 - frac) + hi * frac, out)
            ends = np.where(np.isinf(lo) & np.isinf(hi) & (lo != hi), np.nan, np.where(np.isinf(lo), lo, hi))
            out = np.where(finite, out, ends)
        return np.where(frac == 0, lo, out)


def order_quantiles(a: np.ndarray, qs: np.ndarray, axis=None, skip: bool = False):
    """The qs-quantiles of a (all of it, or along an axis or a tuple of axes) by R's type 7 rule,
    shaped as np.quantile shapes them: qs's shape, then the dimensions that remain."""
    axes = None if axis is None else tuple(sorted(np.atleast_1d(axis) % a.ndim))
    per_slice = _slice_quantiles(a, qs, axes, skip)
    kept = () if axes is None else tuple(n for i, n in enumerate(a.shape) if i not in axes)
    out = per_slice.T.reshape(np.shape(qs) + kept)
    return out[()] if out.ndim == 0 else out


def slice_quantiles(a: np.ndarray, qs: np.ndarray, axes=None, skip: bool = False):
    """The qs-quantiles as Lamina's quantile gives them: of all of a (qs's shape: a number or a
    vector), or along `axes` (kept with length 1, the qs along the first of them: several qs
    along axis 0 of a matrix give one row per q, along axis 1 one column per q)."""
    return _placed(_slice_quantiles(a, qs, axes, skip), a.shape, axes, qs)


def _slice_quantiles(a: np.ndarray, qs: np.ndarray, axes, skip: bool) -> np.ndarray:
    """The qs-quantiles of each slice of a by R's type 7 rule, s x len(qs) (a row per slice, as
    _slices cuts them). A slice with a NaN gives NaN (unless skip leaves NaNs out), as does an
    empty one."""
    rows, _ = _slices(a, axes)
    nan = np.isnan(rows)
    n = nan.shape[-1] - nan.sum(axis=-1, keepdims=True) if skip else np.full((rows.shape[0], 1), rows.shape[-1])
    lo, hi, frac = _position(np.reshape(qs, -1), n)
    if skip or rows.shape[-1] == 0:                 # each slice its own count: sorted whole
        srt = np.sort(rows, axis=-1)                # NaNs last
    else:                                           # the order statistics wanted, in place
        srt = np.partition(rows, np.unique(np.concatenate([lo.reshape(-1), hi.reshape(-1)])), axis=-1)
    if srt.shape[-1] == 0:
        out = np.full(lo.shape, np.nan)
    elif srt.shape[0] == 1:                         # one slice (all of a): plain indexing, 3x faster
        out = between(srt[0][lo], srt[0][hi], frac)
    else:
        out = between(np.take_along_axis(srt, lo, -1), np.take_along_axis(srt, hi, -1), frac)
    bad = (n == 0) if skip else nan.any(axis=-1, keepdims=True)
    return np.where(bad, np.nan, out).astype(a.dtype, copy=False)


def _slices(a: np.ndarray, axes):
    """The data as rows of slices to take order statistics of (s x n: one row per slice), and the
    function that takes an s x n array back to a's shape."""
    if axes is None:
        return a.reshape(1, -1), lambda rows: rows.reshape(a.shape)
    merged, back = gathered(a, axes)
    return merged.reshape(math.prod(merged.shape[:-1]), merged.shape[-1]), back


def _placed(per_slice: np.ndarray, shape: tuple, axes, qs: np.ndarray):
    """The s x len(qs) quantiles of each slice shaped as slice_quantiles says."""
    if axes is None:
        return per_slice.reshape(np.shape(qs))[()]
    kept = [n for i, n in enumerate(shape) if i not in axes]
    out = per_slice.reshape(kept + [per_slice.shape[1]] + [1] * (len(axes) - 1))
    return np.moveaxis(out, range(len(kept), len(shape)), axes)


def _per_slice(g, shape: tuple, axes, qs: np.ndarray) -> np.ndarray:
    """The gradient of slice_quantiles' result as s x len(qs), a row per slice (undoes _placed)."""
    nq = max(np.size(qs), 1)
    if axes is None:
        return np.reshape(g, (1, nq))
    kept = len(shape) - len(axes)
    return np.moveaxis(np.asarray(g), axes, range(kept, len(shape))).reshape(-1, nq)


def _order_grad(g, a: np.ndarray, axes, qs: np.ndarray, skip: bool) -> np.ndarray:
    """The gradient of quantiles qs by linear interpolation between order statistics: the
    weights 1 - f and f go to the two sorted values at position q (n - 1) = lo + f (all of it to
    an infinite one, which is then the quantile)."""
    rows, back = _slices(a, axes)
    s, n = rows.shape
    per_slice = _per_slice(g, a.shape, axes, qs)
    out = np.zeros(rows.shape)
    for i in range(s):
        values = rows[i]
        nan = np.isnan(values)
        if nan.any() and not skip:          # the results are NaN: NaN where the loss uses them
            out[i] = np.nan if np.any(per_slice[i] != 0) else 0.0
            continue
        m = n - int(nan.sum())
        if m == 0:
            continue
        order = np.argsort(values, kind="stable")   # NaNs last
        for j, q in enumerate(np.atleast_1d(qs)):
            lo, hi, frac = _position(q, m)
            lo, hi, frac = order[int(lo)], order[int(hi)], float(frac)
            if np.isinf(values[lo]) != np.isinf(values[hi]):    # the infinite end is the quantile
                frac = 0.0 if np.isinf(values[lo]) or frac == 0 else 1.0
            out[i, lo] += per_slice[i, j] * (1.0 - frac)
            out[i, hi] += per_slice[i, j] * frac
    return back(out)


def cumsum(x, axis=None, skipnan=False):
    a = data(x, "cumsum's data")
    k, skip = axis_of(a.shape, axis, "cumsum"), flag(skipnan, "cumsum's skipnan")
    flat = a if k is not None else a.reshape(-1)
    ax = 0 if k is None else k

    def vjp(g):
        back = np.flip(np.cumsum(np.flip(g, ax), axis=ax), ax)       # the sum of g from i on
        return shaped_like(np.where(np.isnan(flat), 0.0, back) if skip else back, x)
    return record(lamina_value((np.nancumsum if skip else np.cumsum)(flat, axis=ax)), (x,), (vjp,))


def unique(x, counts=False):
    with_counts = flag(counts, "unique's counts")
    cells = _unique_cells(x, with_counts) if isinstance(x, LibObject) else None
    if cells is not None:
        return cells
    if isinstance(x, list):
        kinds = {type(v) for v in x}
        if not (kinds <= {str} or kinds <= {float, int}):
            raise LaminaError("TypeError", "unique of a list needs all strings or all numbers.")
        # NaNs are one value, last, as np.unique has them (a set or sorted() cannot hold them)
        seen = Counter(v for v in x if v == v)
        nans = len(x) - sum(seen.values())
        values = sorted(seen) + [float("nan")] * (nans > 0)
        if not with_counts:
            return values
        counts = [seen[v] for v in values[:len(seen)]] + [nans] * (nans > 0)
        return Record({"values": values, "counts": np.array(counts, dtype=np.float64)})
    a = data(x, "unique's data").reshape(-1)
    values, n = np.unique(a, return_counts=True)
    if not with_counts:
        return lamina_value(values)
    return Record({"values": lamina_value(values), "counts": lamina_value(n)})


def _unique_cells(x, with_counts: bool):
    """The distinct cells of a vector of dates (by time) or a category (in the order of its levels,
    which it keeps), a missing cell last, as one value: each rank of group_by's codes once. None
    for any other value. (Imported here: a program of numbers never loads Arrow for unique.)"""
    from .categories import Categorical
    from .dates import Dates
    from .groups import dense_codes
    if not isinstance(x, (Categorical, Dates)):
        return None
    codes, k = dense_codes(x)
    distinct = x.take(np.unique(codes, return_index=True)[1])
    if not with_counts:
        return distinct
    return Record({"values": distinct, "counts": np.bincount(codes, minlength=k).astype(np.float64)})


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
    skip = flag(skipnan, "histogram's skipnan")
    if np.isnan(a).any():
        if not skip:
            raise LaminaError("ValueError", "histogram's data contains NaN, which falls in no bin; "
                              "pass skipnan = true to leave NaNs out.")
        a = a[~np.isnan(a)]
    spec = bin_spec(bins, "histogram")
    if range is not None and isinstance(spec, np.ndarray):
        raise LaminaError("TypeError", "histogram takes range only with a number of bins, not with edges.")
    lo_hi = None
    if range is not None:
        r = vector(range, "histogram's range")
        if r.size != 2 or not np.isfinite(r).all() or not r[0] < r[1]:
            given = describe(range) if r.size != 2 else f"[{format_number(r[0])}, {format_number(r[1])}]"
            raise LaminaError("ValueError", f"histogram's range must be [low, high], two finite numbers "
                              f"with low < high, not {given}.")
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
