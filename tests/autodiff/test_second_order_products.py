"""Products and linear algebra differentiated twice (grad with keep, autodiff/tape.py "Second
order"): the Hessian of a scalar function through each op, taken as the kept gradient's elements
differentiated again, equals torch.autograd.functional.hessian in float64; one third derivative."""
import numpy as np
import pytest

from hessian_checks import assert_hessians_equal, hessian, squares, torch_squares, weights
from hessian_checks import torch_hessian as torch_hessian_of
from lamina.autodiff import decompositions, linalg, ops, products
from lamina.autodiff.grad import grad
from lamina.autodiff.indexing import index
from lamina.autodiff.tape import TAPE
from lamina.errors import LaminaError
from lamina.values import value_of

torch = pytest.importorskip("torch")


def torch_hessian(f, arrays):
    return torch_hessian_of(torch, f, arrays)


MATMUL_SHAPES = [((3, 4), (4, 2)), ((4,), (4, 3)), ((3, 4), (4,)), ((4,), (4,)),
                 ((2, 3, 4), (4, 2)), ((3, 4), (2, 4, 2)), ((2, 3, 4), (2, 4, 2)),
                 ((2, 1, 3, 2), (3, 2, 4)), ((2, 3, 4), (4,))]


@pytest.mark.parametrize("sa, sb", MATMUL_SHAPES)
def test_matmul_hessian_equals_torch(rng, sa, sb):
    a, b = rng.standard_normal(sa), rng.standard_normal(sb)
    w = weights(rng, np.shape(np.matmul(a, b)))
    ours = hessian(lambda x, y: squares(products.matmul(x, y), w), [a, b])
    theirs = torch_hessian(lambda x, y: torch_squares(x @ y, torch.tensor(w, dtype=torch.float64)), [a, b])
    assert_hessians_equal(ours, theirs)


EINSUMS = [("ij,jk->ik", [(3, 4), (4, 2)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 2)]),
           ("ij,ij->", [(3, 2), (3, 2)]), ("ii->", [(3, 3)]), ("ii->i", [(3, 3)]),
           ("ij->", [(2, 3)]), ("i,j->ij", [(3,), (2,)]), ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
           ("bij,jk->bk", [(2, 3, 4), (4, 2)]), ("iij,j->i", [(3, 3, 2), (2,)])]


@pytest.mark.parametrize("spec, shapes", EINSUMS)
def test_einsum_hessian_equals_torch(rng, spec, shapes):
    arrays = [rng.standard_normal(s) for s in shapes]
    w = weights(rng, np.shape(np.einsum(spec, *arrays)))
    ours = hessian(lambda *xs: squares(products.einsum(spec, list(xs)), w), arrays)
    theirs = torch_hessian(lambda *xs: torch_squares(torch.einsum(spec, *xs), torch.tensor(w, dtype=torch.float64)), arrays)
    assert_hessians_equal(ours, theirs)


def spd(rng, n):
    b = rng.standard_normal((n, n))
    return b @ b.T / n + np.eye(n)


def well_conditioned(rng, n):
    return rng.standard_normal((n, n)) + 3 * np.eye(n)


def t64(x):
    return torch.tensor(x, dtype=torch.float64)


def column(v):
    """A torch vector as the column Lamina's kron takes it for."""
    return v.reshape(-1, 1) if v.dim() == 1 else v


