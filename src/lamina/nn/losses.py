"""Losses: each returns a scalar (a Python float, tracked when an input is), the mean
over examples. Every one is a primitive with its VJPs beside the forward.

Each is differentiable twice (autodiff/tape.py "Second order"): when `TAPE.keeping` a VJP
multiplies the gradient by its local gradient written as tape operations on the inputs as
given (mse's 2 (p - t) / n, cross-entropy's softmax(scores) .* sum(t) - t, ...); a local
gradient that is a constant (mae's signs) is multiplied as it is.
"""
from __future__ import annotations

import math

import numpy as np

from ..autodiff.broadcast import sum_to
from ..autodiff.functions import log, log1p
from ..autodiff.indexing import masked
from ..autodiff.ops import add, ediv, emul, neg, sub
from ..autodiff.products import shaped
from ..autodiff.tape import TAPE, record, second_order
from ..errors import LaminaError, shape_str
from ..values import Tracked, as_str, describe, format_number, numeric, numeric_or_tracked, value_of
from ..warnings import warn
from .activation_table import expit
from .activations import log_softmax, sigmoid, softmax

PROB_EPS = 1e-12   # probabilities are clipped to [PROB_EPS, 1 - PROB_EPS] before a log


def _pair(pred, target, name):
    """pred and target as arrays of one shape.

    A scalar stretches to the other's shape (and takes its dtype, as a number meeting a
    float32 tensor does), and a vector of length m agrees with an m x 1 matrix (the vector
    acts as a column); nothing else broadcasts. Tensors may have any rank.
    """
    p = np.asarray(numeric(pred, f"{name}'s prediction"))
    t = np.asarray(numeric(target, f"{name}'s target"))
    if p.shape == t.shape:
        return p, t
    if p.ndim == 0:
        return np.broadcast_to(p.astype(t.dtype), t.shape), t
    if t.ndim == 0:
        return p, np.broadcast_to(t.astype(p.dtype), p.shape)
    column = lambda a, b: a.ndim == 1 and b.shape == (a.shape[0], 1)
    if column(p, t) or column(t, p):
        return p, t.reshape(p.shape)
    raise LaminaError("ShapeError", f"{name} needs the prediction and the target to have "
                      f"the same shape, but got {shape_str(p.shape)} and {shape_str(t.shape)}.")


def _warn_if_swapped(p: np.ndarray, t: np.ndarray, name: str) -> None:
    """Warn when the prediction holds only 0/1 labels (a 1 among them: an all-zero prediction
    is as often a model's first output) and the target holds a value strictly between 0 and 1:
    the arguments of a metric, (truth, prediction), given to a loss, which takes (prediction,
    target), and which then returns a wrong number without an error."""
    if p.size == 0 or p.flat[0] not in (0.0, 1.0):       # the common case, decided at once
        return
    if ((p == 0) | (p == 1)).all() and (p == 1).any() and ((t > 0) & (t < 1)).any():
        warn(f"{name} takes (prediction, target), but the prediction holds only 0/1 labels and "
             f"the target holds values between 0 and 1: were the arguments given in a metric's order "
             f"(truth, prediction)?", once_key=f"{name}: swapped arguments")


def _grad_for(shape):
    """Turn an array gradient back into the shape (and kind) of the input it belongs to."""
    return lambda a: float(a.sum()) if shape == () else np.ascontiguousarray(a.reshape(shape))


def _scalar_loss(value, inputs, local_grads, kept=None):
    """Record a scalar loss whose gradient w.r.t. inputs[i] is g * local_grads[i]; in a keep
    sweep g * kept(i), that local gradient as tape operations on the inputs (kept None: the
    local gradients are constants)."""
    shapes = [np.shape(numeric(x, "loss input")) for x in inputs]
    return record(float(value), inputs, [_scaled(d, s, kept, i) for i, (d, s) in enumerate(zip(local_grads, shapes))])


