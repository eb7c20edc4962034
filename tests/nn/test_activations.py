"""Activations against NumPy formulas and PyTorch, stability, kinds of results, errors."""
import math

import numpy as np
import pytest

from lamina.autodiff.grad import grad
from lamina.autodiff.tape import TAPE
from lamina.errors import LaminaError
from lamina.nn import activations as A
from lamina.values import Tracked

RNG = np.random.default_rng(0)
X = RNG.standard_normal((4, 3)) * 3


def erf(v):
    return np.vectorize(math.erf)(v)


@pytest.mark.parametrize("fn, reference", [
    (A.relu, lambda v: np.where(v > 0, v, 0.0)),
    (A.sigmoid, lambda v: 1 / (1 + np.exp(-v))),
    (A.tanh, np.tanh),
    (A.gelu, lambda v: v * 0.5 * (1 + erf(v / math.sqrt(2)))),
    (A.leaky_relu, lambda v: np.where(v > 0, v, 0.01 * v)),
])
def test_elementwise_values(fn, reference):
    np.testing.assert_allclose(fn(X), reference(X), rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(fn(X[0]), reference(X[0]), rtol=1e-14, atol=1e-15)
    out = fn(0.7)
    assert type(out) is float and out == pytest.approx(float(reference(np.array(0.7))), rel=1e-14)


def test_results_are_fresh_arrays():
    x = np.array([1.0, 2.0])
    for fn in (A.relu, A.sigmoid, A.tanh, A.gelu, A.softmax_rows, A.log_softmax_rows):
        y = fn(x)
        assert y is not x and y.dtype == np.float64


def test_leaky_relu_alpha():
    np.testing.assert_array_equal(A.leaky_relu(np.array([-2.0, 3.0]), 0.1), [-0.2, 3.0])


def test_sigmoid_is_stable_at_extremes():
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        np.testing.assert_array_equal(A.sigmoid(np.array([-1000.0, 1000.0])), [0.0, 1.0])


def test_softmax_rows_values_and_stability():
    s = A.softmax_rows(np.array([[2.0, 1.0, 0.1], [0.5, 0.5, 0.5]]))
    np.testing.assert_allclose(np.round(s[0], 4), [0.659, 0.2424, 0.0986])
    np.testing.assert_allclose(s.sum(axis=1), [1.0, 1.0])
    np.testing.assert_array_equal(A.softmax_rows(np.array([1000.0, 0.0])), [1.0, 0.0])
    np.testing.assert_array_equal(A.log_softmax_rows(np.array([1000.0, 0.0])), [0.0, -1000.0])
    e = np.exp(X - X.max(axis=1, keepdims=True))
    np.testing.assert_allclose(A.softmax_rows(X), e / e.sum(axis=1, keepdims=True), rtol=1e-14)
    np.testing.assert_allclose(A.log_softmax_rows(X), np.log(e / e.sum(axis=1, keepdims=True)), rtol=1e-13)


def test_against_torch():
    torch = pytest.importorskip("torch")
    t = torch.tensor(X, dtype=torch.float64)
    np.testing.assert_allclose(A.gelu(X), torch.nn.functional.gelu(t).numpy(), rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(A.softmax_rows(X), torch.softmax(t, dim=1).numpy(), rtol=1e-13)
    np.testing.assert_allclose(A.log_softmax_rows(X), torch.log_softmax(t, dim=1).numpy(), rtol=1e-13)
    np.testing.assert_allclose(A.leaky_relu(X, 0.2), torch.nn.functional.leaky_relu(t, 0.2).numpy())


def test_gradients_against_torch():
    torch = pytest.importorskip("torch")
    W = RNG.standard_normal(X.shape)
    for ours, theirs in [(A.gelu, torch.nn.functional.gelu), (A.sigmoid, torch.sigmoid),
                         (lambda v: A.softmax_rows(v), lambda v: torch.softmax(v, dim=1)),
                         (lambda v: A.log_softmax_rows(v), lambda v: torch.log_softmax(v, dim=1))]:
        TAPE.reset()
        x = TAPE.leaf(X.copy(), True)
        y = ours(x)
        from lamina.autodiff import ops, reductions
        g = grad(reductions.sum(ops.emul(y, W)), x)
        t = torch.tensor(X, requires_grad=True)
        (theirs(t) * torch.tensor(W)).sum().backward()
        np.testing.assert_allclose(g, t.grad.numpy(), rtol=1e-12, atol=1e-14)
    TAPE.reset()


def test_tracked_input_gives_tracked_output():
    TAPE.reset()
    x = TAPE.leaf(np.array([1.0, -1.0]), True)
    assert type(A.relu(x)) is Tracked
    assert type(A.relu(np.array([1.0]))) is not Tracked
    TAPE.reset()


@pytest.mark.parametrize("fn", [A.relu, A.sigmoid, A.tanh, A.gelu, A.softmax_rows])
def test_non_numbers_are_type_errors(fn):
    with pytest.raises(LaminaError) as e:
        fn("text")
    assert e.value.kind == "TypeError" and "string" in e.value.message


def test_softmax_of_a_number_is_a_type_error():
    with pytest.raises(LaminaError, match="vector or matrix"):
        A.softmax_rows(3.0)
