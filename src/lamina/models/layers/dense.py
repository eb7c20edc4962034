"""The dense layer: act(x @ w + b) as ONE primitive on the tape.

w is in x units and b a 1 x units row (the bias is per unit, so it is stored as a
row: the language's broadcasting would add a vector to each row's *example*, not to
each unit). The activation's forward and backward come from the one activation
table (nn/activation_table.py). The VJPs share one dz = dL/d(x @ w + b), computed
once per backward sweep.

On examples of rank 2 or more (sequences, images) the layer reads each example whole, its
numbers one after another in row-major order (w is width x units), as it did before examples
had a shape; flatten() before it says so in the spec.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...autodiff.tape import record
from ...errors import LaminaError
from ...nn.activation_table import ACTIVATIONS
from ...values import as_int, as_str, value_of
from ..layer import DataShape, Layer, no_options, register, reshaped
from ..spec import check_spec


def dense_act(x, w, b, activation: str):
    """act(x @ w + b) as one tape entry; x m x k, w k x n, b 1 x n (each tracked or plain)."""
    xv, wv, bv = value_of(x), value_of(w), value_of(b)
    act = ACTIVATIONS[activation]
    z = xv @ wv
    z += bv
    keep_z = z.copy() if act.needs_z else None
    y = act.forward(z)
    memo = [None, None]                         # (g, dz) of the sweep in progress

    def dz(g):
        if memo[0] is not g:
            memo[0], memo[1] = g, act.backward(g, keep_z, y)
        return memo[1]

    return record(y, (x, w, b), (lambda g: dz(g) @ wv.T,
                                 lambda g: xv.T @ dz(g),
                                 lambda g: dz(g).sum(axis=0, keepdims=True)))


@register
@dataclass(frozen=True)
class Dense(Layer):
    units: int
    activation: str
    kind = "dense"
    example = 'input(3) |> dense(2, activation = "tanh")'      # a spec ending with this layer

    @classmethod
    def create(cls, units, activation) -> Dense:
        act = as_str(activation if activation is not None else "none", "dense's activation")
        if act not in ACTIVATIONS:
            raise LaminaError("ValueError", f"dense has no activation \"{act}\"; the activations are "
                              f"{', '.join(ACTIVATIONS)}.")
        return cls(as_int(units, "dense's units", minimum=1), act)

    def output(self, data: DataShape) -> DataShape:
        return DataShape((self.units,))

    def parameters(self, data: DataShape) -> dict:
        return {"w": (data.width, self.units), "b": (1, self.units)}

    def init(self, data: DataShape, rng: np.random.Generator) -> list:
        """Glorot-uniform weights (limit sqrt(6 / (fan_in + fan_out))), zero bias row."""
        limit = math.sqrt(6.0 / (data.width + self.units))
        return [rng.uniform(-limit, limit, (data.width, self.units)), np.zeros((1, self.units))]

    def forward(self, x, params, data, training, rng, logits=False):
        w, b = params
        return dense_act(reshaped(x, (-1, data.width)), w, b, "none" if logits else self.activation)

    def label(self) -> str:
        return f"dense({self.units}, activation = \"{self.activation}\")"


def dense_layer(spec, units=None, activation="none", **options):
    """`spec |> dense(units, activation = ...)`: the spec with a dense layer appended."""
    spec = check_spec(spec, "dense")
    no_options(options, "dense(spec, units, activation = ...)")
    if units is None:
        raise LaminaError("TypeError", "The layer dense(spec, units, ...) needs the number of units.")
    return spec.with_layer(Dense.create(units, activation))
