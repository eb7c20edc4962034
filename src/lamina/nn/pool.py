"""Pooling on the tape (max_pool, avg_pool, global_avg_pool), each forward with its VJP beside it.

x is n x length x c (1-D pooling) or n x h x w x c (2-D), batch first and channels last; each
channel of each example is pooled on its own. The windows (nn/windows.py) slide with a stride
that defaults to their size, so that they tile the input; a padding of "same" or a number
widens the input first. Each op walks the kernel offsets, one strided view of the (padded)
input per offset, so that the work is a few whole-array operations per offset, never a loop
over windows.

max_pool: the padding is -Inf, so it is never the maximum. The gradient of each output goes
to the input that was its window's maximum; where several tie, to the first in the window's
row-major order (PyTorch's choice); where a window holds a NaN the output is NaN and its
gradient goes to the first NaN.
avg_pool: the mean of the window's elements inside the input; padding is not counted (as
Keras's "same", and PyTorch's count_include_pad = False).
global_avg_pool: the mean over all spatial axes, n x c.
"""
from __future__ import annotations

import numpy as np

from ..autodiff.tape import record
from ..errors import LaminaError, describe_shape
from ..values import numeric_or_tracked, value_of
from .windows import windows


def _pooled_input(op: str, x):
    x = numeric_or_tracked(x, f"{op}'s x")
    xv = value_of(x)
    if np.ndim(xv) not in (3, 4):
        raise LaminaError("ShapeError", f"{op} pools an n x length x c array (1-D) or an n x h x w x c "
                          f"array (2-D), batch first and channels last, not {describe_shape(np.shape(xv))}.")
    return x, xv


def max_pool(x, size, stride=None, padding="valid"):
    x, xv = _pooled_input("max_pool", x)
    win = windows("max_pool", xv.shape, size, size if stride is None else stride, padding, pool=True)
    xp = win.pad(xv, -np.inf)
    y = None
    for offset in win.offsets():
        view = win.view(xp, offset)
        y = view.copy() if y is None else np.maximum(y, view, out=y)
    has_nan = bool(np.isnan(y).any())
    tiled = xp is xv and win.stride == win.size

    def vjp(g):
        if tiled:
            return _tiled_max_grad(xv, y, g, win, has_nan)
        dxp = np.zeros(xp.shape, dtype=xv.dtype)
        free = np.ones(y.shape, dtype=bool)      # outputs whose gradient is not placed yet
        for offset in win.offsets():
            view = win.view(xp, offset)
            hit = view == y
            if has_nan:
                hit |= np.isnan(view)
            hit &= free
            free ^= hit
            target = win.view(dxp, offset)
            np.add(target, g, out=target, where=hit)
        return _cropped(dxp, xv.shape, win)

    return record(y, (x,), (vjp,))


def _tiled_max_grad(xv, y, g, win, has_nan):
    """max_pool's gradient when the windows tile the input (stride = size, no padding): the input
    seen as n x (out, size per axis) x c, a view, compared with its window's maximum in one pass;
    where a window holds its maximum more than once (relu's zeros), each hit past the window's
    first is cleared, offset by offset over that boolean array; then times g."""
    inside = (slice(None), *(slice(0, o * k) for o, k in zip(win.out, win.size)), slice(None))
    tiles = (xv.shape[0], *(d for o, k in zip(win.out, win.size) for d in (o, k)), xv.shape[-1])
    spread = (xv.shape[0], *(d for o in win.out for d in (o, 1)), xv.shape[-1])
    x_tiles = xv[inside].reshape(tiles)
    hit = x_tiles == y.reshape(spread)
    if has_nan:
        hit |= np.isnan(x_tiles)
    if np.count_nonzero(hit) != y.size:          # ties: keep the first hit of each window
        free = np.ones(y.shape, dtype=bool)
        for offset in win.offsets():
            first = hit[(slice(None), *(i for k in offset for i in (slice(None), k)), slice(None))]
            first &= free
            free ^= first
    grads = np.multiply(hit, np.reshape(g, spread), dtype=xv.dtype)
    if grads.size == xv.size:
        return grads.reshape(xv.shape)
    dx = np.zeros(xv.shape, dtype=xv.dtype)      # the rows and columns no window reached stay 0
    dx[inside] = grads.reshape(dx[inside].shape)
    return dx


def avg_pool(x, size, stride=None, padding="valid"):
    x, xv = _pooled_input("avg_pool", x)
    win = windows("avg_pool", xv.shape, size, size if stride is None else stride, padding, pool=True)
    xp = win.pad(xv)
    count = _counts(win, xv.dtype)
    y = None
    for offset in win.offsets():
        view = win.view(xp, offset)
        y = view.copy() if y is None else np.add(y, view, out=y)
    y /= count

    def vjp(g):
        share = g / count
        dxp = np.zeros(xp.shape, dtype=xv.dtype)
        for offset in win.offsets():
            target = win.view(dxp, offset)
            target += share
        return _cropped(dxp, xv.shape, win)

    return record(y, (x,), (vjp,))


def _counts(win, dtype):
    """How many input elements (not padding) each window holds: a number when every window is
    whole, else a 1 x out x 1 array."""
    if not any(a or b for a, b in win.pads):
        return float(win.count)
    inside = win.pad(np.ones((1, *win.unpadded, 1), dtype=dtype))
    total = np.zeros((1, *win.out, 1), dtype=dtype)
    for offset in win.offsets():
        total += win.view(inside, offset)
    return total


def _cropped(dxp, shape, win):
    return dxp if dxp.shape == shape else dxp[win.inside()].copy()


def global_avg_pool(x):
    x = numeric_or_tracked(x, "global_avg_pool's x")
    xv = value_of(x)
    if np.ndim(xv) < 3:
        raise LaminaError("ShapeError", f"global_avg_pool averages over the spatial axes of an n x ... x c "
                          f"array (n x length x c, n x h x w x c), not {describe_shape(np.shape(xv))}.")
    axes = tuple(range(1, xv.ndim - 1))
    count = max(int(np.prod([xv.shape[k] for k in axes])), 1)     # an empty image has nothing to share
    shape = xv.shape
    y = xv.sum(axis=axes)
    y /= count        # an empty image's mean is then 0, not NaN with NumPy's warning

    def vjp(g):
        full = np.empty(shape, dtype=xv.dtype)
        full[...] = np.expand_dims(g / count, axes)
        return full

    return record(y, (x,), (vjp,))
