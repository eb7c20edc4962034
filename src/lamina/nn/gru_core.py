"""The GRU recurrence on plain arrays: a fused forward over a whole sequence and its
hand-written backward (backpropagation through time).

Examples are rows, so every step is a row-major matrix product:
    xs (T, B, I) inputs, h0 (B, H) first state,
    W (3H, I) = [Wz; Wr; Wh], U (3H, H) = [Uz; Ur; Uh], b (3H,) = [bz; br; bh].
One step (Cho et al. 2014), with h the previous state:
    z = sigmoid(Wz x + Uz h + bz),  r = sigmoid(Wr x + Ur h + br)
    hh = tanh(Wh x + Uh (r .* h) + bh),  h' = (1 - z) .* h + z .* hh
"""
from __future__ import annotations

import numpy as np

from .activation_table import expit


def forward(xs, h0, W, U, b):
    """All states hs (T + 1, B, H) with hs[0] = h0, and the gates (T, B, 3H) = [z, r, hh]."""
    T, B, I = xs.shape
    H = h0.shape[1]
    # The input side of every gate for every step at once: one big product.
    a_in = (xs.reshape(T * B, I) @ W.T + b).reshape(T, B, 3 * H)
    UzrT = np.ascontiguousarray(U[:2 * H].T)
    UhT = np.ascontiguousarray(U[2 * H:].T)
    hs = np.empty((T + 1, B, H), dtype=a_in.dtype)     # float32 in, float32 throughout
    hs[0] = h0
    gates = np.empty((T, B, 3 * H), dtype=a_in.dtype)
    for t in range(T):
        h, a, g = hs[t], a_in[t], gates[t]
        zr, hh = g[:, :2 * H], g[:, 2 * H:]
        np.add(a[:, :2 * H], h @ UzrT, out=zr)
        expit(zr, out=zr)
        z, r = zr[:, :H], zr[:, H:]
        np.add(a[:, 2 * H:], (r * h) @ UhT, out=hh)
        np.tanh(hh, out=hh)
        np.add(h, z * (hh - h), out=hs[t + 1])
    return hs, gates


def backward(step_grad, xs, W, U, hs, gates, need_x=True):
    """Gradients (dxs, dh0, dW, dU, db) given step_grad(t): the (B, H) gradient of state
    t + 1 coming from outside the recurrence, or None when nothing uses that state."""
    T, B, I = xs.shape
    H = hs.shape[2]
    Uzr, Uh = U[:2 * H], U[2 * H:]
    z, r, hh = gates[:, :, :H], gates[:, :, H:2 * H], gates[:, :, 2 * H:]
    hp = hs[:-1]
    # Every factor that does not depend on the incoming gradient, for all steps at once, so
    # that each step of the loop below is a handful of operations:
    #   d(hh pre-activation) = dh .* z .* (1 - hh^2),  d(z pre) = dh .* (hh - hp) .* z .* (1 - z),
    #   d(r pre) = (d(hh pre) Uh) .* hp .* r .* (1 - r),
    #   dh_prev = dh .* (1 - z) + (d(hh pre) Uh) .* r + [d(z pre), d(r pre)] [Uz; Ur].
    one_minus_z = 1.0 - z
    to_hh = z * (1.0 - hh * hh)
    to_z = (hh - hp) * z * one_minus_z
    to_r = hp * r * (1.0 - r)
    dA = np.empty((T, B, 3 * H), dtype=hs.dtype)        # gradients of the gates' pre-activations
    dh = np.zeros((B, H), dtype=hs.dtype)
    for t in range(T - 1, -1, -1):
        g = step_grad(t)
        if g is not None:
            dh = dh + g
        d = dA[t]
        dah = np.multiply(dh, to_hh[t], out=d[:, 2 * H:])
        drh = dah @ Uh                    # gradient of r .* h
        np.multiply(dh, to_z[t], out=d[:, :H])
        np.multiply(drh, to_r[t], out=d[:, H:2 * H])
        dh = dh * one_minus_z[t]
        drh *= r[t]
        dh += drh
        dh += d[:, :2 * H] @ Uzr
    # Weight gradients for all steps at once, as in the forward.
    dA2 = dA.reshape(T * B, 3 * H)
    dW = dA2.T @ xs.reshape(T * B, I)
    db = dA2.sum(axis=0)
    dU = np.empty_like(U)
    dU[:2 * H] = dA2[:, :2 * H].T @ hs[:-1].reshape(T * B, H)
    rh = gates[:, :, H:2 * H] * hs[:-1]
    dU[2 * H:] = dA2[:, 2 * H:].T @ rh.reshape(T * B, H)
    dxs = (dA2 @ W).reshape(T, B, I) if need_x else None
    return dxs, dh, dW, dU, db
