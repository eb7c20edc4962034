"""Differentiable norms of vectors (p-norms) and matrices (Frobenius, spectral, 1 and Inf).

Vector p-norms are computed on x / max|x| and scaled back, so that norm([1e200, 1e200]) is
1.41e200 rather than Inf. A subgradient is taken where the norm has a kink: 0 at the zero
vector, sign(0) = 0 for the 1-norm, the first of tied largest elements for the Inf-norm (and
the first tied column or row for a matrix's 1- or Inf-norm).

Second order (autodiff/tape.py): the p-norms and the 1- and Inf-norms of matrices compute their
keep rules with tape operations; the spectral norm's gradient is first order only.
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import LaminaError, describe_shape
from ..values import Tracked, format_number
from .functions import abs as absolute
from .indexing import scatter
from .ops import ediv, emul, epow
from .tape import TAPE, record, second_order

MATRIX_KINDS = "none or \"fro\" (Frobenius), 2 (spectral: the largest singular value), 1 (largest " \
               "column sum of |a|) or Inf (largest row sum)"


def norm(a, p=None):
    """`p` is None (2 for a vector, Frobenius for a matrix), a number >= 1, Inf, or "fro"."""
    x = a.value if type(a) is Tracked else a
    if p is not None:
        check_p(p)
    if type(x) is float:
        return record(abs(x), (a,), (1.0 if x > 0 else -1.0 if x < 0 else 0.0,))      # a constant slope
    if x.ndim == 1 or p is None or p == "fro":
        if x.ndim == 1 and p == "fro":
            raise LaminaError("ValueError", "norm(v, \"fro\") is for matrices; a vector's norm takes "
                              "p = a number from 1 up, or Inf.")
        return _p_norm(a, x, 2.0 if p is None or p == "fro" else p)
    if p == 2.0:
        return _spectral(a, x)
    if p in (1.0, math.inf):
        return _induced(a, x, 0 if p == 1.0 else 1)
    raise LaminaError("ValueError", f"norm of {describe_shape(x.shape)} takes p = {MATRIX_KINDS}, "
                      f"not {_show(p)}.")


def check_p(p) -> None:
    if isinstance(p, str):
        if p != "fro":
            raise LaminaError("ValueError", f"norm's p must be a number from 1 up, Inf, or \"fro\", not \"{p}\".")
    elif not p >= 1.0:
        raise LaminaError("ValueError", f"norm's p must be at least 1 (or Inf), not {_show(p)}: below 1 "
                          "it is not a norm.")


def _show(p) -> str:
    return f"\"{p}\"" if isinstance(p, str) else format_number(p)


@second_order
def _p_norm(a, x: np.ndarray, p: float):
    big = float(np.max(np.abs(x))) if x.size else 0.0
    if big == 0.0 or not math.isfinite(big):          # zeros, or Inf / NaN (NaN beats Inf)
        out = big if not np.isnan(x).any() else math.nan
        return record(out, (a,), (lambda g: np.zeros(x.shape, x.dtype) if out == 0 else np.full(x.shape, math.nan, dtype=x.dtype),))
    y = np.abs(x) / big
    if p == math.inf:
        i = int(np.argmax(y))
        out = big

        def vjp(g):
            if TAPE.keeping:
                key = tuple(int(j) for j in np.unravel_index(i, x.shape))
                return scatter(emul(g, float(np.sign(x[key]))), x.shape, key, x.dtype)
            back = np.zeros(x.shape, x.dtype)
            back.reshape(-1)[i] = g * np.sign(x.reshape(-1)[i])
            return back
        return record(out, (a,), (vjp,))
    out = big * float(np.sum(y ** p)) ** (1.0 / p)
    if p == 1.0:
        return record(out, (a,), (lambda g: emul(g, np.sign(x)) if TAPE.keeping else g * np.sign(x),))
    return record(out, (a,), (lambda g: _p_slope(g, a, x, p) if TAPE.keeping
                              else g * np.sign(x) * (np.abs(x) / out) ** (p - 1.0),))


def _p_slope(g, a, x: np.ndarray, p: float):
    """The p-norm's gradient on the tape: g sign(x) (|x| / norm) ^ (p - 1), which for p = 2 is g x / norm."""
    out = _p_norm(a, x, p)
    if p == 2.0:
        return emul(g, ediv(a, out))
    return emul(g, emul(np.sign(x), epow(ediv(absolute(a), out), p - 1.0)))


def _spectral(a, x: np.ndarray):
    """The largest singular value (first order only: its second derivative needs the other
    singular vectors)."""
    if not x.size:
        return record(0.0, (a,), (lambda g: np.zeros(x.shape, x.dtype),))
    if not np.isfinite(x).all():
        out = math.nan if np.isnan(x).any() else math.inf
        return record(out, (a,), (lambda g: np.full(x.shape, math.nan, dtype=x.dtype),))
    U, s, Vt = np.linalg.svd(x, full_matrices=False)
    return record(float(s[0]), (a,), (lambda g: g * np.outer(U[:, 0], Vt[0]),))


@second_order
def _induced(a, x: np.ndarray, axis: int):
    """The 1-norm (axis 0: the largest sum of |a| down a column) or the Inf-norm (axis 1: rows)."""
    if not x.size:
        return record(0.0, (a,), (lambda g: np.zeros(x.shape, x.dtype),))
    sums = np.abs(x).sum(axis=axis)
    k = int(np.argmax(sums))

    def vjp(g):
        if TAPE.keeping:
            key = (slice(None), k) if axis == 0 else (k, slice(None))
            return scatter(emul(g, np.sign(x[key])), x.shape, key, x.dtype)
        back = np.zeros(x.shape, x.dtype)
        if axis == 0:
            back[:, k] = g * np.sign(x[:, k])
        else:
            back[k, :] = g * np.sign(x[k, :])
        return back
    return record(float(sums[k]), (a,), (vjp,))
