"""lstm_forward and lstm_cell (nn/lstm.py over nn/lstm_core.py) against torch.nn.LSTM and
torch.nn.LSTMCell in float64: every result and every gradient to 1e-10 on random sizes."""

import numpy as np
import pytest
import torch

from lamina.autodiff import ops, reductions
from lamina.autodiff.grad import grad
from lamina.autodiff.tape import TAPE
from lamina.errors import LaminaError
from lamina.nn import lstm_core, split
from lamina.nn.lstm import lstm_cell, lstm_forward

TOL = 1e-10


def weights(rng, n_in, n_h, scale=0.5):
    return (rng.standard_normal((4 * n_h, n_in)) * scale, rng.standard_normal((4 * n_h, n_h)) * scale,
            rng.standard_normal(4 * n_h) * scale)


def torch_lstm(w_ih, w_hh, b):
    """torch.nn.LSTM (batch first) with these weights; Lamina's one bias is torch's b_ih (b_hh 0)."""
    n_h = w_hh.shape[1]
    m = torch.nn.LSTM(w_ih.shape[1], n_h, batch_first=True).double()
    with torch.no_grad():
        m.weight_ih_l0.copy_(torch.tensor(w_ih))
        m.weight_hh_l0.copy_(torch.tensor(w_hh))
        m.bias_ih_l0.copy_(torch.tensor(b))
        m.bias_hh_l0.zero_()
    return m


def tracked(*arrays):
    return [TAPE.leaf(a.copy(), True) for a in arrays]


def weighted(out, R):
    """sum(out .* R) on the tape."""
    return reductions.sum(ops.emul(out, R))


def close(got, want):
    np.testing.assert_allclose(got, want.detach().numpy() if torch.is_tensor(want) else want,
                               rtol=TOL, atol=TOL)


@pytest.mark.parametrize("seed", range(6))
def test_forward_and_every_gradient_equal_torch(seed):
    rng = np.random.default_rng(seed)
    B, T, n_in, n_h = (int(k) for k in rng.integers(1, 7, size=4))
    w_ih, w_hh, b = weights(rng, n_in, n_h)
    X = rng.standard_normal((B, T, n_in))
    h0, c0 = rng.standard_normal((B, n_h)), rng.standard_normal((B, n_h))
    Rs, Rh, Rc = rng.standard_normal((B, T, n_h)), rng.standard_normal((B, n_h)), rng.standard_normal((B, n_h))

    TAPE.reset()
    args = tracked(X, w_ih, w_hh, b, h0, c0)
    out = lstm_forward(*args)
    loss = ops.add(ops.add(weighted(out.fields["hs"], Rs), weighted(out.fields["h"], Rh)),
                   weighted(out.fields["c"], Rc))
    grads = grad(loss, args)
    values = [out.fields[k].value for k in ("hs", "h", "c")]
    TAPE.reset()

    m = torch_lstm(w_ih, w_hh, b)
    tx, th, tc = (torch.tensor(a, requires_grad=True) for a in (X, h0[None], c0[None]))
    ths, (hn, cn) = m(tx, (th, tc))
    ((ths * torch.tensor(Rs)).sum() + (hn[0] * torch.tensor(Rh)).sum() + (cn[0] * torch.tensor(Rc)).sum()).backward()
    for got, want in zip(values, (ths, hn[0], cn[0])):
        close(got, want)
    want_grads = (tx.grad, m.weight_ih_l0.grad, m.weight_hh_l0.grad, m.bias_ih_l0.grad, th.grad[0], tc.grad[0])
    for got, want in zip(grads, want_grads):
        close(got, want)


