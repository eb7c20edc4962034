"""batch_norm (nn/batch_norm.py) against torch.nn.functional.batch_norm in float64: the output,
the running statistics and every gradient to 1e-10, channels last against torch's channels first."""

import numpy as np
import pytest
import torch

from lamina.autodiff import ops, reductions
from lamina.autodiff.grad import grad
from lamina.autodiff.tape import TAPE
from lamina.errors import LaminaError
from lamina.nn.batch_norm import batch_norm
from lamina.values import Record

TOL = 1e-10


def channels_first(a):
    """n x ... x c (Lamina, Keras) -> n x c x ... (torch)."""
    return np.moveaxis(a, -1, 1)


def torch_batch_norm(x, gamma, beta, mean, var, training, momentum=0.1, eps=1e-5):
    """(y channels last, running mean, running var, and the tensors x, gamma, beta for their grads)."""
    tx = torch.tensor(channels_first(x), requires_grad=True)
    tg, tb = torch.tensor(gamma, requires_grad=True), torch.tensor(beta, requires_grad=True)
    rm, rv = torch.tensor(mean.copy()), torch.tensor(var.copy())
    y = torch.nn.functional.batch_norm(tx, rm, rv, tg, tb, training=training, momentum=momentum, eps=eps)
    return y, rm, rv, (tx, tg, tb)


