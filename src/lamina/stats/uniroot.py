"""R's uniroot: a zero of f between two points where f changes sign, found by Brent's method as
Forsythe, Malcolm and Moler's ZEROIN does it (Computer Methods for Mathematical Computations,
1977), step for step.

R's tests find their confidence limits and estimates with it, stopping when the bracket is within
`tol` of the zero (uniroot's default .Machine$double.eps^0.25, about 1.2e-4). Where a test should
print R's digits (fisher.test's odds ratio 6.408309 where the exact zero is 6.408320), it must
take the same steps and stop at the same place; a more accurate solver would print other digits.
"""
from __future__ import annotations

import sys
from typing import Callable

EPS = sys.float_info.epsilon
R_TOL = EPS ** 0.25                 # uniroot's default tol


def uniroot(f: Callable[[float], float], lower: float, upper: float, tol: float = R_TOL,
            f_lower: float | None = None, f_upper: float | None = None, max_iter: int = 1000) -> float:
    """The point uniroot(f, c(lower, upper), tol = tol)$root of R returns. f(lower) and f(upper)
    must differ in sign (the caller knows they do); R's f.lower and f.upper may be passed."""
    a, b = lower, upper
    fa = f(a) if f_lower is None else f_lower
    fb = f(b) if f_upper is None else f_upper
    c, fc = a, fa
    if fa == 0.0:
        return a
    if fb == 0.0:
        return b
    for _ in range(max_iter + 1):
        previous = b - a                    # the last step, from a to b
        if abs(fc) < abs(fb):               # b is the best guess so far; c the other end
            a, b, c = b, c, b
            fa, fb, fc = fb, fc, fb
        tol_act = 2 * EPS * abs(b) + tol / 2
        step = (c - b) / 2                  # bisection
        if abs(step) <= tol_act or fb == 0.0:
            return b
        if abs(previous) >= tol_act and abs(fa) > abs(fb):
            step = _interpolated(a, b, c, fa, fb, fc, previous, tol_act, step)
        if abs(step) < tol_act:             # a step at least the tolerance long
            step = tol_act if step > 0 else -tol_act
        a, fa = b, fb
        b += step
        fb = f(b)
        if (fb > 0 and fc > 0) or (fb < 0 and fc < 0):
            c, fc = a, fa                   # keep the zero between b and c
    return b


def _interpolated(a, b, c, fa, fb, fc, previous, tol_act, bisection):
    """The secant step (two distinct points) or the inverse quadratic one (three), where it falls
    inside the bracket and shrinks it fast enough; otherwise the bisection step."""
    cb = c - b
    if a == c:
        t1 = fb / fa
        p, q = cb * t1, 1.0 - t1
    else:
        q, t1, t2 = fa / fc, fb / fc, fb / fa
        p = t2 * (cb * q * (q - t1) - (b - a) * (t1 - 1.0))
        q = (q - 1.0) * (t1 - 1.0) * (t2 - 1.0)
    if p > 0:
        q = -q
    else:
        p = -p
    if p < 0.75 * cb * q - abs(tol_act * q) / 2 and p < abs(previous * q / 2):
        return p / q
    return bisection