@pytest.mark.parametrize("which", ["hs", "h", "c"])
def test_a_loss_on_one_result_alone(which):
    rng = np.random.default_rng(11)
    w_ih, w_hh, b = weights(rng, 3, 4)
    X = rng.standard_normal((5, 7, 3))
    TAPE.reset()
    args = tracked(X, w_ih, w_hh, b)
    out = lstm_forward(*args)
    R = rng.standard_normal(out.fields[which].value.shape)
    grads = grad(weighted(out.fields[which], R), args)
    TAPE.reset()
    m = torch_lstm(w_ih, w_hh, b)
    tx = torch.tensor(X, requires_grad=True)
    ths, (hn, cn) = m(tx)
    ({"hs": ths, "h": hn[0], "c": cn[0]}[which] * torch.tensor(R)).sum().backward()
    for got, want in zip(grads, (tx.grad, m.weight_ih_l0.grad, m.weight_hh_l0.grad, m.bias_ih_l0.grad)):
        close(got, want)


def test_one_sequence_is_steps_x_features_as_torch_unbatched():
    rng = np.random.default_rng(3)
    w_ih, w_hh, b = weights(rng, 2, 3)
    X = rng.standard_normal((6, 2))
    out = lstm_forward(X, w_ih, w_hh, b)
    assert out.fields["hs"].shape == (6, 3) and out.fields["h"].shape == (3,) and out.fields["c"].shape == (3,)
    ths, (hn, cn) = torch_lstm(w_ih, w_hh, b)(torch.tensor(X))
    close(out.fields["hs"], ths)
    close(out.fields["c"], cn[0])


def test_leading_axes_are_batch_axes_and_a_shared_first_state_gets_the_summed_gradient():
    rng = np.random.default_rng(4)
    w_ih, w_hh, b = weights(rng, 3, 2)
    X = rng.standard_normal((2, 3, 4, 3))           # 2 x 3 sequences of 4 steps
    h0, c0 = rng.standard_normal(2), rng.standard_normal((2, 3, 2))
    TAPE.reset()
    tX, th0 = tracked(X, h0)
    out = lstm_forward(tX, w_ih, w_hh, b, th0, c0)
    assert out.fields["hs"].value.shape == (2, 3, 4, 2) and out.fields["h"].value.shape == (2, 3, 2)
    R = rng.standard_normal((2, 3, 4, 2))
    gX, gh0 = grad(weighted(out.fields["hs"], R), [tX, th0])
    TAPE.reset()
    m = torch_lstm(w_ih, w_hh, b)
    tx = torch.tensor(X.reshape(6, 4, 3), requires_grad=True)
    th = torch.tensor(h0, requires_grad=True)
    ths, _ = m(tx, (th.expand(1, 6, 2), torch.tensor(c0.reshape(1, 6, 2))))
    (ths * torch.tensor(R.reshape(6, 4, 2))).sum().backward()
    close(out.fields["hs"].value, ths.reshape(2, 3, 4, 2))
    close(gX, tx.grad.reshape(2, 3, 4, 3))
    assert gh0.shape == (2,)
    close(gh0, th.grad)


@pytest.mark.parametrize("seed", range(3))
def test_cell_equals_torch_lstmcell(seed):
    rng = np.random.default_rng(20 + seed)
    B, n_in, n_h = (int(k) for k in rng.integers(1, 6, size=3))
    w_ih, w_hh, b = weights(rng, n_in, n_h)
    x, h, c = rng.standard_normal((B, n_in)), rng.standard_normal((B, n_h)), rng.standard_normal((B, n_h))
    Rh, Rc = rng.standard_normal((B, n_h)), rng.standard_normal((B, n_h))
    TAPE.reset()
    args = tracked(x, h, c, w_ih, w_hh, b)
    out = lstm_cell(*args)
    grads = grad(ops.add(weighted(out.fields["h"], Rh), weighted(out.fields["c"], Rc)), args)
    values = out.fields["h"].value, out.fields["c"].value
    TAPE.reset()
    cell = torch.nn.LSTMCell(n_in, n_h).double()
    with torch.no_grad():
        cell.weight_ih.copy_(torch.tensor(w_ih))
        cell.weight_hh.copy_(torch.tensor(w_hh))
        cell.bias_ih.copy_(torch.tensor(b))
        cell.bias_hh.zero_()
    tx, th, tc = (torch.tensor(a, requires_grad=True) for a in (x, h, c))
    h1, c1 = cell(tx, (th, tc))
    ((h1 * torch.tensor(Rh)).sum() + (c1 * torch.tensor(Rc)).sum()).backward()
    close(values[0], h1)
    close(values[1], c1)
    want = (tx.grad, th.grad, tc.grad, cell.weight_ih.grad, cell.weight_hh.grad, cell.bias_ih.grad)
    for got, w in zip(grads, want):
        close(got, w)


