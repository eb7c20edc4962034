"""The layer_norm layer: each row (example) normalised to mean 0 and variance 1, then
scaled by a learnable gain and shifted by a learnable bias (Ba, Kiros and Hinton 2016).

    xhat = (x - mean(x)) / sqrt(var(x) + eps),   y = xhat .* gain + bias

over the whole row, with the biased variance (divided by the width, as PyTorch does)
and eps = 1e-5 inside the square root. gain starts as ones and bias as zeros, each a
1 x width row. The layer is one primitive on the tape; its VJPs share one backward:
    dxhat = g .* gain
    dx = (dxhat - mean(dxhat) - xhat .* mean(dxhat .* xhat)) / sqrt(var + eps)
with the means over each row, and dgain, dbias the column sums of g .* xhat and g.
An example of rank 2 or more (a sequence, an image) is normalised whole, every number of it
together, gain and bias a 1 x width row as for its row of numbers.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...autodiff.tape import record
from ...nn import row_norm
from ...values import value_of
from ..layer import DataShape, Layer, no_options, register, reshaped
from ..spec import check_spec


def layer_norm_op(x, gain, bias, eps: float = row_norm.EPS):
    """(x - row mean) / sqrt(row variance + eps) .* gain + bias as one tape entry (nn/row_norm.py's
    forward and backward)."""
    gv = value_of(gain)
    y, xhat, rstd = row_norm.forward(value_of(x), gv, value_of(bias), eps)
    memo = [None, None]

    def grads(g):
        if memo[0] is not g:
            memo[0], memo[1] = g, row_norm.backward(g, gv, xhat, rstd)
        return memo[1]

    return record(y, (x, gain, bias), (lambda g: grads(g)[0], lambda g: grads(g)[1], lambda g: grads(g)[2]))


@register
@dataclass(frozen=True)
class LayerNorm(Layer):
    kind = "layer_norm"
    example = 'input(3) |> layer_norm()'      # a spec ending with this layer

    def parameters(self, data: DataShape) -> dict:
        return {"gain": (1, data.width), "bias": (1, data.width)}

    def init(self, data: DataShape, rng: np.random.Generator) -> list:
        return [np.ones((1, data.width)), np.zeros((1, data.width))]

    def forward(self, x, params, data, training, rng, logits=False):
        gain, bias = params
        return reshaped(layer_norm_op(reshaped(x, (-1, data.width)), gain, bias), (-1, *data.shape))

    def label(self) -> str:
        return "layer_norm()"


def layer_norm_layer(spec, **options):
    """`spec |> layer_norm()`: the spec with a layer normalisation appended."""
    spec = check_spec(spec, "layer_norm")
    no_options(options, "layer_norm(spec)")
    return spec.with_layer(LayerNorm())
