"""Differentiable reductions: sum, mean, max, min, prod, over everything or one axis.

`axis` is None (every element, giving a Python float), or 0 / 1 for a matrix. A
reduction along an axis keeps its orientation, as in MATLAB and Julia: axis 0 reduces
down the rows, so an m x n matrix gives a 1 x n row; axis 1 reduces along each row,
giving an m x 1 column. So `m - mean(m, axis = 0)` and `m ./ sum(m, axis = 1)` broadcast
the right way on every shape. A vector has only axis 0 (everything). A number reduces
to itself. Gradients spread back to the input's shape.

`skipnan` leaves NaN elements out: they get no gradient, like constants. A slice with
nothing left sums to 0, multiplies to 1, and has NaN as its mean, max and min.
"""
from __future__ import annotations

import warnings

import numpy as np

from ..errors import LaminaError, describe_shape, shape_str
from ..values import Tracked, lamina_value
from .tape import record


def check_axis(shape: tuple, axis, what: str):
    """The axis to reduce along, or None for every element (a vector's axis 0 is everything)."""
    if axis is None:
        return None
    if len(shape) == 2 and axis in (0, 1):
        return axis
    if len(shape) <= 1 and axis == 0:
        return None
    valid = "0 (down the rows) or 1 (along each row)" if len(shape) == 2 else "0"
    raise LaminaError("ValueError", f"{what} of {describe_shape(shape)} takes axis {valid}, not {axis}.")


def _left_out(g):
    """The VJP of a number that skipnan left out (a NaN): no gradient, as a NaN element gets."""
    return 0.0


_F64, _add_reduce = np.dtype(np.float64), np.add.reduce


def _spread(g, shape: tuple, dtype):
    """The gradient of a reduction (a float, or a kept-orientation row or column) over the input's
    shape, in the input's dtype."""
    full = np.empty(shape, dtype=dtype)
    full[...] = g
    return full


