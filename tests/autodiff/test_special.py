"""The special functions of autodiff/special.py (lgamma, digamma, polygamma, lbeta, xlogy, xlog1py,
where) and their builtins: values against mpmath's (50 digits), gradients against torch, and
derivatives of second and third order by grad's keep against the next polygamma, computed by
mpmath."""
import math

import mpmath
import numpy as np
import pytest
import torch

from lamina.autodiff import special as S
from lamina.autodiff.broadcast import sum_to
from lamina.autodiff.grad import grad
from lamina.autodiff.indexing import index
from lamina.autodiff.ops import emul
from lamina.autodiff.tape import TAPE
from lamina.builtins import special as B
from lamina.errors import LaminaError
from lamina.interpreter import Interpreter

mpmath.mp.dps = 50
X = np.array([0.3, 1.0, 2.5, 7.25, 40.0])


def psi(n: int, x: float) -> float:
    """polygamma(n, x), n = -1 the log gamma function, by mpmath."""
    return float(mpmath.loggamma(x)) if n < 0 else float(mpmath.psi(n, x))


def _hessian_diagonal(fn, x):
    """The second derivatives of sum(fn(x)) in each x[i], by a kept gradient differentiated again."""
    TAPE.reset()
    w = TAPE.leaf(x.copy(), True)
    g = grad(sum_to(fn(w), ()), w, keep=True)
    return np.array([grad(index(g, (i,)), w)[i] for i in range(x.size)]), g.value


@pytest.mark.parametrize("fn, order", [(B.lgamma, -1), (B.digamma, 0), (B.trigamma, 1),
                                       (lambda x: B.polygamma(3.0, x), 3)])
def test_values_first_and_second_derivatives_are_the_next_polygammas(fn, order):
    np.testing.assert_allclose(fn(X), [psi(order, v) for v in X], rtol=1e-13)
    second, first = _hessian_diagonal(fn, X)
    np.testing.assert_allclose(first, [psi(order + 1, v) for v in X], rtol=1e-13)
    np.testing.assert_allclose(second, [psi(order + 2, v) for v in X], rtol=1e-12)


def test_a_third_derivative_of_lgamma_is_polygamma_2():
    TAPE.reset()
    w = TAPE.leaf(1.7, True)
    g1 = grad(B.lgamma(w), w, keep=True)
    g2 = grad(g1, w, keep=True)
    g3 = grad(g2, w)
    assert type(g3) is float
    assert (g1.value, g2.value, g3) == pytest.approx((psi(0, 1.7), psi(1, 1.7), psi(2, 1.7)), rel=1e-13)


def test_lgammas_gradient_is_torchs(rng):
    # (torch's trigamma, the gradient of its digamma, is good to about 1e-9: mpmath checks that one)
    x = rng.uniform(0.2, 6.0, (3, 4))
    w = rng.standard_normal((3, 4))
    t = TAPE.leaf(x.copy(), True)
    got = grad(sum_to(emul(B.lgamma(t), w), ()), t)
    tx = torch.tensor(x, requires_grad=True)
    want = torch.autograd.grad((torch.lgamma(tx) * torch.tensor(w)).sum(), tx)[0].numpy()
    np.testing.assert_allclose(got, want, rtol=1e-10)


def test_lbeta_is_lgammas_and_broadcasts_a_vector_as_a_column():
    a, b = np.array([0.5, 2.0, 30.0]), np.array([[1.5, 4.0], [0.7, 2.0], [50.0, 3.0]])
    want = [[float(mpmath.log(mpmath.beta(a[i], b[i, j]))) for j in range(2)] for i in range(3)]
    np.testing.assert_allclose(B.lbeta(a, b), want, rtol=1e-13)
    TAPE.reset()
    ta, tb = TAPE.leaf(a.copy(), True), TAPE.leaf(b.copy(), True)
    ga, gb = grad(sum_to(B.lbeta(ta, tb), ()), [ta, tb])
    tpa, tpb = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    col = tpa[:, None]
    loss = (torch.lgamma(col) + torch.lgamma(tpb) - torch.lgamma(col + tpb)).sum()
    np.testing.assert_allclose(ga, torch.autograd.grad(loss, tpa, retain_graph=True)[0].numpy(), rtol=1e-10)
    np.testing.assert_allclose(gb, torch.autograd.grad(loss, tpb)[0].numpy(), rtol=1e-10)