@second_order
def _scaled(local, shape, kept, i: int):
    back = _grad_for(shape)
    return lambda g: (_kept_for(emul(g, local if kept is None else kept(i)), shape) if TAPE.keeping
                      else back(g * local))


def _kept_for(h, shape: tuple):
    """_grad_for on the tape: a gradient of the pair's shape summed to a number, or reshaped."""
    return sum_to(h, ()) if shape == () else shaped(h, shape)


def _on_tape(pred, target, shape: tuple) -> list:
    """pred and target as given (tracked), each in the pair's `shape` as _pair makes them (a
    number stretched, the column case reshaped), on the tape."""
    given = [numeric_or_tracked(pred, "loss input"), numeric_or_tracked(target, "loss input")]
    return [emul(x, np.ones(shape)) if np.ndim(value_of(x)) == 0 and shape else shaped(x, shape) for x in given]


def _clipped(x, values: np.ndarray, inside: np.ndarray, lo: float, hi: float):
    """np.clip(x, lo, hi) on the tape: x where `inside` (values within [lo, hi]), else the end."""
    if inside.all():
        return x
    return add(masked(x, inside), np.where(inside, 0.0, np.clip(values, lo, hi)))


def mse(pred, target):
    p, t = _pair(pred, target, "mse")
    diff = p - t
    n = max(diff.size, 1)

    def kept(i: int):
        return emul((2.0 if i == 0 else -2.0) / n, sub(*_on_tape(pred, target, diff.shape)))
    return _scalar_loss(np.mean(diff * diff) if diff.size else math.nan, [pred, target],
                        [2.0 * diff / n, -2.0 * diff / n], kept)


def mae(pred, target):
    # The slope of |d| at d = 0 is taken as 0.
    p, t = _pair(pred, target, "mae")
    diff = p - t
    n = max(diff.size, 1)
    s = np.sign(diff)
    return _scalar_loss(np.mean(np.abs(diff)) if diff.size else math.nan, [pred, target],
                        [s / n, -s / n])


def _from(options, default, name):
    unknown = sorted(set(options) - {"from"})
    if unknown:
        raise LaminaError("TypeError", f"{name} has no keyword '{unknown[0]}'; it accepts 'from'.")
    kind = as_str(options.get("from", default), f"{name}'s 'from'")
    if kind not in ("logits", "probs"):
        raise LaminaError("ValueError", f"{name}'s 'from' must be \"logits\" or \"probs\", not \"{kind}\".")
    return kind


def _class_targets(t, m, c, dtype):
    """A vector of m class indices as an m x c one-hot matrix (of the scores' dtype)."""
    if t.shape != (m,):
        raise LaminaError("ShapeError", f"cross_entropy needs one class index per example "
                          f"({m}), but the targets are a {shape_str(t.shape)}.")
    valid = np.isfinite(t) & (t >= 0) & (t < c)
    valid[valid] = t[valid] == np.floor(t[valid])
    if not valid.all():
        bad = t[~valid][0]
        raise LaminaError("ValueError", f"cross_entropy's class indices must be whole numbers from "
                          f"0 to {c - 1}, but got {format_number(bad)}.")
    return one_hot(t.astype(np.int64), c, dtype)


def one_hot(idx: np.ndarray, units: int, dtype=np.float64, out: np.ndarray | None = None) -> np.ndarray:
    """The len(idx) x units rows with a 1 in each row's column idx[i] (written into `out` when
    given: a reused buffer of that shape and dtype)."""
    if out is None:
        out = np.zeros((idx.shape[0], units), dtype)
    else:
        out.fill(0.0)
    out[np.arange(idx.shape[0]), idx] = 1.0
    return out


