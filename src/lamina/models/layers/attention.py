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
runs once per sweep for all nine VJPs (x and the eight weights). The examples are split into a
part per BLAS thread (nn/split.py), each part's products on one thread, the weights' gradients
the parts' sums.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from ...autodiff.tape import is_live, record_fused
from ...errors import LaminaError
from ...nn.attention import attend, attend_backward, join_heads
from ...nn.split import parts, pieces_for, split_work
from ...values import as_int, describe, value_of
from ..layer import DataShape, Layer, no_options, register
from ..spec import check_spec

WEIGHTS = ("wq", "bq", "wk", "bk", "wv", "bv", "wo", "bo")


class Projections:
    """The eight weights as the products use them: W = [wq, wk, wv] (d x 3hk), b = [bq, bk, bv]."""

    def __init__(self, values: list, heads: int):
        wq, bq, wk, bk, wv, bv, self.wo, self.bo = values
        self.W = np.concatenate([wq, wk, wv], axis=1)
        self.b = np.concatenate([bq, bk, bv], axis=1)
        self.hk = wq.shape[1]
        self.heads, self.kd = heads, self.hk // heads
        self.scale = 1.0 / math.sqrt(self.kd)

    def grads(self, dW, db, dwo, dbo) -> list:
        """The gradients of the eight weights in WEIGHTS' order from those of W, b, wo, bo."""
        hk = self.hk
        out = []
        for i in range(3):
            out += [dW[:, i * hk:(i + 1) * hk], db[:, i * hk:(i + 1) * hk]]
        return [np.ascontiguousarray(d) for d in out + [dwo, dbo]]


def attention_rows(X: np.ndarray, t: int, p: Projections, causal: bool):
    """Self-attention of the (m t) x d rows X of m examples of t steps: (Y, cache), Y (m t) x d."""
    m = X.shape[0] // t
    QKV = X @ p.W
    QKV += p.b
    Q, K, V = np.ascontiguousarray(QKV.reshape(m, t, 3, p.heads, p.kd).transpose(2, 0, 3, 1, 4))
    O, P, Qs = attend(Q, K, V, np.tri(t, dtype=bool) if causal else None, p.scale)
    A = join_heads(O).reshape(m * t, p.hk)
    Y = A @ p.wo
    Y += p.bo
    return Y, (X, K, V, O, P, Qs, A)


def attention_rows_backward(G: np.ndarray, cache, p: Projections, need_x: bool):
    """(dX, dW, db, dwo, dbo) for the gradient G of attention_rows' Y."""
    X, K, V, O, P, Qs, A = cache
    m, heads, t, kd = O.shape
    dO = np.ascontiguousarray((G @ p.wo.T).reshape(m, t, heads, kd).transpose(0, 2, 1, 3))
    dQKV = np.empty((m, t, 3, heads, kd), dtype=G.dtype)
    for i, part in enumerate(attend_backward(dO, Qs, K, V, O, P, p.scale)):
        dQKV[:, :, i] = part.transpose(0, 2, 1, 3)
    dQKV = dQKV.reshape(m * t, 3 * p.hk)
    dX = dQKV @ p.W.T if need_x else None
    return dX, X.T @ dQKV, dQKV.sum(axis=0, keepdims=True), A.T @ G, G.sum(axis=0, keepdims=True)


def self_attention(x, weights: list, heads: int, causal: bool):
    """Multi-head self-attention of x (m x t x d) with the eight WEIGHTS (tracked or plain), as
    one tape entry: m x t x d. The examples are split over the BLAS threads (nn/split.py)."""
    xv = value_of(x)
    m, t, d = xv.shape
    p = Projections([value_of(w) for w in weights], heads)
    X = xv.reshape(m * t, d)
    spans = [(lo * t, hi * t) for lo, hi in parts(m, pieces_for(m, m * t * d * 4 * p.hk))]
    done = split_work([functools.partial(attention_rows, X[lo:hi], t, p, causal) for lo, hi in spans])
    Y = np.concatenate([y for y, _ in done]) if len(done) > 1 else done[0][0]
    need_x = is_live(x)

    def grads(g):
        G = np.asarray(g, dtype=Y.dtype).reshape(m * t, d)
        each = split_work([functools.partial(attention_rows_backward, G[lo:hi], cache, p, need_x)
                           for (lo, hi), (_, cache) in zip(spans, done)])
        dX = np.concatenate([e[0] for e in each]).reshape(m, t, d) if need_x else None
        return [dX] + p.grads(*(sum(e[k] for e in each) for k in range(1, 5)))

    return record_fused(Y.reshape(m, t, d), [x, *weights], grads)



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
