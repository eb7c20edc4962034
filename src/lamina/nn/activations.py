"""Activation functions as builtins: each a primitive on the tape, its forward and
backward taken from the one activation table (activation_table.py), which the model
API's layers use too.

Every function takes a number, a tensor of any rank or a tracked one of those; a number
gives a Python float, a tensor a fresh array of the same shape and dtype. softmax and
log_softmax normalise along an axis (the last by default) of a tensor of any rank, and
softmax_rows and log_softmax_rows along each row of a vector or matrix.
"""
from __future__ import annotations

import numpy as np

from ..autodiff.reductions import axis_value, reduced_axes
from ..autodiff.tape import record
from ..errors import LaminaError
from ..values import as_float, describe, lamina_value, numeric
from .activation_table import ACTIVATIONS, LEAKY_SLOPE, Activation, leaky


def _elementwise(x, name: str, act: Activation):
    """y = act.forward(v) elementwise on a copy of v; the backward runs only when a gradient is asked."""
    if type(x) is float and act.number is not None:
        return act.number(x)        # an untracked number: nothing to record
    v = numeric(x, f"{name}'s argument")
    y = act.forward(np.array(v))
    return record(lamina_value(y), [x], [lambda g: lamina_value(act.backward(np.asarray(g), np.asarray(v), y))])


def relu(x):
    return _elementwise(x, "relu", ACTIVATIONS["relu"])


def leaky_relu(x, alpha=LEAKY_SLOPE):
    return _elementwise(x, "leaky_relu", leaky(as_float(alpha, "leaky_relu's alpha")))


def sigmoid(x):
    return _elementwise(x, "sigmoid", ACTIVATIONS["sigmoid"])


def tanh(x):
    return _elementwise(x, "tanh", ACTIVATIONS["tanh"])


def gelu(x):
    """Exact GELU: x * Phi(x) with Phi the standard normal CDF (erf form)."""
    return _elementwise(x, "gelu", ACTIVATIONS["gelu"])


def silu(x):
    """SiLU (swish): x * sigmoid(x)."""
    return _elementwise(x, "silu", ACTIVATIONS["silu"])


def _along(x, axis, name: str):
    """(the tensor behind x, a number as a one-element vector; the axes to normalise along, None
    for all of a vector; whether x is a number, whose result is a float)."""
    v = numeric(x, f"{name}'s argument")
    number = type(v) is float
    if number:
        v = np.array([v])
    return v, reduced_axes(v.shape, axis_value(axis, f"{name}'s axis"), name), number


def _as_given(out: np.ndarray, number: bool):
    return float(out[0]) if number else out


def softmax(x, axis=-1):
    """exp(x) / sum(exp(x)) along `axes`, each slice shifted by its max first (nothing overflows);
    the VJP is s .* (g - sum(g .* s)) per slice."""
    v, axes, number = _along(x, axis, "softmax")
    s = v - v.max(axis=axes, keepdims=True) if v.size else v.copy()
    np.exp(s, out=s)
    s /= s.sum(axis=axes, keepdims=True)

    def vjp(g):
        g = np.reshape(g, s.shape)
        return _as_given(s * (g - (g * s).sum(axis=axes, keepdims=True)), number)
    return record(_as_given(s, number), [x], [vjp])


def log_softmax(x, axis=-1):
    """log(softmax(x)) along `axes` as (x - max) - log(sum(exp(x - max))): never log of 0; the VJP
    is g - softmax .* sum(g) per slice."""
    v, axes, number = _along(x, axis, "log_softmax")
    if v.size == 0:
        return record(v.copy(), [x], [lambda g: g])
    shifted = v - v.max(axis=axes, keepdims=True)
    out = shifted - np.log(np.exp(shifted).sum(axis=axes, keepdims=True))

    def vjp(g):
        g = np.reshape(g, out.shape)
        return _as_given(g - np.exp(out) * g.sum(axis=axes, keepdims=True), number)
    return record(_as_given(out, number), [x], [vjp])


def _rows(x, name):
    v = numeric(x, f"{name}'s argument")
    if type(v) is not np.ndarray or v.ndim == 0:
        raise LaminaError("TypeError", f"{name} needs a vector or matrix, not {describe(x)}.")
    return v


def softmax_rows(x):
    """Softmax of each row (of the whole vector for a vector); shifted by the row max for stability."""
    v = _rows(x, "softmax_rows")
    softmax = ACTIVATIONS["softmax"]
    s = softmax.forward(np.array(v)) if v.size else v.copy()
    return record(s, [x], [lambda g: softmax.backward(g, None, s)])


def log_softmax_rows(x):
    """log(softmax(row)) as row - max - log(sum(exp(row - max))): never log of 0."""
    v = _rows(x, "log_softmax_rows")
    if v.size == 0:
        return v.copy()
    shifted = v - v.max(axis=-1, keepdims=True)
    out = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    return record(out, [x], [lambda g: g - np.exp(out) * g.sum(axis=-1, keepdims=True)])
