"""Differentiable elementwise functions: exp, log (and log10, log2, log1p, expm1), sqrt, sin, cos,
abs, two-operand max/min, and clamp.

Each works on a Python float or a float array (or a Tracked one) and records
its VJP beside the forward value. A Python float goes through the same NumPy
function as a vector and comes back a float: the C library's `math` functions
differ from NumPy's SIMD kernels in the last bit on some machines (AVX-512), and
a number must give what a one-element vector gives. sqrt, which IEEE 754 rounds
exactly everywhere, takes `math.sqrt` for speed (ops.fsqrt).

Second order (autodiff/tape.py): in a keep sweep each VJP computes with tape operations on its
operand as given, the smooth functions from themselves on the tape (exp's slope is exp(a)), abs,
max, min and clamp through constant masks (piecewise linear: their second derivative is 0).
"""
from __future__ import annotations

import math

import numpy as np

from ..values import Tracked
from .broadcast import align, unbroadcast
from .indexing import masked
from .ops import NAN, add, ediv, emul, fdiv, fsqrt, identity, neg
from .tape import TAPE, record, record1, record2, second_order, second_order_vjp


def _apply(x, ufunc):
    return float(ufunc(x)) if type(x) is float else ufunc(x)


@second_order_vjp
def _zero(g):
    return 0.0


def _divide(g, d):
    return fdiv(g, d) if type(g) is float else g / d


@second_order
def elementwise(ufunc, again, slope=None, first=None, number=None):
    """The differentiable function `ufunc`: on an array `ufunc(x)`, on a Python float `number(x)`
    (by default the ufunc's result as a float). Its first rule is `slope(x, out)`, the derivative
    computed beside the forward value (the sweep multiplies the gradient by it), or `first(g, x,
    out)`, the gradient computed when the sweep asks; `again(g, a)` is the gradient as tape
    operations on the operand a, for a keep sweep (autodiff/tape.py, "Second order"). A number's
    slope is recorded in a closure too, not as a float partial: a float is a constant, and
    these slopes depend on x."""
    number = number or (lambda v: float(ufunc(v)))

    if slope is not None:
        def vjp(a, x, out):
            d = slope(x, out)
            return lambda g: again(g, a) if TAPE.keeping else g * d
    else:
        def vjp(a, x, out):
            return lambda g: again(g, a) if TAPE.keeping else first(g, x, out)

    def apply(a):
        x = a.value if type(a) is Tracked else a
        out = number(x) if type(x) is float else ufunc(x)
        if type(a) is not Tracked:
            return out
        return record1(out, a, vjp(a, x, out))
    return apply


_LN10, _LN2 = math.log(10.0), math.log(2.0)

# The one table of unary functions: each one's forward, its first rule (from the input x and the
# output out) and its rule on the tape (from the gradient g and the operand a).
exp = elementwise(np.exp, slope=lambda x, out: out, again=lambda g, a: emul(g, exp(a)))
expm1 = elementwise(np.expm1, slope=lambda x, out: out + 1.0,        # exp(x) - 1, accurate for small x
                    again=lambda g, a: emul(g, exp(a)))
log = elementwise(np.log, first=lambda g, x, out: _divide(g, x), again=lambda g, a: ediv(g, a))
log10 = elementwise(np.log10, first=lambda g, x, out: _divide(g, x * _LN10),
                    again=lambda g, a: ediv(g, emul(a, _LN10)))
log2 = elementwise(np.log2, first=lambda g, x, out: _divide(g, x * _LN2),
                   again=lambda g, a: ediv(g, emul(a, _LN2)))
log1p = elementwise(np.log1p, first=lambda g, x, out: _divide(g, 1.0 + x),      # log(1 + x), accurate for small x
                    again=lambda g, a: ediv(g, add(a, 1.0)))
sqrt = elementwise(np.sqrt, first=lambda g, x, out: _divide(0.5 * g, out),
                   again=lambda g, a: ediv(emul(g, 0.5), sqrt(a)), number=fsqrt)
sin = elementwise(np.sin, slope=lambda x, out: _apply(x, np.cos), again=lambda g, a: emul(g, cos(a)))
cos = elementwise(np.cos, slope=lambda x, out: -_apply(x, np.sin), again=lambda g, a: neg(emul(g, sin(a))))


@second_order
def abs(a):
    """The absolute value. Its slope, the sign (0 at 0 and at NaN, as on torch: a NaN that a mask
    later replaces, z[isnan(w)] = 0, passes back 0, not 0 * NaN), is constant where it exists,
    so a number's is recorded as a float partial and the second derivative is 0."""
    if type(a) is not Tracked:
        return math.fabs(a) if type(a) is float else np.absolute(a)
    x = a.value
    if type(x) is float:
        return record1(math.fabs(x), a, 1.0 if x > 0 else (-1.0 if x < 0 else 0.0))
    out = np.absolute(x)
    return record1(out, a, lambda g: emul(g, _sign(x)) if TAPE.keeping else g * _sign(x))


def _sign(x: np.ndarray) -> np.ndarray:
    s = np.sign(x)
    s[np.isnan(s)] = 0.0
    return s


def maximum(a, b):
    """Elementwise max with broadcasting; the gradient goes to the larger operand (to `a` on ties),
    and where either is NaN to both, as torch.maximum passes it."""
    return _select(a, b, True, "max")


def minimum(a, b):
    """Elementwise min with broadcasting; the gradient goes to the smaller operand (to `a` on ties),
    and where either is NaN to both, as torch.minimum passes it."""
    return _select(a, b, False, "min")


@second_order
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
        return record(out, (a, b), (lambda g: unbroadcast(_through(g, ~b_wins(x2, y2)), sx),
                                    lambda g: unbroadcast(_through(g, ~a_wins(x2, y2)), sy)))
    return record(out, (a, b), (lambda g: unbroadcast(_through(g, a_wins(x2, y2)), sx),
                                lambda g: unbroadcast(_through(g, b_wins(x2, y2)), sy)))


def _through(g, mask: np.ndarray):
    """The gradient where `mask` holds and 0 elsewhere (on the tape in a keep sweep: the mask is a
    constant, so max, min and clamp are piecewise linear and their second derivative is 0)."""
    return masked(g, mask) if TAPE.keeping else g * mask


def clamp(a, lo, hi):
    """min(max(a, lo), hi) with broadcasting: inside [lo, hi] (ends included) the gradient goes to
    a; below lo it goes to lo, above hi to hi; a NaN element passes no gradient (as in torch.clamp)."""
    return _select(_select(a, lo, True, "clamp", False), hi, False, "clamp", False)