LINALG = {
    "dot vectors": (lambda r: [r.standard_normal(4), r.standard_normal(4)], linalg.dot, lambda x, y: (x * y).sum()),
    "dot rank 3": (lambda r: [r.standard_normal((2, 3, 2)), r.standard_normal((2, 3, 2))], linalg.dot,
                   lambda x, y: (x * y).sum()),
    "inv": (lambda r: [well_conditioned(r, 3)], linalg.inv, torch.linalg.inv),
    "det": (lambda r: [well_conditioned(r, 3)], linalg.det, torch.linalg.det),
    "logdet": (lambda r: [spd(r, 3)], linalg.logdet, torch.logdet),
    "logdet, unsymmetric": (lambda r: [well_conditioned(r, 3)], linalg.logdet, torch.logdet),
    "trace": (lambda r: [r.standard_normal((3, 3))], linalg.trace, torch.trace),
    "outer": (lambda r: [r.standard_normal(3), r.standard_normal(2)], linalg.outer, torch.outer),
    "kron matrices": (lambda r: [r.standard_normal((2, 3)), r.standard_normal((2, 2))], linalg.kron, torch.kron),
    "kron vectors": (lambda r: [r.standard_normal(3), r.standard_normal(2)], linalg.kron, torch.kron),
    "kron matrix vector": (lambda r: [r.standard_normal((2, 2)), r.standard_normal(3)], linalg.kron,
                           lambda x, y: torch.kron(x, column(y))),
    "solve vector": (lambda r: [well_conditioned(r, 3), r.standard_normal(3)], linalg.solve, torch.linalg.solve),
    "solve matrix": (lambda r: [well_conditioned(r, 3), r.standard_normal((3, 2))], linalg.solve,
                     torch.linalg.solve),
    "least squares tall": (lambda r: [r.standard_normal((5, 3)), r.standard_normal(5)], linalg.solve,
                           lambda A, b: torch.linalg.solve(A.T @ A, A.T @ b)),
    "least squares tall, matrix": (lambda r: [r.standard_normal((5, 2)), r.standard_normal((5, 2))], linalg.solve,
                                   lambda A, b: torch.linalg.solve(A.T @ A, A.T @ b)),
    "least squares wide": (lambda r: [r.standard_normal((2, 4)), r.standard_normal(2)], linalg.solve,
                           lambda A, b: A.T @ torch.linalg.solve(A @ A.T, b)),
    "chol": (lambda r: [spd(r, 3)], decompositions.chol, lambda A: torch.linalg.cholesky((A + A.T) / 2)),
}


@pytest.mark.parametrize("name", LINALG)
def test_linalg_hessian_equals_torch(rng, name):
    make, ours_fn, torch_fn = LINALG[name]
    arrays = make(rng)
    w = weights(rng, np.shape(value_of(ours_fn(*arrays))))
    ours = hessian(lambda *xs: squares(ours_fn(*xs), w), arrays)
    theirs = torch_hessian(lambda *xs: torch_squares(torch_fn(*xs), t64(w)), arrays)
    assert_hessians_equal(ours, theirs)


def test_a_third_derivative_through_inv_and_matmul_equals_torch(rng):
    a, w = well_conditioned(rng, 3), rng.standard_normal((3, 3))
    TAPE.reset()
    x = TAPE.leaf(a.copy(), True)
    loss = linalg.dot(ops.emul(products.matmul(linalg.inv(x), x), linalg.inv(x)), w)
    first = index(grad(loss, x, keep=True), (0, 1))
    second = index(grad(first, x, keep=True), (1, 2))
    third = grad(second, x)
    tx = torch.tensor(a, requires_grad=True)
    tloss = ((torch.linalg.inv(tx) @ tx) * torch.linalg.inv(tx) * t64(w)).sum()
    (t1,) = torch.autograd.grad(tloss, tx, create_graph=True)
    (t2,) = torch.autograd.grad(t1[0, 1], tx, create_graph=True)
    (t3,) = torch.autograd.grad(t2[1, 2], tx)
    assert float(second.value) == pytest.approx(t2[1, 2].item(), rel=1e-10)
    np.testing.assert_allclose(third, t3.numpy(), rtol=1e-9, atol=1e-11)


def test_det_kept_at_a_singular_matrix_is_a_clear_error():
    TAPE.reset()
    x = TAPE.leaf(np.array([[1.0, 2.0], [2.0, 4.0]]), True)
    with pytest.raises(LaminaError) as info:
        grad(linalg.det(x), x, keep=True)
    assert info.value.kind == "ValueError"
    assert "det(A)" in info.value.message and "singular" in info.value.message
    assert "without keep" in info.value.message
