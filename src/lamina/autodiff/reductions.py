"""Differentiable reductions: sum, mean, max, min, prod, over everything or one axis.

`axis` is None (every element, giving a Python float), or 0 / 1 for a matrix:
axis 0 reduces down the rows (an m x n matrix gives a vector of length n),
axis 1 along each row (a vector of length m). A vector has only axis 0. A
number reduces to itself. Gradients spread back to the input's shape.
"""
from __future__ import annotations

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


def _spread(g, shape: tuple, axis, dtype):
    """The gradient of a reduction spread over the input's shape (in the input's dtype)."""
    if axis is None:
        return np.full(shape, g, dtype=dtype)
    full = np.empty(shape, dtype=dtype)
    full[...] = g[None, :] if axis == 0 else g[:, None]
    return full


def sum(a, axis=None):
    x = a.value if type(a) is Tracked else a
    if type(x) is float:
        return a
    axis = check_axis(x.shape, axis, "sum")
    shape = x.shape
    return record(lamina_value(x.sum(axis=axis)), (a,), (lambda g: _spread(g, shape, axis, x.dtype),))


def mean(a, axis=None):
    x = a.value if type(a) is Tracked else a
    if type(x) is float:
        return a
    axis = check_axis(x.shape, axis, "mean")
    shape = x.shape
    count = x.size if axis is None else x.shape[axis]
    return record(lamina_value(x.mean(axis=axis)), (a,), (lambda g: _spread(g / count, shape, axis, x.dtype),))


def amax(a, axis=None):
    """max(x): the largest element (the first one on ties gets the gradient); NaN if any is NaN."""
    return _extreme(a, axis, np.argmax, "max")


def amin(a, axis=None):
    return _extreme(a, axis, np.argmin, "min")


def _extreme(a, axis, arg, what: str):
    x = a.value if type(a) is Tracked else a
    if type(x) is float:
        return a
    axis = check_axis(x.shape, axis, what)
    if x.size == 0:
        raise LaminaError("ValueError", f"{what} of an empty {shape_str(x.shape)} is undefined.")
    shape = x.shape
    if axis is None:
        i = int(arg(x))
        out = float(x.reshape(-1)[i])

        def vjp(g):
            full = np.zeros(shape, dtype=x.dtype)
            full.reshape(-1)[i] = g
            return full
        return record(out, (a,), (vjp,))
    idx = np.expand_dims(arg(x, axis=axis), axis)
    out = np.take_along_axis(x, idx, axis).squeeze(axis)

    def vjp_axis(g):
        full = np.zeros(shape, dtype=x.dtype)
        np.put_along_axis(full, idx, np.expand_dims(g, axis), axis)
        return full
    return record(out, (a,), (vjp_axis,))


def prod(a, axis=None):
    x = a.value if type(a) is Tracked else a
    if type(x) is float:
        return a
    axis = check_axis(x.shape, axis, "prod")
    out = lamina_value(x.prod(axis=axis))
    shape = x.shape
    if axis is None:
        return record(out, (a,), (lambda g: g * _others(x.reshape(1, -1), 1).reshape(shape),))
    return record(out, (a,), (lambda g: _others(x, axis) * (g[None, :] if axis == 0 else g[:, None]),))


def _others(x, axis: int):
    """For each element, the product of the other elements along `axis` (exact with zeros)."""
    m = np.moveaxis(x, axis, -1)
    if m.shape[-1] == 0:
        return np.zeros(x.shape, dtype=x.dtype)
    ones = np.ones(m.shape[:-1] + (1,), dtype=x.dtype)
    left = np.concatenate([ones, np.cumprod(m[..., :-1], axis=-1)], axis=-1)
    right = np.concatenate([np.cumprod(m[..., :0:-1], axis=-1)[..., ::-1], ones], axis=-1)
    return np.moveaxis(left * right, -1, axis)
