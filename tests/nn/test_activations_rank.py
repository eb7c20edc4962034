"""Activations, softmax and log_softmax on arrays of rank 3 and 4 (issue 39), in Lamina programs:
values and gradients against PyTorch, every axis and an axis list for softmax, float32 kept,
stability, and softmax of a matrix equal to softmax_rows to the bit."""
from __future__ import annotations

import numpy as np
import pytest
from builtin_checks import run_with as run

from lamina.errors import LaminaError

torch = pytest.importorskip("torch")
F = torch.nn.functional

RNG = np.random.default_rng(339)
R3 = RNG.standard_normal((2, 3, 4)) * 2
R4 = RNG.standard_normal((2, 3, 2, 3)) * 2
C3 = RNG.standard_normal((2, 3, 4))          # weights of the loss sum(f(x) .* c)
C4 = RNG.standard_normal((2, 3, 2, 3))


def torch_value_and_grad(fn, x: np.ndarray, c: np.ndarray):
    t = torch.tensor(x, requires_grad=True)
    y = fn(t)
    (y * torch.tensor(c)).sum().backward()
    return y.detach().numpy(), t.grad.numpy()


ACTIVATIONS = [
    ("relu(w)", F.relu), ("sigmoid(w)", torch.sigmoid), ("tanh(w)", torch.tanh), ("gelu(w)", F.gelu),
    ("silu(w)", F.silu), ("leaky_relu(w)", F.leaky_relu), ("leaky_relu(w, alpha = 0.2)", lambda t: F.leaky_relu(t, 0.2)),
]


@pytest.mark.parametrize("x, c", [(R3, C3), (R4, C4)], ids=["rank3", "rank4"])
@pytest.mark.parametrize("call, theirs", ACTIVATIONS, ids=[c for c, _ in ACTIVATIONS])
def test_an_activation_of_an_array_and_its_gradient_match_torch(x, c, call, theirs):
    interp = run(f"w = param(x)\ny = {call}\ng = grad(sum(y .* c), wrt = w)", x=x, c=c)
    value, gradient = torch_value_and_grad(theirs, x, c)
    y = interp.get("y")
    assert y.value.shape == x.shape
    np.testing.assert_allclose(y.value, value, rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(interp.get("g"), gradient, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("name", ["relu", "sigmoid", "tanh", "gelu", "silu", "leaky_relu", "softmax", "log_softmax"])
def test_float32_stays_float32(name):
    x = R3.astype(np.float32)
    interp = run(f"w = param(x)\ny = {name}(w)\ng = grad(sum(y), wrt = w)", x=x)
    assert interp.get("y").value.dtype == np.float32 and interp.get("g").dtype == np.float32


SOFTMAX_AXES = [-1, 0, 1, 2, -2, [0, 2], [2, 1, 0]]


@pytest.mark.parametrize("x, c", [(R3, C3), (R4, C4)], ids=["rank3", "rank4"])
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_along_every_axis_and_axis_list_matches_torch(x, c, name):
    axes = SOFTMAX_AXES + ([[1, 3], 3] if x.ndim == 4 else [])
    source = "w = param(x)\n" + "".join(f"y{i} = {name}(w, axis = {a})\ng{i} = grad(sum(y{i} .* c), wrt = w)\n"
                                        for i, a in enumerate(axes))
    interp = run(source, x=x, c=c)
    for i, a in enumerate(axes):
        dim = a if isinstance(a, int) else tuple(a)
        if name == "softmax":      # torch's softmax takes one dim: over several, exp over its logsumexp
            theirs = lambda t: torch.exp(t - torch.logsumexp(t, dim=dim, keepdim=True))
        else:
            theirs = lambda t: t - torch.logsumexp(t, dim=dim, keepdim=True)
        value, gradient = torch_value_and_grad(theirs, x, c)
        np.testing.assert_allclose(interp.get(f"y{i}").value, value, rtol=1e-13, atol=1e-15, err_msg=f"axis {a}")
        np.testing.assert_allclose(interp.get(f"g{i}"), gradient, rtol=1e-12, atol=1e-14, err_msg=f"axis {a}")
        if isinstance(a, int):
            np.testing.assert_allclose(value, (F.softmax if name == "softmax" else F.log_softmax)(
                torch.tensor(x), dim=a).numpy(), rtol=1e-13, atol=1e-15)


def test_the_default_axis_is_the_last_and_a_matrix_gives_softmax_rows_to_the_bit():
    m = R3[0]
    interp = run("a = softmax(x)\nb = softmax(x, axis = 2)\nc = softmax(m)\nd = softmax_rows(m)\n"
                 "e = log_softmax(m)\nf = log_softmax_rows(m)\nv = softmax(m[0, :])\nn = softmax(2.5)\n"
                 "l = log_softmax(2.5)", x=R3, m=m)
    np.testing.assert_array_equal(interp.get("a"), interp.get("b"))
    np.testing.assert_array_equal(interp.get("c"), interp.get("d"))
    np.testing.assert_array_equal(interp.get("e"), interp.get("f"))
    np.testing.assert_allclose(interp.get("v"), F.softmax(torch.tensor(m[0]), dim=0).numpy(), rtol=1e-15)
    assert interp.get("n") == 1.0 and interp.get("l") == 0.0      # a number is a one-element vector


def test_softmax_is_stable_for_huge_scores_and_each_slice_sums_to_1():
    x = np.zeros((2, 2, 3))
    x[0, 0] = [1000.0, 0.0, -1000.0]
    x[1, 1] = [-1e308, -1e308, 1e308]
    interp = run("s = softmax(x)\nl = log_softmax(x)\nt = sum(softmax(y, axis = [0, 1]), axis = [0, 1])", x=x, y=R3)
    s, log = interp.get("s"), interp.get("l")
    assert np.isfinite(s).all()
    np.testing.assert_array_equal(s[0, 0], [1.0, 0.0, 0.0])
    np.testing.assert_array_equal(s[1, 1], [0.0, 0.0, 1.0])
    np.testing.assert_array_equal(log[0, 0], [0.0, -1000.0, -2000.0])
    np.testing.assert_array_equal(log[1, 1], [-np.inf, -np.inf, 0.0])     # -2e308 is beyond the floats
    np.testing.assert_allclose(interp.get("t"), np.ones((1, 1, 4)), rtol=1e-15)


def test_softmax_refuses_what_is_not_a_tensor_naming_it():
    with pytest.raises(LaminaError) as caught:
        run('softmax("scores")')
    assert (caught.value.kind, caught.value.message) == (
        "TypeError", "softmax's argument must be a number or tensor, not a string.")


def test_silu_is_a_dense_layers_activation_too():
    interp = run('net = input(3) |> dense(2, activation = "silu") |> compile(seed = 1)\n'
                 'w = net.weights\ny = predict(net, x)', x=R3[0, :, :3])
    layer = interp.get("w")[0].fields
    w, b = layer["w"], layer["b"]
    z = R3[0, :, :3] @ w + b
    np.testing.assert_allclose(interp.get("y"), z / (1 + np.exp(-z)), rtol=1e-14)
