"""predict and evaluate: shapes, what they compute, accuracy, errors."""
import math

import numpy as np
import pytest

from lamina.errors import LaminaError
from lamina.models.evaluate import evaluate, predict


def test_predict_is_the_forward_pass_as_a_matrix(build, xor):
    x, _ = xor
    net = build([(3, "tanh"), (1, "none")], seed=3)
    w0, b0, w1, b1 = net.optimizer.params
    out = predict(net, x)
    assert out.shape == (4, 1)
    np.testing.assert_allclose(out, np.tanh(x @ w0 + b0) @ w1 + b1, rtol=1e-14)


def test_softmax_outputs_are_probabilities(build, blobs):
    x, _ = blobs
    p = predict(build([(4, "relu"), (3, "softmax")], inputs=3, loss="cross_entropy"), x)
    assert p.shape == (120, 3) and np.allclose(p.sum(axis=1), 1) and (p > 0).all()


def test_evaluate_regression_returns_the_loss(build, xor):
    x, y = xor
    for loss, f in (("mse", lambda d: np.mean(d ** 2)), ("mae", lambda d: np.mean(np.abs(d)))):
        net = build([(3, "tanh"), (1, "none")], loss=loss, seed=3)
        r = evaluate(net, x, y)
        assert list(r.fields) == ["loss"]
        assert r.fields["loss"] == pytest.approx(f(predict(net, x) - y), rel=1e-14)


def test_evaluate_cross_entropy_loss_and_accuracy(build, blobs):
    x, labels = blobs
    net = build([(3, "softmax")], inputs=3, loss="cross_entropy", seed=8)
    p = predict(net, x)
    r = evaluate(net, x, labels).fields
    assert list(r) == ["loss", "accuracy"]
    assert r["loss"] == pytest.approx(-np.mean(np.log(p[np.arange(120), labels.astype(int)])), rel=1e-12)
    assert r["accuracy"] == np.mean(p.argmax(axis=1) == labels)
    assert evaluate(net, x, np.eye(3)[labels.astype(int)]).fields == r


def test_evaluate_binary_cross_entropy_accuracy(build):
    x = np.array([[-2.0], [-1.0], [1.0], [2.0]])
    y = np.array([0.0, 1.0, 1.0, 1.0])
    net = build([(1, "sigmoid")], inputs=1, loss="binary_cross_entropy", seed=0)
    p = predict(net, x)
    r = evaluate(net, x, y).fields
    assert r["accuracy"] == np.mean((p.ravel() >= 0.5) == (y >= 0.5))
    assert r["loss"] == pytest.approx(-np.mean(y * np.log(p.ravel()) + (1 - y) * np.log(1 - p.ravel())))


def test_raw_scores_with_activation_none(build, blobs):
    x, labels = blobs
    net = build([(3, "none")], inputs=3, loss="cross_entropy", seed=8)
    scores = predict(net, x)
    assert not np.allclose(scores.sum(axis=1), 1)
    r = evaluate(net, x, labels).fields
    logp = scores - np.log(np.exp(scores).sum(axis=1, keepdims=True))
    assert r["loss"] == pytest.approx(-np.mean(logp[np.arange(120), labels.astype(int)]))


def test_method_calls(run):
    lines, _ = run('net = input(2) |> dense(2, activation = "softmax") |> compile(loss = "cross_entropy", seed = 1)\n'
                   'X = [1.0, 2.0; -1.0, 0.5]\nprint(size(net.predict(X)))\n'
                   'r = net.evaluate(X, [0, 1])\nprint(keys(r), r.accuracy >= 0)')
    assert lines == ["[2, 2]", '["loss", "accuracy"] true']


@pytest.mark.parametrize("call, kind, words", [
    ('predict(net, [1, 2, 3; 4, 5, 6])', "ShapeError", "predict: X is a 2x3 matrix, but the model takes input(2)"),
    ('predict(input(2) |> dense(1), [1, 2])', "TypeError", "compile it first"),
    ('evaluate(net, [1, 2; 3, 4], [1, 2, 3])', "ShapeError", "evaluate: X has 2 rows"),
    ('evaluate("net", [1, 2; 3, 4], [1, 2])', "TypeError", "evaluate needs a model"),
])
def test_errors(run, call, kind, words):
    with pytest.raises(LaminaError) as e:
        run('net = input(2) |> dense(1) |> compile(seed = 0)\n' + call)
    assert e.value.kind == kind and words in e.value.message, e.value.message


