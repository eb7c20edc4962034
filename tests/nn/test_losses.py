"""Losses against NumPy and PyTorch, stability, target forms, gradients, errors."""
import contextlib
import inspect
import io
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lamina import warnings as channel
from lamina.autodiff.grad import grad
from lamina.autodiff.tape import TAPE
from lamina.builtins.index import MODULES
from lamina.builtins.registry import spec_of
from lamina.errors import LaminaError
from lamina.nn import losses as L
from lamina.nn.losses import binary_cross_entropy, cross_entropy, mae, mse, PROB_EPS

RNG = np.random.default_rng(1)
P = RNG.standard_normal((5, 3))
T = RNG.standard_normal((5, 3))
LOGITS = RNG.standard_normal((4, 3)) * 2
CLASSES = np.array([0.0, 2.0, 1.0, 2.0])
ONEHOT = np.eye(3)[CLASSES.astype(int)]


def log_softmax(v):
    s = v - v.max(axis=1, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=1, keepdims=True))


def grad_of(loss_fn, *values):
    TAPE.reset()
    leaves = [TAPE.leaf(v.copy() if isinstance(v, np.ndarray) else v, True) for v in values]
    out = grad(loss_fn(*leaves), leaves)
    TAPE.reset()
    return out


def test_mse_and_mae_values():
    assert mse(P, T) == pytest.approx(np.mean((P - T) ** 2), rel=1e-14)
    assert mae(P, T) == pytest.approx(np.mean(np.abs(P - T)), rel=1e-14)
    assert type(mse(P, T)) is float
    assert mse(np.array([1.0, 2.0]), 1.0) == 0.5
    assert mse(np.array([1.0, 2.0, 3.0]), np.array([[1.0], [2.0], [5.0]])) == pytest.approx(4 / 3)


def test_mse_and_mae_gradients():
    gp, gt = grad_of(mse, P, T)
    np.testing.assert_allclose(gp, 2 * (P - T) / P.size)
    np.testing.assert_allclose(gt, -2 * (P - T) / P.size)
    gp, _ = grad_of(mae, P, T)
    np.testing.assert_allclose(gp, np.sign(P - T) / P.size)
    (g,) = grad_of(lambda p: mse(p, np.array([[0.0], [1.0]])), np.array([0.5, 1.5]))
    assert g.shape == (2,)


def test_cross_entropy_from_logits():
    want = -np.mean(log_softmax(LOGITS)[np.arange(4), CLASSES.astype(int)])
    assert cross_entropy(LOGITS, CLASSES) == pytest.approx(want, rel=1e-14)
    assert cross_entropy(LOGITS, ONEHOT) == pytest.approx(want, rel=1e-14)
    row = cross_entropy(LOGITS[1], np.array([0.0, 0.0, 1.0]))
    assert row == pytest.approx(-log_softmax(LOGITS[1:2])[0, 2], rel=1e-14)
    assert cross_entropy(LOGITS[1], 2.0) == pytest.approx(row, rel=1e-14)


def test_cross_entropy_from_probs_and_its_clip():
    probs = np.exp(log_softmax(LOGITS))
    assert cross_entropy(probs, CLASSES, **{"from": "probs"}) == pytest.approx(
        cross_entropy(LOGITS, CLASSES), rel=1e-12)
    loss = cross_entropy(np.array([[0.0, 1.0]]), np.array([0.0]), **{"from": "probs"})
    assert loss == pytest.approx(-np.log(PROB_EPS))


def test_cross_entropy_is_stable():
    assert cross_entropy(np.array([[1000.0, 0.0]]), np.array([1.0])) == 1000.0
    (g,) = grad_of(lambda s: cross_entropy(s, np.array([1.0])), np.array([[1000.0, 0.0]]))
    np.testing.assert_allclose(g, [[1.0, -1.0]])


def test_cross_entropy_gradient():
    (g,) = grad_of(lambda s: cross_entropy(s, CLASSES), LOGITS)
    np.testing.assert_allclose(g, (np.exp(log_softmax(LOGITS)) - ONEHOT) / 4, atol=1e-15)


def test_binary_cross_entropy_values_and_stability():
    p = np.array([0.9, 0.2, 0.6])
    y = np.array([1.0, 0.0, 1.0])
    want = -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))
    assert binary_cross_entropy(p, y) == pytest.approx(want, rel=1e-14)
    z = np.array([2.0, -1.0, 0.3])
    want = -np.mean(y * np.log(1 / (1 + np.exp(-z))) + (1 - y) * np.log(1 - 1 / (1 + np.exp(-z))))
    assert binary_cross_entropy(z, y, **{"from": "logits"}) == pytest.approx(want, rel=1e-13)
    assert binary_cross_entropy(np.array([1000.0, -1000.0]), np.array([0.0, 1.0]),
                                **{"from": "logits"}) == 1000.0
    extreme = binary_cross_entropy(np.array([1.0, 0.0]), np.array([0.0, 1.0]))
    assert extreme == pytest.approx(-np.log(PROB_EPS), rel=1e-6)
    assert binary_cross_entropy(np.array([1.0, 0.0]), np.array([1.0, 0.0])) < 1e-11


