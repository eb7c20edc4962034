"""The one table of activations: each name's forward and its backward, written once.

The elementwise builtins (relu, sigmoid, ... in activations.py) and the model API's
layers (dense(units, activation = ...)) both run these entries. An entry's

    forward(z) -> y     may overwrite z: the caller passes an array it owns;
    backward(g, z, y)   -> dL/dz given g = dL/dy, never writing into g.

`z` is kept for the backward only when `needs_z` (gelu, silu and leaky_relu need it; the
others read their slope off y). Every entry but softmax is elementwise, and their
backward is g times the slope. softmax normalises along the last axis (each row of a
matrix) and its backward is the vector-Jacobian product y .* (g - sum(g .* y)).

An elementwise entry's `kept(x, v, y, on_tape)` is its slope dy/dx as tape operations on the
input x as given (tracked), for the keep sweep (autodiff/tape.py "Second order"): v and y are
the input's and output's values, and `on_tape(name, x)` is the activation `name` recorded on the
tape. A slope read off the activation itself (sigmoid's s (1 - s), tanh's 1 - t^2) is
differentiable to any order that way; relu's and leaky_relu's slopes are constants (masks), and
gelu's is Phi(x) + x phi(x) with the normal CDF and density as tape operations of their own.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..autodiff.ops import add, emul, neg, sub
from ..autodiff.tape import TAPE, record1, second_order
from ..values import value_of
from .erf import erf_float32

LEAKY_SLOPE = 0.01                       # leaky_relu's alpha unless one is given
_SQRT_HALF = 1.0 / math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


def expit(v, out=None):
    """The logistic function 1 / (1 + exp(-v)), in four passes over one buffer.

    exp(-v) overflows to Inf for v below about -709 (-88 in float32), which gives the right
    limit 0, so that overflow is expected and silenced. NumPy only (SciPy stays out of
    start-up); `out` may be `v` itself.
    """
    with np.errstate(over="ignore"):
        if not isinstance(v, np.ndarray):
            return 1.0 / (1.0 + np.exp(-v))
        # a 0-d array's ufunc result is a NumPy scalar, which cannot be an out= buffer
        out = np.negative(v, out=np.empty_like(v) if out is None else out)
        np.exp(out, out=out)
    out += 1.0
    return np.reciprocal(out, out=out)


def erf(v):
    """erf elementwise: a float32 array by erf.py's rational approximation in NumPy passes (ten
    times SciPy's speed, to float32's accuracy), anything else by SciPy's."""
    if isinstance(v, np.ndarray) and v.dtype == np.float32:
        return erf_float32(v)
    from scipy.special import (
        erf as scipy_erf,  # imported on first use: SciPy is slow to import
    )
    return scipy_erf(v)


_EXP_OVERFLOWS = 709.782712893384      # exp(x) is Inf beyond this (the log of the largest float)


def _expit_number(x: float) -> float:
    """expit on a Python float, to the bit what expit gives a one-element array (NumPy's exp,
    which differs from math.exp in the last bit on some machines)."""
    if -x > _EXP_OVERFLOWS:         # exp(-x) beyond the largest float: the limit 0
        return 0.0
    return 1.0 / (1.0 + float(np.exp(-x)))


@dataclass(frozen=True)
class Activation:
    name: str
    forward: Callable       # (z) -> y, may overwrite z
    backward: Callable      # (g, z, y) -> dL/dz
    needs_z: bool = False
    number: Callable | None = None     # forward on a Python float, where one is written
    kept: Callable | None = None       # (x, v, y, on_tape) -> the slope on the tape (second order)


def _softmax(z):
    z -= z.max(axis=-1, keepdims=True)
    np.exp(z, out=z)
    z /= z.sum(axis=-1, keepdims=True)
    return z


def _silu(z):
    s = expit(z)
    return np.multiply(z, s, out=s)


def _silu_slope(z):
    """d/dz z sigmoid(z) = s (1 + z (1 - s)), s = sigmoid(z)."""
    s = expit(z)
    return s * (1.0 + z * (1.0 - s))


