"""Differentiable reductions: sum, mean, max, min, prod, logsumexp, over everything or along axes.

`axis` is None (every element, giving a Python float), one axis, or a list of axes; axes count
from 0, and a negative one from the end (-1 is the last). A reduction along axes keeps them
with length 1, as in MATLAB and Julia: axis 0 of an m x n matrix reduces down the rows, giving
a 1 x n row; axis 1 reduces along each row, giving an m x 1 column; axis = [0, 2] of a 2x3x4
array gives a 1x3x1 array. So `m - mean(m, axis = 0)` and `m ./ sum(m, axis = 1)` broadcast
the right way on every shape. A vector has only axis 0 (everything). A number reduces to
itself. Gradients spread back to the input's shape.

`skipnan` leaves NaN elements out: they get no gradient, like constants. A slice with
nothing left sums to 0, multiplies to 1, and has NaN as its mean, max and min.

Second order (autodiff/tape.py): in a keep sweep the gradients are tape operations: sum's and
mean's a `spread` (whose VJP is the sum again), max's and min's a scatter to the picked
elements, prod's prod(x) ./ x (exactly, with zeros: each slice as rows that leave one element
out, multiplied out), logsumexp's its softmax from logsumexp on the tape.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from ..errors import LaminaError, describe_shape, shape_str
from ..values import Tracked, as_int, describe, lamina_value
from .functions import exp
from .indexing import masked, reshaped, scatter
from .ops import ediv, emul, sub
from .shaping import permute, reshape
from .tape import TAPE, record, record1, second_order, second_order_vjp


def check_axis(shape: tuple, axis, what: str):
    """The one axis to work along, from 0 (a negative axis counts from the end), or None for
    every element (a vector's axis 0, and a number's)."""
    if axis is None:
        return None
    k = _normal(shape, axis, what)
    return None if len(shape) <= 1 else k


def _normal(shape: tuple, axis: int, what: str) -> int:
    """`axis` of an array of `shape` counted from 0 (a number has the one axis 0)."""
    n = len(shape)
    if n == 0 and axis == 0:
        return 0
    if n and -n <= axis < n:
        return axis % n
    if n == 0:
        valid = "axis 0"
    elif n == 1:
        valid = "axis 0 (or -1)"
    elif n == 2:
        valid = "axis 0 (down the rows) or 1 (along each row), or -2 or -1 from the end"
    else:
        valid = f"an axis from 0 to {n - 1} (or from -{n} to -1, counting from the end)"
    raise LaminaError("ValueError", f"{what} of {describe_shape(shape)} takes {valid}, not {axis}.")


def axis_value(axis, what: str):
    """A Lamina `axis` argument: None, a whole number, or a vector or list of whole numbers (a tuple)."""
    if axis is None:
        return None
    if type(axis) is np.ndarray:
        if axis.ndim != 1:
            raise LaminaError("TypeError", f"{what} must be a whole number or a vector of them, not "
                              f"{describe(axis)}.")
        axis = axis.tolist()
    if type(axis) is list:
        return tuple(as_int(a, what) for a in axis)
    return as_int(axis, what)


def reduced_axes(shape: tuple, axis, what: str):
    """The axes a reduction takes away, sorted (each kept with length 1), or None for every
    element: `axis` is None, a whole number, or a tuple of them (axis_value)."""
    if type(axis) is not tuple:
        k = check_axis(shape, axis, what)
        return None if k is None else (k,)
    if not axis:
        raise LaminaError("ValueError", f"{what}'s axis = [] names no axis; leave the axis out to "
                          f"reduce every element.")
    axes = [_normal(shape, a, what) for a in axis]
    for i, a in enumerate(axes):
        if a in axes[:i]:
            given = ", ".join(str(b) for b in axis)
            raise LaminaError("ValueError", f"{what} of {describe_shape(shape)} reduces each axis "
                              f"once, but axis = [{given}] names axis {a} twice.")
    return None if len(shape) <= 1 else tuple(sorted(axes))


def kept_shape(shape: tuple, axes) -> tuple:
    """The shape of a reduction's result along `axes` (each reduced axis kept with length 1)."""
    return tuple(1 if i in axes else n for i, n in enumerate(shape))


def gathered(x: np.ndarray, axes: tuple):
    """x with the reduced `axes` moved last and merged into one, as (the array, back), where
    back(y) takes an array of that shape to x's shape and order of axes."""
    kept = [i for i in range(x.ndim) if i not in axes]
    order = kept + list(axes)
    moved = np.transpose(x, order)
    merged = moved.reshape(moved.shape[:len(kept)] + (math.prod(moved.shape[len(kept):]),))
    inverse = np.argsort(order)
    return merged, lambda y: np.transpose(y.reshape(moved.shape), inverse)


