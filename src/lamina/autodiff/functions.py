"""Differentiable elementwise functions: exp, log (and log10, log2, log1p, expm1), sqrt, sin, cos,
abs, two-operand max/min, and clamp.

Each works on a Python float or a float array (or a Tracked one) and records
its VJP beside the forward value. A Python float goes through the same NumPy
function as a vector and comes back a float: the C library's `math` functions
differ from NumPy's SIMD kernels in the last bit on some machines (AVX-512), and
a number must give what a one-element vector gives. sqrt, which IEEE 754 rounds
exactly everywhere, takes `math.sqrt` for speed (ops.fsqrt).
"""
from __future__ import annotations

import math

import numpy as np

from ..values import Tracked
from .broadcast import align, unbroadcast
from .ops import NAN, fdiv, fsqrt, identity, times
from .tape import record, record1, record2


def _apply(x, ufunc):
    return float(ufunc(x)) if type(x) is float else ufunc(x)


def _zero(g):
    return 0.0


def _divide(g, d):
    return fdiv(g, d) if type(g) is float else g / d


def elementwise(ufunc, vjp, number=None):
    """The differentiable function `ufunc`: on an array `ufunc(x)`, on a Python float `number(x)`
    (by default the ufunc's result as a float), recorded with the VJP `vjp(x, out)` makes."""
    number = number or (lambda v: float(ufunc(v)))

    def apply(a):
        x = a.value if type(a) is Tracked else a
        out = number(x) if type(x) is float else ufunc(x)
        if type(a) is not Tracked:
            return out
        return record1(out, a, vjp(x, out))
    return apply


def _abs_slope(x):
    """abs's VJP: a number's sign, or the array's, 0 at NaN as on the scalar path and in torch (a
    NaN that a mask later replaces, z[isnan(w)] = 0, passes back 0, not 0 * NaN)."""
    if type(x) is float:
        return 1.0 if x > 0 else (-1.0 if x < 0 else 0.0)
    return lambda g: g * _sign(x)


def _sign(x: np.ndarray) -> np.ndarray:
    s = np.sign(x)
    s[np.isnan(s)] = 0.0
    return s


_LN10, _LN2 = math.log(10.0), math.log(2.0)

# The one table of unary functions: each one's forward and its VJP, from the input x and the output out.
exp = elementwise(np.exp, lambda x, out: times(out))
expm1 = elementwise(np.expm1, lambda x, out: times(out + 1.0))      # exp(x) - 1, accurate for small x
log = elementwise(np.log, lambda x, out: lambda g: _divide(g, x))
log10 = elementwise(np.log10, lambda x, out: lambda g: _divide(g, x * _LN10))
log2 = elementwise(np.log2, lambda x, out: lambda g: _divide(g, x * _LN2))
log1p = elementwise(np.log1p, lambda x, out: lambda g: _divide(g, 1.0 + x))      # log(1 + x), accurate for small x
sqrt = elementwise(np.sqrt, lambda x, out: lambda g: _divide(0.5 * g, out), number=fsqrt)
sin = elementwise(np.sin, lambda x, out: times(_apply(x, np.cos)))
cos = elementwise(np.cos, lambda x, out: times(-_apply(x, np.sin)))
abs = elementwise(np.absolute, lambda x, out: _abs_slope(x), number=math.fabs)


def maximum(a, b):
    """Elementwise max with broadcasting; the gradient goes to the larger operand (to `a` on ties),
    and where either is NaN to both, as torch.maximum passes it."""
    return _select(a, b, True, "max")


def minimum(a, b):
    """Elementwise min with broadcasting; the gradient goes to the smaller operand (to `a` on ties),
    and where either is NaN to both, as torch.minimum passes it."""
    return _select(a, b, False, "min")


def _select(a, b, larger: bool, op: str, nan_to_both: bool = True):
    """max(a, b) or min(a, b). Where a NaN makes the result NaN, the gradient goes to both operands
    (nan_to_both, torch.maximum) or to neither (torch.clamp)."""
    x = a.value if type(a) is Tracked else a
    y = b.value if type(b) is Tracked else b
    if type(x) is float and type(y) is float:
        if x != x or y != y:
            vjp = identity if nan_to_both else _zero
            return record2(NAN, a, b, vjp, vjp)
        if x >= y if larger else x <= y:
            # on a tie the gradient goes to a, the value is b's: NumPy's max(0.0, -0.0) is -0.0
            return record2(y if x == y else x, a, b, identity, _zero)
        return record2(y, a, b, _zero, identity)
    x2, y2, sx, sy = align(x, y, op)
    out = np.maximum(x2, y2) if larger else np.minimum(x2, y2)
    # a wins ties; at a NaN neither comparison holds (the masks are made only if grad asks)
    a_wins, b_wins = (np.greater_equal, np.less) if larger else (np.less_equal, np.greater)
    if nan_to_both:
        return record(out, (a, b), (lambda g: unbroadcast(g * ~b_wins(x2, y2), sx),
                                    lambda g: unbroadcast(g * ~a_wins(x2, y2), sy)))
    return record(out, (a, b), (lambda g: unbroadcast(g * a_wins(x2, y2), sx),
                                lambda g: unbroadcast(g * b_wins(x2, y2), sy)))


def clamp(a, lo, hi):
    """min(max(a, lo), hi) with broadcasting: inside [lo, hi] (ends included) the gradient goes to
    a; below lo it goes to lo, above hi to hi; a NaN element passes no gradient (as in torch.clamp)."""
    return _select(_select(a, lo, True, "clamp", False), hi, False, "clamp", False)
