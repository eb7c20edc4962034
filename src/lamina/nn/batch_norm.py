"""batch_norm: each channel (the last axis) normalised over the batch, as PyTorch's BatchNorm.

x is n x c, n x t x c or n x h x w x c (channels last, as Keras); every axis but the last is
averaged over, m values per channel. In training mode

    mean = mean(x),  var = mean((x - mean)^2)            (biased: divided by m)
    y = (x - mean) / sqrt(var + eps) .* gamma + beta

and the running statistics move towards the batch's, with the unbiased variance as PyTorch
keeps it: running = (1 - momentum) * running + momentum * (mean, var * m / (m - 1)). In
inference mode the running statistics stand in for the batch's. The running statistics are
constants (PyTorch's buffers): no gradient flows into them or out of them.

One tape entry; in training mode its VJPs share one backward:
    dxhat = g .* gamma
    dx = (dxhat - mean(dxhat) - xhat .* mean(dxhat .* xhat)) / sqrt(var + eps)
and dgamma, dbeta are the sums over every axis but the last of g .* xhat and g.
"""
from __future__ import annotations

import numpy as np

from ..autodiff.tape import is_live, record
from ..errors import LaminaError, describe_shape
from ..values import Record, as_float, describe, format_number, numeric, tensor_dtype

MOMENTUM, EPS = 0.1, 1e-5


def _per_channel(v, n_c, name):
    """gamma or beta: a number, or n_c values along the last axis with length 1 on every other
    (a vector, a 1 x c row)."""
    p = numeric(v, f"batch_norm's {name}")
    shape = np.shape(p)
    if shape and (shape[-1] != n_c or any(k != 1 for k in shape[:-1])):
        raise LaminaError("ShapeError", f"batch_norm's {name} must be a number or a vector of length {n_c} "
                          f"(one per channel, the last axis of x), not {describe_shape(shape)}.")
    return p


def _channel_grad(d, like):
    """A per-channel gradient (c,) in the shape of the gamma or beta it is for."""
    return float(d.sum()) if np.ndim(like) == 0 else np.ascontiguousarray(d.reshape(np.shape(like)))


def _running(running, n_c, dtype):
    """The running statistics record as (mean, var) arrays of n_c; PyTorch's start (0, 1) for none."""
    if running is None:
        return np.zeros(n_c, dtype=dtype), np.ones(n_c, dtype=dtype)
    if not isinstance(running, Record) or set(running.fields) != {"mean", "var"}:
        raise LaminaError("TypeError", f"batch_norm's running must be a record {{mean, var}} (a vector "
                          f"of {n_c} each: the running mean and variance of each channel), not "
                          f"{describe(running)}" + (f" with fields {', '.join(running.fields)}"
                                                    if isinstance(running, Record) else "") + ".")
    out = []
    for name in ("mean", "var"):
        v = running.fields[name]
        if is_live(v):
            raise LaminaError("TypeError", f"batch_norm's running.{name} is tracked (made by param() or "
                              f"track()), but running statistics take no gradient: pass detach(...) of it.")
        v = numeric(v, f"batch_norm's running.{name}")
        if np.shape(v) != (n_c,):
            raise LaminaError("ShapeError", f"batch_norm's running.{name} must be a vector of length {n_c} "
                              f"(one per channel, the last axis of x), not {describe_shape(np.shape(v))}.")
        out.append(np.asarray(v, dtype=dtype))
    return tuple(out)


def batch_norm(x, gamma, beta, training=True, running=None, momentum=MOMENTUM, eps=EPS):
    """Training: Record {y, running = {mean, var}}, the running statistics updated.
    Inference: y alone, normalised with the running statistics given."""
    xv = numeric(x, "batch_norm's x")
    if np.ndim(xv) < 2:
        raise LaminaError("ShapeError", f"batch_norm's x must be batch x channels (or an array with the "
                          f"channels last, n x h x w x c), not {describe_shape(np.shape(xv))}.")
    if not isinstance(training, bool):
        raise LaminaError("TypeError", f"batch_norm's training must be true or false, not {describe(training)}.")
    n_c = xv.shape[-1]
    gv, bv = _per_channel(gamma, n_c, "gamma"), _per_channel(beta, n_c, "beta")
    m = xv.size // n_c if n_c else 0
    momentum = as_float(momentum, "batch_norm's momentum")
    if not 0.0 <= momentum <= 1.0:
        raise LaminaError("ValueError", f"batch_norm's momentum must be from 0 to 1, not {format_number(momentum)}.")
    eps = as_float(eps, "batch_norm's eps")
    if not eps > 0.0 or eps == float("inf"):
        raise LaminaError("ValueError", f"batch_norm's eps must be a finite number above 0, not {format_number(eps)}.")
    dtype = tensor_dtype(xv, gv, bv)
    xv = np.asarray(xv, dtype=dtype)
    if not training:
        if running is None:
            raise LaminaError("TypeError", "batch_norm with training = false normalises with the running "
                              "statistics: pass running = {mean, var} (training mode returns them).")
        mean, var = _running(running, n_c, dtype)
        return _normalise(x, gamma, beta, xv, gv, bv, mean, var, eps, batch_stats=False)
    if m < 2:
        one = ": a batch of one" if m == 1 else ""
        raise LaminaError("ValueError", f"batch_norm in training mode needs more than one value per "
                          f"channel to take a variance, but x is {describe_shape(xv.shape)}{one} ({m} per "
                          f"channel). Use training = false with running statistics for a single example.")
    old_mean, old_var = _running(running, n_c, dtype)
    axes = tuple(range(xv.ndim - 1))
    mean = xv.mean(axis=axes)
    var = np.square(xv - mean).mean(axis=axes)
    y = _normalise(x, gamma, beta, xv, gv, bv, mean, var, eps, batch_stats=True)
    new = Record({"mean": (1.0 - momentum) * old_mean + momentum * mean,
                  "var": (1.0 - momentum) * old_var + momentum * var * (m / (m - 1))})
    return Record({"y": y, "running": new})


def _normalise(x, gamma, beta, xv, gv, bv, mean, var, eps, batch_stats):
    """(x - mean) / sqrt(var + eps) .* gamma + beta as one tape entry; with the batch's own
    statistics (training) the gradient for x runs through them too."""
    n_c = xv.shape[-1]
    axes = tuple(range(xv.ndim - 1))
    rstd = 1.0 / np.sqrt(var + eps)
    xhat = (xv - mean) * rstd
    gain = np.reshape(gv, -1) if np.ndim(gv) else gv
    y = xhat * gain + (np.reshape(bv, -1) if np.ndim(bv) else bv)
    memo = [None, None]

    def dx(g):
        if memo[0] is not g:
            d = g * gain
            if batch_stats:
                d = (d - d.mean(axis=axes) - xhat * (d * xhat).mean(axis=axes)) * rstd
            else:
                d = d * rstd
            memo[0], memo[1] = g, d
        return memo[1]

    def dgamma(g):
        return _channel_grad((g * xhat).reshape(-1, n_c).sum(axis=0), gv)

    def dbeta(g):
        return _channel_grad(np.reshape(g, (-1, n_c)).sum(axis=0), bv)

    return record(y, (x, gamma, beta), (dx, dgamma, dbeta))
