"""The LSTM recurrence on plain arrays: a fused forward over a whole sequence and its
hand-written backward (backpropagation through time).

One step (Hochreiter and Schmidhuber 1997 with the forget gate, as PyTorch writes it), with h
and c the previous states:
    i = sigmoid(Wi x + Ui h + bi),  f = sigmoid(Wf x + Uf h + bf)
    g = tanh(Wg x + Ug h + bg),     o = sigmoid(Wo x + Uo h + bo)
    c' = f .* c + i .* g,           h' = o .* tanh(c')

The weights come stacked in PyTorch's order of the gates, (i, f, g, o): W (4H, I), U (4H, H),
b (4H,). Inside, a step works on examples as COLUMNS: its gates are one (4H, B) array whose
blocks (H, B) are contiguous, since NumPy runs an elementwise operation on a contiguous block
several times faster than on a column slice of (B, 4H) rows. The core's order of the blocks is
(g, i, f, o), so that the forward's tanh covers all four gates at once (the sigmoid gates'
rows halved beforehand, sigmoid(z) = (1 + tanh(z / 2)) / 2: tanh is a third of the cost of
NumPy's exp, and halving is exact) and the backward's three gates whose gradient is the cell
state's times a factor are one block.

    xs (T, B, I) the inputs as rows; h0, c0 (B, H); states come back as columns:
    hs, cs (T + 1, H, B) with hs[0] = h0', cs[0] = c0'.
"""
from __future__ import annotations

import numpy as np

ORDER = [2, 0, 1, 3]          # the core's blocks (g, i, f, o), as positions in (i, f, g, o)
BACK = [1, 2, 0, 3]           # the inverse: PyTorch's blocks as positions in the core's


def _to_core(a: np.ndarray) -> np.ndarray:
    """Stacked gate rows (4H, ...) in PyTorch's order (i, f, g, o) -> the core's (g, i, f, o)."""
    H = a.shape[0] // 4
    return a.reshape((4, H) + a.shape[1:])[ORDER].reshape(a.shape)


def _from_core(a: np.ndarray) -> np.ndarray:
    H = a.shape[0] // 4
    return np.ascontiguousarray(a.reshape((4, H) + a.shape[1:])[BACK].reshape(a.shape))


def forward(xs, h0, c0, W, U, b):
    """(hs, cs, gates, tcs): the states hs and cs (T + 1, H, B), the activated gates
    (T, 4H, B) = [g; i; f; o] and tanh of each new cell state (T, H, B)."""
    T, B, I = xs.shape
    H = U.shape[1]
    half = np.ones((4 * H, 1), dtype=xs.dtype)
    half[H:] = 0.5                  # the sigmoid gates' pre-activations, halved for tanh
    Wc, Uc, bc = _to_core(W) * half, _to_core(U) * half, _to_core(b.reshape(-1, 1)) * half
    # The input side of every gate for every step at once, into the buffer that then holds
    # the gates.
    gates = np.matmul(Wc, np.ascontiguousarray(xs.transpose(0, 2, 1)))
    gates += bc
    hs = np.empty((T + 1, H, B), dtype=gates.dtype)     # float32 in, float32 throughout
    cs = np.empty((T + 1, H, B), dtype=gates.dtype)
    tcs = np.empty((T, H, B), dtype=gates.dtype)
    hs[0], cs[0] = h0.T, c0.T
    for t in range(T):
        a = gates[t]
        a += Uc @ hs[t]
        np.tanh(a, out=a)
        ifo = a[H:]
        ifo *= 0.5
        ifo += 0.5
        c = np.multiply(a[2 * H:3 * H], cs[t], out=cs[t + 1])
        c += a[H:2 * H] * a[:H]
        np.multiply(a[3 * H:], np.tanh(c, out=tcs[t]), out=hs[t + 1])
    return hs, cs, gates, tcs


def backward(dhs, dh_last, dc_last, xs, W, U, hs, cs, gates, tcs, need_x=True):
    """Gradients (dxs (T, B, I), dh0 (B, H), dc0 (B, H), dW, dU, db), the weights' in
    PyTorch's order, given the gradients from outside the recurrence: dhs (T, H, B) for every
    hidden state (or None), dh_last and dc_last (H, B) for the last hidden and cell states
    (or None)."""
    T, B, I = xs.shape
    H = U.shape[1]
    g, i, f, o = (gates[:, k * H:(k + 1) * H] for k in range(4))
    # Every factor that does not depend on the incoming gradient, for all steps at once, so
    # that each step of the loop below is a handful of operations. With dh and dc the
    # gradients of the step's new states:
    #   dc += dh .* o .* (1 - tanh(c')^2);  d(o pre) = dh .* tanh(c') .* o .* (1 - o)
    #   d(g pre) = dc .* i .* (1 - g^2),  d(i pre) = dc .* g .* i .* (1 - i),
    #   d(f pre) = dc .* c .* f .* (1 - f);  dc_prev = dc .* f,  dh_prev = U' d(pre).
    to_c = o * (1.0 - tcs * tcs)
    to_o = tcs * o * (1.0 - o)
    to_gif = np.empty((T, 3, H, B), dtype=hs.dtype)
    np.multiply(i, 1.0 - g * g, out=to_gif[:, 0])
    np.multiply(g * i, 1.0 - i, out=to_gif[:, 1])
    np.multiply(cs[:-1] * f, 1.0 - f, out=to_gif[:, 2])
    Uc = _to_core(U)
    UcT = np.ascontiguousarray(Uc.T)
    dA = np.empty((T, 4, H, B), dtype=hs.dtype)        # gradients of the gates' pre-activations
    dh = np.zeros((H, B), dtype=hs.dtype) if dh_last is None else np.array(dh_last, dtype=hs.dtype)
    dc = np.zeros((H, B), dtype=hs.dtype) if dc_last is None else np.array(dc_last, dtype=hs.dtype)
    for t in range(T - 1, -1, -1):
        if dhs is not None:
            dh += dhs[t]
        dc += dh * to_c[t]
        d = dA[t]
        np.multiply(dc, to_gif[t], out=d[:3])
        np.multiply(dh, to_o[t], out=d[3])
        dc *= f[t]
        dh = UcT @ d.reshape(4 * H, B)
    # Weight gradients for all steps at once: the steps side by side as columns.
    cols = dA.transpose(1, 2, 0, 3).reshape(4 * H, T * B)
    dW = _from_core(cols @ xs.reshape(T * B, I))
    dU = _from_core(cols @ hs[:-1].transpose(0, 2, 1).reshape(T * B, H))
    db = _from_core(cols.sum(axis=1))
    dxs = (cols.T @ _to_core(W)).reshape(T, B, I) if need_x else None
    return dxs, dh.T, dc.T, dW, dU, db