def test_nan_scores_give_nan_accuracy_not_a_count(build):
    # a NaN input row gives NaN scores; argmax read them as class 0 and counted row 0 right
    x = np.array([[np.nan, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    net = build([(3, "softmax")], loss="cross_entropy", seed=2)
    assert np.isnan(predict(net, x)[0]).all()
    r = evaluate(net, x, np.array([0.0, 1.0, 2.0, 1.0])).fields
    assert math.isnan(r["loss"]) and math.isnan(r["accuracy"])
    net = build([(1, "sigmoid")], loss="binary_cross_entropy", seed=2)
    r = evaluate(net, x, np.array([0.0, 1.0, 1.0, 0.0])).fields
    assert math.isnan(r["loss"]) and math.isnan(r["accuracy"])


# -- an m x steps x features array X in a program (issue 39) ----------------------------------
SEQUENCES = "seed(8)\nX3 = randn(10, 4, 3)\nX2 = reshape(X3, 10, -1)\nY = randn(10, 1)\n"


def test_fit_predict_and_evaluate_take_an_array_of_sequences_in_a_program(run):
    _, interp = run(SEQUENCES +
                    'net = input(4, 3) |> gru(5) |> dense(1) |> compile(optimizer = adam(lr = 0.05), seed = 3)\n'
                    'a = net.fit(X3, Y, epochs = 3, batch_size = 4, validation_data = [X3, Y], verbose = 0)\n'
                    'b = fit(net, X2, Y, epochs = 3, batch_size = 4, validation_data = [X2, Y], verbose = 0)\n'
                    'p3 = predict(a, X3)\np2 = a.predict(X2)\ne3 = evaluate(a, X3, Y)\ne2 = b.evaluate(X2, Y)')
    a, b = interp.get("a"), interp.get("b")
    np.testing.assert_array_equal(a.loss_history, b.loss_history)
    np.testing.assert_array_equal(a.val_loss_history, b.val_loss_history)
    assert interp.get("p3").shape == (10, 1)
    np.testing.assert_array_equal(interp.get("p3"), interp.get("p2"))
    np.testing.assert_array_equal(interp.get("p3"), predict(b, interp.get("X3").reshape(10, 12)))
    assert interp.get("e3").fields == interp.get("e2").fields


@pytest.mark.parametrize("call, message", [
    ("predict(net, permute(X3, [0, 2, 1]))",
     "predict: X is a 10x3x4 array, but the model takes input(4, 3): an array X must be m x 4 x 3 (example x "
     "step x feature), or a matrix of 12 columns (4 steps of 3, step after step), one row per example."),
    ("evaluate(flat, X3, Y)", "evaluate: X is a 10x4x3 array, but the model takes input(12): X needs 12 "
                              "columns, one row per example (only a model made with input(steps, features) "
                              "or input(height, width, channels) takes an array of examples; reshape(X, 10, -1) "
                              "makes each example a row)."),
    ("fit(net, X3, reshape(Y, 10, 1, 1), verbose = 0)", "fit: Y must be a vector or matrix, not a 10x1x1 array."),
    ("predict(linreg([1, 2, 3], [2, 4, 7]), X3)", "predict of a linear model takes its new rows as a matrix "
                                                  "or a table, not a 10x4x3 array."),
    ("quick_mlp(X3, Y)", "quick_mlp takes numbers, vectors and matrices, not a 10x4x3 array."),
])
def test_an_array_that_does_not_fit_is_a_shape_error_naming_both(run, call, message):
    with pytest.raises(LaminaError) as e:
        run(SEQUENCES + 'net = input(4, 3) |> gru(2) |> dense(1) |> compile(seed = 1)\n'
            'flat = input(12) |> dense(1) |> compile(seed = 1)\n' + call)
    assert e.value.kind == "ShapeError" and e.value.message.startswith(message), e.value.message
