"""lstm_cell and lstm_forward: Lamina values in, lstm_core on arrays, the tape out.

Batch first, features last (PyTorch's batch_first = true, Keras's layout): X is
batch... x steps x features, every axis before the last two a batch axis (none for one
sequence, steps x features); a state is batch... x hidden. The weights are stacked in
PyTorch's order of the gates (input, forget, cell, output): w_ih 4H x I, w_hh 4H x H and one
bias b of 4H (PyTorch's b_ih + b_hh).

A whole sequence is ONE tape entry (the fused forward) whose VJPs share one hand-written
BPTT, run once per backward sweep; the results (every hidden state, the last hidden and
the last cell state) are small entries on top of it that hand their gradients down as a
`SequenceGrads`, so a loss that reads only the last state never builds a dense
gradient for all of them.
"""
from __future__ import annotations

import numpy as np

from ..autodiff.tape import is_live, record, record_fused
from ..errors import LaminaError, describe_shape
from ..values import Record, numeric, tensor_dtype
from . import lstm_core


class SequenceGrads:
    """The gradient reaching the fused entry: of every hidden state (hs), of the last hidden
    state (h) and of the last cell state (c), each None or an array in the result's shape.
    It adds like an array, so the reverse sweep sums the results' contributions."""
    __array_ufunc__ = None      # NumPy defers `array + SequenceGrads` to __radd__

    def __init__(self, hs=None, h=None, c=None):
        self.hs, self.h, self.c = hs, h, c

    def __add__(self, other):
        if not isinstance(other, SequenceGrads):
            return NotImplemented
        return SequenceGrads(*(a if b is None else b if a is None else a + b
                               for a, b in ((self.hs, other.hs), (self.h, other.h), (self.c, other.c))))

    __radd__ = __add__


def _matrix(w, rows, cols, name, who):
    v = numeric(w, f"{who}'s {name}")
    if np.shape(v) != (rows, cols):
        raise LaminaError("ShapeError", f"{who}'s {name} must be a {rows}x{cols} matrix (4 x hidden "
                          f"rows, the gates input, forget, cell, output), not {describe_shape(np.shape(v))}.")
    return v


def _weights(w_ih, w_hh, b, n_in, who):
    """(hidden size, w_ih, w_hh, b) as arrays, each checked against the others and the input."""
    vhh = numeric(w_hh, f"{who}'s w_hh")
    if np.ndim(vhh) != 2 or vhh.shape[0] != 4 * vhh.shape[1] or vhh.shape[1] == 0:
        raise LaminaError("ShapeError", f"{who}'s w_hh must be a 4H x H matrix (H the hidden size; the "
                          f"gates input, forget, cell, output stacked), not {describe_shape(np.shape(vhh))}.")
    n_h = vhh.shape[1]
    vih = _matrix(w_ih, 4 * n_h, n_in, "w_ih", who)
    if b is None:
        return n_h, vih, vhh, None
    vb = numeric(b, f"{who}'s b")
    if np.shape(vb) != (4 * n_h,):
        raise LaminaError("ShapeError", f"{who}'s b must be a vector of length {4 * n_h} (4 x hidden, the "
                          f"gates input, forget, cell, output), not {describe_shape(np.shape(vb))}.")
    return n_h, vih, vhh, vb


def _state(s, batch, n_h, name, who):
    """A first state: none (zeros), a vector of n_h shared by every sequence, or batch x n_h."""
    if s is None:
        return None
    v = numeric(s, f"{who}'s {name}")
    if np.shape(v) not in ((n_h,), batch + (n_h,)):
        want = f"a vector of length {n_h}" + (f" or {describe_shape(batch + (n_h,))}" if batch else "")
        raise LaminaError("ShapeError", f"{who}'s {name} must be {want} (batch x hidden), not "
                          f"{describe_shape(np.shape(v))}.")
    return v


def _as_rows(v, B, n_h, dtype):
    """A checked state (None, a shared vector, or batch... x n_h) as a (B, n_h) array."""
    if v is None:
        return np.zeros((B, n_h), dtype=dtype)
    return np.broadcast_to(np.asarray(v, dtype=dtype).reshape(-1, n_h), (B, n_h))


def _unrows(d, like):
    """The (B, n_h) gradient of `_as_rows(like)` in like's shape (summed when it was shared)."""
    if np.ndim(like) == 1:
        return d.sum(axis=0)
    return np.ascontiguousarray(d).reshape(np.shape(like))


