"""Layers of the model API: dense (one fused tape op per layer) and dropout.

A layer is a small frozen value that knows its output width, how to make its
weights from the compile seed's generator, and how to run forward on a batch
(rows are examples). `dense_layer(spec, units, activation = ...)` and
`dropout(spec, rate)` append one to a model spec.

The dense layer is ONE primitive on the tape: y = act(x @ w + b), with b a
1 x units row (the bias is per unit, so it is stored as a row: the language's
broadcasting would add a vector to each row's *example*, not to each unit).
Its VJPs share one dz = dL/d(x @ w + b), computed once per backward sweep.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..autodiff import ops
from ..autodiff.tape import record
from ..errors import LaminaError
from ..nn.activations import _erf, expit
from ..values import as_float, as_int, as_str, describe, value_of

_SQRT_HALF = 1.0 / math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
LEAKY_SLOPE = 0.01


def _softmax(z):
    z -= z.max(axis=1, keepdims=True)
    np.exp(z, out=z)
    z /= z.sum(axis=1, keepdims=True)
    return z


# name -> (forward(z) -> y, may overwrite z; dz(g, z, y) -> dL/dz, never writing into g).
# `z` is kept only for the activations whose slope needs it (gelu, leaky_relu).
ACTIVATIONS = {
    "none": (lambda z: z, lambda g, z, y: g),
    "relu": (lambda z: np.maximum(z, 0.0, out=z), lambda g, z, y: g * (y > 0.0)),
    "leaky_relu": (lambda z: np.where(z > 0.0, z, LEAKY_SLOPE * z),
                   lambda g, z, y: np.where(z > 0.0, g, LEAKY_SLOPE * g)),
    "sigmoid": (lambda z: expit(z, out=z), lambda g, z, y: g * y * (1.0 - y)),
    "tanh": (lambda z: np.tanh(z, out=z), lambda g, z, y: g * (1.0 - y * y)),
    "softmax": (_softmax, lambda g, z, y: y * (g - (g * y).sum(axis=1, keepdims=True))),
    "gelu": (lambda z: 0.5 * z * (1.0 + _erf(z * _SQRT_HALF)),
             lambda g, z, y: g * (0.5 * (1.0 + _erf(z * _SQRT_HALF))
                                  + z * _INV_SQRT_2PI * np.exp(-0.5 * z * z))),
}
NEEDS_Z = {"leaky_relu", "gelu"}


def dense_act(x, w, b, activation: str):
    """act(x @ w + b) as one tape entry; x m x k, w k x n, b 1 x n (each tracked or plain)."""
    xv, wv, bv = value_of(x), value_of(w), value_of(b)
    forward, slope = ACTIVATIONS[activation]
    z = xv @ wv
    z += bv
    keep_z = z.copy() if activation in NEEDS_Z else None
    y = forward(z)
    memo = [None, None]                         # (g, dz) of the sweep in progress

    def dz(g):
        if memo[0] is not g:
            memo[0], memo[1] = g, slope(g, keep_z, y)
        return memo[1]

    return record(y, (x, w, b), (lambda g: dz(g) @ wv.T,
                                 lambda g: xv.T @ dz(g),
                                 lambda g: dz(g).sum(axis=0, keepdims=True)))


@dataclass(frozen=True)
class Dense:
    units: int
    activation: str
    kind = "dense"

    def out_units(self, n_in: int) -> int:
        return self.units

    def init(self, n_in: int, rng: np.random.Generator) -> tuple:
        """Glorot-uniform weights (limit sqrt(6 / (fan_in + fan_out))), zero bias row."""
        limit = math.sqrt(6.0 / (n_in + self.units))
        return rng.uniform(-limit, limit, (n_in, self.units)), np.zeros((1, self.units))

    def forward(self, x, params: tuple, training: bool, rng, activation: str | None = None):
        w, b = params
        return dense_act(x, w, b, activation or self.activation)

    def label(self) -> str:
        return f"dense({self.units}, activation = \"{self.activation}\")"

    def as_record_fields(self) -> dict:
        return {"kind": "dense", "units": float(self.units), "activation": self.activation}


@dataclass(frozen=True)
class Dropout:
    rate: float
    kind = "dropout"

    def out_units(self, n_in: int) -> int:
        return n_in

    def init(self, n_in: int, rng: np.random.Generator) -> tuple:
        return ()

    def forward(self, x, params: tuple, training: bool, rng, activation: str | None = None):
        """Inverted dropout while fitting (keep with probability 1 - rate, scale by
        1/(1 - rate)); the identity in predict and evaluate."""
        if not training or self.rate == 0.0:
            return x
        keep = (rng.random(np.shape(value_of(x))) >= self.rate) * (1.0 / (1.0 - self.rate))
        return ops.emul(x, keep)

    def label(self) -> str:
        return f"dropout({self.rate:g})"

    def as_record_fields(self) -> dict:
        return {"kind": "dropout", "rate": self.rate}


def _spec(spec, who: str):
    from .spec import ModelSpec
    if not isinstance(spec, ModelSpec):
        raise LaminaError("TypeError", f"{who} adds a layer to a model spec (made by input(n) and "
                          f"layers), not to {describe(spec)}; write input(n) |> {who}(...).")
    return spec


def dense_layer(spec, units=None, activation="none", **options):
    """`spec |> dense(units, activation = ...)`: the spec with a dense layer appended."""
    spec = _spec(spec, "dense")
    if options:
        raise LaminaError("TypeError", f"The layer dense(spec, units, activation = ...) has no "
                          f"keyword '{next(iter(options))}'.")
    if units is None:
        raise LaminaError("TypeError", "The layer dense(spec, units, ...) needs the number of units.")
    n = as_int(units, "dense's units", minimum=1)
    act = as_str(activation if activation is not None else "none", "dense's activation")
    if act not in ACTIVATIONS:
        raise LaminaError("ValueError", f"dense has no activation \"{act}\"; the activations are "
                          f"{', '.join(ACTIVATIONS)}.")
    return spec.with_layer(Dense(n, act))


def dropout_layer(spec, rate):
    """`spec |> dropout(rate)`: the spec with a dropout layer appended."""
    spec = _spec(spec, "dropout")
    r = as_float(rate, "dropout's rate")
    if not 0.0 <= r < 1.0:
        raise LaminaError("ValueError", f"dropout's rate must be at least 0 and below 1, not {r:g}.")
    return spec.with_layer(Dropout(r))


LAYER_KINDS = {"dense": Dense, "dropout": Dropout}
