"""The attention layer: multi-head self-attention over each example's sequence, with the
query, key, value and output projections of Keras's MultiHeadAttention.

An example is a sequence (steps, features), from input(steps, features), an embedding or
another sequence layer; with d = features, h = heads and k = key_dim,

    q = x wq + bq,  k = x wk + bk,  v = x wv + bv      (each steps x h k)
    a = attention(q, k, v, heads = h, causal = ...)    (nn/attention.py)
    y = a wo + bo                                      (steps x d: the shape it was given)

wq, wk, wv are d x h k and wo h k x d, Glorot-uniform (as Keras draws them); the biases are
1 x n rows of zeros. The layer is ONE tape entry (`self_attention`): the three projections are
one product with [wq, wk, wv] side by side, the heads are split by one copy, and the backward
runs once per sweep for all nine VJPs (x and the eight weights).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...autodiff.tape import is_live, record
from ...errors import LaminaError
from ...nn.attention import attend, attend_backward, join_heads
from ...values import as_int, describe, value_of
from ..layer import DataShape, Layer, no_options, register
from ..spec import check_spec

WEIGHTS = ("wq", "bq", "wk", "bk", "wv", "bv", "wo", "bo")


def self_attention(x, weights: list, heads: int, causal: bool):
    """Multi-head self-attention of x (m x t x d) with the eight WEIGHTS (tracked or plain), as
    one tape entry: m x t x d."""
    xv = value_of(x)
    wq, bq, wk, bk, wv, bv, wo, bo = (value_of(w) for w in weights)
    m, t, d = xv.shape
    hk = wq.shape[1]
    kd = hk // heads
    scale = 1.0 / math.sqrt(kd)
    X = xv.reshape(m * t, d)
    W = np.concatenate([wq, wk, wv], axis=1)              # d x 3hk: one product for q, k and v
    QKV = X @ W
    QKV += np.concatenate([bq, bk, bv], axis=1)
    Q, K, V = np.ascontiguousarray(QKV.reshape(m, t, 3, heads, kd).transpose(2, 0, 3, 1, 4))
    allowed = np.tri(t, dtype=bool) if causal else None
    O, P, Qs = attend(Q, K, V, allowed, scale)
    A = join_heads(O).reshape(m * t, hk)
    Y = A @ wo
    Y += bo
    need_x = is_live(x)
    memo = {}

    def grads(g):
        if memo.get("g") is not g:
            G = np.asarray(g, dtype=Y.dtype).reshape(m * t, d)
            dA = G @ wo.T
            dO = np.ascontiguousarray(dA.reshape(m, t, heads, kd).transpose(0, 2, 1, 3))
            dQ, dK, dV = attend_backward(dO, Qs, K, V, O, P, scale)
            dQKV = np.empty((m, t, 3, heads, kd), dtype=Y.dtype)
            for i, part in enumerate((dQ, dK, dV)):
                dQKV[:, :, i] = part.transpose(0, 2, 1, 3)
            dQKV = dQKV.reshape(m * t, 3 * hk)
            dW = X.T @ dQKV
            db = dQKV.sum(axis=0, keepdims=True)
            parts = [dW[:, :hk], db[:, :hk], dW[:, hk:2 * hk], db[:, hk:2 * hk], dW[:, 2 * hk:],
                     db[:, 2 * hk:], A.T @ G, G.sum(axis=0, keepdims=True)]
            dx = (dQKV @ W.T).reshape(m, t, d) if need_x else None
            memo["g"], memo["grads"] = g, [dx] + [np.ascontiguousarray(p) for p in parts]
        return memo["grads"]

    return record(Y.reshape(m, t, d), [x, *weights], [_pick(grads, i) for i in range(1 + len(WEIGHTS))])


def _pick(grads, i):
    return lambda g: grads(g)[i]


def glorot(rng: np.random.Generator, fan_in: int, fan_out: int) -> np.ndarray:
    limit = math.sqrt(6.0 / (fan_in + fan_out))
    return rng.uniform(-limit, limit, (fan_in, fan_out))


def check_sequences(data: DataShape, who: str) -> None:
    """A LaminaError unless the examples are sequences, steps x features."""
    if data.rank != 2:
        raise LaminaError("ShapeError", f"{who} reads sequences (steps x features per example), but its "
                          f"input is {data.describe()} per example: start the model with "
                          f"input(steps, features), or put embedding(vocab, dim) before it.")


def projection_shapes(d: int, heads: int, key_dim: int) -> dict:
    hk = heads * key_dim
    return {"wq": (d, hk), "bq": (1, hk), "wk": (d, hk), "bk": (1, hk), "wv": (d, hk), "bv": (1, hk),
            "wo": (hk, d), "bo": (1, d)}


def projection_weights(rng: np.random.Generator, d: int, heads: int, key_dim: int) -> list:
    """WEIGHTS' fresh values, drawn in that order: Glorot-uniform kernels, zero biases."""
    hk = heads * key_dim
    return [glorot(rng, d, hk), np.zeros((1, hk)), glorot(rng, d, hk), np.zeros((1, hk)),
            glorot(rng, d, hk), np.zeros((1, hk)), glorot(rng, hk, d), np.zeros((1, d))]


def check_heads(heads, key_dim, who: str) -> tuple[int, int]:
    return as_int(heads, f"{who}'s heads", minimum=1), as_int(key_dim, f"{who}'s key_dim", minimum=1)


def check_causal(causal, who: str) -> bool:
    if not isinstance(causal, bool):
        raise LaminaError("TypeError", f"{who}'s causal must be true or false, not {describe(causal)}.")
    return causal


@register
@dataclass(frozen=True)
class Attention(Layer):
    heads: int
    key_dim: int
    causal: bool = False
    kind = "attention"
    example = 'input(5, 8) |> attention(2, 4, causal = true)'      # a spec ending with this layer

    @classmethod
    def create(cls, heads, key_dim, causal=False) -> Attention:
        return cls(*check_heads(heads, key_dim, "attention"), check_causal(causal, "attention"))

    def output(self, data: DataShape) -> DataShape:
        check_sequences(data, "attention")
        return data

    def parameters(self, data: DataShape) -> dict:
        return projection_shapes(data.features, self.heads, self.key_dim)

    def init(self, data: DataShape, rng: np.random.Generator) -> list:
        return projection_weights(rng, data.features, self.heads, self.key_dim)

    def forward(self, x, params, data, training, rng, logits=False):
        return self_attention(x, params, self.heads, self.causal)

    def label(self) -> str:
        return f"attention({self.heads}, {self.key_dim}" + (", causal = true)" if self.causal else ")")


def attention_layer(spec, heads=None, key_dim=None, causal=False, **options):
    """`spec |> attention(heads, key_dim, causal = false)`: the spec with self-attention appended."""
    spec = check_spec(spec, "attention")
    no_options(options, "attention(spec, heads, key_dim, causal = false)")
    if heads is None or key_dim is None:
        raise LaminaError("TypeError", "The layer attention(spec, heads, key_dim) needs the number of "
                          "heads and the size of each head's queries and keys (key_dim).")
    return spec.with_layer(Attention.create(heads, key_dim, causal))