@second_order_vjp
def _left_out(g):
    """The VJP of a number that skipnan left out (a NaN): no gradient, as a NaN element gets."""
    return 0.0


_F64, _add_reduce = np.dtype(np.float64), np.add.reduce


def _spread(g, shape: tuple, dtype):
    """The gradient of a reduction (a float, or a kept-orientation row or column) over the input's
    shape, in the input's dtype: a read-only broadcast view, not a copy. The sweep never writes
    into a contribution it did not allocate, the next VJP reads a view as fast as an array (its
    product with the operand, `sum(C .* R)`'s, is the one pass a loss of a sum needs), and grad
    copies a view before handing it out."""
    return np.broadcast_to(np.asarray(g, dtype=dtype), shape)


@second_order
def spread(g, shape: tuple, dtype, axes):
    """`_spread` on the tape (a reduction's gradient in a keep sweep): its VJP is the sum over the
    reduced `axes` (None: every element)."""
    v = g.value if type(g) is Tracked else g
    return record1(_spread(v, shape, dtype), g, lambda h: sum(h, axes))


def _quiet(fn, *args, **kwargs):
    """A NumPy nan-reduction without its warnings for all-NaN slices (the result says NaN)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        return fn(*args, **kwargs)


def _reduce(fn, x: np.ndarray, axes):
    # Floating-point warnings are off in Lamina (lamina/__init__.py): only empty slices and
    # nanmean's all-NaN slices warn, through `warnings`, which costs microseconds to silence.
    if x.size and fn is not np.nanmean:
        return lamina_value(fn(x, axis=axes, keepdims=axes is not None))
    return lamina_value(_quiet(fn, x, axis=axes, keepdims=axes is not None))


@second_order
def sum(a, axis=None, skipnan=False):
    if type(a) is np.ndarray and axis is None and not skipnan and a.dtype is _F64 and a.size:
        return float(_add_reduce(a, axis=None))      # np.sum's own pairwise sum, without its wrappers
    x = a.value if type(a) is Tracked else a
    if type(x) is float:
        reduced_axes((), axis, "sum")
        return record(0.0, (a,), (_left_out,)) if skipnan and x != x else a
    axes = reduced_axes(x.shape, axis, "sum")
    shape = x.shape
    if not skipnan:
        return record(_reduce(np.sum, x, axes), (a,), (lambda g: spread(g, shape, x.dtype, axes) if TAPE.keeping
                                                       else _spread(g, shape, x.dtype),))
    keep = ~np.isnan(x)
    return record(_reduce(np.nansum, x, axes), (a,), (lambda g: masked(spread(g, shape, x.dtype, axes), keep)
                                                      if TAPE.keeping else _spread(g, shape, x.dtype) * keep,))


@second_order
def mean(a, axis=None, skipnan=False):
    if type(a) is np.ndarray and axis is None and not skipnan and a.dtype is _F64 and a.size:
        return float(_add_reduce(a, axis=None)) / a.size     # as np.mean divides its sum
    x = a.value if type(a) is Tracked else a
    if type(x) is float:
        reduced_axes((), axis, "mean")
        return record(x, (a,), (_left_out,)) if skipnan and x != x else a
    axes = reduced_axes(x.shape, axis, "mean")
    shape = x.shape
    if not skipnan:
        # an empty x has nothing to spread the gradient over (and its mean is NaN): 1 spares the 0
        count = max(x.size if axes is None else math.prod(x.shape[k] for k in axes), 1)
        return record(_reduce(np.mean, x, axes), (a,), (lambda g: spread(ediv(g, float(count)), shape, x.dtype, axes)
                                                        if TAPE.keeping else _spread(g / count, shape, x.dtype),))
    keep = ~np.isnan(x)
    # a slice of NaNs only has nothing to spread its gradient over: 1 spares the 0 / 0
    counts = np.maximum(keep.sum(axis=axes, keepdims=axes is not None), 1)
    return record(_reduce(np.nanmean, x, axes), (a,), (lambda g: _mean_skipping(g, counts, keep, axes, x.dtype)
                                                       if TAPE.keeping
                                                       else _spread(g / counts, shape, x.dtype) * keep,))


def _mean_skipping(g, counts, keep: np.ndarray, axes, dtype):
    """mean(x, skipnan = true)'s gradient on the tape: g over each slice's count of numbers,
    spread over the numbers."""
    per = ediv(g, float(counts) if axes is None else counts.astype(dtype))
    return masked(spread(per, keep.shape, dtype, axes), keep)


def amax(a, axis=None, skipnan=False):
    """max(x): the largest element (the first one on ties gets the gradient); NaN if any is NaN,
    unless skipnan leaves NaNs out."""
    return _extreme(a, axis, np.argmax, "max", skipnan)


def amin(a, axis=None, skipnan=False):
    return _extreme(a, axis, np.argmin, "min", skipnan)


@second_order
def _extreme(a, axis, arg, what: str, skipnan: bool):
    x = a.value if type(a) is Tracked else a
    if type(x) is float:
        reduced_axes((), axis, what)
        return record(x, (a,), (_left_out,)) if skipnan and x != x else a
    axes = reduced_axes(x.shape, axis, what)
    if x.size == 0 and (axes is None or any(x.shape[k] == 0 for k in axes)):   # 0 rows reduced along each row: 0 results
        raise LaminaError("ValueError", f"{what} of an empty {shape_str(x.shape)} is undefined.")
    shape = x.shape
    key = x
    if skipnan:
        # the first element equal to the extreme of the others (nanargmax takes a NaN for -Inf, so
        # it could pick a NaN over a -Inf); a slice of NaNs only gives NaN and takes no gradient
        best = _quiet(np.nanmax if what == "max" else np.nanmin, x, axis=axes, keepdims=axes is not None)
        empty = np.isnan(best)
        key, arg = x == best, np.argmax
    else:
        empty = False
    if axes is None:
        i = int(arg(key))
        out = np.nan if empty else float(x.reshape(-1)[i])

        def vjp(g):
            if TAPE.keeping:
                return np.zeros(shape, dtype=x.dtype) if empty else scatter(g, shape, _position(i, shape), x.dtype)
            full = np.zeros(shape, dtype=x.dtype)
            full.reshape(-1)[i] = 0.0 if empty else g
            return full
        return record(out, (a,), (vjp,))
    if len(axes) == 1:
        along, k, back, keys = x, axes[0], _same, key
    else:       # the axes merged into the last one: the first extreme in their row-major order wins
        (along, back), k = gathered(x, axes), -1
        keys = along if key is x else gathered(key, axes)[0]
    idx = np.expand_dims(arg(keys, axis=k), k)
    out = np.where(empty, np.nan, np.take_along_axis(along, idx, k).reshape(kept_shape(shape, axes)))

    def vjp_axes(g):
        if TAPE.keeping:
            return _placed(g if empty is False else masked(g, ~empty), idx, k, shape, axes, x.dtype)
        full = np.zeros(along.shape, dtype=x.dtype)
        np.put_along_axis(full, idx, np.where(empty, 0.0, g).reshape(idx.shape), k)
        return back(full)
    return record(out, (a,), (vjp_axes,))


def _position(i: int, shape: tuple) -> tuple:
    """The key of element i (counting row by row) of an array of `shape`."""
    return tuple(int(j) for j in np.unravel_index(i, shape))


def _placed(g, idx: np.ndarray, k: int, shape: tuple, axes: tuple, dtype):
    """max's or min's gradient along axes on the tape: each element of g (the kept shape) at the
    element its slice picked (`idx` along axis k of the array _extreme searched), zeros elsewhere."""
    ids = np.arange(math.prod(shape)).reshape(shape)
    along = ids if len(axes) == 1 else gathered(ids, axes)[0]
    picks = np.take_along_axis(along, idx, k).reshape(-1)       # in g's order: the kept axes keep theirs
    return reshaped(scatter(reshaped(g, (picks.size,)), (ids.size,), (picks,), dtype), shape)


def _same(y):
    return y


@second_order
def prod(a, axis=None, skipnan=False):
    x = a.value if type(a) is Tracked else a
    if type(x) is float:
        reduced_axes((), axis, "prod")
        return record(1.0, (a,), (_left_out,)) if skipnan and x != x else a
    axes = reduced_axes(x.shape, axis, "prod")
    keep = ~np.isnan(x) if skipnan else None
    if skipnan:
        x = np.where(keep, x, 1.0)          # a NaN left out multiplies by 1
    out = _reduce(np.prod, x, axes)
    shape = x.shape
    if axes is None:
        def vjp(g):
            if TAPE.keeping:
                return _prod_slope(g, a, x, None, keep)
            return g * _others(x.reshape(1, -1)).reshape(shape) * (1.0 if keep is None else keep)
        return record(out, (a,), (vjp,))

    def vjp_axes(g):
        if TAPE.keeping:
            return _prod_slope(g, a, x, axes, keep)
        merged, back = gathered(x, axes)
        return back(_others(merged)) * g * (1.0 if keep is None else keep)
    return record(out, (a,), (vjp_axes,))


def _prod_slope(g, a, x: np.ndarray, axes, keep):
    """prod's gradient on the tape: g times the product of the other elements of each slice
    (x: a's value with skipnan's NaNs as 1, `keep` where they were not)."""
    if keep is not None:
        a = _ones_at_nan(a, keep)
    if np.all(x != 0):
        others = ediv(prod(a, axes), a)
    else:
        others = _others_exactly(a, x.shape, axes)
    slope = emul(g, others)
    return slope if keep is None else masked(slope, keep)


@second_order
def _ones_at_nan(a, keep: np.ndarray):
    """a with its NaNs (where keep is false) replaced by 1, which prod(x, skipnan = true) leaves out."""
    v = a.value if type(a) is Tracked else a
    return record1(np.where(keep, v, 1.0), a, lambda g: masked(g, keep))


def _others_exactly(a, shape: tuple, axes):
    """For each element of a, the product of the others in its slice along `axes`, on the tape
    and exact with zeros: each slice of m elements becomes an m x m matrix whose row i is the
    slice with element i replaced by 1, and the rows are multiplied out."""
    axes = tuple(range(len(shape))) if axes is None else axes
    kept = [i for i in range(len(shape)) if i not in axes]
    order = tuple(kept + list(axes))
    moved = permute(a, order)
    lead = tuple(shape[i] for i in kept)
    rows = _beside(reshape(moved, lead + (-1,)), 1.0)
    others = reshape(prod(rows, len(lead) + 1), tuple(shape[i] for i in order))
    return permute(others, tuple(int(i) for i in np.argsort(order)))


@second_order
def _beside(v, diagonal: float):
    """(..., m) to (..., m, m): row i holds v with its element i replaced by `diagonal`."""
    x = v.value if type(v) is Tracked else v
    m = x.shape[-1]
    out = np.broadcast_to(x[..., None, :], x.shape[:-1] + (m, m)).copy()
    out[..., np.arange(m), np.arange(m)] = diagonal
    return record1(out, v, lambda h: _summed_beside(h))


@second_order
def _summed_beside(h):
    """_beside's VJP: each column summed over the rows, the diagonal left out."""
    y = h.value if type(h) is Tracked else h
    m = y.shape[-1]
    z = y.copy()
    z[..., np.arange(m), np.arange(m)] = 0.0
    return record1(z.sum(axis=-2), h, lambda g: _beside(g, 0.0))