def _quiet(fn, *args, **kwargs):
    """A NumPy nan-reduction without its warnings for all-NaN slices (the result says NaN)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        return fn(*args, **kwargs)


def _reduce(fn, x: np.ndarray, axis):
    # Floating-point warnings are off in Lamina (lamina/__init__.py): only empty slices and
    # nanmean's all-NaN slices warn, through `warnings`, which costs microseconds to silence.
    if x.size and fn is not np.nanmean:
        return lamina_value(fn(x, axis=axis, keepdims=axis is not None))
    return lamina_value(_quiet(fn, x, axis=axis, keepdims=axis is not None))


def sum(a, axis=None, skipnan=False):
    if type(a) is np.ndarray and axis is None and not skipnan and a.dtype is _F64 and a.size:
        return float(_add_reduce(a, axis=None))      # np.sum's own pairwise sum, without its wrappers
    x = a.value if type(a) is Tracked else a
    if type(x) is float:
        check_axis((), axis, "sum")
        return record(0.0, (a,), (_left_out,)) if skipnan and x != x else a
    axis = check_axis(x.shape, axis, "sum")
    shape = x.shape
    if not skipnan:
        return record(_reduce(np.sum, x, axis), (a,), (lambda g: _spread(g, shape, x.dtype),))
    keep = ~np.isnan(x)
    return record(_reduce(np.nansum, x, axis), (a,), (lambda g: _spread(g, shape, x.dtype) * keep,))


def mean(a, axis=None, skipnan=False):
    if type(a) is np.ndarray and axis is None and not skipnan and a.dtype is _F64 and a.size:
        return float(_add_reduce(a, axis=None)) / a.size     # as np.mean divides its sum
    x = a.value if type(a) is Tracked else a
    if type(x) is float:
        check_axis((), axis, "mean")
        return record(x, (a,), (_left_out,)) if skipnan and x != x else a
    axis = check_axis(x.shape, axis, "mean")
    shape = x.shape
    if not skipnan:
        # an empty x has nothing to spread the gradient over (and its mean is NaN): 1 spares the 0
        count = max(x.size if axis is None else x.shape[axis], 1)
        return record(_reduce(np.mean, x, axis), (a,), (lambda g: _spread(g / count, shape, x.dtype),))
    keep = ~np.isnan(x)
    # a slice of NaNs only has nothing to spread its gradient over: 1 spares the 0 / 0
    counts = np.maximum(keep.sum(axis=axis, keepdims=axis is not None), 1)
    return record(_reduce(np.nanmean, x, axis), (a,), (lambda g: _spread(g / counts, shape, x.dtype) * keep,))


def amax(a, axis=None, skipnan=False):
    """max(x): the largest element (the first one on ties gets the gradient); NaN if any is NaN,
    unless skipnan leaves NaNs out."""
    return _extreme(a, axis, np.argmax, "max", skipnan)


def amin(a, axis=None, skipnan=False):
    return _extreme(a, axis, np.argmin, "min", skipnan)


def _extreme(a, axis, arg, what: str, skipnan: bool):
    x = a.value if type(a) is Tracked else a
    if type(x) is float:
        check_axis((), axis, what)
        return record(x, (a,), (_left_out,)) if skipnan and x != x else a
    axis = check_axis(x.shape, axis, what)
    if x.size == 0 and (axis is None or x.shape[axis] == 0):   # 0 rows reduced along each row: 0 results
        raise LaminaError("ValueError", f"{what} of an empty {shape_str(x.shape)} is undefined.")
    shape = x.shape
    key = x
    if skipnan:
        # the first element equal to the extreme of the others (nanargmax takes a NaN for -Inf, so
        # it could pick a NaN over a -Inf); a slice of NaNs only gives NaN and takes no gradient
        best = _quiet(np.nanmax if what == "max" else np.nanmin, x, axis=axis, keepdims=axis is not None)
        empty = np.isnan(best)
        key, arg = x == best, np.argmax
    else:
        empty = False
    if axis is None:
        i = int(arg(key))
        out = np.nan if empty else float(x.reshape(-1)[i])

        def vjp(g):
            full = np.zeros(shape, dtype=x.dtype)
            full.reshape(-1)[i] = 0.0 if empty else g
            return full
        return record(out, (a,), (vjp,))
    idx = np.expand_dims(arg(key, axis=axis), axis)
    out = np.where(empty, np.nan, np.take_along_axis(x, idx, axis))

    def vjp_axis(g):
        full = np.zeros(shape, dtype=x.dtype)
        np.put_along_axis(full, idx, np.where(empty, 0.0, g), axis)
        return full
    return record(out, (a,), (vjp_axis,))


def prod(a, axis=None, skipnan=False):
    x = a.value if type(a) is Tracked else a
    if type(x) is float:
        check_axis((), axis, "prod")
        return record(1.0, (a,), (_left_out,)) if skipnan and x != x else a
    axis = check_axis(x.shape, axis, "prod")
    keep = ~np.isnan(x) if skipnan else None
    if skipnan:
        x = np.where(keep, x, 1.0)          # a NaN left out multiplies by 1
    out = _reduce(np.prod, x, axis)
    shape = x.shape
    if axis is None:
        def vjp(g):
            return g * _others(x.reshape(1, -1), 1).reshape(shape) * (1.0 if keep is None else keep)
        return record(out, (a,), (vjp,))
    return record(out, (a,), (lambda g: _others(x, axis) * g * (1.0 if keep is None else keep),))


def _others(x, axis: int):
    """For each element, the product of the other elements along `axis` (exact with zeros)."""
    m = np.moveaxis(x, axis, -1)
    if m.shape[-1] == 0:
        return np.zeros(x.shape, dtype=x.dtype)
    ones = np.ones(m.shape[:-1] + (1,), dtype=x.dtype)
    left = np.concatenate([ones, np.cumprod(m[..., :-1], axis=-1)], axis=-1)
    right = np.concatenate([np.cumprod(m[..., :0:-1], axis=-1)[..., ::-1], ones], axis=-1)
    return np.moveaxis(left * right, -1, axis)
