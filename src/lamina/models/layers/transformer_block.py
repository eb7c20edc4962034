"""The transformer_block layer: a pre-norm transformer encoder block over each example's sequence.

With x one example (steps x d) and every norm and dense applied at each step alone,

    x = x + dropout(attention(layer_norm(x)))          self-attention, heads x key_dim
    x = x + dropout(ff(layer_norm(x)))                 ff = dense(ff_units, gelu), then dense(d)

as torch's TransformerEncoderLayer(norm_first = true, activation = "gelu") (Xiong et al. 2020:
pre-norm trains without a learning-rate warm-up). The attention is the attention layer's (its
eight projections, Keras's MultiHeadAttention), the layer norms normalise each step's d features
(nn/row_norm.py: eps 1e-5, gain ones and bias zeros), the first dense is Glorot-uniform
d x ff_units and the second ff_units x d, with zero bias rows, gelu the activation table's.
dropout (fit only) drops from the two branches before they are added back, torch's dropout1 and
dropout2.

The whole block is ONE tape entry: its forward and backward are written out on the
(m * steps) x d rows of the batch, and since examples do not meet in a block, the batch is split
into one part per BLAS thread (nn/split.py), each part's products on one thread: NumPy would
otherwise run the half of the block that is elementwise (norms, gelu, softmax, residuals) on one
thread. The weights' gradients are the parts' sums.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from ...autodiff.tape import is_live, record_fused
from ...errors import LaminaError
from ...nn import row_norm
from ...nn.activation_table import ACTIVATIONS
from ...nn.dropout import check_rate, dropout_mask
from ...nn.split import parts, pieces_for, split_work
from ...values import as_int, value_of
from ..layer import DataShape, Layer, no_options, register
from ..spec import check_spec
from .attention import (Projections, attention_rows, attention_rows_backward, check_causal, check_heads,
                        check_sequences, glorot, projection_shapes, projection_weights)

GELU = ACTIVATIONS["gelu"]


class Weights:
    """The block's 16 weights in parameters' order, as its products use them."""

    def __init__(self, values: list, heads: int):
        self.g1, self.b1, *attention, self.g2, self.b2, self.w1, self.c1, self.w2, self.c2 = values
        self.attention = Projections(attention, heads)


def block_rows(X: np.ndarray, t: int, w: Weights, causal: bool, keep: tuple):
    """The block on the (m t) x d rows X of m examples: (Y, cache). keep: the two dropout masks
    (rows of X's shape) or (None, None)."""
    H1, xhat1, rstd1 = row_norm.forward(X, w.g1, w.b1)
    A, attention = attention_rows(H1, t, w.attention, causal)
    if keep[0] is not None:
        A *= keep[0]
    X1 = A
    X1 += X
    H2, xhat2, rstd2 = row_norm.forward(X1, w.g2, w.b2)
    Z = H2 @ w.w1
    Z += w.c1
    U = GELU.forward(Z.copy())
    F = U @ w.w2
    F += w.c2
    if keep[1] is not None:
        F *= keep[1]
    F += X1
    return F, (attention, xhat1, rstd1, H2, xhat2, rstd2, Z, U)


def block_rows_backward(G: np.ndarray, cache, w: Weights, keep: tuple, need_x: bool) -> list:
    """[dX, then the 16 weights' gradients in order] for the gradient G of block_rows' Y."""
    attention, xhat1, rstd1, H2, xhat2, rstd2, Z, U = cache
    dF = G if keep[1] is None else G * keep[1]
    dU = dF @ w.w2.T
    dw2, dc2 = U.T @ dF, dF.sum(axis=0, keepdims=True)
    dZ = GELU.backward(dU, Z, U)
    dw1, dc1 = H2.T @ dZ, dZ.sum(axis=0, keepdims=True)
    dX1, dg2, db2 = row_norm.backward(dZ @ w.w1.T, w.g2, xhat2, rstd2)
    dX1 += G
    dA = dX1 if keep[0] is None else dX1 * keep[0]
    dH1, dW, db, dwo, dbo = attention_rows_backward(dA, attention, w.attention, True)
    dX, dg1, db1 = row_norm.backward(dH1, w.g1, xhat1, rstd1)
    dX += dX1
    return [dX if need_x else None, dg1, db1, dW, db, dwo, dbo, dg2, db2, dw1, dc1, dw2, dc2]


def transformer_step(x, params: list, heads: int, causal: bool, rate: float, rng):
    """One block on x (m x t x d) with its 16 weights in parameters' order (tracked or plain), as
    one tape entry; rate > 0 with a generator drops from both branches (fit)."""
    xv = value_of(x)
    m, t, d = xv.shape
    w = Weights([value_of(p) for p in params], heads)
    X = xv.reshape(m * t, d)
    masks = (None, None)
    if rate > 0.0 and rng is not None:
        masks = tuple(dropout_mask(rng, X.shape, rate, X.dtype) for _ in range(2))
    work = m * t * d * (4 * w.attention.hk + 2 * w.w1.shape[1])
    spans = [(lo * t, hi * t) for lo, hi in parts(m, pieces_for(m, work))]

    def keep(lo, hi):
        return tuple(None if k is None else k[lo:hi] for k in masks)

    done = split_work([functools.partial(block_rows, X[lo:hi], t, w, causal, keep(lo, hi)) for lo, hi in spans])
    Y = np.concatenate([y for y, _ in done]) if len(done) > 1 else done[0][0]
    need_x = is_live(x)

    def grads(g):
        G = np.asarray(g, dtype=Y.dtype).reshape(m * t, d)
        each = split_work([functools.partial(block_rows_backward, G[lo:hi], cache, w, keep(lo, hi), need_x)
                           for (lo, hi), (_, cache) in zip(spans, done)])
        total = [sum(e[k] for e in each) for k in range(1, 13)]
        dX = np.concatenate([e[0] for e in each]).reshape(m, t, d) if need_x else None
        dg1, db1, dW, db, dwo, dbo = total[:6]
        return [dX, dg1, db1, *w.attention.grads(dW, db, dwo, dbo), *total[6:]]

    return record_fused(Y.reshape(m, t, d), [x, *params], grads)



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
