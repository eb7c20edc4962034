"""gru_init, gru_cell and gru_forward: Lamina values in, gru_core on arrays, the tape out.

A whole sequence is ONE tape entry (the fused forward) whose VJPs share one
hand-written BPTT; each returned hidden state is a small entry on top of it
that passes its gradient down as a `StepGrads` (one array per step, summed
without ever building the dense T x batch x hidden gradient).
"""
from __future__ import annotations

import numpy as np

from ..autodiff.tape import is_live, record, record_fused
from ..errors import LaminaError, shape_str
from ..values import Record, as_int, describe, numeric, tensor_dtype, value_of
from . import gru_core
from .init import glorot_uniform

FIELDS = ("wz", "uz", "bz", "wr", "ur", "br", "wh", "uh", "bh")
GATES = "zrh"


def gru_init(input_size, hidden_size, seed=None, generator=None) -> Record:
    """Record {wz, uz, bz, ...}: w* hidden x input and u* hidden x hidden Glorot-uniform, b* zeros."""
    n_in = as_int(input_size, "gru_init's input_size", minimum=1)
    n_h = as_int(hidden_size, "gru_init's hidden_size", minimum=1)
    rng = np.random.default_rng(as_int(seed, "gru_init's seed", minimum=0)) if seed is not None else generator
    return Record(init_weights(rng, n_in, n_h))


def init_weights(rng: np.random.Generator, n_in: int, n_h: int) -> dict:
    """{wz, uz, bz, wr, ...} in FIELDS order, drawn in that order from rng (gru_init and the
    model API's gru layer both use it)."""
    fields = {}
    for gate in GATES:
        fields["w" + gate] = glorot_uniform(rng, n_h, n_in)
        fields["u" + gate] = glorot_uniform(rng, n_h, n_h)
        fields["b" + gate] = np.zeros((n_h, 1))
    return fields


# -- arguments as rows ------------------------------------------------------------
def _rows(v, dtype=np.float64) -> np.ndarray:
    """A number (as `dtype`), a vector of n, or an n x b matrix as a (b, n) array of rows."""
    if np.ndim(v) == 0:
        return np.full((1, 1), v, dtype=dtype)
    return v[None, :] if v.ndim == 1 else v.T


def _unrows(d: np.ndarray, like):
    """The (B, n) gradient of `_rows(like)` (perhaps stretched over the batch) shaped like `like`."""
    if np.ndim(like) == 0:
        return float(d.sum())
    if like.ndim == 1 or like.shape[1] != d.shape[0]:
        d = d.sum(axis=0, keepdims=True)
    return d[0].copy() if like.ndim == 1 else np.ascontiguousarray(d.T)


def _batch(sizes, what):
    b = max(sizes)
    if any(s not in (1, b) for s in sizes):
        raise LaminaError("ShapeError", f"{what} have batch sizes (columns) {sorted(set(sizes))} that "
                          f"do not agree; each must be {b} or 1.")
    return b