def test_cell_of_one_example_and_without_a_bias():
    rng = np.random.default_rng(8)
    w_ih, w_hh, _ = weights(rng, 3, 2)
    x, h, c = rng.standard_normal(3), rng.standard_normal(2), rng.standard_normal(2)
    out = lstm_cell(x, h, c, w_ih, w_hh)
    assert out.fields["h"].shape == (2,) and out.fields["c"].shape == (2,)
    cell = torch.nn.LSTMCell(3, 2, bias=False).double()
    with torch.no_grad():
        cell.weight_ih.copy_(torch.tensor(w_ih))
        cell.weight_hh.copy_(torch.tensor(w_hh))
    h1, c1 = cell(torch.tensor(x), (torch.tensor(h), torch.tensor(c)))
    close(out.fields["h"], h1)
    close(out.fields["c"], c1)


def test_cell_is_the_first_step_of_forward():
    rng = np.random.default_rng(9)
    w_ih, w_hh, b = weights(rng, 3, 4)
    X = rng.standard_normal((5, 6, 3))
    h0, c0 = rng.standard_normal((5, 4)), rng.standard_normal((5, 4))
    seq = lstm_forward(X, w_ih, w_hh, b, h0, c0)
    s = {"h": h0, "c": c0}
    for t in range(6):
        s = lstm_cell(X[:, t], s["h"], s["c"], w_ih, w_hh, b).fields
        np.testing.assert_array_equal(s["h"], seq.fields["hs"][:, t])
    np.testing.assert_array_equal(s["c"], seq.fields["c"])


