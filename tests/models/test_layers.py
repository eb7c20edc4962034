"""Layers: the fused dense op (values and gradients), dropout, and building specs."""
import numpy as np
import pytest

from lamina.autodiff.gradcheck import check
from lamina.autodiff.tape import TAPE
from lamina.builtins.registry import GradCase
from lamina.errors import LaminaError
from lamina.models.layer import DataShape
from lamina.models.layers.dense import Dense, dense_act, dense_layer
from lamina.models.layers.dropout import Dropout, dropout_layer
from lamina.models.spec import ModelSpec, input_spec
from lamina.nn.activation_table import ACTIVATIONS


def reference(x, w, b, activation):
    z = x @ w + b
    return {"none": z, "relu": np.maximum(z, 0), "leaky_relu": np.where(z > 0, z, 0.01 * z),
            "sigmoid": 1 / (1 + np.exp(-z)), "tanh": np.tanh(z),
            "softmax": np.exp(z) / np.exp(z).sum(axis=1, keepdims=True),
            "gelu": 0.5 * z * (1 + np.vectorize(__import__("math").erf)(z / np.sqrt(2))),
            "silu": z / (1 + np.exp(-z))}[activation]


@pytest.mark.parametrize("activation", sorted(ACTIVATIONS))
def test_fused_dense_matches_numpy(activation):
    rng = np.random.default_rng(1)
    x, w, b = rng.standard_normal((5, 3)), rng.standard_normal((3, 4)), rng.standard_normal((1, 4))
    np.testing.assert_allclose(dense_act(x, w, b, activation), reference(x, w, b, activation),
                               rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("activation", sorted(ACTIVATIONS))
def test_fused_dense_gradients_match_finite_differences(activation):
    domain = "away_from_zero" if activation in ("relu", "leaky_relu") else "real"
    problems = check(f"dense_act:{activation}", lambda x, w, b: dense_act(x, w, b, activation),
                     GradCase(((5, 3), (3, 4), (1, 4)), domain=domain))
    assert not problems, problems


def test_the_bias_is_one_per_unit():
    x = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    out = dense_act(x, np.zeros((2, 2)), np.array([[10.0, 20.0]]), "none")
    assert out.tolist() == [[10, 20]] * 3


def test_one_tape_entry_per_dense_layer():
    TAPE.reset()
    w, b = TAPE.leaf(np.ones((3, 2)), True), TAPE.leaf(np.zeros((1, 2)), True)
    before = TAPE.size()
    dense_act(np.ones((4, 3)), w, b, "relu")
    assert TAPE.size() - before == 1
    TAPE.reset()


def test_glorot_uniform_init_and_zero_bias():
    w, b = Dense(300, "relu").init(DataShape((200,)), np.random.default_rng(0))
    limit = np.sqrt(6 / 500)
    assert w.shape == (200, 300) and b.shape == (1, 300) and not b.any()
    assert np.abs(w).max() <= limit and np.abs(w).max() > 0.99 * limit
    assert abs(w.var() - limit ** 2 / 3) < 0.02 * limit ** 2


def test_dropout_is_active_only_while_training():
    layer = Dropout(0.5)
    x = np.ones((50, 40))
    data = DataShape((40,))
    assert layer.forward(x, [], data, training=False, rng=None) is x
    out = layer.forward(x, [], data, training=True, rng=np.random.default_rng(0))
    assert set(np.unique(out)) == {0.0, 2.0} and 0.4 < (out == 0).mean() < 0.6
    assert Dropout(0.0).forward(x, [], data, training=True, rng=np.random.default_rng(0)) is x


def test_specs_are_immutable_and_grow_by_one_layer():
    a = input_spec(3.0)
    b = dense_layer(a, 4.0, "relu")
    c = dropout_layer(b, 0.5)
    assert a.layers == () and len(b.layers) == 1 and len(c.layers) == 2
    assert c.widths() == [3, 4, 4] and c.parameter_counts() == [16, 0]


def test_the_pipe_and_the_fields(run):
    lines, _ = run('s = input(3) |> dense(4, activation = "tanh") |> dropout(0.5) |> dense(2)\n'
                   'print(s.inputs, s.outputs, length(s.layers))\nprint(s.layers[0])\nprint(s.layers[2])\n'
                   'print(type(s))\nprint(dense(input(2), 3, "sigmoid").layers[0].activation)')
    assert lines == ["3 2 3", '{kind="dense", units=4, activation="tanh"}',
                     '{kind="dense", units=2, activation="none"}', "model spec", "sigmoid"]


def test_describe_reads_like_a_summary(run):
    lines, _ = run('print(input(2) |> dense(4, activation = "relu") |> dense(1))')
    assert lines[0] == "Model spec: 2 inputs (not compiled yet)"
    assert any("dense(4, activation = \"relu\")" in l and l.rstrip().endswith("12") for l in lines)
    assert lines[-1].strip() == "total parameters: 17"


@pytest.mark.parametrize("source, kind, words", [
    ('input(0)', "ValueError", "at least 1"),
    ('input(2.5)', "TypeError", "whole number"),
    ('input(2) |> dense(0)', "ValueError", "at least 1"),
    ('input(2) |> dense(3, activation = "swish")', "ValueError", "relu, leaky_relu"),
    ('input(2) |> dense(3, activation = 1)', "TypeError", "activation"),
    ('input(2) |> dense(3, act = "relu")', "TypeError", "act"),
    ('input(2) |> dense()', "TypeError", "units"),
    ('input(2) |> dropout(1)', "ValueError", "below 1"),
    ('input(2) |> dropout(-0.1)', "ValueError", "at least 0"),
    ])
def test_layer_errors(run, source, kind, words):
    with pytest.raises(LaminaError) as e:
        run(source)
    assert e.value.kind == kind and words in e.value.message, e.value.message


def test_dense_layer_needs_a_spec():
    with pytest.raises(LaminaError, match="model spec"):
        dense_layer("x", 3)
    assert isinstance(dense_layer(ModelSpec((2,)), 3.0, "relu"), ModelSpec)
