"""The LSTM recurrence on plain arrays: a fused forward over a whole sequence and its
hand-written backward (backpropagation through time).

One step (Hochreiter and Schmidhuber 1997 with the forget gate, as PyTorch writes it), with h
and c the previous states:
    i = sigmoid(Wi x + Ui h + bi),  f = sigmoid(Wf x + Uf h + bf)
    g = tanh(Wg x + Ug h + bg),     o = sigmoid(Wo x + Uo h + bo)
    c' = f .* c + i .* g,           h' = o .* tanh(c')

The caller's arrays are batch first: X (B, T, I), states (B, H), and the weights stacked in
PyTorch's order of the gates (i, f, g, o): W (4H, I), U (4H, H), b (4H,).

How it is fast in NumPy:
- The batch is cut into chunks, one per BLAS thread, and each chunk's whole recurrence runs in
  a thread of its own with OpenBLAS held to one thread (nn/split.py; NumPy lets go of the GIL
  in its loops and products). A step's products are small (4H x H times H x B): OpenBLAS
  threading each one wakes and waits for its threads a hundred times a sequence, and spins
  when another process wants the cores.
- Inside a chunk a step works on examples as COLUMNS: its gates are one (4H, B) array whose
  blocks (H, B) are contiguous, since NumPy runs an elementwise operation on a contiguous
  block several times faster than on a column slice of (B, 4H) rows.
- The chunk's order of the gate blocks is (g, i, f, o), so that the forward's one tanh covers
  all four gates (the sigmoid gates' rows halved beforehand: sigmoid(z) = (1 + tanh(z / 2)) / 2,
  tanh costing a third of NumPy's exp, and halving being exact) and the backward's three gates
  whose gradient is the cell state's times a factor are one block.
"""
from __future__ import annotations

import numpy as np

from . import split

ORDER = [2, 0, 1, 3]          # the chunk's blocks (g, i, f, o), as positions in (i, f, g, o)
BACK = [1, 2, 0, 3]           # the inverse: PyTorch's blocks as positions in the chunk's
CHUNK_MIN = 8                 # examples in a chunk, at least


def _to_core(a: np.ndarray) -> np.ndarray:
    """Stacked gate rows (4H, ...) in PyTorch's order (i, f, g, o) -> the chunk's (g, i, f, o)."""
    H = a.shape[0] // 4
    return a.reshape((4, H) + a.shape[1:])[ORDER].reshape(a.shape)


def _from_core(a: np.ndarray) -> np.ndarray:
    H = a.shape[0] // 4
    return np.ascontiguousarray(a.reshape((4, H) + a.shape[1:])[BACK].reshape(a.shape))


# -- the forward pass -------------------------------------------------------------
def forward(X, h0, c0, W, U, b) -> list:
    """The pass over the batch, one record per chunk: (lo, hi, hs, cs, gates, tcs) for the
    examples lo:hi, with the states hs and cs (T + 1, H, hi - lo), hs[0] = h0[lo:hi]', the
    activated gates (T, 4H, hi - lo) = [g; i; f; o] and tanh of each new cell state."""
    H = U.shape[1]
    half = np.ones((4 * H, 1), dtype=X.dtype)
    half[H:] = 0.5                  # the sigmoid gates' pre-activations, halved for tanh
    Wc, Uc, bc = _to_core(W) * half, _to_core(U) * half, _to_core(b.reshape(-1, 1)) * half

    def chunk(lo, hi):
        return lambda: (lo, hi) + _forward_chunk(X[lo:hi], h0[lo:hi], c0[lo:hi], Wc, Uc, bc)

    return split.split_work([chunk(lo, hi) for lo, hi in _chunks(X.shape[0], X.shape[1], H)])


def _forward_chunk(X, h0, c0, Wc, Uc, bc):
    B, T, _ = X.shape
    H = Uc.shape[1]
    # The input side of every gate for every step at once, into the buffer that then holds
    # the gates.
    gates = np.matmul(Wc, np.ascontiguousarray(X.transpose(1, 2, 0)))
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


def hidden_states(run: list, B: int) -> np.ndarray:
    """Every hidden state after the first, (B, T, H)."""
    T, H = run[0][2].shape[0] - 1, run[0][2].shape[1]
    out = np.empty((B, T, H), dtype=run[0][2].dtype)
    for lo, hi, hs, *_ in run:
        out[lo:hi] = hs[1:].transpose(2, 0, 1)
    return out


def last_state(run: list, B: int, cell: bool) -> np.ndarray:
    """The last hidden state (or cell state), (B, H)."""
    k = 3 if cell else 2
    T, H = run[0][k].shape[0] - 1, run[0][k].shape[1]
    out = np.empty((B, H), dtype=run[0][k].dtype)
    for part in run:
        out[part[0]:part[1]] = part[k][T].T
    return out