def test_float32_stays_float32():
    rng = np.random.default_rng(10)
    w_ih, w_hh, b = (a.astype(np.float32) for a in weights(rng, 3, 4))
    X = rng.standard_normal((2, 5, 3)).astype(np.float32)
    TAPE.reset()
    args = tracked(X, w_ih, w_hh, b)
    out = lstm_forward(*args)
    assert all(out.fields[k].value.dtype == np.float32 for k in ("hs", "h", "c"))
    grads = grad(reductions.sum(out.fields["hs"]), args)
    assert all(g.dtype == np.float32 for g in grads)
    TAPE.reset()
    want = lstm_forward(X.astype(np.float64), *(a.astype(np.float64) for a in (w_ih, w_hh, b)))
    np.testing.assert_allclose(out.fields["hs"].value, want.fields["hs"], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("call, message", [
    (lambda: lstm_forward(np.zeros(3), np.zeros((8, 3)), np.zeros((8, 2))),
     "lstm_forward's input must be steps x features (one sequence) or batch x steps x features, not a vector"),
    (lambda: lstm_forward(np.zeros((2, 0, 3)), np.zeros((8, 3)), np.zeros((8, 2))),
     "lstm_forward needs at least one step, but its input is a 2x0x3 array."),
    (lambda: lstm_forward(np.zeros((2, 4, 3)), np.zeros((8, 3)), np.zeros((6, 2))),
     "lstm_forward's w_hh must be a 4H x H matrix (H the hidden size; the gates input, forget, cell, "
     "output stacked), not a 6x2 matrix."),
    (lambda: lstm_forward(np.zeros((2, 4, 5)), np.zeros((8, 3)), np.zeros((8, 2))),
     "lstm_forward's w_ih must be a 8x5 matrix"),
    (lambda: lstm_forward(np.zeros((2, 4, 3)), np.zeros((8, 3)), np.zeros((8, 2)), np.zeros(4)),
     "lstm_forward's b must be a vector of length 8"),
    (lambda: lstm_forward(np.zeros((2, 4, 3)), np.zeros((8, 3)), np.zeros((8, 2)), None, np.zeros((3, 2))),
     "lstm_forward's h0 must be a vector of length 2 or a 2x2 matrix (batch x hidden), not a 3x2 matrix."),
    (lambda: lstm_cell(np.zeros(3), np.zeros(2), np.zeros(3), np.zeros((8, 3)), np.zeros((8, 2))),
     "lstm_cell's c must be a vector of length 2 (batch x hidden), not a vector of length 3."),
    (lambda: lstm_cell(1.0, np.zeros(2), np.zeros(2), np.zeros((8, 1)), np.zeros((8, 2))),
     "lstm_cell's x must be a vector of features"),
])
def test_bad_shapes_are_named(call, message):
    with pytest.raises(LaminaError) as caught:
        call()
    assert caught.value.kind == "ShapeError" and caught.value.message.startswith(message), caught.value.message


def test_a_training_loop_in_lamina(run):
    lines, _ = run(
        "seed(5)\nX = randn(16, 10, 2)\nY = sum(X[:, :, 0], axis = 1) ./ 4\n"
        "opt = adam({w_ih = randn(12, 2) * 0.3, w_hh = randn(12, 3) * 0.3, b = zeros(12), v = randn(3, 1) * 0.3}, lr = 0.05)\n"
        "losses = []\n"
        "for step = 1 to 150\n"
        "    p = param(opt.params)\n"
        "    out = lstm_forward(X, p.w_ih, p.w_hh, p.b)\n"
        "    loss = mean((out.h * p.v - Y) .^ 2)\n"
        "    losses = append(losses, loss)\n"
        "    opt = optimizer_step(opt, grad(loss, wrt = p))\n"
        "    tape_reset()\n"
        "end for\n"
        "print(losses[149] < losses[0] / 10)")
    assert lines == ["true"]


@pytest.mark.parametrize("threads", [2, 3])
def test_a_long_batch_split_over_threads_equals_torch(monkeypatch, threads):
    """A pass of 2^22 multiply-adds or more runs its batch in chunks side by side (lstm_core)."""
    monkeypatch.setattr(split, "threads_for_work", lambda: threads)
    rng = np.random.default_rng(30 + threads)
    B, T, n_in, n_h = 35, 130, 3, 16
    assert len(lstm_core._chunks(B, T, n_h)) == threads
    w_ih, w_hh, b = weights(rng, n_in, n_h, scale=0.3)
    X, h0 = rng.standard_normal((B, T, n_in)), rng.standard_normal((B, n_h))
    Rs, Rc = rng.standard_normal((B, T, n_h)), rng.standard_normal((B, n_h))
    TAPE.reset()
    args = tracked(X, w_ih, w_hh, b, h0)
    out = lstm_forward(*args)
    grads = grad(ops.add(weighted(out.fields["hs"], Rs), weighted(out.fields["c"], Rc)), args)
    values = out.fields["hs"].value, out.fields["c"].value
    TAPE.reset()
    m = torch_lstm(w_ih, w_hh, b)
    tx, th = torch.tensor(X, requires_grad=True), torch.tensor(h0[None], requires_grad=True)
    ths, (_, cn) = m(tx, (th, torch.zeros(1, B, n_h, dtype=torch.float64)))
    ((ths * torch.tensor(Rs)).sum() + (cn[0] * torch.tensor(Rc)).sum()).backward()
    close(values[0], ths)
    close(values[1], cn[0])
    for got, want in zip(grads, (tx.grad, m.weight_ih_l0.grad, m.weight_hh_l0.grad, m.bias_ih_l0.grad, th.grad[0])):
        close(got, want)
