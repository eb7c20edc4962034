"""Gradients of the math and linear algebra builtins against PyTorch (skipped without torch).

Each test builds the same scalar loss in Lamina (through the builtins, on the tape) and in torch,
and compares values and gradients. Decompositions are compared with torch's factors brought to
Lamina's sign conventions (signs taken from the values, so they are constants for autograd);
for the symmetric ones (eigh, chol) the gradients are compared within symmetric matrices.
"""
import math

import numpy as np
import pytest

import lamina.builtins.decompositions as D
import lamina.builtins.linalg as L
import lamina.builtins.mathfns as M
import lamina.builtins.sequences as Q
from lamina.autodiff import ops
from lamina.autodiff.grad import grad
from lamina.autodiff.tape import TAPE

torch = pytest.importorskip("torch")


def leaves(*arrays):
    return [TAPE.leaf(np.asarray(a, dtype=float), True) for a in arrays]


def tensors(*arrays):
    return [torch.tensor(np.asarray(a, dtype=float), requires_grad=True) for a in arrays]


def weighted(out, w):
    """sum(out .* w) on the tape."""
    return M.sum_(ops.emul(out, w))


def compare(ours, loss, theirs, rtol=1e-9, atol=1e-11):
    loss.backward()
    for g, t in zip(ours, theirs):
        np.testing.assert_allclose(g, t.grad.numpy(), rtol=rtol, atol=atol)


def sym(a):
    return (a + a.T) / 2


def spd(rng, n):
    b = rng.standard_normal((n, n))
    return b @ b.T / n + np.eye(n)


def test_mod_clamp_and_logs(rng):
    a, b = rng.uniform(-9, 9, 6), rng.uniform(0.5, 3, 6)
    x, lo, hi = rng.standard_normal(6), rng.uniform(-1, -0.2, 6), rng.uniform(0.2, 1, 6)
    p = rng.uniform(0.1, 3, 6)
    la, lb, lx, llo, lhi, lp = leaves(a, b, x, lo, hi, p)
    ours_loss = ops.add(M.sum_(M.mod(la, lb)), M.sum_(ops.emul(M.clamp(lx, llo, lhi), lx)))
    for fn in (M.log10, M.log2, M.log1p, M.expm1):
        ours_loss = ops.add(ours_loss, M.sum_(fn(lp)))
    ours = grad(ours_loss, [la, lb, lx, llo, lhi, lp])
    ta, tb, tx, tlo, thi, tp = tensors(a, b, x, lo, hi, p)
    loss = (torch.remainder(ta, tb).sum() + (torch.clamp(tx, tlo, thi) * tx).sum()
            + torch.log10(tp).sum() + torch.log2(tp).sum() + torch.log1p(tp).sum() + torch.expm1(tp).sum())
    assert float(ours_loss.value) == pytest.approx(loss.item(), rel=1e-12)
    compare(ours, loss, [ta, tb, tx, tlo, thi, tp])


def test_cumprod_with_zeros_diff_and_reverse(rng):
    x = rng.standard_normal((3, 5))
    x[1, 2] = 0.0
    x[2, 0] = 0.0
    w = rng.standard_normal((3, 5))
    (lx,) = leaves(x)
    loss = ops.add(weighted(Q.cumprod(lx, axis=1), w), weighted(Q.cumprod(lx, axis=0), w))
    loss = ops.add(loss, weighted(Q.diff(lx, axis=0), w[:2]))
    loss = ops.add(loss, weighted(Q.reverse(lx, axis=1), w))
    ours = grad(loss, [lx])
    (tx,) = tensors(x)
    tw = torch.tensor(w)
    tloss = ((torch.cumprod(tx, 1) * tw).sum() + (torch.cumprod(tx, 0) * tw).sum()
             + (torch.diff(tx, dim=0) * tw[:2]).sum() + (torch.flip(tx, [1]) * tw).sum())
    compare(ours, tloss, [tx])


def test_inv_det_trace_outer_kron(rng):
    A = rng.standard_normal((4, 4)) + 4 * np.eye(4)
    u, v, B = rng.standard_normal(4), rng.standard_normal(3), rng.standard_normal((2, 3))
    W, Wo, K = rng.standard_normal((4, 4)), rng.standard_normal((4, 3)), rng.standard_normal((8, 12))
    lA, lu, lv, lB = leaves(A, u, v, B)
    loss = ops.add(weighted(L.inv(lA), W), L.det(lA))
    loss = ops.add(loss, L.trace(ops.mul(lA, lA)))
    loss = ops.add(loss, weighted(L.outer(lu, lv), Wo))
    loss = ops.add(loss, weighted(L.kron(lA, lB), K))
    ours = grad(loss, [lA, lu, lv, lB])
    tA, tu, tv, tB = tensors(A, u, v, B)
    tloss = ((torch.linalg.inv(tA) * torch.tensor(W)).sum() + torch.linalg.det(tA) + torch.trace(tA @ tA)
             + (torch.outer(tu, tv) * torch.tensor(Wo)).sum() + (torch.kron(tA, tB) * torch.tensor(K)).sum())
    assert float(loss.value) == pytest.approx(tloss.item(), rel=1e-12)
    compare(ours, tloss, [tA, tu, tv, tB])