SHAPES = [(7, 3), (4, 5, 2), (3, 4, 5, 6), (2, 3, 2, 3, 4)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("training", [True, False])
def test_output_running_statistics_and_gradients_equal_torch(shape, training):
    rng = np.random.default_rng(len(shape) * 10 + training)
    n_c = shape[-1]
    x = rng.standard_normal(shape) * 3 + 1
    gamma, beta = rng.standard_normal(n_c), rng.standard_normal(n_c)
    mean, var = rng.standard_normal(n_c), rng.uniform(0.5, 2.0, n_c)
    R = rng.standard_normal(shape)
    momentum, eps = 0.3, 1e-3

    TAPE.reset()
    tx, tg, tb = (TAPE.leaf(a.copy(), True) for a in (x, gamma, beta))
    out = batch_norm(tx, tg, tb, training=training, running=Record({"mean": mean, "var": var}),
                     momentum=momentum, eps=eps)
    y = out.fields["y"] if training else out
    grads = grad(reductions.sum(ops.emul(y, R)), [tx, tg, tb])
    TAPE.reset()

    want, rm, rv, leaves = torch_batch_norm(x, gamma, beta, mean, var, training, momentum, eps)
    (want * torch.tensor(channels_first(R))).sum().backward()
    np.testing.assert_allclose(y.value, np.moveaxis(want.detach().numpy(), 1, -1), rtol=TOL, atol=TOL)
    if training:
        running = out.fields["running"].fields
        np.testing.assert_allclose(running["mean"], rm.numpy(), rtol=TOL, atol=TOL)
        np.testing.assert_allclose(running["var"], rv.numpy(), rtol=TOL, atol=TOL)
    np.testing.assert_allclose(grads[0], np.moveaxis(leaves[0].grad.numpy(), 1, -1), rtol=TOL, atol=TOL)
    np.testing.assert_allclose(grads[1], leaves[1].grad.numpy(), rtol=TOL, atol=TOL)
    np.testing.assert_allclose(grads[2], leaves[2].grad.numpy(), rtol=TOL, atol=TOL)


def test_running_statistics_start_at_zero_and_one_and_follow_a_loop_as_torch_does():
    rng = np.random.default_rng(2)
    bn = torch.nn.BatchNorm1d(3).double()
    stats = None
    for _ in range(5):
        x = rng.standard_normal((6, 3)) * [1.0, 2.0, 0.5] + [5.0, -1.0, 0.0]
        out = batch_norm(x, np.ones(3), np.zeros(3), running=stats)
        stats = out.fields["running"]
        want = bn(torch.tensor(x))
        np.testing.assert_allclose(out.fields["y"], want.detach().numpy(), rtol=TOL, atol=TOL)
    np.testing.assert_allclose(stats.fields["mean"], bn.running_mean.numpy(), rtol=TOL, atol=TOL)
    np.testing.assert_allclose(stats.fields["var"], bn.running_var.numpy(), rtol=TOL, atol=TOL)
    bn.eval()
    x = rng.standard_normal((2, 3))
    np.testing.assert_allclose(batch_norm(x, np.ones(3), np.zeros(3), training=False, running=stats),
                               bn(torch.tensor(x)).detach().numpy(), rtol=TOL, atol=TOL)


def test_gamma_and_beta_as_numbers_and_rows_get_gradients_of_their_shape():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((5, 4))
    TAPE.reset()
    tx, tg, tb = TAPE.leaf(x, True), TAPE.leaf(2.0, True), TAPE.leaf(rng.standard_normal((1, 4)), True)
    out = batch_norm(tx, tg, tb)
    _, gg, gb = grad(reductions.sum(ops.emul(out.fields["y"], x)), [tx, tg, tb])
    TAPE.reset()
    assert type(gg) is float and gb.shape == (1, 4)
    xhat = (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-5)
    assert gg == pytest.approx(float(np.sum(x * xhat)), rel=1e-12)
    np.testing.assert_allclose(gb, x.sum(0, keepdims=True), rtol=1e-12)


def test_float32_stays_float32():
    x = np.random.default_rng(4).standard_normal((6, 2, 3)).astype(np.float32)
    gamma, beta = np.ones(3, dtype=np.float32), np.zeros(3, dtype=np.float32)
    TAPE.reset()
    tx = TAPE.leaf(x, True)
    out = batch_norm(tx, gamma, beta)
    assert out.fields["y"].value.dtype == np.float32
    assert all(v.dtype == np.float32 for v in out.fields["running"].fields.values())
    assert grad(reductions.sum(ops.emul(out.fields["y"], x)), [tx])[0].dtype == np.float32
    TAPE.reset()
    y = batch_norm(x, gamma, beta, training=False, running=out.fields["running"])
    assert y.dtype == np.float32


@pytest.mark.parametrize("call, kind, message", [
    (lambda: batch_norm(np.ones((1, 3)), np.ones(3), np.zeros(3)), "ValueError",
     "batch_norm in training mode needs more than one value per channel to take a variance, but x is a "
     "1x3 matrix: a batch of one (1 per channel). Use training = false with running statistics for a "
     "single example."),
    (lambda: batch_norm(np.ones((4, 3)), np.ones(2), np.zeros(3)), "ShapeError",
     "batch_norm's gamma must be a number or a vector of length 3 (one per channel, the last axis of x), "
     "not a vector of length 2."),
    (lambda: batch_norm(np.ones((4, 3)), np.ones(3), np.zeros((2, 3))), "ShapeError",
     "batch_norm's beta must be a number or a vector of length 3"),
    (lambda: batch_norm(np.ones(4), 1.0, 0.0), "ShapeError",
     "batch_norm's x must be batch x channels (or an array with the channels last, n x h x w x c), not "
     "a vector of length 4."),
    (lambda: batch_norm(np.ones((4, 3)), 1.0, 0.0, training=False), "TypeError",
     "batch_norm with training = false normalises with the running statistics"),
    (lambda: batch_norm(np.ones((4, 3)), 1.0, 0.0, running=Record({"mean": np.zeros(3)})), "TypeError",
     "batch_norm's running must be a record {mean, var}"),
    (lambda: batch_norm(np.ones((4, 3)), 1.0, 0.0, running=Record({"mean": np.zeros(2), "var": np.ones(3)})),
     "ShapeError", "batch_norm's running.mean must be a vector of length 3"),
    (lambda: batch_norm(np.ones((4, 3)), 1.0, 0.0, momentum=1.5), "ValueError",
     "batch_norm's momentum must be from 0 to 1, not 1.5."),
    (lambda: batch_norm(np.ones((4, 3)), 1.0, 0.0, eps=0.0), "ValueError",
     "batch_norm's eps must be a finite number above 0, not 0."),
    (lambda: batch_norm(np.ones((4, 3)), 1.0, 0.0, training=1.0), "TypeError",
     "batch_norm's training must be true or false, not a number."),
])
def test_bad_input_is_named(call, kind, message):
    with pytest.raises(LaminaError) as caught:
        call()
    assert caught.value.kind == kind and caught.value.message.startswith(message), caught.value.message


def test_tracked_running_statistics_are_refused():
    TAPE.reset()
    stats = Record({"mean": TAPE.leaf(np.zeros(3), True), "var": np.ones(3)})
    with pytest.raises(LaminaError, match=r"running.mean is tracked .* detach"):
        batch_norm(np.ones((4, 3)), 1.0, 0.0, running=stats)
    TAPE.reset()


def test_a_batch_of_one_image_has_many_values_per_channel(run):
    lines, _ = run("out = batch_norm(reshape(range(8), 1, 2, 2, 2), 1, 0)\nprint(round(out.y, 3))\n"
                   "print(round(out.running.mean, 3))")
    assert lines[-1] == "[0.3, 0.4]"
