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
