"""Scaled dot-product attention, multi-head, as ONE tape entry with a fused backward.

    attention(q, k, v, heads, mask, causal):  q ... x t x d,  k ... x s x d,  v ... x s x e

The leading axes (none for one sequence, b for a batch, b x h for heads already split) are the
batch and must agree. The last axes of q, k (d) and v (e) are cut into `heads` equal parts, head
j taking columns j * d / heads to (j + 1) * d / heads, as torch's nn.MultiheadAttention and Keras
cut them after their projections. Per head, with dk = d / heads:

    S = Q K' / sqrt(dk),   S[i, j] = -Inf where query i may not attend to key j,
    P = softmax(S) along the keys,   O = P V

and the heads' outputs side by side again: ... x t x e. `mask` (true = may attend) broadcasts
against ... x t x s, the heads sharing it: a t x s matrix for every sequence, a b x t x s array
per sequence, a b x 1 x s array to hide padded keys; `causal` lets query i see keys 0 to i (the
lower-left triangle, torch's is_causal). A query that may attend to no key gets weights of 0 and
so an output of 0 (torch's scaled_dot_product_attention gives NaN there).

The backward is written out rather than left to a chain of generic ops: given dO,
    dV = P' dO,   dP = dO V',   dS = P .* (dP - rowsum(dO .* O)),
    dQ = dS K / sqrt(dk),   dK = dS' Q / sqrt(dk)
with rowsum(dP .* P) = rowsum(dO .* O) (each query's output is its weights times V), so the t x s
arrays are touched only by the two products and one in-place update. The three VJPs share it.
The sequences (all batch axes as one) are split into a part per BLAS thread (nn/split.py), so
the softmax and the copies run on every thread, as the products do. `attend` and
`attend_backward` work on heads already split; the attention layer calls them too.
"""
from __future__ import annotations

import functools
import math

import numpy as np

from ..autodiff.bmm import bmm
from ..autodiff.tape import is_live, record_fused
from ..errors import LaminaError, shape_str
from ..values import as_int, describe, numeric, numeric_or_tracked, tensor_dtype
from .split import parts, pieces_for, split_work


def _sequences(x, name: str, dtype):
    v = numeric(x, f"attention's {name}")
    if np.ndim(v) < 2:
        raise LaminaError("ShapeError", f"attention's {name} must be a matrix (one sequence, a row per "
                          f"step) or an array with batch axes first, not {describe(x)}.")
    return v if v.dtype == dtype else v.astype(dtype)


def _check_shapes(q, k, v, heads: int) -> None:
    shapes = f"q {shape_str(q.shape)}, k {shape_str(k.shape)}, v {shape_str(v.shape)}"
    if not (q.shape[:-2] == k.shape[:-2] == v.shape[:-2]):
        raise LaminaError("ShapeError", f"attention needs q, k and v to have the same batch axes (all "
                          f"but the last two), but it got {shapes}.")
    if k.shape[-1] != q.shape[-1]:
        raise LaminaError("ShapeError", f"attention compares each query with each key, so q and k need "
                          f"the same width (last axis), but it got {shapes}.")
    if k.shape[-2] != v.shape[-2]:
        raise LaminaError("ShapeError", f"attention needs a value for each key, so k and v need the same "
                          f"number of steps (second-to-last axis), but it got {shapes}.")
    if q.shape[-1] == 0:
        raise LaminaError("ShapeError", f"attention needs queries and keys of at least one feature, but "
                          f"it got {shapes}.")
    for name, width in (("q and k", q.shape[-1]), ("v", v.shape[-1])):
        if width % heads:
            raise LaminaError("ShapeError", f"attention with {heads} heads cuts the width of {name} into "
                              f"{heads} equal parts, but {width} is not a multiple of {heads} ({shapes}).")


def allowed_keys(mask, causal: bool, lead: tuple, t: int, s: int):
    """Where query i may attend to key j, as a bool array broadcasting against lead x 1 x t x s (the
    1 for the heads), or None when every query may attend to every key."""
    allowed = None
    if mask is not None:
        m = numeric(mask, "attention's mask") if not isinstance(mask, (bool, np.ndarray)) else mask
        m = np.asarray(m)
        if m.dtype != bool:
            if np.any((m != 0) & (m != 1)):
                raise LaminaError("ValueError", "attention's mask must be logical (true where a query may "
                                  "attend to a key) or hold only 0 and 1, but it holds other numbers.")
            m = m != 0
        want = lead + (t, s)
        try:
            np.broadcast_shapes(m.shape, want)
            fits = m.ndim <= len(want) and np.broadcast_shapes(m.shape, want) == want
        except ValueError:
            fits = False
        if not fits:
            hint = ""
            if m.ndim == 2 and lead and m.shape == (lead[0], s):
                hint = (f" To hide padded keys per sequence, give a {lead[0]} x 1 x {s} mask "
                        f"(reshape(mask, {lead[0]}, 1, {s})).")
            raise LaminaError("ShapeError", f"attention's mask must broadcast against the scores, "
                              f"{shape_str(want) if len(want) > 1 else want} (queries x keys, after the "
                              f"batch axes), but it is {describe(m)}.{hint}")
        allowed = m.reshape(m.shape[:-2] + (1,) + m.shape[-2:]) if m.ndim >= 2 else m
    if causal:
        tri = np.tri(t, s, dtype=bool)
        allowed = tri if allowed is None else allowed & tri
    return allowed


