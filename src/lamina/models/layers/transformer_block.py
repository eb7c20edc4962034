"""The transformer_block layer: a pre-norm transformer encoder block over each example's sequence.

With x one example (steps x d) and every norm and dense applied at each step alone,

    x = x + dropout(attention(layer_norm(x)))          self-attention, heads x key_dim
    x = x + dropout(ff(layer_norm(x)))                 ff = dense(ff_units, gelu), then dense(d)

as torch's TransformerEncoderLayer(norm_first = true, activation = "gelu") (Xiong et al. 2020:
pre-norm trains without a learning-rate warm-up). The attention is the attention layer's (its
eight projections, Keras's MultiHeadAttention), the layer norms normalise each step's d features
(eps 1e-5, gain ones and bias zeros, as the layer_norm layer does a whole example), the first
dense is Glorot-uniform d x ff_units and the second ff_units x d, with zero bias rows. dropout
(fit only) drops from the two branches before they are added back, torch's dropout1 and dropout2.

Each piece is one tape entry with its own backward: layer_norm_op, self_attention, dense_act
(gelu fused into the product's entry) and the residual sums, on the (m * steps) x d matrix of
the batch's steps.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...autodiff import ops
from ...errors import LaminaError
from ...nn.dropout import check_rate, dropout_mask
from ...values import as_int, value_of
from ..layer import DataShape, Layer, no_options, register, reshaped
from ..spec import check_spec
from .attention import (check_causal, check_heads, check_sequences, glorot, projection_shapes,
                        projection_weights, self_attention)
from .dense import dense_act
from .layer_norm import layer_norm_op


def transformer_step(x, params: list, heads: int, causal: bool, rate: float, rng):
    """One block on x (m x t x d) with its 16 weights in parameters' order; rate > 0 with a
    generator drops from both branches (fit)."""
    g1, b1, *att, g2, b2, w1, c1, w2, c2 = params
    m, t, d = value_of(x).shape
    rows = reshaped(x, (m * t, d))
    a = self_attention(reshaped(layer_norm_op(rows, g1, b1), (m, t, d)), att, heads, causal)
    rows = ops.add(rows, _dropped(reshaped(a, (m * t, d)), rate, rng))
    f = dense_act(dense_act(layer_norm_op(rows, g2, b2), w1, c1, "gelu"), w2, c2, "none")
    rows = ops.add(rows, _dropped(f, rate, rng))
    return reshaped(rows, (m, t, d))


def _dropped(x, rate: float, rng):
    if rate == 0.0 or rng is None:
        return x
    v = value_of(x)
    return ops.emul(x, dropout_mask(rng, v.shape, rate, v.dtype))


@register
@dataclass(frozen=True)
class TransformerBlock(Layer):
    heads: int
    key_dim: int
    ff_units: int
    dropout: float = 0.0
    causal: bool = False
    kind = "transformer_block"
    example = 'input(6, 8) |> transformer_block(2, 4, 16)'      # a spec ending with this layer

    @classmethod
    def create(cls, heads, key_dim, ff_units, dropout=0.0, causal=False) -> TransformerBlock:
        heads, key_dim = check_heads(heads, key_dim, "transformer_block")
        return cls(heads, key_dim, as_int(ff_units, "transformer_block's ff_units", minimum=1),
                   check_rate(dropout, "transformer_block's dropout"), check_causal(causal, "transformer_block"))

    def output(self, data: DataShape) -> DataShape:
        check_sequences(data, "transformer_block")
        return data

    def parameters(self, data: DataShape) -> dict:
        d, ff = data.features, self.ff_units
        return {"ln1_gain": (1, d), "ln1_bias": (1, d), **projection_shapes(d, self.heads, self.key_dim),
                "ln2_gain": (1, d), "ln2_bias": (1, d), "ff_w1": (d, ff), "ff_b1": (1, ff),
                "ff_w2": (ff, d), "ff_b2": (1, d)}

    def init(self, data: DataShape, rng: np.random.Generator) -> list:
        d, ff = data.features, self.ff_units
        return [np.ones((1, d)), np.zeros((1, d)), *projection_weights(rng, d, self.heads, self.key_dim),
                np.ones((1, d)), np.zeros((1, d)), glorot(rng, d, ff), np.zeros((1, ff)),
                glorot(rng, ff, d), np.zeros((1, d))]

    def forward(self, x, params, data, training, rng, logits=False):
        return transformer_step(x, params, self.heads, self.causal, self.dropout if training else 0.0, rng)

    def label(self) -> str:
        extra = (f", dropout = {self.dropout:g}" if self.dropout else "") + (", causal = true" if self.causal else "")
        return f"transformer_block({self.heads}, {self.key_dim}, {self.ff_units}{extra})"


def transformer_block_layer(spec, heads=None, key_dim=None, ff_units=None, dropout=0.0, causal=False, **options):
    """`spec |> transformer_block(heads, key_dim, ff_units, dropout = 0)`: the spec with a block appended."""
    spec = check_spec(spec, "transformer_block")
    no_options(options, "transformer_block(spec, heads, key_dim, ff_units, dropout = 0, causal = false)")
    if heads is None or key_dim is None or ff_units is None:
        raise LaminaError("TypeError", "The layer transformer_block(spec, heads, key_dim, ff_units) needs "
                          "the number of heads, the size of each head's queries and keys (key_dim) and "
                          "the width of its feed-forward layer (ff_units).")
    return spec.with_layer(TransformerBlock.create(heads, key_dim, ff_units, dropout, causal))