@second_order
def cross_entropy(scores, targets, **options):
    """Mean over examples (rows) of -sum_c t_c log p_c."""
    kind = _from(options, "logits", "cross_entropy")
    s = numeric(scores, "cross_entropy's scores")
    tv = np.asarray(numeric(targets, "cross_entropy's targets"))
    if type(s) is not np.ndarray or s.ndim == 0 or s.size == 0:
        raise LaminaError("TypeError", f"cross_entropy needs a vector or matrix of scores (one row "
                          f"per example, one column per class), not {describe(scores)}.")
    rows = s.reshape(1, -1) if s.ndim == 1 else s
    m, c = rows.shape
    if tv.shape == rows.shape or (s.ndim == 1 and tv.shape == s.shape):
        t = tv.reshape(m, c)
        index_targets = False
    elif tv.ndim <= 1:
        t = _class_targets(tv.reshape(-1), m, c, s.dtype)
        index_targets = True
    else:
        raise LaminaError("ShapeError", f"cross_entropy's targets must be a {shape_str(rows.shape)} "
                          f"matrix of class probabilities or a vector of {m} class indices, not "
                          f"{shape_str(tv.shape)}.")
    if not index_targets:
        _warn_if_swapped(rows, t, "cross_entropy")
    if kind == "logits":
        loss, d_scores, shifted, log_total = _from_logits(rows, t, m)
        log_p = lambda: shifted - log_total
    else:
        clipped = np.clip(rows, PROB_EPS, 1.0)
        logp = np.log(clipped)
        d_scores = np.where(rows == clipped, -t / clipped, 0.0) / m
        loss = -(t * logp).sum() / m
        log_p = lambda: logp
    shapes = [s.shape, tv.shape]

    def kept(i: int):
        return _cross_entropy_slope(i, scores, t if index_targets else targets, kind, rows, shapes[i])
    vjps = [lambda g: emul(g, kept(0)) if TAPE.keeping else g * d_scores.reshape(shapes[0]),
            (lambda g: np.zeros(shapes[1], tv.dtype)) if index_targets
            else (lambda g: emul(g, kept(1)) if TAPE.keeping else g * (-log_p() / m).reshape(shapes[1]))]
    return record(float(loss), [scores, targets], vjps)


def _cross_entropy_slope(i: int, scores, targets, kind: str, rows: np.ndarray, shape: tuple):
    """d loss / d scores (i 0) or d loss / d targets (i 1) on the tape, in that input's `shape`."""
    m, c = rows.shape
    R = shaped(numeric_or_tracked(scores, "cross_entropy's scores"), (m, c))
    T = shaped(numeric_or_tracked(targets, "cross_entropy's targets"), (m, c))
    if kind == "logits":
        d = sub(emul(softmax(R), sum_to(T, (m, 1))), T) if i == 0 else neg(log_softmax(R))
    else:
        inside = rows == np.clip(rows, PROB_EPS, 1.0)
        P = _clipped(R, rows, inside, PROB_EPS, 1.0)
        d = masked(neg(ediv(T, P)), inside) if i == 0 else neg(log(P))
    return shaped(emul(1.0 / m, d), shape)


def _from_logits(rows, t, m):
    """(the mean cross-entropy over m rows, d loss / d rows, the rows less each row's max,
    the log of each row's sum of exp of those): log softmax is the third less the fourth."""
    shifted = rows - rows.max(axis=1, keepdims=True)
    e = np.exp(shifted)
    total = _row_sums(e)
    log_total = np.log(total)
    t_sum = _row_sums(t)
    # -sum(t * log softmax) = sum(t_sum * log_total) - sum(t * shifted): two dot products, and
    # no m x c temporary (both terms are >= 0 for targets >= 0, so nothing cancels).
    t_shifted = np.vdot(t, shifted)
    if not np.isfinite(t_shifted):
        # A score of -Inf where the target is 0 contributes nothing (0 * log 0 is 0), as in torch.
        t_shifted = np.where(t == 0, 0.0, t * shifted).sum()
    loss = (np.vdot(t_sum, log_total) - t_shifted) / m
    # d/dlogits of -sum(t log softmax) = softmax * sum(t) - t, per row (in place, in e), with
    # softmax = e / total: one division per row instead of a second exp over the matrix.
    e *= t_sum / total
    e -= t
    e /= m
    return loss, e, shifted, log_total


_ONES: dict = {}


