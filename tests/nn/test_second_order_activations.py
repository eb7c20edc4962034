"""Activations and losses differentiated twice (grad with keep, autodiff/tape.py "Second order"):
the Hessian of a scalar function through each, taken as the kept gradient's elements
differentiated again, equals torch.autograd.functional.hessian in float64 on numbers, vectors,
matrices and arrays of rank 3 and 4; one third derivative."""
import numpy as np
import pytest

from hessian_checks import assert_hessians_equal, hessian, squares, torch_squares, weights
from hessian_checks import torch_hessian as torch_hessian_of
from lamina.autodiff import ops
from lamina.autodiff.grad import grad
from lamina.autodiff.indexing import index
from lamina.autodiff.tape import TAPE
from lamina.nn import activations as A
from lamina.values import value_of

torch = pytest.importorskip("torch")
F = torch.nn.functional


@pytest.fixture
def rng():
    return np.random.default_rng(2026)


def t64(x):
    return torch.tensor(x, dtype=torch.float64)


def away_from_zero(rng, shape):
    """Normal draws moved at least 0.1 from 0, where relu's slope jumps."""
    x = rng.standard_normal(shape)
    return x + np.sign(x) * 0.1 if np.ndim(x) else float(x + np.sign(x) * 0.1)


SHAPES = [(), (4,), (3, 2), (2, 3, 2), (2, 1, 2, 3)]
ELEMENTWISE = {
    "relu": (A.relu, torch.relu),
    "leaky_relu": (A.leaky_relu, lambda x: F.leaky_relu(x, 0.01)),
    "leaky_relu alpha 0.2": (lambda x: A.leaky_relu(x, alpha=0.2), lambda x: F.leaky_relu(x, 0.2)),
    "sigmoid": (A.sigmoid, torch.sigmoid),
    "tanh": (A.tanh, torch.tanh),
    "gelu": (A.gelu, F.gelu),
    "silu": (A.silu, F.silu),
}


def compare(rng, ours_fn, torch_fn, arrays):
    w = weights(rng, np.shape(value_of(ours_fn(*arrays))))
    ours = hessian(lambda *xs: squares(ours_fn(*xs), w), arrays)
    theirs = torch_hessian_of(torch, lambda *xs: torch_squares(torch_fn(*xs), t64(w)), arrays)
    assert_hessians_equal(ours, theirs)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("name", ELEMENTWISE)
def test_elementwise_activation_hessians_equal_torch(rng, name, shape):
    ours_fn, torch_fn = ELEMENTWISE[name]
    compare(rng, ours_fn, torch_fn, [away_from_zero(rng, shape)])


def torch_softmax(x, axis):
    """torch's softmax over one axis or several (the last by default; a vector's all)."""
    dims = tuple(axis) if isinstance(axis, list) else (axis,)
    shifted = x - torch.amax(x, dim=dims, keepdim=True)
    e = torch.exp(shifted)
    return e / e.sum(dim=dims, keepdim=True)


NORMALISED = [((), -1), ((4,), -1), ((3, 2), -1), ((3, 2), 0), ((2, 3, 2), -1), ((2, 3, 2), 1),
              ((2, 3, 2), [0, 2]), ((2, 1, 2, 3), -2), ((2, 1, 2, 3), [1, 3])]


@pytest.mark.parametrize("shape, axis", NORMALISED, ids=str)
def test_softmax_hessians_equal_torch(rng, shape, axis):
    x = weights(rng, shape)
    torch_fn = (lambda t: torch.ones_like(t)) if not shape else (lambda t: torch_softmax(t, axis))
    compare(rng, lambda v: A.softmax(v, axis=float(axis) if type(axis) is int else axis), torch_fn, [x])


@pytest.mark.parametrize("shape, axis", NORMALISED, ids=str)
def test_log_softmax_hessians_equal_torch(rng, shape, axis):
    x = weights(rng, shape)
    torch_fn = (lambda t: torch.zeros_like(t)) if not shape else (lambda t: torch.log(torch_softmax(t, axis)))
    compare(rng, lambda v: A.log_softmax(v, axis=float(axis) if type(axis) is int else axis), torch_fn, [x])


@pytest.mark.parametrize("shape", [(4,), (3, 4)], ids=str)
def test_softmax_rows_and_log_softmax_rows_hessians_equal_torch(rng, shape):
    x = rng.standard_normal(shape)
    compare(rng, A.softmax_rows, lambda t: torch.softmax(t, dim=-1), [x])
    compare(rng, A.log_softmax_rows, lambda t: torch.log_softmax(t, dim=-1), [x])


@pytest.mark.parametrize("name, ours_fn, torch_fn", [("sigmoid", A.sigmoid, torch.sigmoid),
                                                     ("tanh", A.tanh, torch.tanh),
                                                     ("gelu", A.gelu, F.gelu),
                                                     ("silu", A.silu, F.silu),
                                                     ("softmax", A.softmax, lambda t: torch.softmax(t, -1))])
def test_a_third_derivative_equals_torch(rng, name, ours_fn, torch_fn):
    x0, w = rng.standard_normal(3), rng.standard_normal(3)
    TAPE.reset()
    x = TAPE.leaf(x0.copy(), True)
    loss = squares(ours_fn(x), w)
    first = index(grad(loss, x, keep=True), (1,))
    second = index(grad(first, x, keep=True), (2,))
    third = grad(second, x)
    tx = torch.tensor(x0, requires_grad=True)
    tloss = torch_squares(torch_fn(tx), t64(w))
    (t1,) = torch.autograd.grad(tloss, tx, create_graph=True)
    (t2,) = torch.autograd.grad(t1[1], tx, create_graph=True)
    (t3,) = torch.autograd.grad(t2[2], tx)
    np.testing.assert_allclose(third, t3.numpy(), rtol=1e-9, atol=1e-11)


def test_a_sigmoid_of_a_number_differentiated_four_times_equals_torch():
    TAPE.reset()
    x = TAPE.leaf(0.3, True)
    g = ops.add(A.sigmoid(x), 0.0)
    for _ in range(3):
        g = grad(g, x, keep=True)
    fourth = grad(g, x)
    t = torch.tensor(0.3, dtype=torch.float64, requires_grad=True)
    h = torch.sigmoid(t)
    for _ in range(4):
        (h,) = torch.autograd.grad(h, t, create_graph=True)
    assert fourth == pytest.approx(h.item(), rel=1e-12)