def test_binary_cross_entropy_gradient():
    z = RNG.standard_normal(6)
    y = (RNG.random(6) > 0.5).astype(float)
    (g,) = grad_of(lambda v: binary_cross_entropy(v, y, **{"from": "logits"}), z)
    np.testing.assert_allclose(g, (1 / (1 + np.exp(-z)) - y) / 6, rtol=1e-12)
    p = 1 / (1 + np.exp(-z))
    (g,) = grad_of(lambda v: binary_cross_entropy(v, y), p)
    np.testing.assert_allclose(g, (p - y) / (p * (1 - p)) / 6, rtol=1e-12)


def test_against_torch():
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    tl = torch.tensor(LOGITS, requires_grad=True)
    want = F.cross_entropy(tl, torch.tensor(CLASSES.astype(int)))
    want.backward()
    assert cross_entropy(LOGITS, CLASSES) == pytest.approx(want.item(), rel=1e-13)
    (g,) = grad_of(lambda s: cross_entropy(s, CLASSES), LOGITS)
    np.testing.assert_allclose(g, tl.grad.numpy(), rtol=1e-12, atol=1e-15)
    soft = np.exp(log_softmax(RNG.standard_normal((4, 3))))
    assert cross_entropy(LOGITS, soft) == pytest.approx(
        F.cross_entropy(torch.tensor(LOGITS), torch.tensor(soft)).item(), rel=1e-13)
    p = RNG.uniform(0.05, 0.95, (3, 2))
    y = RNG.uniform(0, 1, (3, 2))
    assert binary_cross_entropy(p, y) == pytest.approx(
        F.binary_cross_entropy(torch.tensor(p), torch.tensor(y)).item(), rel=1e-13)
    assert binary_cross_entropy(P, np.clip(T, 0, 1), **{"from": "logits"}) == pytest.approx(
        F.binary_cross_entropy_with_logits(torch.tensor(P), torch.tensor(np.clip(T, 0, 1))).item(), rel=1e-13)
    assert mse(P, T) == pytest.approx(F.mse_loss(torch.tensor(P), torch.tensor(T)).item(), rel=1e-14)
    assert mae(P, T) == pytest.approx(F.l1_loss(torch.tensor(P), torch.tensor(T)).item(), rel=1e-14)


@pytest.mark.parametrize("call, kind, words", [
    (lambda: mse(np.ones(3), np.ones(4)), "ShapeError", ["vector of length 3", "vector of length 4"]),
    (lambda: mae(np.ones((2, 3)), np.ones((3, 2))), "ShapeError", ["2x3", "3x2"]),
    (lambda: mse("a", 1.0), "TypeError", ["string"]),
    (lambda: cross_entropy(LOGITS, np.array([0.0, 3.0, 1.0, 2.0])), "ValueError", ["0 to 2", "3"]),
    (lambda: cross_entropy(LOGITS, np.array([0.0, 1.5, 1.0, 2.0])), "ValueError", ["whole numbers"]),
    (lambda: cross_entropy(LOGITS, np.array([0.0, 1.0])), "ShapeError", ["4"]),
    (lambda: cross_entropy(LOGITS, np.ones((4, 2))), "ShapeError", ["4x3", "4x2"]),
    (lambda: cross_entropy(2.0, 1.0), "TypeError", ["vector or matrix"]),
    (lambda: cross_entropy(LOGITS, CLASSES, **{"from": "odds"}), "ValueError", ["logits", "probs"]),
    (lambda: cross_entropy(LOGITS, CLASSES, reduction="sum"), "TypeError", ["reduction"]),
    (lambda: binary_cross_entropy(np.ones(2), np.ones(3)), "ShapeError", ["binary_cross_entropy"]),
    (lambda: binary_cross_entropy(np.full(2, 0.5), np.array([2.0, 0.0])), "ValueError",
     ["labels must lie from 0 to 1", "not 2."]),
    (lambda: binary_cross_entropy(np.ones(2), np.array([1.0, -0.5]), **{"from": "logits"}), "ValueError",
     ["not -0.5."]),
])
def test_errors(call, kind, words):
    with pytest.raises(LaminaError) as e:
        call()
    assert e.value.kind == kind
    for w in words:
        assert w in e.value.message


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_the_checked_rows_form_gives_cross_entropy_bit_for_bit(dtype):
    """fit's batches use cross_entropy_of_rows (targets checked once per fit): the same loss and
    the same gradient for the scores as cross_entropy(..., from = "logits"), one-hot and soft."""
    from lamina.autodiff import ops
    from lamina.nn.losses import cross_entropy_of_rows
    rng = np.random.default_rng(8)
    scores = (3 * rng.standard_normal((7, 4))).astype(dtype)
    onehot = np.eye(4, dtype=dtype)[rng.integers(0, 4, 7)]
    soft = rng.dirichlet(np.ones(4), 7).astype(dtype)
    for t in (onehot, soft):
        TAPE.reset()
        a = TAPE.leaf(scores, True)
        general = cross_entropy(a, t, **{"from": "logits"})
        ga = grad(general, a)
        TAPE.reset()
        b = TAPE.leaf(scores, True)
        checked = cross_entropy_of_rows(b, t)
        gb = grad(checked, b)
        assert checked.value == general.value and np.array_equal(ga, gb) and gb.dtype == dtype
        TAPE.reset()
        c = TAPE.leaf(scores, True)
        twice = grad(ops.mul(2.0, cross_entropy_of_rows(c, t)), c)     # a gradient other than 1
        assert np.array_equal(twice, 2.0 * gb)
        assert cross_entropy_of_rows(scores, t) == general.value           # untracked: a number


