"""Activation functions as builtins: each a primitive on the tape, its forward and
backward taken from the one activation table (activation_table.py), which the model
API's layers use too.

Every function takes a number, a tensor of any rank or a tracked one of those; a number
gives a Python float, a tensor a fresh array of the same shape and dtype. softmax and
log_softmax normalise along an axis (the last by default) of a tensor of any rank, and
softmax_rows and log_softmax_rows along each row of a vector or matrix.

Each is differentiable twice (autodiff/tape.py "Second order"): when `TAPE.keeping` a VJP
multiplies the gradient by the table's `kept` slope, or (softmax and log_softmax) computes
s .* (g - sum(g .* s)) and g - s .* sum(g) with s = softmax(x) recorded on the tape again.
"""
from __future__ import annotations

import numpy as np

from ..autodiff.broadcast import sum_to
from ..autodiff.ops import emul, sub
from ..autodiff.reductions import axis_value, kept_shape, reduced_axes
from ..autodiff.tape import TAPE, record, second_order
from ..errors import LaminaError
from ..values import Tracked, as_float, describe, lamina_value, numeric
from .activation_table import ACTIVATIONS, LEAKY_SLOPE, Activation, leaky


@second_order
def _elementwise(x, name: str, act: Activation):
    """y = act.forward(v) elementwise on a copy of v; the backward runs only when a gradient is asked."""
    if type(x) is float and act.number is not None:
        return act.number(x)        # an untracked number: nothing to record
    v = numeric(x, f"{name}'s argument")
    y = act.forward(np.array(v))
    return record(lamina_value(y), [x], [lambda g: emul(g, _kept_slope(act, x, v, y)) if TAPE.keeping
                                         else lamina_value(act.backward(np.asarray(g), np.asarray(v), y))])


def _kept_slope(act: Activation, x, v, y):
    """The activation's slope at x on the tape (a constant slope as a number or array)."""
    slope = act.kept(x, v, y, _on_tape)
    return slope if type(slope) is Tracked or type(slope) is float else lamina_value(slope)


def _on_tape(name: str, x):
    return _elementwise(x, name, ACTIVATIONS[name])


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


@second_order
def softmax(x, axis=-1):
    """exp(x) / sum(exp(x)) along `axes`, each slice shifted by its max first (nothing overflows);
    the VJP is s .* (g - sum(g .* s)) per slice."""
    v, axes, number = _along(x, axis, "softmax")
    s = v - v.max(axis=axes, keepdims=True) if v.size else v.copy()
    np.exp(s, out=s)
    s /= s.sum(axis=axes, keepdims=True)

    def vjp(g):
        if TAPE.keeping:
            return 0.0 if number else _softmax_slope(g, softmax(x, axis), _summed_shape(v.shape, axes))
        g = np.reshape(g, s.shape)
        return _as_given(s * (g - (g * s).sum(axis=axes, keepdims=True)), number)
    return record(_as_given(s, number), [x], [vjp])


def _summed_shape(shape: tuple, axes) -> tuple:
    """The shape of a sum along `axes` kept (a number for all of a vector, axes None)."""
    return () if axes is None else kept_shape(shape, axes)


def _softmax_slope(g, s, summed: tuple):
    """s .* (g - sum(g .* s)) on the tape, the sums of shape `summed`."""
    return emul(s, sub(g, sum_to(emul(g, s), summed)))


def _log_softmax_slope(g, s, summed: tuple):
    """g - s .* sum(g) on the tape, the sums of shape `summed`."""
    return sub(g, emul(s, sum_to(g, summed)))


@second_order
def log_softmax(x, axis=-1):
    """log(softmax(x)) along `axes` as (x - max) - log(sum(exp(x - max))): never log of 0; the VJP
    is g - softmax .* sum(g) per slice."""
    v, axes, number = _along(x, axis, "log_softmax")
    if v.size == 0:
        return record(v.copy(), [x], [lambda g: g])
    shifted = v - v.max(axis=axes, keepdims=True)
    out = shifted - np.log(np.exp(shifted).sum(axis=axes, keepdims=True))

    def vjp(g):
        if TAPE.keeping:
            return 0.0 if number else _log_softmax_slope(g, softmax(x, axis), _summed_shape(v.shape, axes))
        g = np.reshape(g, out.shape)
        return _as_given(g - np.exp(out) * g.sum(axis=axes, keepdims=True), number)
    return record(_as_given(out, number), [x], [vjp])


def _rows(x, name):
    v = numeric(x, f"{name}'s argument")
    if type(v) is not np.ndarray or v.ndim == 0:
        raise LaminaError("TypeError", f"{name} needs a vector or matrix, not {describe(x)}.")
    return v


@second_order
def softmax_rows(x):
    """Softmax of each row (of the whole vector for a vector); shifted by the row max for stability."""
    v = _rows(x, "softmax_rows")
    rows = ACTIVATIONS["softmax"]
    s = rows.forward(np.array(v)) if v.size else v.copy()
    return record(s, [x], [lambda g: _softmax_slope(g, softmax(x), _row_sums(v.shape)) if TAPE.keeping
                           else rows.backward(g, None, s)])


def _row_sums(shape: tuple) -> tuple:
    return () if len(shape) == 1 else (shape[0], 1)


@second_order
def log_softmax_rows(x):
    """log(softmax(row)) as row - max - log(sum(exp(row - max))): never log of 0."""
    v = _rows(x, "log_softmax_rows")
    if v.size == 0:
        return v.copy()
    shifted = v - v.max(axis=-1, keepdims=True)
    out = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    return record(out, [x], [lambda g: _log_softmax_slope(g, softmax(x), _row_sums(v.shape)) if TAPE.keeping
                             else g - np.exp(out) * g.sum(axis=-1, keepdims=True)])