def split_heads(x: np.ndarray, heads: int) -> np.ndarray:
    """... x n x w as ... x heads x n x (w / heads): head j takes columns j w/heads to (j + 1) w/heads."""
    if heads == 1:
        return x[..., None, :, :]
    n, w = x.shape[-2:]
    parts = x.reshape(x.shape[:-1] + (heads, w // heads))
    return np.ascontiguousarray(np.moveaxis(parts, -2, -3))


def join_heads(x: np.ndarray) -> np.ndarray:
    """... x heads x n x c as ... x n x (heads * c), the inverse of split_heads."""
    heads, n, c = x.shape[-3:]
    if heads == 1:
        return x[..., 0, :, :]
    return np.ascontiguousarray(np.moveaxis(x, -3, -2)).reshape(x.shape[:-3] + (n, heads * c))


def _t(x: np.ndarray) -> np.ndarray:
    return np.swapaxes(x, -1, -2)


def attend(Q: np.ndarray, K: np.ndarray, V: np.ndarray, allowed, scale: float):
    """The forward on split heads (... x heads x n x c): (O, P, Qs), P the weights and Qs the
    scaled queries, which attend_backward reads. `allowed` is None or a bool array broadcasting
    against the scores ... x heads x t x s."""
    dtype = Q.dtype.type
    s = K.shape[-2]
    Qs = Q * dtype(scale)
    P = bmm(Qs, _t(K))                                    # the scores, then the weights in place
    if allowed is not None:
        np.putmask(P, ~np.broadcast_to(allowed, P.shape), -np.inf)
    top = P.max(axis=-1, keepdims=True) if s else np.zeros(P.shape[:-1] + (1,), dtype)
    if allowed is not None:
        top[~np.isfinite(top)] = 0.0                      # a row with no key: exp(-Inf) = 0 throughout
    P -= top
    np.exp(P, out=P)
    total = P.sum(axis=-1, keepdims=True)
    if allowed is not None or not s:
        total[total == 0] = 1.0                           # its weights stay 0, its output 0
    P /= total
    return bmm(P, V), P, Qs


def attend_backward(dO: np.ndarray, Qs, K, V, O, P, scale: float, need=(True, True, True)):
    """(dQ, dK, dV) on split heads from dO, the gradient of O (None for a gradient not in `need`)."""
    dV = bmm(_t(P), dO) if need[2] else None
    if not (need[0] or need[1]):
        return None, None, dV
    dS = bmm(dO, _t(V))                                   # dP, then dS in place
    dS -= np.sum(dO * O, axis=-1, keepdims=True)
    dS *= P
    dQ = bmm(dS, K) * dS.dtype.type(scale) if need[0] else None
    dK = bmm(_t(dS), Qs) if need[1] else None
    return dQ, dK, dV


def attention(q, k, v, heads=1.0, mask=None, causal=False):
    """softmax(Q K' / sqrt(dk) + mask) V per head, as one tape entry (see the module's docstring)."""
    q = numeric_or_tracked(q, "attention's q")
    k = numeric_or_tracked(k, "attention's k")
    v = numeric_or_tracked(v, "attention's v")
    if not isinstance(causal, bool):
        raise LaminaError("TypeError", f"attention's causal must be true or false, not {describe(causal)}.")
    h = as_int(heads, "attention's heads", minimum=1)
    dtype = tensor_dtype(q, k, v)
    qv, kv, vv = (_sequences(x, name, dtype) for x, name in ((q, "q"), (k, "k"), (v, "v")))
    _check_shapes(qv, kv, vv, h)
    lead, t, s = qv.shape[:-2], qv.shape[-2], kv.shape[-2]
    scale = 1.0 / math.sqrt(qv.shape[-1] // h)
    # The batch axes as one, B sequences, cut into a part per thread (nn/split.py).
    B = math.prod(lead)
    Q, K, V = (split_heads(x, h).reshape((B, h, x.shape[-2], x.shape[-1] // h)) for x in (qv, kv, vv))
    allowed = allowed_keys(mask, causal, lead, t, s)
    if allowed is not None and allowed.ndim > 2:            # per sequence: B x 1 x t x s
        allowed = np.broadcast_to(allowed, lead + (1, t, s)).reshape((B, 1, t, s))
    spans = parts(B, pieces_for(B, B * t * s * (qv.shape[-1] + vv.shape[-1])))

    def rows(x, lo, hi):
        return x if x is None or x.ndim < 4 else x[lo:hi]

    done = split_work([functools.partial(attend, Q[lo:hi], K[lo:hi], V[lo:hi], rows(allowed, lo, hi), scale)
                       for lo, hi in spans])
    need = tuple(is_live(x) for x in (q, k, v))

    def grads(g):
        """[dq, dk, dv]: record_fused runs it once per backward sweep."""
        dO = split_heads(np.asarray(g, dtype=dtype), h).reshape(Q.shape[:-1] + (V.shape[-1],))
        each = split_work([functools.partial(attend_backward, dO[lo:hi], Qs, K[lo:hi], V[lo:hi], O, P, scale,
                                             need) for (lo, hi), (O, P, Qs) in zip(spans, done)])
        return [None if each[0][i] is None else
                join_heads(_stacked([e[i] for e in each]).reshape(lead + each[0][i].shape[1:]))
                for i in range(3)]

    O = _stacked([o for o, _, _ in done]).reshape(lead + (h, t, V.shape[-1]))
    return record_fused(join_heads(O), (q, k, v), grads)


def _stacked(arrays: list) -> np.ndarray:
    return arrays[0] if len(arrays) == 1 else np.concatenate(arrays)

