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


# -- an array x (rank 3 or more): w along its last axis, as Keras's Dense and torch's F.linear --
def test_an_array_is_multiplied_along_its_last_axis_as_torch_linear():
    torch = pytest.importorskip("torch")
    from lamina.autodiff import ops, reductions
    from lamina.nn.dense import dense as dense_op
    rng = np.random.default_rng(3)
    for shape in ((2, 3, 4), (2, 2, 3, 4)):
        xs, ws, bs, R = (rng.standard_normal(s) for s in (shape, (4, 5), (1, 5), shape[:-1] + (5,)))
        for b in (bs, 0.7, None):
            xt, wt = torch.tensor(xs, requires_grad=True), torch.tensor(ws, requires_grad=True)
            bt = None if b is None else torch.tensor(np.reshape(b, -1) * np.ones(5), requires_grad=True)
            want = torch.nn.functional.linear(xt, wt.T, bt)
            (want * torch.tensor(R)).sum().backward()
            TAPE.reset()
            x, w = TAPE.leaf(xs.copy(), True), TAPE.leaf(ws.copy(), True)
            bl = None if b is None else TAPE.leaf(np.copy(b) if np.ndim(b) else b, True)
            out = dense_op(x, w, bl)
            assert out.value.shape == shape[:-1] + (5,)
            np.testing.assert_allclose(out.value, want.detach().numpy(), rtol=1e-13, atol=1e-14)
            got = grad(reductions.sum(ops.emul(out, R)), [x, w] + ([] if b is None else [bl]))
            TAPE.reset()
            np.testing.assert_allclose(got[0], xt.grad.numpy(), rtol=1e-13, atol=1e-14)
            np.testing.assert_allclose(got[1], wt.grad.numpy(), rtol=1e-13, atol=1e-14)
            if b is not None:
                want_b = bt.grad.numpy().reshape(1, 5) if np.ndim(b) else float(bt.grad.numpy().sum())
                np.testing.assert_allclose(got[2], want_b, rtol=1e-13)
                assert np.shape(got[2]) == np.shape(b)


@pytest.mark.parametrize("shapes", [((2, 3, 4), (4, 5), (1, 5)), ((2, 1, 3, 2), (2, 3), ()), ((3, 2, 4), (4, 1))])
def test_an_arrays_gradients_match_finite_differences_in_float64_and_float32(shapes):
    from lamina.autodiff.cases import GradCase
    from lamina.autodiff.gradcheck import check, check_float32
    from lamina.nn.dense import dense as dense_op
    case = GradCase(shapes)
    assert not check(f"dense{shapes}", dense_op, case)
    assert not check_float32(f"dense{shapes}", dense_op, case)


@pytest.mark.parametrize("w, b, message", [
    (np.ones((3, 5)), None, "dense(x, w, b) on a 2x3x4 array multiplies along its last axis, so w must be "
                            "a 4 x n matrix, not a 3x5 matrix."),
    (np.ones(4), None, "dense(x, w, b) on a 2x3x4 array multiplies along its last axis, so w must be "
                       "a 4 x n matrix, not a vector of length 4."),
    (np.ones((4, 5)), np.ones(5), "dense(x, w, b) on a 2x3x4 array adds b to each unit of the last axis, so "
                                  "b must be a number or a 1 x 5 row (b' makes the vector that row), not a "
                                  "vector of length 5."),
    (np.ones((4, 5)), np.ones((3, 5)), "dense(x, w, b) on a 2x3x4 array adds b to each unit of the last axis, "
                                       "so b must be a number or a 1 x 5 row, not a 3x5 matrix."),
])
def test_an_arrays_weights_and_bias_of_the_wrong_shape_are_named(w, b, message):
    from lamina.nn.dense import dense as dense_op
    with pytest.raises(LaminaError) as e:
        dense_op(np.ones((2, 3, 4)), w, b)
    assert e.value.kind == "ShapeError" and e.value.message == message


def test_an_array_scaled_by_a_number_w_is_the_language_product():
    from lamina.nn.dense import dense as dense_op
    x = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(dense_op(x, 2.0, 1.0), 2 * x + 1)
