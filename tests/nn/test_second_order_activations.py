"""Activations and losses differentiated twice (grad with keep, autodiff/tape.py "Second order"):
the Hessian of a scalar function through each, taken as the kept gradient's elements
differentiated again, equals torch.autograd.functional.hessian in float64 on numbers, vectors,
matrices and arrays of rank 3 and 4; dense and dropout too; third derivatives; and a program's
hessian() of a logistic loss against the textbook formula."""
import numpy as np
import pytest

from builtin_checks import run_with
from hessian_checks import assert_hessians_equal, hessian, squares, torch_squares, weights
from hessian_checks import torch_hessian as torch_hessian_of
from lamina.autodiff import ops
from lamina.autodiff.grad import grad
from lamina.autodiff.indexing import index
from lamina.autodiff.tape import TAPE
from lamina.lang.scope import mangle
from lamina.nn import activations as A
from lamina.nn import dense as D
from lamina.nn import losses as L
from lamina.nn.dropout import dropout
from lamina.rng import reseed
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


# -- losses -------------------------------------------------------------------------------------
def test_mse_hessians_equal_torch_for_each_pairing(rng):
    for sp, st in [((4,), (4,)), ((3, 2), (3, 2)), ((2, 3, 2), (2, 3, 2)), ((4,), (4, 1)), ((4, 1), (4,)),
                   ((), (3,)), ((3, 2), ())]:
        p, t = weights(rng, sp), weights(rng, st)
        shape = np.broadcast_shapes(sp, st) if len(sp) == len(st) or not sp or not st else sp

        def torch_mse(a, b):
            return ((a.reshape(shape) if a.dim() else a) - (b.reshape(shape) if b.dim() else b)).pow(2).mean()
        compare_loss(lambda a, b: L.mse(a, b), torch_mse, [p, t])


def compare_loss(ours_fn, torch_fn, arrays):
    """A loss (a number) composed with a square, so that its Hessian's every term is exercised."""
    ours = hessian(lambda *xs: ops.add(ops.emul(ours_fn(*xs), ours_fn(*xs)), ours_fn(*xs)), arrays)
    theirs = torch_hessian_of(torch, lambda *xs: torch_fn(*xs) ** 2 + torch_fn(*xs), arrays)
    assert_hessians_equal(ours, theirs)


def test_mae_hessian_is_zero_but_its_square_is_torchs(rng):
    p, t = away_from_zero(rng, (3, 2)), np.zeros((3, 2))
    compare_loss(L.mae, lambda a, b: (a - b).abs().mean(), [p, t])


@pytest.mark.parametrize("shape", [(4,), (3, 2), (2, 2, 3)], ids=str)
def test_binary_cross_entropy_hessians_equal_torch(rng, shape):
    p, y = rng.uniform(0.1, 0.9, shape), rng.uniform(0.0, 1.0, shape)
    compare_loss(L.binary_cross_entropy, F.binary_cross_entropy, [p, y])
    logits = rng.standard_normal(shape)
    compare_loss(lambda a, b: L.binary_cross_entropy(a, b, **{"from": "logits"}),
                 F.binary_cross_entropy_with_logits, [logits, y])


def test_binary_cross_entropy_of_clipped_probabilities_equals_torch_with_the_clip(rng):
    p, y = np.array([0.0, 0.3, 1.0, 0.6]), np.array([0.2, 0.7, 0.1, 1.0])
    eps = L.PROB_EPS

    def torch_bce(a, b):
        q = torch.clamp(a, eps, 1 - eps)
        return -(b * torch.log(q) + (1 - b) * torch.log1p(-q)).mean()
    compare_loss(L.binary_cross_entropy, torch_bce, [p, y])


def test_binary_cross_entropy_of_a_number_or_a_column_against_a_vector_equals_torch():
    y = np.array([0.2, 0.9, 0.5])
    compare_loss(L.binary_cross_entropy, lambda a, b: F.binary_cross_entropy(a.expand(3), b), [0.3, y])
    compare_loss(lambda a, b: L.binary_cross_entropy(a, b, **{"from": "logits"}),
                 lambda a, b: F.binary_cross_entropy_with_logits(a.expand(3), b), [0.3, y])
    compare_loss(L.binary_cross_entropy, lambda a, b: F.binary_cross_entropy(a.reshape(2), b),
                 [np.array([[0.3], [0.6]]), np.array([0.2, 0.7])])