# -- a metric's argument order given to a loss -----------------------------------------------
LOSSES = sorted(name for name, module in MODULES.items() if module == "losses")
TRUTH = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])
PROBS = np.array([[0.7, 0.2, 0.1], [0.1, 0.3, 0.6], [0.2, 0.5, 0.3], [0.6, 0.3, 0.1]])


def _warnings_of(call) -> tuple[object, list[str]]:
    channel.reset()
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        value = call()
    channel.reset()
    return value, err.getvalue().splitlines()


@pytest.mark.parametrize("name", LOSSES)
@pytest.mark.parametrize("options", [{}, {"from": "probs"}, {"from": "logits"}])
def test_a_loss_given_truth_first_warns_when_the_order_changes_its_value(name, options):
    """Losses take (prediction, target), metrics (truth, prediction): a loss whose value depends
    on the order warns when its prediction holds only 0/1 labels and its target values strictly
    between 0 and 1, and still returns the value of what it was given."""
    fn = spec_of(name).fn
    try:
        inspect.signature(fn).bind(PROBS, TRUTH, **options)
    except TypeError:
        pytest.skip(f"{name} takes no {sorted(options)}")
    right, quiet = _warnings_of(lambda: fn(PROBS, TRUTH, **options))
    swapped, warned = _warnings_of(lambda: fn(TRUTH, PROBS, **options))
    assert quiet == []
    if swapped == pytest.approx(right, rel=1e-12):
        assert warned == []                 # mse, mae: the order does not matter
        return
    assert warned == [f"warning: {name} takes (prediction, target), but the prediction holds only 0/1 "
                      f"labels and the target holds values between 0 and 1: were the arguments given "
                      f"in a metric's order (truth, prediction)?"]


def test_binary_cross_entropy_in_a_metrics_order_warns_and_keeps_its_value():
    y, p = np.array([1.0, 0.0, 1.0, 1.0, 0.0]), np.array([0.9, 0.2, 0.7, 0.6, 0.1])
    value, warned = _warnings_of(lambda: binary_cross_entropy(y, p))
    clipped = np.clip(y, PROB_EPS, 1 - PROB_EPS)
    assert value == pytest.approx(-np.mean(p * np.log(clipped) + (1 - p) * np.log1p(-clipped)), rel=1e-12)
    assert len(warned) == 1 and "binary_cross_entropy takes (prediction, target)" in warned[0]
    for quiet in [(p, y), (np.zeros(5), p), (y, np.array([1.0, 0.0, 1.0, 0.0, 0.0]))]:
        assert _warnings_of(lambda: binary_cross_entropy(*quiet))[1] == []


LAMINA = str(Path(sys.executable).with_name("lamina"))


def test_cross_entropy_minus_inf_logit_off_target_is_finite():
    # torch.nn.functional.cross_entropy([[0, -inf], [1, 2]], [0, 1]) = 0.15663084375911143
    code = "print(cross_entropy([0.0, -Inf; 1.0, 2.0], [0, 1]))"
    out = subprocess.run([LAMINA, "-e", code], capture_output=True, text=True).stdout
    assert out == "0.15663084375911143\n"


def test_cross_entropy_minus_inf_logit_soft_targets_and_float32():
    for dtype in (np.float64, np.float32):
        s = np.array([[0.0, -np.inf, 1.0]], dtype)
        t = np.array([[0.25, 0.0, 0.75]], dtype)
        # by hand: log_softmax of [0, 1] (the -Inf class has probability 0)
        lse = np.log1p(np.exp(1.0))
        expected = 0.25 * lse + 0.75 * (lse - 1.0)
        got = L.cross_entropy(s, t)
        assert np.isclose(got, expected, rtol=1e-6)


def test_binary_cross_entropy_float32_probability_one_is_clipped_finite():
    # help: "a probability of exactly 0 or 1 gives a large finite loss rather than Inf"
    x = np.array([1.0, 0.0], np.float32)
    y = np.array([0.0, 1.0], np.float32)
    # both probabilities clip into [1e-12, 1 - 1e-12], by hand in float64 (as for float64 input)
    expected = -(np.log1p(-(1.0 - 1e-12)) + np.log(1e-12)) / 2
    assert np.isclose(L.binary_cross_entropy(x.astype(np.float64), y), expected, rtol=1e-12)
    assert np.isclose(L.binary_cross_entropy(x, y), expected, rtol=1e-9)