def _weights(w, n_in, n_h, what, dtype):
    """The record's nine weights as W (3H, I), U (3H, H), b (3H,), their plain values, and the
    map from (dW, dU, db) back to one gradient per field in the field's own shape."""
    if not isinstance(w, Record):
        raise LaminaError("TypeError", f"{what}'s weights must be a record with fields "
                          f"{', '.join(FIELDS)} (see gru_init), not {describe(w)}.")
    missing = [f for f in FIELDS if f not in w.fields]
    if missing:
        raise LaminaError("TypeError", f"{what}'s weights record lacks the field(s) "
                          f"{', '.join(missing)}; it needs {', '.join(FIELDS)} (see gru_init).")
    vals = {f: numeric(w.fields[f], f"{what}'s weight {f}") for f in FIELDS}
    blocks = {"w": [], "u": [], "b": []}
    for f, v in vals.items():
        kind = f[0]
        want = {"w": (n_h, n_in), "u": (n_h, n_h), "b": (n_h, 1)}[kind]
        if np.ndim(v) == 0 and (kind != "w" or n_in == n_h):
            block = np.full(n_h, v, dtype=dtype) if kind == "b" else v * np.eye(n_h, dtype=dtype)
        elif np.shape(v) == want or (kind == "b" and np.shape(v) == (n_h,)):
            block = v.reshape(n_h) if kind == "b" else v
        else:
            need = f"a {shape_str(want)} matrix" + (f" or a vector of length {n_h}" if kind == "b" else "")
            if kind != "w" or n_in == n_h:
                need += " or a number"
            raise LaminaError("ShapeError", f"{what}'s weight {f} must be {need} for input size {n_in} "
                              f"and hidden size {n_h}, but it is {describe(v)}.")
        blocks[kind].append(block)

    def field_grads(dW, dU, db):
        out = {}
        for i, gate in enumerate(GATES):
            rows = slice(i * n_h, (i + 1) * n_h)
            for kind, d in (("w", dW[rows]), ("u", dU[rows]), ("b", db[rows])):
                like = vals[kind + gate]
                if np.ndim(like) == 0:
                    out[kind + gate] = float(d.sum() if kind == "b" else np.trace(d))
                else:
                    out[kind + gate] = np.ascontiguousarray(d.reshape(np.shape(like)))
        return out

    return (np.vstack(blocks["w"]), np.vstack(blocks["u"]), np.concatenate(blocks["b"]),
            field_grads)


def _step_rows(g, B, n_h, dtype):
    """A step result's gradient (number, vector or H x B) as a fresh (B, H) array of `dtype`."""
    return np.array(_rows(np.asarray(g, dtype=dtype), dtype).reshape(B, n_h))


# -- the fused sequence on the tape -----------------------------------------------
class StepGrads:
    """The gradient of the stacked states, kept as {step: (B, H) array}; adds like an array."""
    __array_priority__ = 1000

    def __init__(self, shape, steps, dtype):
        self.shape, self.steps, self.dtype = shape, steps, dtype
        self.ndim = len(shape)

    def __add__(self, other):
        if isinstance(other, StepGrads):
            steps = dict(self.steps)
            for t, g in other.steps.items():
                steps[t] = steps[t] + g if t in steps else g
            return StepGrads(self.shape, steps, self.dtype)
        if np.ndim(other) == 0 and other == 0:
            return self
        return np.asarray(self) + other

    __radd__ = __add__

    def __array__(self, dtype=None, copy=None):
        dense = np.zeros(self.shape, dtype=self.dtype)
        for t, g in self.steps.items():
            dense[t] += g
        return dense if dtype is None else dense.astype(dtype)

    def get(self, t):
        return self.steps.get(t)


def sequence(step_inputs, h0, w, what, out_shape, x_grad=None):
    """The core of gru_cell and gru_forward.

    step_inputs: T plain (number, vector, I x b matrix) or tracked inputs, one per step,
    unless `x_grad` is given: then step_inputs is (one tracked-or-plain X, its T step values)
    and x_grad maps dxs (T, B, I) to X's gradient. out_shape(state (B, H)) -> the value
    returned for each step. Returns the list of per-step results.
    """
    if x_grad is None:
        x_inputs = list(step_inputs)
        x_vals = [numeric(x, f"{what}'s input at step {t}") for t, x in enumerate(x_inputs)]
    else:
        x_inputs, x_vals = [step_inputs[0]], step_inputs[1]
    hv = numeric(h0, f"{what}'s hidden state")
    dtype = tensor_dtype(*x_vals, hv, *(w.fields.values() if isinstance(w, Record) else ()))
    x_rows = [_rows(v, dtype) for v in x_vals]
    h_rows = _rows(hv, dtype)
    n_h = h_rows.shape[1]
    n_in = x_rows[0].shape[1] if x_rows else 0
    for t, r in enumerate(x_rows):
        if r.shape[1] != n_in:
            raise LaminaError("ShapeError", f"{what}'s inputs must all have {n_in} features, but the "
                              f"one at step {t} has {r.shape[1]}.")
    B = _batch([h_rows.shape[0]] + [r.shape[0] for r in x_rows], f"{what}'s hidden state and inputs")
    W, U, b, field_grads = _weights(w, n_in, n_h, what, dtype)
    T = len(x_rows)
    xs = np.empty((T, B, n_in), dtype=dtype)
    for t, r in enumerate(x_rows):
        xs[t] = r
    hs, gates = gru_core.forward(xs, np.broadcast_to(h_rows, (B, n_h)), W, U, b)
    weights = [w.fields[f] for f in FIELDS]
    need_x = any(is_live(x) for x in x_inputs)

    def all_grads(g):
        step_grad = g.get if isinstance(g, StepGrads) else np.asarray(g).__getitem__
        dxs, dh0, dW, dU, db = gru_core.backward(step_grad, xs, W, U, hs, gates, need_x)
        grads = field_grads(dW, dU, db)
        if x_grad is not None:
            xg = [x_grad(dxs)] if need_x else [None]
        else:
            xg = [_unrows(dxs[t], x_vals[t]) if need_x else None for t in range(T)]
        return xg + [_unrows(dh0, hv)] + [grads[f] for f in FIELDS]

    fused = record_fused(hs[1:], x_inputs + [h0] + weights, all_grads)
    return [record(out_shape(hs[t + 1]), [fused], [_step_vjp(t, (T, B, n_h), dtype)]) for t in range(T)]