def _others(m):
    """For each element, the product of the other elements along the last axis (exact with zeros)."""
    if m.shape[-1] == 0:
        return np.zeros(m.shape, dtype=m.dtype)
    ones = np.ones(m.shape[:-1] + (1,), dtype=m.dtype)
    left = np.concatenate([ones, np.cumprod(m[..., :-1], axis=-1)], axis=-1)
    right = np.concatenate([np.cumprod(m[..., :0:-1], axis=-1)[..., ::-1], ones], axis=-1)
    return left * right


@second_order
def logsumexp(a, axis=None):
    """log(sum(exp(x))) over every element or along axes (kept with length 1, as sum's), computed
    on x shifted by its largest element, so that large x do not overflow to Inf nor small x
    underflow to -Inf. Its gradient is softmax: g exp(x - result)."""
    x = a.value if type(a) is Tracked else a
    if type(x) is float:
        reduced_axes((), axis, "logsumexp")
        return a
    axes = reduced_axes(x.shape, axis, "logsumexp")
    top = np.max(x, axis=axes, keepdims=True, initial=-np.inf)
    shift = np.where(np.isfinite(top), top, 0.0)        # all -Inf, or an Inf: shifting by it would give NaN
    out = np.log(np.sum(np.exp(x - shift), axis=axes, keepdims=True)) + shift
    result = out if axes is not None else float(out.reshape(()))

    def vjp(g):
        if TAPE.keeping:
            return emul(g, exp(sub(a, logsumexp(a, axes))))
        return g * np.exp(x - out)
    return record(result, (a,), (vjp,))
