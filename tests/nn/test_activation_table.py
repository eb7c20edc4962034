"""The one activation table: each entry's forward against a formula written out here, its
backward against finite differences of its forward, and both of its users (the elementwise
builtins and the dense layer) giving the entry's numbers."""
import math

import numpy as np
import pytest

from lamina.autodiff import ops, reductions
from lamina.autodiff.grad import grad
from lamina.autodiff.tape import TAPE
from lamina.models.layers.dense import dense_act
from lamina.nn import activations
from lamina.nn.activation_table import ACTIVATIONS, leaky

REFERENCE = {
    "none": lambda z: z,
    "relu": lambda z: np.where(z > 0, z, 0.0),
    "leaky_relu": lambda z: np.where(z > 0, z, 0.01 * z),
    "sigmoid": lambda z: 1 / (1 + np.exp(-z)),
    "tanh": lambda z: (np.exp(z) - np.exp(-z)) / (np.exp(z) + np.exp(-z)),
    "softmax": lambda z: np.exp(z) / np.exp(z).sum(axis=-1, keepdims=True),
    "gelu": lambda z: 0.5 * z * (1 + np.vectorize(math.erf)(z / math.sqrt(2))),
    "silu": lambda z: z / (1 + np.exp(-z)),
}


def test_every_entry_has_a_reference():
    assert sorted(REFERENCE) == sorted(ACTIVATIONS)


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_forward_and_backward(name):
    act = ACTIVATIONS[name]
    rng = np.random.default_rng(0)
    z = rng.uniform(0.3, 2.0, (3, 4)) * rng.choice([-1.0, 1.0], (3, 4))
    y = act.forward(z.copy())
    np.testing.assert_allclose(y, REFERENCE[name](z), rtol=1e-12, atol=1e-15)
    g = rng.standard_normal(z.shape)
    got = act.backward(g.copy(), z.copy() if act.needs_z else None, y)
    eps, want = 1e-6, np.zeros_like(z)
    for j in np.ndindex(z.shape):
        hi, lo = z.copy(), z.copy()
        hi[j] += eps
        lo[j] -= eps
        want[j] = np.sum(g * (act.forward(hi) - act.forward(lo))) / (2 * eps)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


def test_leaky_takes_its_slope():
    z = np.array([-2.0, 3.0])
    np.testing.assert_array_equal(leaky(0.2).forward(z.copy()), [-0.4, 3.0])
    np.testing.assert_array_equal(leaky(0.2).backward(np.ones(2), z, None), [0.2, 1.0])


@pytest.mark.parametrize("name", ["relu", "sigmoid", "tanh", "gelu", "leaky_relu", "silu"])
def test_the_builtin_and_the_dense_layer_give_the_same_numbers(name):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 3))
    TAPE.reset()
    a, b = TAPE.leaf(x, True), TAPE.leaf(x, True)
    by_builtin = getattr(activations, name)(a)
    by_layer = dense_act(b, np.eye(3), np.zeros((1, 3)), name)
    np.testing.assert_array_equal(by_builtin.value, by_layer.value)
    R = rng.standard_normal((4, 3))
    ga = grad(reductions.sum(ops.emul(by_builtin, R)), a)
    gb = grad(reductions.sum(ops.emul(by_layer, R)), b)
    TAPE.reset()
    np.testing.assert_allclose(ga, gb, rtol=1e-15)
