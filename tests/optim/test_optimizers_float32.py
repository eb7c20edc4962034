"""Every optimizer keeps a float32 parameter float32: the parameters it holds, its state
(Adam's moments, ...) and the values it hands back, stepping by optimizer_step or in
train_loop, and each step agrees with the same step in float64 to float32 precision."""
import numpy as np
import pytest

from lamina.builtins import optimizers as B
from lamina.builtins.registry import spec_of
from lamina.optim.registry import RULES

OPTIMIZERS = [spec_of(name).fn for name in RULES]      # each rule's constructor builtin
IDS = list(RULES)
table = pytest.mark.parametrize("make", OPTIMIZERS, ids=IDS)


@table
@pytest.mark.parametrize("shape", [(3, 2), (2, 3, 2), (3, 3, 1, 2)], ids=["matrix", "rank3", "rank4"])
def test_parameters_and_state_stay_float32_and_match_float64(make, shape):
    rng = np.random.default_rng(3)
    w = rng.standard_normal(shape)
    grads = [rng.standard_normal(shape) for _ in range(5)]
    opt64 = make([w, 0.5], 0.05)
    opt32 = make([w.astype(np.float32), 0.5], 0.05)
    for g in grads:
        opt64 = B.optimizer_step(opt64, [g, 1.0])
        opt32 = B.optimizer_step(opt32, [g.astype(np.float32), 1.0])   # a float32 gradient
    w32 = opt32.get("params")[0]
    assert w32.dtype == np.float32 and opt32.get("_params")[0].dtype == np.float32
    assert opt32.get("params")[1] == pytest.approx(opt64.get("params")[1])
    for slot in opt32.state[0].values():
        assert slot.dtype == np.float32 and slot.shape == shape
    np.testing.assert_allclose(w32, opt64.get("params")[0], rtol=1e-4, atol=1e-5)


@table
def test_a_float64_gradient_does_not_promote_a_float32_parameter(make):
    opt = make(np.ones(3, dtype=np.float32), 0.1)
    opt = B.optimizer_step(opt, np.array([1.0, -1.0, 0.5]))
    assert opt.get("params").dtype == np.float32
    assert all(s.dtype == np.float32 for s in opt.state[0].values())


def test_a_hand_written_float32_loop_stays_float32(run):
    out, interp = run(
        'w = param([1.0, -2.0; 0.5, 3.0], dtype = "float32")\n'
        'x = float32([1.0, 2.0; -1.0, 0.5])\n'
        'opt = adam(w, lr = 0.1)\n'
        'for i = 1 to 20\n'
        '    tape_reset()\n'
        '    w = param(opt.params)\n'
        '    loss = mean((x * w - 1) .^ 2)\n'
        '    opt = optimizer_step(opt, grad(loss, wrt = w))\n'
        'end for\n'
        'print(dtype(opt.params), dtype(w), dtype(grad(loss, wrt = w)))\n'
        'print(loss < 0.5)')
    assert out == ["float32 float32 float32", "true"]


def test_train_loop_keeps_float32(run):
    out, _ = run(
        'w0 = float32([1.0, -2.0, 0.5])\n'
        'r = train_loop(w -> sum((w - 1) .^ 2), w0, 30, adam(lr = 0.1), returning = "all").params\n'
        'print(dtype(r), max(abs(r - 1)) < 0.5)')
    assert out == ["float32 true"]
