"""Activation functions: each a primitive with its VJP written beside the forward.

Every function takes a number, a tensor or a tracked one of those; a number
gives a Python float, a tensor a fresh float64 array of the same shape.
"""
from __future__ import annotations

import math

import numpy as np

from ..autodiff.tape import record
from ..errors import LaminaError
from ..values import as_float, describe, value_of


def operand(x, what: str):
    """The plain float or float64 array behind a numeric argument."""
    v = value_of(x)
    if type(v) is np.ndarray:
        return v if v.dtype == np.float64 else v.astype(np.float64)
    if isinstance(v, (float, int)) and not isinstance(v, bool):
        return float(v)
    raise LaminaError("TypeError", f"{what} must be a number or tensor, not {describe(x)}.")


def expit(v, out=None):
    """The logistic function without overflow: exp(-|v|) is never above 1.

    NumPy only (SciPy stays out of start-up); `out` may be `v` itself.
    """
    e = np.exp(-np.abs(v))
    return np.divide(np.where(v >= 0, 1.0, e), 1.0 + e, out=out)


def _erf(v):
    from scipy.special import erf  # imported on first use: SciPy is slow to import
    return erf(v)


def _out(a):
    """A NumPy result as a Lamina value: 0-d becomes a float."""
    return float(a) if np.ndim(a) == 0 else a


def _elementwise(x, name, forward, slope):
    """y = forward(v) elementwise; dy/dx = slope(v, y), computed only when a gradient is asked."""
    v = operand(x, f"{name}'s argument")
    y = _out(forward(np.asarray(v)))
    return record(y, [x], [lambda g: _out(g * slope(np.asarray(v), np.asarray(y)))])


def relu(x):
    # The slope at 0 is taken as 0, as PyTorch does.
    return _elementwise(x, "relu", lambda v: np.maximum(v, 0.0),
                        lambda v, y: (v > 0).astype(np.float64))


def leaky_relu(x, alpha=0.01):
    alpha = as_float(alpha, "leaky_relu's alpha")
    return _elementwise(x, "leaky_relu", lambda v: np.where(v > 0, v, alpha * v),
                        lambda v, y: np.where(v > 0, 1.0, alpha))


def sigmoid(x):
    return _elementwise(x, "sigmoid", expit, lambda v, y: y * (1.0 - y))


def tanh(x):
    return _elementwise(x, "tanh", np.tanh, lambda v, y: 1.0 - y * y)


_SQRT_HALF = 1.0 / math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


def gelu(x):
    """Exact GELU: x * Phi(x) with Phi the standard normal CDF (erf form)."""
    return _elementwise(x, "gelu", lambda v: 0.5 * v * (1.0 + _erf(v * _SQRT_HALF)),
                        lambda v, y: 0.5 * (1.0 + _erf(v * _SQRT_HALF))
                        + v * _INV_SQRT_2PI * np.exp(-0.5 * v * v))


def _rows(x, name):
    v = operand(x, f"{name}'s argument")
    if type(v) is not np.ndarray or v.ndim == 0:
        raise LaminaError("TypeError", f"{name} needs a vector or matrix, not {describe(x)}.")
    return v


def softmax_rows(x):
    """Softmax of each row (of the whole vector for a vector); shifted by the row max for stability."""
    v = _rows(x, "softmax_rows")
    e = np.exp(v - v.max(axis=-1, keepdims=True)) if v.size else v.copy()
    s = e / e.sum(axis=-1, keepdims=True) if v.size else e
    return record(s, [x], [lambda g: s * (g - (g * s).sum(axis=-1, keepdims=True))])


def log_softmax_rows(x):
    """log(softmax(row)) as row - max - log(sum(exp(row - max))): never log of 0."""
    v = _rows(x, "log_softmax_rows")
    if v.size == 0:
        return v.copy()
    shifted = v - v.max(axis=-1, keepdims=True)
    out = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    return record(out, [x], [lambda g: g - np.exp(out) * g.sum(axis=-1, keepdims=True)])
