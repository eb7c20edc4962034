"""quick_mlp: the seed's XOR data reach a small loss; the options; errors."""
import numpy as np
import pytest

from lamina.errors import LaminaError
from lamina.models.quick import quick_mlp

XOR = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])


def test_the_seed_line(run):
    lines, _ = run('Xxor = [0.0, 0.0; 0.0, 1.0; 1.0, 0.0; 1.0, 1.0]\nYxor = [0.0; 1.0; 1.0; 2.0]\n'
                        'quick = quick_mlp(Xxor, Yxor, seed = 3)\nnq = length(quick.loss_history)\n'
                        'print("quick_mlp: loss {round(quick.loss_history[0], 4)} -> '
                        '{round(quick.loss_history[nq - 1], 4)}")')
    first, last = (float(v) for v in lines[0].removeprefix("quick_mlp: loss ").split(" -> "))
    assert first > 0.1 and last < 1e-3


@pytest.mark.parametrize("y", [[0, 1, 1, 2], [0, 1, 1, 0]])
def test_defaults_fit_xor_like_data_for_any_seed(y):
    for s in range(8):
        m = quick_mlp(XOR, np.array(y, dtype=float), seed=float(s), verbose=0)
        assert m.get("loss_history")[-1] < 0.01, s


def test_the_model_it_builds():
    m = quick_mlp(XOR, np.array([0.0, 1, 1, 2]), verbose=0)
    assert [l.label() for l in m.spec.layers] == ['dense(16, activation = "tanh")',
                                                   'dense(1, activation = "none")']
    assert m.epochs == 300 and m.optimizer.hp["lr"] == 0.05 and m.loss.name == "mse" and m.seed == 0


def test_options(run):
    m = quick_mlp(XOR, np.array([[0.0, 1], [1, 0], [1, 0], [0, 1]]), hidden=np.array([8.0, 4.0]),
                  epochs=50, activation="relu", loss="binary_cross_entropy", lr=0.1, batch_size=2, verbose=0)
    assert [l.label() for l in m.spec.layers] == ['dense(8, activation = "relu")', 'dense(4, activation = "relu")',
                                                   'dense(2, activation = "sigmoid")']
    assert m.epochs == 50 and m.optimizer.t == 100 and m.optimizer.hp["lr"] == 0.1
    lines, _ = run('X = [0.0, 0.0; 0.0, 1.0; 1.0, 0.0; 1.0, 1.0]\n'
                        'c = quick_mlp(X, [0, 1, 1, 2], loss = "cross_entropy", seed = 1, epochs = 150)\n'
                        'print(c.outputs, evaluate(c, X, [0, 1, 1, 2]).accuracy)\n'
                        'r = quick_mlp(X, [0, 1, 1, 2], optimizer = lr_cosine(0.05, 100), epochs = 10)\n'
                        'print(r.schedule.name)\ns = quick_mlp(X, [0, 1, 1, 2], optimizer = "sgd", epochs = 1)\n'
                        'print(s.optimizer.name, s.optimizer.lr)\nl = quick_mlp(X, [0, 1, 1, 2], hidden = [], epochs = 1)\n'
                        'print(length(l.layers))')
    assert lines == ["3 1", "lr_cosine", "sgd 0.01", "1"]


@pytest.mark.parametrize("call, kind, words", [
    ('quick_mlp(X, Y, loss = "hinge")', "ValueError", "no loss \"hinge\""),
    ('quick_mlp(X, Y, hidden = 0)', "ValueError", "at least 1"),
    ('quick_mlp(X, Y, hidden = [4, 2; 1, 1])', "TypeError", "vector of layer widths"),
    ('quick_mlp(X, [1, 2])', "ShapeError", "X has 4 rows"),
    ('quick_mlp(X, Y, activation = "cube")', "ValueError", "no activation \"cube\""),
    ('quick_mlp("X", Y)', "TypeError", "quick_mlp's X"),
])
def test_errors(run, call, kind, words):
    with pytest.raises(LaminaError) as e:
        run('X = [0.0, 0.0; 0.0, 1.0; 1.0, 0.0; 1.0, 1.0]\nY = [0, 1, 1, 2]\n' + call)
    assert e.value.kind == kind and words in e.value.message, e.value.message


XOR_PROGRAM = "X = [0.0, 0.0; 0.0, 1.0; 1.0, 0.0; 1.0, 1.0]\n"


def test_quick_mlp_one_column_of_class_indices_gets_one_unit_per_class(run):
    # fit reads one column of Y as class indices for cross_entropy (models/data.py); quick_mlp
    # made a 1-unit output layer for it and failed with "cross_entropy needs ... 2 units"
    out, interp = run(XOR_PROGRAM + 'm = quick_mlp(X, [0; 1; 1; 2], loss = "cross_entropy", epochs = 2, '
                                    'verbose = 0)\nprint(m.outputs, m.layers[1].activation)')
    assert out == ["3 softmax"]


def test_quick_mlp_schedule_with_lr_starts_the_schedule_at_lr(run):
    # was: TypeError "An optimizer must be ... not a schedule", though the help allows a schedule
    out, _ = run(XOR_PROGRAM + 'm = quick_mlp(X, [0; 1; 1; 2], optimizer = lr_step(lr = 0.1, every = 2, '
                               'base = sgd(momentum = 0.5)), lr = 0.3, epochs = 3, verbose = 0)\n'
                               'print(m.schedule)\nprint(m.lr_history, m.optimizer.momentum)')
    assert out == ['lr_step(lr = 0.3, every = 2, factor = 0.5, min_lr = 0, base = "sgd")',
                   "[0.3, 0.3, 0.15] 0.5"]


def test_quick_mlp_optimizer_that_is_a_vector_is_a_type_error(run):
    # was: InternalError (the truth value of an array ...) from `optimizer == "adam"`
    with pytest.raises(LaminaError) as e:
        run(XOR_PROGRAM + "m = quick_mlp(X, [1; 2; 3; 4], optimizer = [1, 2], epochs = 2, verbose = 0)")
    assert e.value.kind == "TypeError"
    assert "compile's optimizer must be an optimizer's name" in e.value.message
    assert "not a vector of length 2" in e.value.message
