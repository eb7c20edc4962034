"""Special functions on the tape, the pieces a log-likelihood is written with: lgamma, digamma,
polygamma, lbeta, and xlogy, xlog1py and where, which write a log density's edges (0 log 0 = 0,
no mass outside the support).

SciPy's special functions compute the values (scipy.special's gammaln, psi, polygamma, betaln,
xlogy, xlog1py), elementwise on numbers and tensors of any rank, float32 kept. Each derivative is
again one of these functions (lgamma' = digamma, polygamma(n)' = polygamma(n + 1)), so each VJP
computes, when `TAPE.keeping`, with the same ops on the operands as given: gradients of any order
(autodiff/tape.py, "Second order"). The first rule, on NumPy arrays, is what an ordinary sweep runs.

xlogy(a, b) = a log(b) and xlog1py(a, b) = a log(1 + b) are 0 where a is 0, whatever b (SciPy's
and torch's xlogy): a density's term (shape - 1) log(x) at shape 1 and x 0. Their gradients are
torch's, log(b) for a and a / b for b, but both 0 where a is 0 and b is at or past the log's pole
(where torch gives NaN for b).
"""
from __future__ import annotations

import numpy as np
from scipy import special as sc

from ..values import Tracked
from .broadcast import align, unbroadcast
from .indexing import masked
from .ops import add, ediv, emul, fdiv, sub
from .tape import TAPE, record, record1, second_order


def _apply(fn, x, *first):
    """fn(*first, x) on a Python float (a float back) or an array (in the array's dtype: SciPy's
    polygamma answers float32 with float64)."""
    if type(x) is float:
        return float(fn(*first, x))
    out = fn(*first, x)
    return out if out.dtype == x.dtype else out.astype(x.dtype)


def _value(a):
    return a.value if type(a) is Tracked else a


# -- one argument ------------------------------------------------------------------
@second_order
def lgamma(a):
    """log |Gamma(x)| elementwise (SciPy's gammaln); its derivative is digamma."""
    x = _value(a)
    return record1(_apply(sc.gammaln, x), a,
                   lambda g: emul(g, digamma(a)) if TAPE.keeping else g * _apply(sc.psi, x))


def digamma(a):
    """The digamma function psi(x) = Gamma'(x) / Gamma(x), elementwise; its derivative is trigamma."""
    return polygamma(0, a)


@second_order
def polygamma(n: int, a):
    """The n-th derivative of digamma (n = 0: digamma itself, 1: trigamma), elementwise; its own
    derivative is polygamma(n + 1)."""
    x = _value(a)
    out = _apply(sc.psi, x) if n == 0 else _apply(sc.polygamma, x, n)
    return record1(out, a, lambda g: emul(g, polygamma(n + 1, a)) if TAPE.keeping
                   else g * _apply(sc.polygamma, x, n + 1))


# -- two arguments, broadcast as the operators are ------------------------------------
@second_order
def lbeta(a, b):
    """log |B(a, b)| = lgamma(a) + lgamma(b) - lgamma(a + b), elementwise with broadcasting
    (SciPy's betaln, accurate where the lgammas would cancel)."""
    x, y = _value(a), _value(b)
    x2, y2, sx, sy = align(x, y, "lbeta")
    out = _result(sc.betaln(x2, y2), x2, y2)

    def slope(g, first: bool):
        """d lbeta / da (or db) times g: digamma(a) - digamma(a + b)."""
        if TAPE.keeping:
            return emul(g, sub(digamma(a if first else b), digamma(add(a, b))))
        return g * (_apply(sc.psi, x2 if first else y2) - _apply(sc.psi, x2 + y2))
    return record(out, (a, b), (lambda g: unbroadcast(slope(g, True), sx),
                                lambda g: unbroadcast(slope(g, False), sy)))


@second_order
def xlogy(a, b):
    """a * log(b), 0 where a is 0 (SciPy's xlogy), elementwise with broadcasting."""
    return _xlog(a, b, sc.xlogy, 0.0, "xlogy")


@second_order
def xlog1py(a, b):
    """a * log(1 + b), 0 where a is 0 (SciPy's xlog1py), elementwise with broadcasting."""
    return _xlog(a, b, sc.xlog1py, -1.0, "xlog1py")


@second_order
def _xlog(a, b, fn, pole: float, what: str):
    """xlogy or xlog1py: `fn`, whose log has its pole at b = `pole`."""
    x, y = _value(a), _value(b)
    x2, y2, sx, sy = align(x, y, what)
    out = _result(fn(x2, y2), x2, y2)

    def flat():
        """Where a is 0 and b at or past the pole: both slopes are 0 there, as torch's."""
        return (x2 == 0) & (y2 <= pole)

    def slope_a(g):
        # log(b) (log(1 + b)): `fn` of the mask "not flat" and b
        live = _as_float(np.logical_not(flat()), out)
        if TAPE.keeping:
            return emul(g, _xlog(live, b, fn, pole, what))
        return g * _result(fn(live, y2), x2, y2)

    def slope_b(g):
        # a / b (a / (1 + b))
        at = flat()
        if TAPE.keeping:
            safe = where(np.logical_not(at), b, pole + 1.0)
            return emul(g, ediv(a, safe if pole == 0.0 else add(1.0, safe)))
        if type(at) is not np.ndarray:
            return 0.0 * g if at else g * fdiv(x2, y2 - pole)
        with np.errstate(divide="ignore", invalid="ignore"):
            return g * np.where(at, 0.0, x2 / (y2 - pole)).astype(out.dtype, copy=False)
    return record(out, (a, b), (lambda g: unbroadcast(slope_a(g), sx), lambda g: unbroadcast(slope_b(g), sy)))


def _result(out, x2, y2):
    """A SciPy result of two operands as the operators give one: a Python float for two numbers,
    else an array in the operands' dtype (NumPy's promotion of a number to the tensor it meets)."""
    if type(x2) is float and type(y2) is float:
        return float(out)
    dtype = np.result_type(*(v for v in (x2, y2) if type(v) is np.ndarray))
    return out if out.dtype == dtype else out.astype(dtype)


def _as_float(mask, like):
    """A mask as 0/1 in the dtype of the result it goes with (a Python float for a number)."""
    if type(mask) is np.ndarray:
        return mask.astype(like.dtype if type(like) is np.ndarray else np.float64)
    return 1.0 if mask else 0.0


# -- choosing --------------------------------------------------------------------------
@second_order
def where(keep, a, fill: float):
    """`a` where the constant mask `keep` holds and the number `fill` elsewhere, in the shape of
    `a` and `keep` broadcast together; the gradient reaches `a` only where `keep` holds. A log
    density writes its support with it: -Inf outside, and the point where its formula is
    evaluated moved inside, so that no NaN gradient comes from the points outside."""
    x = _value(a)
    if type(keep) is not np.ndarray:
        if type(x) is not np.ndarray or bool(keep):
            return a if keep else fill
        keep = np.full(x.shape, False)
    x2, k2, sx, _ = align(x, keep, "where")
    out = np.where(k2, x2, fill)
    if type(x2) is np.ndarray and out.dtype != x2.dtype:
        out = out.astype(x2.dtype)
    mask = _as_float(np.broadcast_to(k2, out.shape), out)
    return record1(out, a, lambda g: unbroadcast(masked(g, mask) if TAPE.keeping else g * mask, sx))
