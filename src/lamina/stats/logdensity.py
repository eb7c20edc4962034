"""The log density (log mass) of each family, written with tape operations, so that logpdf and
logpmf are differentiable in the parameters and in x, to any order (autodiff/tape.py, "Second
order"): the operators of autodiff/ops.py and the special functions of autodiff/special.py.

Each function takes the family's parameters by name (numbers, tensors or tracked values, checked
by stats/distributions.make) and x, and follows SciPy's `_logpdf`/`_logpmf` term for term (SciPy
1.17), so its values are SciPy's to rounding. Parameters and x broadcast as the operators do.

Outside the support the log density is -Inf: below or above its ends, at a whole-number family's
x that is not a whole number, and at +-Inf (where Lamina's pdf gives 0, and SciPy's logpdf
sometimes NaN); NaN stays NaN. The formula is evaluated at a point moved inside there (`_inside`),
so that the gradient at such an x is 0, never NaN (the "double where" of JAX's densities).
"""
from __future__ import annotations

import math

import numpy as np

from ..autodiff import special as S
from ..autodiff.functions import log
from ..autodiff.ops import add, compare, ediv, emul, epow, neg, sub
from ..autodiff.broadcast import align
from ..values import value_of

INF = math.inf
LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)      # SciPy's _norm_pdf_logC
LOG_PI, LOG_2 = math.log(math.pi), math.log(2.0)


# -- the support ---------------------------------------------------------------------------
def _outside(x, low=None, high=None, whole: bool = False):
    """Where x lies outside the support (a bool, or a mask of x and the ends broadcast as the
    operators broadcast): below `low`, above `high` (numbers or tensors, ends included), at +-Inf,
    or, for `whole`, not a whole number. NaN is never outside: it stays NaN."""
    v = value_of(x)
    out = np.isinf(v)
    if whole:
        with np.errstate(invalid="ignore"):
            out = out | ((np.floor(v) != v) & ~np.isnan(v))
    for op, end in (("<", low), (">", high)):
        if end is not None:             # a comparison with NaN is false
            below = compare(op, v, value_of(end))
            if type(out) is np.ndarray and type(below) is np.ndarray:
                out, below, _, _ = align(out, below, op)
            out = out | below
    return bool(out) if np.ndim(out) == 0 else out


def _inside(outside, x, safe: float, core):
    """core(x) where x is inside the support and -Inf where `outside`; core is evaluated at `safe`
    in place of an x outside, so no NaN reaches the gradient from there."""
    if type(outside) is not np.ndarray and not outside:
        return core(x)
    keep = np.logical_not(outside)
    return S.where(keep, core(S.where(keep, x, safe)), -INF)


# -- continuous families ---------------------------------------------------------------------
def normal(p, x):
    def core(x):
        z = ediv(sub(x, p["mu"]), p["sigma"])
        return sub(sub(emul(-0.5, emul(z, z)), LOG_SQRT_2PI), log(p["sigma"]))
    return _inside(_outside(x), x, 0.0, core)


def uniform(p, x):
    # x enters as 0 x: the result takes x's shape, dtype and NaN, and x a gradient of 0
    low, high = p["low"], p["high"]
    return _inside(_outside(x, low, high), x, 0.0, lambda x: sub(emul(0.0, x), log(sub(high, low))))


def exponential(p, x):
    rate = p["rate"]
    return _inside(_outside(x, low=0.0), x, 1.0, lambda x: sub(log(rate), emul(rate, x)))


def student_t(p, x):
    df = p["df"]

    def core(x):
        half = ediv(add(df, 1.0), 2.0)
        scale = sub(S.lgamma(half), S.lgamma(ediv(df, 2.0)))
        norm = emul(0.5, add(log(df), LOG_PI))
        return sub(sub(scale, norm), S.xlog1py(half, ediv(emul(x, x), df)))
    return _inside(_outside(x), x, 0.0, core)


def chi2(p, x):
    k = p["df"]

    def core(x):
        half = ediv(k, 2.0)
        return sub(sub(sub(S.xlogy(sub(half, 1.0), x), ediv(x, 2.0)), S.lgamma(half)), ediv(emul(LOG_2, k), 2.0))
    return _inside(_outside(x, low=0.0), x, 1.0, core)


def f_dist(p, x):
    n, m = p["df1"], p["df2"]

    def core(x):
        hn, hm = ediv(n, 2.0), ediv(m, 2.0)
        lead = add(add(emul(hm, log(m)), emul(hn, log(n))), S.xlogy(sub(hn, 1.0), x))
        tail = add(emul(add(hn, hm), log(add(m, emul(n, x)))), S.lbeta(hn, hm))
        return sub(lead, tail)
    return _inside(_outside(x, low=0.0), x, 1.0, core)


def gamma_dist(p, x):
    shape, rate = p["shape"], p["rate"]

    def core(x):
        y = emul(x, rate)
        return add(sub(sub(S.xlogy(sub(shape, 1.0), y), y), S.lgamma(shape)), log(rate))
    return _inside(_outside(x, low=0.0), x, 1.0, core)


def beta_dist(p, x):
    a, b = p["a"], p["b"]

    def core(x):
        return sub(add(S.xlog1py(sub(b, 1.0), neg(x)), S.xlogy(sub(a, 1.0), x)), S.lbeta(a, b))
    return _inside(_outside(x, low=0.0, high=1.0), x, 0.5, core)


def weibull(p, x):
    k, scale = p["shape"], p["scale"]

    def core(x):
        y = ediv(x, scale)
        return sub(sub(add(log(k), S.xlogy(sub(k, 1.0), y)), epow(y, k)), log(scale))
    return _inside(_outside(x, low=0.0), x, 1.0, core)


# -- discrete families: x a whole number ---------------------------------------------------------
def binomial(p, x):
    n, prob = p["n"], p["p"]

    def core(k):
        ways = sub(S.lgamma(add(n, 1.0)), add(S.lgamma(add(k, 1.0)), S.lgamma(add(sub(n, k), 1.0))))
        return add(add(ways, S.xlogy(k, prob)), S.xlog1py(sub(n, k), neg(prob)))
    return _inside(_outside(x, low=0.0, high=n, whole=True), x, 0.0, core)


def poisson(p, x):
    rate = p["rate"]
    return _inside(_outside(x, low=0.0, whole=True), x, 0.0,
                   lambda k: sub(sub(S.xlogy(k, rate), S.lgamma(add(k, 1.0))), rate))


def negative_binomial(p, x):
    """SciPy's nbinom(size, prob); given mu, prob = size / (size + mu) is written out (R's
    dnbinom_mu): size log(prob) = -size log1p(mu / size), and log(1 - prob) = log(mu / (size + mu))."""
    size = p["size"]

    def core(k):
        ways = sub(sub(S.lgamma(add(size, k)), S.lgamma(add(k, 1.0))), S.lgamma(size))
        if "mu" in p:
            mu = p["mu"]
            return add(sub(ways, S.xlog1py(size, ediv(mu, size))), S.xlogy(k, ediv(mu, add(size, mu))))
        return add(add(ways, emul(size, log(p["prob"]))), S.xlog1py(k, neg(p["prob"])))
    return _inside(_outside(x, low=0.0, whole=True), x, 0.0, core)