def test_lbeta_second_derivatives_are_trigamma_differences():
    TAPE.reset()
    a, b = TAPE.leaf(2.5, True), TAPE.leaf(0.8, True)
    ga, gb = grad(B.lbeta(a, b), [a, b], keep=True)
    haa, hab = grad(ga, [a, b])
    hba, hbb = grad(gb, [a, b])
    t_ab = psi(1, 3.3)
    assert (ga.value, gb.value) == pytest.approx((psi(0, 2.5) - psi(0, 3.3), psi(0, 0.8) - psi(0, 3.3)), rel=1e-13)
    assert (haa, hab, hba, hbb) == pytest.approx((psi(1, 2.5) - t_ab, -t_ab, -t_ab, psi(1, 0.8) - t_ab), rel=1e-12)


def test_xlogy_and_xlog1py_are_zero_where_a_is_zero_and_differentiate_as_torch():
    a = np.array([0.0, 0.0, 1.5, 2.0])
    b = np.array([0.0, 2.0, 3.0, 0.5])
    for ours, theirs, edge in ((S.xlogy, torch.xlogy, 0.0), (S.xlog1py, torch.special.xlog1py, -1.0)):
        bb = b if edge == 0.0 else b - 1.0            # b at the log's pole in the first place
        TAPE.reset()
        ta, tb = TAPE.leaf(a.copy(), True), TAPE.leaf(bb.copy(), True)
        out = ours(ta, tb)
        ga, gb = grad(sum_to(out, ()), [ta, tb])
        pa, pb = torch.tensor(a, requires_grad=True), torch.tensor(bb, requires_grad=True)
        want = theirs(pa, pb)
        wa, wb = torch.autograd.grad(want.sum(), [pa, pb])
        np.testing.assert_allclose(out.value, want.detach().numpy(), rtol=1e-15)
        assert out.value[0] == 0.0                          # 0 log 0
        np.testing.assert_allclose(ga, wa.numpy(), rtol=1e-15)
        # torch's a / b is NaN at a = 0, b at the pole: 0 here, the limit along a = 0
        assert gb[0] == 0.0 and math.isnan(wb[0])
        np.testing.assert_allclose(gb[1:], wb[1:].numpy(), rtol=1e-15)


def test_xlogy_second_order_is_a_over_b_squared():
    TAPE.reset()
    a, b = TAPE.leaf(1.5, True), TAPE.leaf(3.0, True)
    ga, gb = grad(S.xlogy(a, b), [a, b], keep=True)
    assert grad(ga, [a, b]) == pytest.approx([0.0, 1 / 3.0], rel=1e-15)
    assert grad(gb, [a, b]) == pytest.approx([1 / 3.0, -1.5 / 9.0], rel=1e-15)


def test_where_passes_the_gradient_only_where_it_keeps():
    TAPE.reset()
    x = TAPE.leaf(np.array([1.0, 2.0, 3.0]), True)
    keep = np.array([True, False, True])
    out = S.where(keep, S.lgamma(x), -math.inf)
    g = grad(sum_to(out, ()), x, keep=True)
    assert out.value[1] == -math.inf
    np.testing.assert_allclose(g.value, [psi(0, 1.0), 0.0, psi(0, 3.0)], rtol=1e-14)
    np.testing.assert_allclose(grad(sum_to(g, ()), x), [psi(1, 1.0), 0.0, psi(1, 3.0)], rtol=1e-14)


def test_numbers_stay_numbers_and_float32_stays_float32():
    assert type(B.lgamma(4.0)) is float and B.lgamma(4.0) == pytest.approx(math.log(6.0), rel=1e-15)
    assert type(B.lbeta(2.0, 3.0)) is float and type(B.polygamma(1.0, 2.0)) is float
    x32 = X.astype(np.float32)
    for fn in (B.lgamma, B.digamma, B.trigamma, lambda v: B.polygamma(2.0, v), lambda v: B.lbeta(v, 1.5),
               lambda v: S.xlogy(v, v), lambda v: S.xlog1py(1.5, v)):
        assert fn(x32).dtype == np.float32


@pytest.mark.parametrize("source, kind, start", [
    ("polygamma(-1, 2)", "ValueError", "polygamma's order n must be at least 0"),
    ("polygamma(1.5, 2)", "TypeError", "polygamma's order n must be a whole number, not 1.5."),
    ("lgamma(\"a\")", "TypeError", "lgamma's argument must be a number or tensor, not a string."),
    ("lbeta([1, 2], [1, 2, 3])", "ShapeError", "Elementwise lbeta needs shapes that broadcast"),
])
def test_errors(source, kind, start):
    with pytest.raises(LaminaError) as info:
        Interpreter().run(source, "<test>")
    assert info.value.kind == kind and info.value.message.startswith(start), info.value.message
