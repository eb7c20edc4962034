"""Review 4 of the linear algebra gradients: cases found wrong and fixed, against torch."""

import numpy as np
import pytest

import lamina.builtins.decompositions as D
import lamina.builtins.linalg as L
import lamina.builtins.mathfns as M
from lamina.autodiff import ops
from lamina.autodiff.grad import grad
from lamina.autodiff.tape import TAPE

torch = pytest.importorskip("torch")


def leaves(*arrays):
    return [TAPE.leaf(np.asarray(a, dtype=float), True) for a in arrays]


@pytest.mark.parametrize("bad, printed", [
    ("0 / 0", "[NaN, NaN] [[NaN, NaN; NaN, NaN], [NaN, NaN]]"),
    ("1 / 0", "[NaN, Inf] [[NaN, NaN; NaN, -Inf], [NaN, Inf]]")])
def test_solve_gradient_of_a_non_finite_singular_matrix_passes_nan_not_a_crash(run, bad, printed):
    # The VJP refactorized A' with NumPy, which raised LinAlgError (an InternalError) on the
    # exactly zero pivot; it now reuses the forward LU factors (NaN or Inf in, NaN or Inf out).
    assert run(f"w = param([{bad}, 0; 0, 0])\nb = param([1, 2])\nx = solve(w, b)\n"
               "print(x, grad(sum(x), wrt = [w, b]))") == [printed]
    # The factors serve the VJP of a finite A with a matrix right-hand side as before.
    rng = np.random.default_rng(7)
    A, B, W = rng.standard_normal((3, 3)) + 3 * np.eye(3), rng.standard_normal((3, 2)), rng.standard_normal((3, 2))
    lA, lB = leaves(A, B)
    gA, gB = grad(M.sum_(ops.emul(L.solve(lA, lB), W)), [lA, lB])
    tA, tB = (torch.tensor(a, requires_grad=True) for a in (A, B))
    (torch.linalg.solve(tA, tB) * torch.tensor(W)).sum().backward()
    np.testing.assert_allclose(gA, tA.grad.numpy(), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(gB, tB.grad.numpy(), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("scale", [1e-160, 1e155, 1e200, 1e307])
def test_svd_vector_gradients_of_huge_and_tiny_matrices_are_finite(scale):
    # U and V do not change with the scale of A, so their gradients scale by 1 / scale; squaring
    # the singular values overflowed (underflowed) and gave NaN (torch gives NaN past 1e154 too).
    rng = np.random.default_rng(0)
    A, WU, WV = rng.standard_normal((3, 2)), rng.standard_normal((3, 2)), rng.standard_normal((2, 2))
    tA = torch.tensor(A, requires_grad=True)
    U, _, Vh = torch.linalg.svd(tA, full_matrices=False)
    signs = torch.sign(U.detach()[torch.argmax(U.detach().abs(), 0), torch.arange(2)])
    ((U * signs * torch.tensor(WU)).sum() + (Vh.T * signs * torch.tensor(WV)).sum()).backward()
    (lA,) = leaves(A * scale)
    d = D.svd(lA)
    (g,) = grad(ops.add(M.sum_(ops.emul(d.get("U"), WU)), M.sum_(ops.emul(d.get("V"), WV))), [lA])
    np.testing.assert_allclose(g * scale, tA.grad.numpy(), rtol=1e-10)


def test_qr_gradient_of_dependent_columns_is_nan_as_documented(run):
    # qr's page: "for a matrix with linearly dependent columns the gradient is NaN". R's last
    # diagonal element came out 2e-15, not 0, and the gradient was rounding noise around 1e14.
    assert run("v = param([1, 2; 2, 4; 3, 6])\nprint(grad(sum(qr(v).Q), wrt = v))\n"
               "print(grad(sum(qr(v).R), wrt = v))") == ["[NaN, NaN; NaN, NaN; NaN, NaN]"] * 2
    # The working-precision tolerance leaves a matrix of condition number 1e8 alone.
    rng = np.random.default_rng(3)
    Q1, _ = np.linalg.qr(rng.standard_normal((4, 3)))
    Q2, _ = np.linalg.qr(rng.standard_normal((3, 3)))
    A = Q1 @ np.diag([1.0, 1e-4, 1e-8]) @ Q2.T
    WU, WQ = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    (lA,) = leaves(A)
    (g,) = grad(ops.add(M.sum_(ops.emul(D.svd(lA).get("U"), WU)), M.sum_(ops.emul(D.qr(lA).get("Q"), WQ))), [lA])
    tA = torch.tensor(A, requires_grad=True)
    U, _, _ = torch.linalg.svd(tA, full_matrices=False)
    su = torch.sign(U.detach()[torch.argmax(U.detach().abs(), 0), torch.arange(3)])
    Qt, Rt = torch.linalg.qr(tA)
    sq = torch.sign(torch.diagonal(Rt.detach()))
    ((U * su * torch.tensor(WU)).sum() + (Qt * sq * torch.tensor(WQ)).sum()).backward()
    np.testing.assert_allclose(g, tA.grad.numpy(), rtol=1e-6)


def test_svd_and_eigh_vector_gradients_at_rounded_rank_loss_and_repeats_are_not_finite(run):
    # "Where the decomposition is not smooth (repeated values, a rank-deficient matrix) the
    # gradient of the vectors ... comes out Inf or NaN": the rank and the repeats are to working
    # precision (as solve's rank), not exact, else the gradient was noise of size 1e14.
    lines = run("v = param([1, 2; 2, 4; 3, 6])\nprint(all(isfinite(grad(sum(svd(v).U), wrt = v))))\n"
                "print(all(isfinite(grad(sum(svd(v).S), wrt = v))))\n"
                "q = qr([1, 2, 0; 3, 1, 1; 0, 2, 5]).Q\nC = q * [1, 0, 0; 0, 1, 0; 0, 0, 2] * q'\n"
                "C = (C + C') ./ 2\nprint(eigh(C).values[0] == eigh(C).values[1])\nw = param(C)\n"
                "print(any(isfinite(grad(sum(eigh(w).vectors), wrt = w))))")
    assert lines == ["false", "true", "false", "false"]


def test_det_gradient_has_no_partial_product_overflow():
    # The gradient of det(diag(d)) is diag(the product of the other d): 2^-600, 2^-600, 2^600,
    # 2^600. That product was taken left to right, 2^1200 overflowed, and the gradient was NaN
    # although det is 1 and every cofactor is a float.
    d = [2.0 ** 600, 2.0 ** 600, 2.0 ** -600, 2.0 ** -600]
    (lA,) = leaves(np.diag(d))
    (g,) = grad(L.det(lA), [lA])
    np.testing.assert_array_equal(g, np.diag([2.0 ** -600, 2.0 ** -600, 2.0 ** 600, 2.0 ** 600]))
    # and stays the adjugate's transpose for an ordinary and a singular matrix (torch; exact cofactors)
    A = np.array([[4.0, 7.0, 2.0], [3.0, 6.0, 1.0], [2.0, 5.0, 3.0]])
    (lA,) = leaves(A)
    tA = torch.tensor(A, requires_grad=True)
    torch.linalg.det(tA).backward()
    np.testing.assert_allclose(grad(L.det(lA), [lA])[0], tA.grad.numpy(), rtol=1e-12)
    (lS,) = leaves([[1.0, 2.0], [2.0, 4.0]])
    np.testing.assert_allclose(grad(L.det(lS), [lS])[0], [[4.0, -2.0], [-2.0, 1.0]], rtol=1e-14)