def _gelu_slope(z, y):
    """d/dz z Phi(z) = Phi(z) + z phi(z), phi the normal density. Phi is read off the forward's
    y = z Phi(z) as y / z (1/2 at z = 0) rather than by a second erf: the division is one pass,
    erf some thirty (nn/erf.py), and it gives the forward's own Phi to two roundings."""
    z, y = np.asarray(z), np.asarray(y)
    phi = np.divide(y, z, out=np.full_like(y, 0.5), where=z != 0.0)
    density = np.multiply(z, z, out=np.empty_like(phi))     # an array even for a number
    density *= -0.5
    np.exp(density, out=density)
    density *= z
    density *= _INV_SQRT_2PI
    phi += density
    return phi


@second_order
def normal_density(z):
    """phi(z) = exp(-z^2 / 2) / sqrt(2 pi) on the tape; its slope is -z phi(z)."""
    v = value_of(z)
    out = _INV_SQRT_2PI * np.exp(-0.5 * v * v)
    out = float(out) if type(v) is float else out
    return record1(out, z, lambda g: neg(emul(g, emul(z, normal_density(z)))) if TAPE.keeping
                   else -g * v * out)


@second_order
def normal_cdf(z):
    """Phi(z) = (1 + erf(z / sqrt 2)) / 2 on the tape; its slope is phi(z)."""
    v = value_of(z)
    out = 0.5 * (1.0 + erf(v * _SQRT_HALF))
    out = float(out) if type(v) is float else out
    return record1(out, z, lambda g: emul(g, normal_density(z)) if TAPE.keeping
                   else g * normal_density(v))


def _constant(slope: np.ndarray, v):
    """A slope that does not depend on x (a mask), in x's dtype."""
    return slope.astype(v.dtype) if type(v) is np.ndarray else slope


def _sigmoid_kept(x, v, y, on_tape):
    s = on_tape("sigmoid", x)
    return emul(s, sub(1.0, s))


def _tanh_kept(x, v, y, on_tape):
    t = on_tape("tanh", x)
    return sub(1.0, emul(t, t))


def _gelu_kept(x, v, y, on_tape):
    return add(normal_cdf(x), emul(x, normal_density(x)))


def _silu_kept(x, v, y, on_tape):
    s = on_tape("sigmoid", x)
    return add(s, emul(emul(x, s), sub(1.0, s)))


def leaky(alpha: float) -> Activation:
    """leaky_relu with slope alpha below 0 (the table's entry has alpha = LEAKY_SLOPE)."""
    return Activation("leaky_relu", lambda z: np.where(z > 0.0, z, alpha * z),
                      lambda g, z, y: np.where(z > 0.0, g, alpha * g), needs_z=True,
                      kept=lambda x, v, y, on_tape: _constant(np.where(v > 0.0, 1.0, alpha), v))


ACTIVATIONS = {a.name: a for a in [
    Activation("none", lambda z: z, lambda g, z, y: g, kept=lambda x, v, y, on_tape: 1.0),
    # The slope of relu at 0 is taken as 0, as PyTorch does.
    Activation("relu", lambda z: np.maximum(z, 0.0, out=z), lambda g, z, y: g * (y > 0.0),
               number=lambda x: x if x > 0.0 or x != x else 0.0,
               kept=lambda x, v, y, on_tape: (y > 0.0).astype(y.dtype)),
    leaky(LEAKY_SLOPE),
    Activation("sigmoid", lambda z: expit(z, out=z), lambda g, z, y: g * (y * (1.0 - y)), number=_expit_number,
               kept=_sigmoid_kept),
    Activation("tanh", lambda z: np.tanh(z, out=z), lambda g, z, y: g * (1.0 - y * y),
               number=lambda x: float(np.tanh(x)),   # NumPy's tanh: math.tanh differs in the last bit
               kept=_tanh_kept),
    Activation("softmax", _softmax, lambda g, z, y: y * (g - (g * y).sum(axis=-1, keepdims=True))),
    # Exact GELU, z * Phi(z) with Phi the standard normal CDF (the erf form, PyTorch's default).
    Activation("gelu", lambda z: 0.5 * z * (1.0 + erf(z * _SQRT_HALF)), lambda g, z, y: g * _gelu_slope(z, y),
               needs_z=True, kept=_gelu_kept),
    # SiLU (swish), z * sigmoid(z), as torch.nn.functional.silu.
    Activation("silu", _silu, lambda g, z, y: g * _silu_slope(z), needs_z=True,
               number=lambda x: x * _expit_number(x), kept=_silu_kept),
]}