# -- the backward pass ------------------------------------------------------------
def backward(run, dhs, dh_last, dc_last, X, W, U, need_x=True):
    """Gradients (dX (B, T, I) or None, dh0 (B, H), dc0 (B, H), dW, dU, db) of the pass `run`,
    given the gradients from outside the recurrence: dhs (B, T, H) of every hidden state (or
    None), dh_last and dc_last (B, H) of the last hidden and cell states (or None)."""
    Wc, UcT = _to_core(W), np.ascontiguousarray(_to_core(U).T)

    def chunk(part):
        lo, hi = part[:2]
        return lambda: _backward_chunk(part, None if dhs is None else dhs[lo:hi],
                                       None if dh_last is None else dh_last[lo:hi],
                                       None if dc_last is None else dc_last[lo:hi], X[lo:hi], Wc, UcT, need_x)

    parts = split.split_work([chunk(part) for part in run])
    B = X.shape[0]
    dX = np.empty(X.shape, dtype=X.dtype) if need_x else None
    dh0 = np.empty((B, U.shape[1]), dtype=X.dtype)
    dc0 = np.empty_like(dh0)
    for part, (dXk, dhk, dck, *_) in zip(run, parts):
        lo, hi = part[:2]
        dh0[lo:hi], dc0[lo:hi] = dhk.T, dck.T
        if need_x:
            dX[lo:hi] = dXk
    dW, dU, db = (_from_core(sum(p[k] for p in parts[1:]) + parts[0][k]) for k in (3, 4, 5))
    return dX, dh0, dc0, dW, dU, db


def _backward_chunk(part, dhs, dh_last, dc_last, X, Wc, UcT, need_x):
    """One chunk's gradients (dX, dh0 (H, B), dc0 (H, B), dW, dU, db), the weights' in the
    chunk's order of the gates."""
    _, _, hs, cs, gates, tcs = part
    B, T, I = X.shape
    H = hs.shape[1]
    dt = hs.dtype
    g, i, f, o = (gates[:, k * H:(k + 1) * H] for k in range(4))
    # Every factor that does not depend on the incoming gradient, for all steps at once and in
    # place, so that each step of the loop below is a handful of operations. With dh and dc
    # the gradients of the step's new states:
    #   dc += dh .* o .* (1 - tanh(c')^2);  d(o pre) = dh .* tanh(c') .* o .* (1 - o)
    #   d(g pre) = dc .* i .* (1 - g^2),  d(i pre) = dc .* g .* i .* (1 - i),
    #   d(f pre) = dc .* c .* f .* (1 - f);  dc_prev = dc .* f,  dh_prev = U' d(pre).
    to_c = np.multiply(tcs, tcs)
    np.subtract(1.0, to_c, out=to_c)
    to_c *= o
    to_o = np.subtract(1.0, o)
    to_o *= o
    to_o *= tcs
    to_gif = np.empty((T, 3, H, B), dtype=dt)
    for k, (gate, by) in enumerate(((i, None), (i, g), (f, cs[:-1]))):
        out = to_gif[:, k]
        if by is None:                  # i .* (1 - g^2)
            np.multiply(g, g, out=out)
            np.subtract(1.0, out, out=out)
        else:                           # gate .* (1 - gate) .* by
            np.subtract(1.0, gate, out=out)
            out *= by
        out *= gate
    dA = np.empty((T, 4, H, B), dtype=dt)           # gradients of the gates' pre-activations
    dh = np.zeros((H, B), dtype=dt) if dh_last is None else np.array(dh_last.T, dtype=dt)
    dc = np.zeros((H, B), dtype=dt) if dc_last is None else np.array(dc_last.T, dtype=dt)
    step = None if dhs is None else np.ascontiguousarray(np.asarray(dhs, dtype=dt).transpose(1, 2, 0))
    for t in range(T - 1, -1, -1):
        if step is not None:
            dh += step[t]
        dc += dh * to_c[t]
        d = dA[t]
        np.multiply(dc, to_gif[t], out=d[:3])
        np.multiply(dh, to_o[t], out=d[3])
        dc *= f[t]
        dh = UcT @ d.reshape(4 * H, B)
    # Weight gradients for all steps at once: the (step, example) pairs side by side as
    # columns, step after step (so that each copy below moves runs of B contiguous numbers).
    cols = dA.transpose(1, 2, 0, 3).reshape(4 * H, T * B)
    dW = cols @ X.transpose(1, 0, 2).reshape(T * B, I)
    dU = cols @ hs[:-1].transpose(0, 2, 1).reshape(T * B, H)
    db = cols.sum(axis=1)
    dX = (cols.T @ Wc).reshape(T, B, I).transpose(1, 0, 2) if need_x else None
    return dX, dh, dc, dW, dU, db


# -- chunks side by side ----------------------------------------------------------
def _chunks(B: int, T: int, H: int) -> list:
    """(lo, hi) of each chunk: one per BLAS thread for a pass of split.SPLIT_MIN multiply-adds or
    more, each of CHUNK_MIN examples at least; one chunk otherwise."""
    return split.parts(B, split.pieces_for(B // CHUNK_MIN, 4 * H * H * B * T))
