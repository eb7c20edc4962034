"""Activation functions as builtins: each a primitive on the tape, its forward and
backward taken from the one activation table (activation_table.py), which the model
API's layers use too.

Every function takes a number, a tensor or a tracked one of those; a number
gives a Python float, a tensor a fresh array of the same shape and dtype.
"""
from __future__ import annotations

import numpy as np

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
