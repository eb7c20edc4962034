"""The lstm layer: its forward and gradients against torch.nn.LSTM with the model's own weights,
its initial weights, the spec rules, and fit, predict, evaluate and save/load in float32 and
float64."""
import numpy as np
import pytest
import torch

from lamina.autodiff import ops, reductions
from lamina.autodiff.grad import grad
from lamina.autodiff.tape import TAPE
from lamina.models.layer import DataShape
from lamina.models.layers.lstm import LSTM, init_weights

M, T, I, H = 4, 5, 3, 6


def torch_lstm(w_ih, w_hh, b):
    m = torch.nn.LSTM(I, H, batch_first=True).double()
    with torch.no_grad():
        m.weight_ih_l0.copy_(torch.tensor(w_ih))
        m.weight_hh_l0.copy_(torch.tensor(w_hh))
        m.bias_ih_l0.copy_(torch.tensor(b))
        m.bias_hh_l0.zero_()
    return m


@pytest.mark.parametrize("return_sequences", [False, True])
def test_forward_and_gradients_equal_torch(return_sequences):
    rng = np.random.default_rng(1)
    X = rng.standard_normal((M, T, I))
    w = init_weights(rng, I, H)
    TAPE.reset()
    tX, *tw = (TAPE.leaf(a.copy(), True) for a in (X, *w))
    out = LSTM(H, return_sequences).forward(tX, tw, DataShape((T, I)), training=True, rng=None)
    R = rng.standard_normal(out.value.shape)
    grads = grad(reductions.sum(ops.emul(out, R)), [tX, *tw])
    TAPE.reset()
    m = torch_lstm(*w)
    x = torch.tensor(X, requires_grad=True)
    hs, (h, _) = m(x)
    want = hs if return_sequences else h[0]
    (want * torch.tensor(R)).sum().backward()
    assert out.value.shape == ((M, T, H) if return_sequences else (M, H))
    np.testing.assert_allclose(out.value, want.detach().numpy(), rtol=1e-10, atol=1e-10)
    for got, g in zip(grads, (x.grad, m.weight_ih_l0.grad, m.weight_hh_l0.grad, m.bias_ih_l0.grad)):
        np.testing.assert_allclose(got, g.numpy(), rtol=1e-10, atol=1e-10)


def test_initial_weights_glorot_orthogonal_and_a_forget_bias_of_one():
    w_ih, w_hh, b = init_weights(np.random.default_rng(0), I, H)
    assert w_ih.shape == (4 * H, I) and w_hh.shape == (4 * H, H) and b.shape == (4 * H,)
    assert np.all(np.abs(w_ih) <= np.sqrt(6 / (H + I)))
    for k in range(4):
        block = w_hh[k * H:(k + 1) * H]
        np.testing.assert_allclose(block @ block.T, np.eye(H), atol=1e-12)
    np.testing.assert_array_equal(b, np.repeat([0.0, 1.0, 0.0, 0.0], H))


def test_shapes_parameters_and_errors_through_a_spec(run):
    lines, _ = run('s = input(10, 3) |> lstm(8, return_sequences = true) |> lstm(4) |> dense(1)\nprint(s)\n'
                   'try\n    input(6) |> lstm(2)\ncatch err\n    print(err.message)\nend try\n'
                   'try\n    input(6, 2) |> lstm(2, return_sequences = 1)\ncatch err\n    print(err.message)\nend try\n'
                   'try\n    input(6, 2) |> lstm()\ncatch err\n    print(err.message)\nend try')
    text = "\n".join(lines)
    assert "m x 10 x 8" in text and str(4 * 8 * (3 + 8) + 4 * 8) in text and str(4 * 4 * (8 + 4) + 16) in text
    assert lines[-3].startswith("lstm reads sequences (steps x features per example), but its input is 6 "
                                "numbers per example with no steps")
    assert lines[-2] == "lstm's return_sequences must be true or false, not a number."
    assert lines[-1].startswith("The layer lstm(spec, units) needs the number of units")


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_fit_predict_evaluate_and_a_save_load_round_trip(run, tmp_path, dtype):
    path = tmp_path / "lstm.npz"
    lines, interp = run(
        f'seed(1)\nX = randn(128, 6, 2)\nY = sum(X[:, :, 0], axis = 1) ./ 3\n'
        f'net = input(6, 2) |> lstm(12, return_sequences = true) |> lstm(8) |> dense(1) |> '
        f'compile(optimizer = adam(lr = 0.02), seed = 3, dtype = "{dtype}")\n'
        f'net = net.fit(X, Y, epochs = 30, batch_size = 32, verbose = 0)\n'
        f'print(net.loss_history[29] < net.loss_history[0] / 5)\n'
        f'p = net.predict(X)\nprint(size(p), dtype(p))\n'
        f'save_model(net, "{path}")\nback = load_model("{path}")\n'
        f'print(all(back.predict(X) == p), back.evaluate(X, Y) == net.evaluate(X, Y))\n'
        f'w = back.weights[0]\nprint(keys(w), size(w.w_ih), size(w.w_hh), size(w.b))\n'
        f'more = back.fit(X, Y, epochs = 1, verbose = 0)\nprint(more.epochs)')
    assert lines == ["true", f"[128, 1] {dtype}", "true true", '["w_ih", "w_hh", "b"] [48, 2] [48, 12] [48]', "31"]
    assert all(p.dtype == np.dtype(dtype) for p in interp.get("net").optimizer.params)
