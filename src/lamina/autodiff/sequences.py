"""Differentiable operations along a sequence: diff, cumprod, reverse.

`axis` follows reductions.check_axis: None, or 0 / 1 for a matrix (a vector's axis 0 is the
vector). None means the whole tensor: cumprod reads a matrix row by row into a vector (as cumsum
does), reverse reverses that row-major order in place (both axes flipped, the shape kept), and
diff refuses a matrix without an axis, since differences across the end of a row mean nothing.
None of them reduces, so a matrix stays a matrix.

Second order (autodiff/tape.py): diff's and reverse's VJPs are their adjoints on the tape;
cumprod's keep rule is the running sum of g y divided by x, which needs factors that are not 0
(with a zero among them a keep sweep refuses it with a TapeError).
"""
from __future__ import annotations

import numpy as np

from ..errors import LaminaError, describe_shape
from ..values import Tracked, float_array
from .indexing import masked, reshaped
from .ops import ediv, emul
from .reductions import check_axis
from .tape import TAPE, record, record1, second_order


def _tensor(a, what: str) -> np.ndarray:
    x = a.value if type(a) is Tracked else a
    if type(x) is not np.ndarray:
        raise LaminaError("TypeError", f"{what} needs a vector or matrix, not a number.")
    return x


def diff(a, axis=None):
    """Differences of neighbours: x[i + 1] - x[i], one fewer along the axis."""
    x = _tensor(a, "diff")
    k = check_axis(x.shape, axis, "diff")
    if k is None:
        if x.ndim == 2:
            raise LaminaError("ValueError", f"diff of {describe_shape(x.shape)} needs an axis: axis = 0 "
                              "for differences down each column, axis = 1 along each row.")
        k = 0
    return _differences(a, k)


@second_order
def _differences(a, k: int):
    """np.diff along axis k, on the tape; its VJP (_undifferenced) is its adjoint, and the
    adjoint of that is this again."""
    x = a.value if type(a) is Tracked else a
    shape = x.shape
    return record1(np.diff(x, axis=k), a, lambda g: _undifferenced(g, shape, k, x.dtype))


@second_order
def _undifferenced(g, shape: tuple, k: int, dtype):
    """diff's VJP: each difference's gradient added to its later element and taken from its earlier."""
    gv = g.value if type(g) is Tracked else g
    back = np.zeros(shape, dtype=dtype)
    lead = [slice(None)] * len(shape)
    lag = list(lead)
    lead[k], lag[k] = slice(1, None), slice(None, -1)
    back[tuple(lead)] += gv
    back[tuple(lag)] -= gv
    return record1(back, g, lambda h: _differences(h, k))


@second_order
def cumprod(a, axis=None, skipnan: bool = False):
    """Running products along an axis (a matrix without one: row by row, as a vector)."""
    x = a.value if type(a) is Tracked else a
    arr = np.atleast_1d(float_array(x))
    k = check_axis(arr.shape, axis, "cumprod")
    flat = arr if k is not None else arr.reshape(-1)
    ax = 0 if k is None else k
    nan = np.isnan(flat) if skipnan else None
    factors = np.where(nan, 1.0, flat) if skipnan else flat
    out = np.cumprod(factors, axis=ax)
    in_shape = np.shape(x)

    def vjp(g):
        if TAPE.keeping:
            return _cumprod_slope(g, a, factors, out, ax, nan, in_shape)
        back = _cumprod_grad(np.moveaxis(factors, ax, -1), np.moveaxis(out, ax, -1), np.moveaxis(g, ax, -1))
        back = np.moveaxis(back, -1, ax)
        if skipnan:
            back = np.where(nan, 0.0, back)
        return float(back.reshape(-1)[0]) if not in_shape else back.reshape(in_shape)
    return record(out, (a,), (vjp,))


def _cumprod_slope(g, a, factors: np.ndarray, out: np.ndarray, ax: int, nan, in_shape: tuple):
    """cumprod's gradient on the tape: element j gets the sum over i >= j of g[i] y[i] / x[j]
    (y the running products), a reverse running sum, where no factor is 0. With a zero factor
    the quotient is undefined: a TapeError, not a wrong second derivative."""
    if not np.all(factors != 0):
        raise LaminaError("TapeError", "grad(..., keep = true) of cumprod needs factors that are not 0: "
                          "with a zero among them its gradient is first order only here. Take the "
                          "gradient without keep, or write the running product with prod.")
    x = reshaped(a, factors.shape) if factors.shape != in_shape else a
    if nan is not None:
        x = _ones_where(x, nan)
    y = cumprod(x, ax) if factors.ndim > 1 else cumprod(x)
    back = ediv(_running_sum(emul(g, y), ax, True), x)
    back = back if nan is None else masked(back, ~nan)
    return reshaped(back, in_shape) if factors.shape != in_shape else back


@second_order
def _ones_where(a, nan: np.ndarray):
    """a with 1 where `nan` holds (the NaNs cumprod(x, skipnan = true) leaves out)."""
    v = a.value if type(a) is Tracked else a
    return record1(np.where(nan, 1.0, v), a, lambda g: masked(g, ~nan))


@second_order
def _running_sum(g, ax: int, backward: bool):
    """Running sums along axis ax, from the end when `backward`; each direction's VJP is the other."""
    v = g.value if type(g) is Tracked else g
    out = np.flip(np.cumsum(np.flip(v, ax), ax), ax) if backward else np.cumsum(v, ax)
    return record1(out, g, lambda h: _running_sum(h, ax, not backward))


def _cumprod_grad(x: np.ndarray, y: np.ndarray, g: np.ndarray) -> np.ndarray:
    """The gradient of y = cumprod(x) along the last axis, exact where elements are 0.

    Element j gets prod(x[:j]) * t[j] with t[j] = sum over i >= j of g[i] prod(x[j+1:i+1]), so
    t[j] = g[j] + x[j + 1] t[j + 1]. Without zeros in y that is the reverse cumulative sum of g y
    divided by x; with a zero, or where g y overflows (an Inf that x would have divided back),
    the recurrence runs element by element.
    """
    if np.all(np.isfinite(y) & (y != 0)):
        with np.errstate(over="ignore"):
            back = np.flip(np.cumsum(np.flip(g * y, -1), -1), -1) / x
        if np.all(np.isfinite(back)) or not np.all(np.isfinite(g)):
            return back
    n = x.shape[-1]
    before = np.concatenate([np.ones(x.shape[:-1] + (1,), dtype=x.dtype), y[..., :-1]], axis=-1)
    t = np.empty(x.shape, dtype=np.result_type(x, g))
    if n:
        t[..., n - 1] = g[..., n - 1]
    for j in range(n - 2, -1, -1):
        t[..., j] = g[..., j] + x[..., j + 1] * t[..., j + 1]
    return before * t


@second_order
def reverse(a, axis=None):
    """The elements in reverse order; a matrix: both axes (no axis), its rows (0) or each row (1)."""
    x = a.value if type(a) is Tracked else a
    k = check_axis(np.shape(x), axis, "reverse")
    if type(x) is not np.ndarray:
        return a
    return record(np.flip(x, k).copy(), (a,), (lambda g: reverse(g, k),))
