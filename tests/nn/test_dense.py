"""dense(x, w, b): the seed's numbers, the bias rule, gradients, errors."""
import numpy as np
import pytest

from lamina.autodiff.grad import grad
from lamina.autodiff.tape import TAPE
from lamina.builtins.nn import dense
from lamina.errors import LaminaError

X = np.array([[1.0, 2.0], [-0.5, 1.5]])
W = np.array([[0.5, -0.3], [0.2, 0.8]])


def test_seed_program(run):
    lines, _ = run(SEED)
    assert lines == ["relu:    [1, 1.4; 0, 1.25]",
                     "sigmoid: [0.7311, 0.8022; 0.5, 0.7773]",
                     "dL/dw:   [0.2875, 0.12; 0.5749, 0.9128]"]


SEED = """
w = param([0.5, -0.3; 0.2, 0.8])
b = param([0.1, -0.1])
x = [1.0, 2.0; -0.5, 1.5]
z = dense(x, w, b)
a = relu(z)
p = sigmoid(a)
loss = sum(p .^ 2)
g = grad(loss, wrt = w)
print("relu:    {round(a, 4)}")
print("sigmoid: {round(p, 4)}")
print("dL/dw:   {round(g, 4)}")
"""


def test_a_vector_bias_is_added_per_row():
    np.testing.assert_allclose(dense(X, W, np.array([0.1, -0.1])), X @ W + [[0.1], [-0.1]])


def test_a_row_bias_is_added_per_column():
    np.testing.assert_allclose(dense(X, W, np.array([[0.1, -0.1]])), X @ W + [[0.1, -0.1]])


def test_scalar_bias_and_no_bias():
    np.testing.assert_allclose(dense(X, W, 1.0), X @ W + 1)
    np.testing.assert_allclose(dense(X, W), X @ W)
    assert dense(2.0, 3.0, 1.0) == 7.0


def test_matrix_times_vector_gives_a_vector():
    out = dense(X, np.array([1.0, 1.0]), np.array([0.5, 0.5]))
    assert out.shape == (2,)
    np.testing.assert_allclose(out, X @ [1.0, 1.0] + 0.5)


def test_gradients_of_every_argument():
    TAPE.reset()
    x, w, b = (TAPE.leaf(v.copy(), True) for v in (X, W, np.array([[0.3, -0.2]])))
    from lamina.autodiff import reductions
    from lamina.nn.activations import tanh
    gx, gw, gb = grad(reductions.sum(tanh(dense(x, w, b))), [x, w, b])
    d = 1 - np.tanh(X @ W + [[0.3, -0.2]]) ** 2
    np.testing.assert_allclose(gx, d @ W.T)
    np.testing.assert_allclose(gw, X.T @ d)
    np.testing.assert_allclose(gb, d.sum(axis=0, keepdims=True))
    TAPE.reset()


def test_shape_errors_name_both_shapes():
    with pytest.raises(LaminaError) as e:
        dense(np.ones((2, 3)), W, np.zeros(2))
    assert e.value.kind == "ShapeError" and "2x3" in e.value.message and "2x2" in e.value.message
    with pytest.raises(LaminaError) as e:
        dense(X, W, np.zeros(3))
    assert e.value.kind == "ShapeError" and "dense" in e.value.message
    assert "vector of length 3" in e.value.message


def test_non_numeric_first_argument_and_keywords():
    with pytest.raises(LaminaError) as e:
        dense("x", W, 0.0)
    assert e.value.kind == "TypeError" and "model spec" in e.value.message
    with pytest.raises(LaminaError) as e:
        dense(X, W, 0.0, activation="relu")
    assert e.value.kind == "TypeError" and "activation" in e.value.message


def test_model_spec_goes_to_the_layer_overload(run):
    lines, _ = run('s = input(3) |> dense(4, activation = "tanh") |> dropout(0.5) |> dense(2)\n'
                   'print(type(s), length(s.layers))')
    assert lines == ["model spec 3"]
