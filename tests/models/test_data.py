"""X and Y in the forms models/data.py takes: a model made with input(steps, features) reads the
m x steps x features array as it reads the m x (steps * features) matrix, against a NumPy GRU that
walks the array's step axis; predict gives a last layer's sequences back as an array; every other
shape is an error naming the input layer and the shapes."""
from dataclasses import dataclass

import numpy as np
import pytest

from lamina.autodiff import ops
from lamina.errors import LaminaError
from lamina.models.compile import compile_model
from lamina.models.evaluate import evaluate, predict
from lamina.models.fit import fit
from lamina.models.layer import KINDS, DataShape, Layer, register
from lamina.models.layers.dense import dense_layer
from lamina.models.layers.embedding import embedding_layer
from lamina.models.layers.gru import gru_layer
from lamina.models.spec import input_spec
from lamina.optim.registry import get

M, T, F = 12, 5, 3


def sig(v):
    return 1 / (1 + np.exp(-v))


def gru_by_steps(X3, w, return_sequences):
    """Cho et al. 2014 on an m x steps x features array, step t being X3[:, t, :]."""
    h = np.zeros((X3.shape[0], w["uz"].shape[0]))
    states = []
    for t in range(X3.shape[1]):
        x = X3[:, t, :]
        z = sig(x @ w["wz"].T + h @ w["uz"].T + w["bz"].T)
        r = sig(x @ w["wr"].T + h @ w["ur"].T + w["br"].T)
        hh = np.tanh(x @ w["wh"].T + (r * h) @ w["uh"].T + w["bh"].T)
        h = (1 - z) * h + z * hh
        states.append(h)
    return np.stack(states, axis=1) if return_sequences else h


def gru_net(return_sequences=False, seed=4.0, dtype="float64"):
    spec = gru_layer(input_spec(float(T), float(F)), 4.0, return_sequences)
    spec = dense_layer(spec, 2.0, "tanh")
    return compile_model(spec, get("adam").with_hp(lr=0.05), "mse", seed, dtype)


def sequences(seed=0):
    rng = np.random.default_rng(seed)
    X3 = rng.standard_normal((M, T, F))
    return X3, X3.reshape(M, T * F), rng.standard_normal((M, 2))


@pytest.mark.parametrize("return_sequences", [False, True])
def test_a_gru_model_predicts_an_array_of_sequences_as_its_matrix_and_as_numpy(return_sequences):
    net = gru_net(return_sequences)
    X3, X2, _ = sequences()
    got = predict(net, X3)
    np.testing.assert_array_equal(got, predict(net, X2))
    g, d = (layer.fields for layer in net.get("weights"))
    h = gru_by_steps(X3, g, return_sequences)
    if return_sequences:                 # dense reads the whole sequence, step after step
        h = h.reshape(M, -1)
    assert got.shape == (M, 2)
    np.testing.assert_allclose(got, np.tanh(h @ d["w"] + d["b"]), rtol=1e-12, atol=1e-14)


def test_fit_and_evaluate_on_the_array_train_as_on_the_matrix():
    X3, X2, Y = sequences(1)
    Xv3, Xv2, Yv = sequences(2)
    by_array = fit(gru_net(), X3, Y, epochs=3, batch_size=5, validation_data=[Xv3, Yv], verbose=0)
    by_matrix = fit(gru_net(), X2, Y, epochs=3, batch_size=5, validation_data=[Xv2, Yv], verbose=0)
    np.testing.assert_array_equal(by_array.loss_history, by_matrix.loss_history)
    np.testing.assert_array_equal(by_array.val_loss_history, by_matrix.val_loss_history)
    for a, b in zip(by_array.params, by_matrix.params):
        np.testing.assert_array_equal(a, b)
    assert by_array.loss_history[-1] < by_array.loss_history[0]
    assert evaluate(by_array, X3, Y).fields == evaluate(by_array, X2, Y).fields
    split = [fit(gru_net(), X, Y, epochs=2, validation_split=0.25, verbose=0) for X in (X3, X2)]
    np.testing.assert_array_equal(split[0].val_loss_history, split[1].val_loss_history)


def test_a_float32_model_reads_a_float64_array():
    net = gru_net(dtype="float32")
    X3, X2, _ = sequences(3)
    got = predict(net, X3)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, predict(net, X2.astype(np.float32)))


def test_an_array_that_is_a_view_of_other_axes_reads_by_its_own_axes():
    net = gru_net()
    X3, _, _ = sequences(4)
    swapped = np.ascontiguousarray(X3.transpose(0, 2, 1)).transpose(0, 2, 1)     # not C-ordered
    assert not swapped.flags.c_contiguous
    np.testing.assert_array_equal(predict(net, swapped), predict(net, X3))