@pytest.mark.parametrize("shape", [(4,), (3, 4)], ids=str)
def test_cross_entropy_hessians_equal_torch(rng, shape):
    scores = rng.standard_normal(shape)
    probs = rng.dirichlet(np.ones(shape[-1]), size=shape[:-1] or None)
    rows = (1, shape[0]) if len(shape) == 1 else shape

    def torch_ce(s, t):
        return -(t.reshape(rows) * torch.log_softmax(s.reshape(rows), dim=1)).sum() / rows[0]
    compare_loss(L.cross_entropy, torch_ce, [scores, probs])

    def torch_ce_probs(s, t):
        return -(t.reshape(rows) * torch.log(torch.clamp(s.reshape(rows), L.PROB_EPS, 1.0))).sum() / rows[0]
    compare_loss(lambda s, t: L.cross_entropy(s, t, **{"from": "probs"}), torch_ce_probs,
                 [rng.uniform(0.05, 1.0, shape), probs])


def test_cross_entropy_with_class_indices_and_of_rows_equal_torch(rng):
    scores, classes = rng.standard_normal((4, 3)), np.array([0.0, 2.0, 1.0, 2.0])
    labels = torch.tensor(classes.astype(np.int64))

    def ours(s):
        return L.cross_entropy(s, classes)
    compare_loss(ours, lambda s: F.cross_entropy(s, labels), [scores])
    one_hot = np.eye(3)[classes.astype(int)]
    compare_loss(lambda s: L.cross_entropy_of_rows(s, one_hot), lambda s: F.cross_entropy(s, labels), [scores])


@pytest.mark.parametrize("sx, sw, sb", [((3, 2), (2, 4), (1, 4)), ((3, 2), (2,), (3,)), ((2, 3, 2), (2, 4), (1, 4)),
                                        ((2, 1, 3, 2), (2, 3), ()), ((2, 3, 2), (2, 4), None)], ids=str)
def test_dense_hessians_equal_torch(rng, sx, sw, sb):
    arrays = [rng.standard_normal(sx), rng.standard_normal(sw)] + ([] if sb is None else [weights(rng, sb)])

    def torch_dense(x, w, b=None):
        z = x @ w
        if b is not None and z.dim() == 2 and b.dim() == 1:    # a vector b is a column: added to row i
            b = b.reshape(-1, 1)
        return z if b is None else z + b
    compare(rng, lambda *xs: D.dense(*xs), torch_dense, arrays)


def test_dense_gelu_mse_network_third_derivative_equals_torch(rng):
    x0, w0, t0 = rng.standard_normal((2, 3, 2)), rng.standard_normal((2, 2)), rng.standard_normal((2, 3, 2))
    TAPE.reset()
    w = TAPE.leaf(w0.copy(), True)
    loss = L.mse(A.gelu(D.dense(x0, w)), t0)
    first = index(grad(loss, w, keep=True), (0, 1))
    second = index(grad(first, w, keep=True), (1, 0))
    third = grad(second, w)
    tw = torch.tensor(w0, requires_grad=True)
    tloss = F.mse_loss(F.gelu(t64(x0) @ tw), t64(t0))
    (t1,) = torch.autograd.grad(tloss, tw, create_graph=True)
    (t2,) = torch.autograd.grad(t1[0, 1], tw, create_graph=True)
    (t3,) = torch.autograd.grad(t2[1, 0], tw)
    np.testing.assert_allclose(third, t3.numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("shape", [(), (2, 3, 2)], ids=str)
def test_dropout_hessian_equals_torch_with_the_same_mask(rng, shape):
    x = away_from_zero(rng, shape)
    w = weights(rng, shape)
    reseed(7)
    kept = np.asarray(dropout(x, 0.5)) / x                 # the mask the same seed draws again
    reseed(7)
    ours = hessian(lambda v: squares(dropout(v, 0.5), w), [x])
    theirs = torch_hessian_of(torch, lambda t: torch_squares(t * t64(kept), t64(w)), [x])
    assert_hessians_equal(ours, theirs)


def test_a_programs_logistic_regression_hessian_is_the_textbook_one(rng):
    # d2/dw2 of the mean logistic loss is X' diag(p (1 - p)) X / n, with p = sigmoid(X w).
    X, y, w = rng.standard_normal((6, 3)), rng.integers(0, 2, 6).astype(float), rng.standard_normal(3)
    interp = run_with("H1 = hessian(v -> binary_cross_entropy(X * v, y, from = \"logits\"), w)\n"
                      "H2 = hessian(v -> binary_cross_entropy(sigmoid(X * v), y), w)", X=X, y=y, w=w)
    p = 1 / (1 + np.exp(-X @ w))
    expected = X.T @ (X * (p * (1 - p))[:, None]) / len(y)
    for name in ("H1", "H2"):
        np.testing.assert_allclose(interp.namespace[mangle(name)], expected, rtol=1e-12, atol=1e-14)