def _step_vjp(t, shape, dtype):
    """Step t's state passes its gradient to the fused entry as a one-step StepGrads."""
    return lambda g: StepGrads(shape, {t: _step_rows(g, shape[1], shape[2], dtype)}, dtype)


# -- the builtins' bodies ---------------------------------------------------------
def gru_cell(x, h, w):
    """One step. The result has h's shape (a number, a vector of length hidden, or a hidden x
    batch matrix), except that it is a hidden x batch matrix whenever x or a bias is a matrix,
    as the formula's broadcasting gives."""
    hv = numeric(h, "gru_cell's hidden state")
    xv = numeric(x, "gru_cell's input")
    biases = [value_of(w.fields.get(f)) for f in ("bz", "br", "bh")] if isinstance(w, Record) else []
    as_matrix = np.ndim(hv) == 2 or np.ndim(xv) == 2 or any(np.ndim(v) == 2 for v in biases)

    def shaped(state):
        if as_matrix:
            return np.ascontiguousarray(state.T)
        return float(state[0, 0]) if np.ndim(hv) == 0 else state[0].copy()

    return sequence([x], h, w, "gru_cell", shaped)[0]


def gru_forward(X, h0, w):
    """The hidden states, one per step, as a list.

    X a matrix: one sequence, column t is step t; each state is hidden x 1. (A vector X
    acts as a column: one step.) X a list of T matrices (input x batch): a batch of
    sequences, item t is step t; h0 is hidden x batch (or a vector or hidden x 1,
    shared by every sequence); each state is hidden x batch.
    """
    if isinstance(X, list):
        if not X:
            return []
        return sequence(X, h0, w, "gru_forward", lambda s: np.ascontiguousarray(s.T))
    xv = numeric(X, "gru_forward's X")
    hv = numeric(h0, "gru_forward's h0")
    if np.ndim(hv) == 2 and hv.shape[1] != 1:
        raise LaminaError("ShapeError", f"gru_forward with one sequence X (a matrix whose columns "
                          f"are the steps) needs h0 to be a vector or a hidden x 1 matrix, not "
                          f"{shape_str(hv.shape)}; for a batch pass X as a list of input x batch "
                          f"matrices, one per step.")
    cols = np.reshape(xv, (-1, 1)) if np.ndim(xv) < 2 else xv
    if cols.shape[1] == 0:
        return []                       # no steps, no states (as for an empty list of steps)
    steps = [cols[:, t] for t in range(cols.shape[1])]

    def x_grad(dxs):
        d = dxs[:, 0, :].T
        if np.ndim(xv) == 0:
            return float(d.sum())
        return d.reshape(-1).copy() if np.ndim(xv) == 1 else np.ascontiguousarray(d)

    return sequence((X, steps), h0, w, "gru_forward", lambda s: np.ascontiguousarray(s.T),
                    x_grad=x_grad)