def _row_sums(a):
    """a.sum(axis=1, keepdims=True), as a product with a column of ones: for the few columns
    of a classifier's scores, NumPy's reduction costs twice as much per call (its loop restarts
    on every row)."""
    key = (a.shape[1], a.dtype)
    ones = _ONES.get(key)
    if ones is None:
        ones = _ONES[key] = np.ones((a.shape[1], 1), a.dtype)
    return a @ ones


@second_order
def cross_entropy_of_rows(scores, t):
    """cross_entropy(scores, t, from = "logits") for an m x c matrix of scores (tracked or
    plain) and a plain m x c float matrix t of scores' dtype that the caller has checked (fit's
    batches): the same numbers, without the checks and the targets' gradient, which nothing
    asks for."""
    rows = scores.value if type(scores) is Tracked else scores
    m = rows.shape[0]
    loss, d_scores, _, _ = _from_logits(rows, t, m)
    # The sweep starts from g = 1.0, and 1.0 * d is d: no product to make then.
    return record(float(loss), (scores,), (lambda g: emul(g, _rows_slope(scores, t, m)) if TAPE.keeping
                                           else d_scores if g == 1.0 else g * d_scores,))


def _rows_slope(scores, t: np.ndarray, m: int):
    """cross_entropy_of_rows' d loss / d scores on the tape: (softmax(scores) .* sum(t) - t) / m."""
    return emul(1.0 / m, sub(emul(softmax(scores), t.sum(axis=1, keepdims=True)), t))


@second_order
def binary_cross_entropy(pred, y, **options):
    """Mean over elements of -(y log p + (1 - y) log(1 - p))."""
    kind = _from(options, "probs", "binary_cross_entropy")
    x, t = _pair(pred, y, "binary_cross_entropy")
    if x.size == 0:                # the mean of no elements is NaN, as mean([]) is
        return _scalar_loss(math.nan, [pred, y], [np.zeros(x.shape, x.dtype), np.zeros(t.shape, t.dtype)])
    if np.any((t < 0) | (t > 1)):
        bad = t[(t < 0) | (t > 1)].flat[0]
        raise LaminaError("ValueError", f"binary_cross_entropy's labels must lie from 0 to 1 (the "
                          f"probability of class 1), not {format_number(float(bad))}.")
    _warn_if_swapped(x, t, "binary_cross_entropy")
    n = x.size
    if kind == "logits":
        # log(1 + exp(-|x|)) + max(x, 0) - x*y is the same loss without overflow.
        loss = np.sum(np.maximum(x, 0.0) - x * t + np.log1p(np.exp(-np.abs(x)))) / n
        dx, dt = (expit(x) - t) / n, -x / n

        def kept(i: int):
            X, T = _on_tape(pred, y, x.shape)
            return emul(1.0 / n, sub(sigmoid(X), T)) if i == 0 else emul(-1.0 / n, X)
    else:
        # In float64: 1 - PROB_EPS rounds to 1 in float32, where the clip would not keep log(1 - p) finite.
        x64 = x.astype(np.float64, copy=False)
        p = np.clip(x64, PROB_EPS, 1.0 - PROB_EPS)
        loss = -np.sum(t * np.log(p) + (1.0 - t) * np.log1p(-p)) / n
        dx = (np.where(x64 == p, (p - t) / (p * (1.0 - p)), 0.0) / n).astype(x.dtype, copy=False)
        dt = (-(np.log(p) - np.log1p(-p)) / n).astype(t.dtype, copy=False)

        def kept(i: int):
            X, T = _on_tape(pred, y, x.shape)
            inside = x64 == p
            P = _clipped(X, x64, inside, PROB_EPS, 1.0 - PROB_EPS)
            if i == 0:
                return emul(1.0 / n, masked(ediv(sub(P, T), emul(P, sub(1.0, P))), inside))
            return emul(-1.0 / n, sub(log(P), log1p(neg(P))))
    return _scalar_loss(loss, [pred, y], [dx, dt], kept)
