"""Special functions: lgamma, digamma, trigamma, polygamma and lbeta, elementwise on tensors of any
rank and differentiable to any order (the math is in lamina.autodiff.special)."""
from __future__ import annotations

from ..autodiff import special as S
from ..values import as_int, numeric_or_tracked
from .registry import Const, GradCase, Shape, builtin

CATEGORY = "Math"
S0, V, M, R3, R4 = (), (4,), (3, 2), (2, 3, 4), (2, 1, 2, 3)
UNARY = [GradCase(shape, domain="positive") for shape in ((S0,), (V,), (M,), (R3,), (R4,))]
SCIPY = "Computed by SciPy (scipy.special.{}), in the tensor's dtype."


def _unary(name: str, meaning: str, example: str, notes: str):
    return dict(pure="a value", any_rank=True, twice=True, category=CATEGORY, grad=UNARY,
                shapes=[Shape(f"{name}(x)", "number or tensor", "same shape", meaning)],
                summary=f"{meaning} Works elementwise on tensors of any rank.",
                examples=[example], notes=notes)


@builtin("lgamma", **_unary(
    "lgamma", "The log of the gamma function's absolute value, log |Gamma(x)|.",
    "print(round(lgamma([1, 4, 0.5, 100]), 4), round(log(6), 4))",
    "Gamma(n) is (n - 1)! for a whole number n, so lgamma(n + 1) is log(n!) without the factorial's "
    "overflow (lgamma(171) is finite where 170! is not): the normalising constants of the gamma, "
    "beta, t, Poisson and binomial likelihoods. At 0 and the negative whole numbers (the poles) it "
    "is Inf. The derivative is digamma(x), itself differentiable, so lgamma is differentiable to "
    "any order. " + SCIPY.format("gammaln")))
def lgamma(x):
    return S.lgamma(numeric_or_tracked(x, "lgamma's argument"))


@builtin("digamma", **_unary(
    "digamma", "The digamma function psi(x), the derivative of lgamma.",
    "print(round(digamma([1, 2, 0.5]), 6))",
    "digamma(1) is minus the Euler-Mascheroni constant (-0.577216), and digamma(x + 1) = digamma(x) "
    "+ 1 / x. It is the score of a gamma or beta likelihood's shape. NaN at the poles (0 and the "
    "negative whole numbers). The derivative is trigamma(x). " + SCIPY.format("psi")))
def digamma(x):
    return S.digamma(numeric_or_tracked(x, "digamma's argument"))


@builtin("trigamma", **_unary(
    "trigamma", "The trigamma function, the derivative of digamma: polygamma(1, x).",
    "print(round(trigamma([1, 2, 10]), 6), round(pi ^ 2 / 6, 6))",
    "trigamma(1) is pi^2 / 6. It is the Fisher information of a gamma likelihood's shape: the "
    "standard error of a fitted shape comes from it. The derivative is polygamma(2, x). "
    + SCIPY.format("polygamma")))
def trigamma(x):
    return S.polygamma(1, numeric_or_tracked(x, "trigamma's argument"))


@builtin("polygamma", pure="a value", any_rank=True, twice=True, category=CATEGORY,
         shapes=[Shape("polygamma(n, x)", "whole number n >= 0, number or tensor", "same shape as x",
                       "The n-th derivative of digamma at x.")],
         summary="The polygamma function of order n: the n-th derivative of digamma (polygamma(0, x) is "
                 "digamma, polygamma(1, x) trigamma), elementwise on tensors of any rank.",
         examples=["print(round(polygamma(0, 1), 6), round(polygamma(1, 1), 6), round(polygamma(2, [1, 2]), 6))"],
         notes="n is a whole number from 0 and takes no gradient; the derivative in x is polygamma(n + 1, "
               "x), so polygamma is differentiable to any order. " + SCIPY.format("polygamma"),
         grad=[GradCase((Const(0.0), V), domain="positive"), GradCase((Const(2.0), M), domain="positive"),
               GradCase((Const(1.0), R3), domain="positive"), GradCase((Const(3.0), R4), domain="positive"),
               GradCase((Const(1.0), S0), domain="positive")])
def polygamma(n, x):
    return S.polygamma(as_int(n, "polygamma's order n", minimum=0), numeric_or_tracked(x, "polygamma's x"))


@builtin("lbeta", pure="a value", any_rank=True, twice=True, category=CATEGORY,
         shapes=[Shape("lbeta(a, b)", "numbers or tensors that broadcast", "the broadcast shape",
                       "log |B(a, b)| elementwise.")],
         summary="The log of the beta function, log |B(a, b)| = lgamma(a) + lgamma(b) - lgamma(a + b), "
                 "elementwise with broadcasting.",
         examples=["print(round(lbeta(2, 3), 6), round(log(1 / 12), 6))",
                   "print(round(lbeta([1, 2, 3], 2), 4))"],
         notes="The normalising constant of the beta distribution (and of the binomial coefficient: "
               "log C(n, k) = -log(n + 1) - lbeta(n - k + 1, k + 1)). Accurate where the three lgammas "
               "would cancel (large a and b). a and b broadcast as the operators do. The derivative in a "
               "is digamma(a) - digamma(a + b), so lbeta is differentiable to any order. "
               + SCIPY.format("betaln"),
         grad=[GradCase((S0, S0), domain="positive"), GradCase((V, V), domain="positive"),
               GradCase((M, S0), domain="positive"), GradCase(((3,), M), domain="positive"),
               GradCase((R3, R3), domain="positive"), GradCase((R4, S0), domain="positive")])
def lbeta(a, b):
    return S.lbeta(numeric_or_tracked(a, "lbeta's a"), numeric_or_tracked(b, "lbeta's b"))