def test_embedding_tokens_as_an_array_of_steps():
    spec = dense_layer(gru_layer(embedding_layer(input_spec(4.0, 2.0), 6.0, 3.0), 3.0), 1.0, "none")
    net = compile_model(spec, get("adam"), "mse", 2.0)
    tokens = np.random.default_rng(5).integers(0, 6, (7, 4, 2)).astype(float)
    np.testing.assert_array_equal(predict(net, tokens), predict(net, tokens.reshape(7, 8)))
    tokens[3, 2, 1] = 6.0
    with pytest.raises(LaminaError) as e:
        predict(net, tokens)
    assert e.value.message == ("embedding with vocab 6 needs tokens that are whole numbers from 0 to 5, "
                               "but predict's X holds 6 at [3, 2, 1] (counted from 0).")
    with pytest.raises(LaminaError) as e:
        predict(net, tokens.reshape(7, 8))
    assert "holds 6 at row 3, column 5 (both counted from 0)" in e.value.message


@pytest.mark.parametrize("shape, message", [
    ((M, T, F + 1), "predict: X is a 12x5x4 array, but the model takes input(5, 3): an array X must be "
                    "m x 5 x 3 (example x step x feature), or a matrix of 15 columns (5 steps of 3, step "
                    "after step), one row per example."),
    ((M, F, T), "predict: X is a 12x3x5 array, but the model takes input(5, 3): an array X must be "
                "m x 5 x 3 (example x step x feature), or a matrix of 15 columns (5 steps of 3, step "
                "after step), one row per example."),
    ((M, T, F, 1), "predict: X is a 12x5x3x1 array, but the model takes input(5, 3): an array X must be "
                   "m x 5 x 3 (example x step x feature), or a matrix of 15 columns (5 steps of 3, step "
                   "after step), one row per example."),
    ((M, 14), "predict: X is a 12x14 matrix, but the model takes input(5, 3): X needs 15 columns (5 steps "
              "of 3, step after step), one row per example, or is an m x 5 x 3 array."),
])
def test_a_shape_that_does_not_fit_a_sequence_input_names_it(shape, message):
    with pytest.raises(LaminaError) as e:
        predict(gru_net(), np.zeros(shape))
    assert e.value.kind == "ShapeError" and e.value.message == message


def test_an_array_for_a_model_of_rows_is_refused_with_the_reshape_that_makes_rows():
    net = compile_model(dense_layer(input_spec(15.0), 1.0, "none"), get("adam"), "mse", 1.0)
    X3, _, Y = sequences()
    for call in (lambda: predict(net, X3), lambda: fit(net, X3, Y[:, :1], verbose=0)):
        with pytest.raises(LaminaError) as e:
            call()
        who = e.value.message.split(":")[0]
        assert e.value.kind == "ShapeError" and e.value.message == (
            f"{who}: X is a 12x5x3 array, but the model takes input(15): X needs 15 columns, one row per "
            "example (only a model made with input(steps, features) or input(height, width, channels) "
            "takes an array of examples; reshape(X, 12, -1) makes each example a row).")


def test_y_of_rank_3_for_a_model_of_rows_is_refused():
    X3, _, Y = sequences()
    with pytest.raises(LaminaError) as e:
        evaluate(gru_net(), X3, Y.reshape(M, 2, 1))
    assert e.value.message == "evaluate: Y must be a vector or matrix, not a 12x2x1 array."


@dataclass(frozen=True)
class StepScale(Layer):
    """y = x .* s per element, keeping the data's steps, with an activation (so a model may end
    with it): a last layer that gives sequences."""
    kind = "step_scale"
    activation = "none"

    def parameters(self, data: DataShape) -> dict:
        return {"s": (1, *data.shape)}

    def init(self, data, rng) -> list:
        return [rng.uniform(0.5, 1.5, (1, *data.shape))]

    def forward(self, x, params, data, training, rng, logits=False):
        return ops.emul(x, params[0])


@pytest.fixture
def step_scale():
    register(StepScale)
    yield StepScale
    del KINDS["step_scale"]


def test_a_last_layer_of_sequences_predicts_an_array_from_an_array(step_scale):
    spec = gru_layer(input_spec(float(T), float(F)), 2.0, True).with_layer(StepScale())
    net = compile_model(spec, get("adam").with_hp(lr=0.05), "mse", 6.0)
    X3, X2, _ = sequences(6)
    got = predict(net, X3)
    assert got.shape == (M, T, 2) and predict(net, X2).shape == (M, T * 2)
    g, s = (layer.fields for layer in net.get("weights"))
    np.testing.assert_allclose(got, gru_by_steps(X3, g, True) * s["s"].reshape(1, T, 2), rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(got.reshape(M, -1), predict(net, X2))

    Y3 = np.random.default_rng(7).uniform(-0.5, 0.5, (M, T, 2))
    by_array = fit(net, X3, Y3, epochs=2, batch_size=4, verbose=0)
    by_matrix = fit(net, X2, Y3.reshape(M, -1), epochs=2, batch_size=4, verbose=0)
    np.testing.assert_array_equal(by_array.loss_history, by_matrix.loss_history)
    assert evaluate(net, X3, Y3).fields == evaluate(net, X2, Y3.reshape(M, -1)).fields
    with pytest.raises(LaminaError) as e:
        evaluate(net, X3, Y3.reshape(M, 2, T))
    assert e.value.message == ("evaluate: Y must be a vector or matrix, or an m x 5 x 2 array (the last "
                               "layer's sequences), not a 12x2x5 array.")