def run(X, w_ih, w_hh, b, h0, c0, who: str, results=("hs", "h", "c")):
    """The LSTM over X (batch... x T x I) as one fused tape entry: a Record of the `results`
    asked for, among hs (every hidden state), h and c (the last hidden and cell states)."""
    xv = numeric(X, f"{who}'s input")
    if np.ndim(xv) < 2:
        raise LaminaError("ShapeError", f"{who}'s input must be steps x features (one sequence) or "
                          f"batch x steps x features, not {describe_shape(np.shape(xv))}.")
    batch, T, n_in = xv.shape[:-2], xv.shape[-2], xv.shape[-1]
    if T == 0:
        raise LaminaError("ShapeError", f"{who} needs at least one step, but its input is "
                          f"{describe_shape(xv.shape)}.")
    n_h, vih, vhh, vb = _weights(w_ih, w_hh, b, n_in, who)
    first = "0" if who == "lstm_forward" else ""     # lstm_cell calls them h and c
    hv, cv = _state(h0, batch, n_h, "h" + first, who), _state(c0, batch, n_h, "c" + first, who)
    dtype = tensor_dtype(xv, vih, vhh, *(v for v in (vb, hv, cv) if v is not None))
    B = int(np.prod(batch, dtype=np.int64))
    rows = np.ascontiguousarray(np.asarray(xv, dtype=dtype).reshape(B, T, n_in))
    W, U = np.asarray(vih, dtype=dtype), np.asarray(vhh, dtype=dtype)
    bias = np.zeros(4 * n_h, dtype=dtype) if vb is None else np.asarray(vb, dtype=dtype)
    passed = lstm_core.forward(rows, _as_rows(hv, B, n_h, dtype), _as_rows(cv, B, n_h, dtype), W, U, bias)

    def all_grads(g):
        dhs = None if g.hs is None else np.asarray(g.hs, dtype=dtype).reshape(B, T, n_h)
        ends = [None if v is None else np.asarray(v, dtype=dtype).reshape(B, n_h) for v in (g.h, g.c)]
        need_x = is_live(X)
        dX, dh0, dc0, dW, dU, db = lstm_core.backward(passed, dhs, *ends, rows, W, U, need_x)
        return [dX.reshape(xv.shape) if need_x else None, dW, dU, db,
                None if hv is None else _unrows(dh0, hv), None if cv is None else _unrows(dc0, cv)]

    fused = record_fused(passed, [X, w_ih, w_hh, b, h0, c0], all_grads)
    out = {}
    if "hs" in results:
        out["hs"] = record(lstm_core.hidden_states(passed, B).reshape(batch + (T, n_h)),
                           [fused], [lambda g: SequenceGrads(hs=g)])
    for name in ("h", "c"):
        if name in results:
            out[name] = record(lstm_core.last_state(passed, B, cell=name == "c").reshape(batch + (n_h,)),
                               [fused], [_result_vjp(name)])
    return Record(out)


def _result_vjp(name):
    return lambda g: SequenceGrads(**{name: g})



def lstm_forward(X, w_ih, w_hh, b=None, h0=None, c0=None) -> Record:
    """{hs, h, c}: every hidden state (batch... x steps x hidden), the last hidden state and
    the last cell state (batch... x hidden)."""
    return run(X, w_ih, w_hh, b, h0, c0, "lstm_forward")


def lstm_cell(x, h, c, w_ih, w_hh, b=None) -> Record:
    """{h, c}: one step from input x (batch... x features, a vector for one example)."""
    xv = numeric(x, "lstm_cell's x")
    if np.ndim(xv) == 0:
        raise LaminaError("ShapeError", "lstm_cell's x must be a vector of features (one example) or "
                          "batch x features, not a number.")
    if h is None or c is None:
        raise LaminaError("TypeError", "lstm_cell(x, h, c, w_ih, w_hh, b) needs the states h and c.")
    return _cell(x, xv, h, c, w_ih, w_hh, b)


def _cell(x, xv, h, c, w_ih, w_hh, b):
    """lstm_cell as a sequence of one step: x gains a steps axis of length 1 (a tape entry of
    its own, so the gradient for x keeps x's shape)."""
    shape = np.shape(xv)
    one = record(np.asarray(xv).reshape(shape[:-1] + (1, shape[-1])), [x], [lambda g: np.reshape(g, shape)])
    return run(one, w_ih, w_hh, b, h, c, "lstm_cell", results=("h", "c"))