def test_det_gradient_of_a_singular_matrix_is_the_adjugate():
    A = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])     # rank 2
    (lA,) = leaves(A)
    cofactors = np.array([[(-1) ** (i + j) * np.linalg.det(np.delete(np.delete(A, i, 0), j, 1))
                           for j in range(3)] for i in range(3)])
    np.testing.assert_allclose(grad(L.det(lA), lA), cofactors, atol=1e-12)


def test_solve_square_and_least_squares(rng):
    A, b = rng.standard_normal((3, 3)) + 3 * np.eye(3), rng.standard_normal(3)
    X, Y = rng.standard_normal((6, 3)), rng.standard_normal((6, 2))
    Wd, y = rng.standard_normal((2, 5)), rng.standard_normal(2)
    w1, w2, w3 = rng.standard_normal(3), rng.standard_normal((3, 2)), rng.standard_normal(5)
    lA, lb, lX, lY, lWd, ly = leaves(A, b, X, Y, Wd, y)
    loss = ops.add(weighted(L.solve(lA, lb), w1), weighted(L.solve(lX, lY), w2))
    loss = ops.add(loss, weighted(L.solve(lWd, ly), w3))
    ours = grad(loss, [lA, lb, lX, lY, lWd, ly])
    tA, tb, tX, tY, tWd, ty = tensors(A, b, X, Y, Wd, y)
    tloss = ((torch.linalg.solve(tA, tb) * torch.tensor(w1)).sum()
             + ((torch.linalg.pinv(tX) @ tY) * torch.tensor(w2)).sum()
             + ((torch.linalg.pinv(tWd) @ ty) * torch.tensor(w3)).sum())
    assert float(loss.value) == pytest.approx(tloss.item(), rel=1e-10)
    compare(ours, tloss, [tA, tb, tX, tY, tWd, ty], rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("p", [None, 1.0, 3.0, math.inf])
def test_vector_norms(p, rng):
    v = rng.standard_normal(6)
    (lv,) = leaves(v)
    ours = grad(L.norm(lv, p), [lv])
    (tv,) = tensors(v)
    compare(ours, torch.linalg.vector_norm(tv, 2 if p is None else p), [tv])


@pytest.mark.parametrize("p", [None, 2.0, 1.0, math.inf])
def test_matrix_norms(p, rng):
    A = rng.standard_normal((4, 3))
    (lA,) = leaves(A)
    ours = grad(L.norm(lA, p), [lA])
    (tA,) = tensors(A)
    compare(ours, torch.linalg.matrix_norm(tA, "fro" if p is None else p), [tA])


def test_eigh_and_chol_within_symmetric_matrices(rng):
    A = spd(rng, 4)
    wv, wV, wL = rng.standard_normal(4), rng.standard_normal((4, 4)), rng.standard_normal((4, 4))
    (lA,) = leaves(A)
    e = D.eigh(lA)
    loss = ops.add(ops.add(weighted(e.get("values"), wv), weighted(e.get("vectors"), wV)), weighted(D.chol(lA), wL))
    (ours,) = grad(loss, [lA])
    (tA,) = tensors(A)
    w, V = torch.linalg.eigh(tA)
    signs = torch.tensor(np.sign(np.sum(e.get("vectors").value * V.detach().numpy(), axis=0)))
    tloss = (w * torch.tensor(wv)).sum() + (V * signs * torch.tensor(wV)).sum() + \
        (torch.linalg.cholesky(tA) * torch.tensor(wL)).sum()
    assert float(loss.value) == pytest.approx(tloss.item(), rel=1e-10)
    tloss.backward()
    np.testing.assert_allclose(ours, sym(tA.grad.numpy()), rtol=1e-8, atol=1e-10)
    np.testing.assert_array_equal(ours, ours.T)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4)])
def test_svd_and_qr(shape, rng):
    A = rng.standard_normal(shape)
    k = min(shape)
    wU, wS, wV = rng.standard_normal((shape[0], k)), rng.standard_normal(k), rng.standard_normal((shape[1], k))
    wQ, wR = rng.standard_normal((shape[0], k)), rng.standard_normal((k, shape[1]))
    (lA,) = leaves(A)
    d, q = D.svd(lA), D.qr(lA)
    loss = ops.add(ops.add(weighted(d.get("U"), wU), weighted(d.get("S"), wS)), weighted(d.get("V"), wV))
    loss = ops.add(loss, ops.add(weighted(q.get("Q"), wQ), weighted(q.get("R"), wR)))
    ours = grad(loss, [lA])
    (tA,) = tensors(A)
    U, S, Vh = torch.linalg.svd(tA, full_matrices=False)
    su = torch.tensor(np.sign(np.sum(d.get("U").value * U.detach().numpy(), axis=0)))
    Qt, Rt = torch.linalg.qr(tA)
    sq = torch.tensor(np.sign(np.diag(Rt.detach().numpy())))
    tloss = ((U * su * torch.tensor(wU)).sum() + (S * torch.tensor(wS)).sum() + (Vh.T * su * torch.tensor(wV)).sum()
             + (Qt * sq * torch.tensor(wQ)).sum() + (sq[:, None] * Rt * torch.tensor(wR)).sum())
    assert float(loss.value) == pytest.approx(tloss.item(), rel=1e-10)
    compare(ours, tloss, [tA], rtol=1e-8, atol=1e-10)
