"""The batch_norm layer: training batches normalised with their own statistics and the running
statistics moved as PyTorch's BatchNorm moves them, predict and evaluate with the running
statistics, the statistics kept through fit, save/load and net.weights, in float32 and float64,
on examples of rank 1 and 3."""
import numpy as np
import pytest
import torch

from lamina.models.layer import DataShape
from lamina.models.layers.batch_norm import BatchNorm


def test_a_training_pass_equals_torch_batchnorm_and_inference_uses_the_running_statistics():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 3, 3, 2)) * 2 + 1
    gamma, beta = rng.standard_normal(2), rng.standard_normal(2)
    layer, data = BatchNorm(), DataShape((3, 3, 2))
    buffers = layer.init_buffers(data)
    bn = torch.nn.BatchNorm2d(2).double()
    with torch.no_grad():
        bn.weight.copy_(torch.tensor(gamma))
        bn.bias.copy_(torch.tensor(beta))
    for _ in range(3):
        y, buffers = layer.forward_buffers(x, [gamma, beta], buffers, data, training=True, rng=None)
        want = bn(torch.tensor(x).permute(0, 3, 1, 2)).permute(0, 2, 3, 1).detach().numpy()
        np.testing.assert_allclose(y, want, rtol=1e-10, atol=1e-10)
        x = x * 0.5 + 0.3
    np.testing.assert_allclose(buffers[0], bn.running_mean.numpy(), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(buffers[1], bn.running_var.numpy(), rtol=1e-10, atol=1e-10)
    bn.eval()
    y, same = layer.forward_buffers(x, [gamma, beta], buffers, data, training=False, rng=None)
    assert same is buffers
    want = bn(torch.tensor(x).permute(0, 3, 1, 2)).permute(0, 2, 3, 1).detach().numpy()
    np.testing.assert_allclose(y, want, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_fit_keeps_the_running_statistics_of_its_batches_and_predict_reads_them(run, tmp_path, dtype):
    path = tmp_path / "bn.npz"
    lines, interp = run(
        f'seed(4)\nX = randn(96, 3) .* [1.0, 3.0, 0.5]\' + [2.0, -4.0, 10.0]\'\nY = X * [1.0; -0.5; 2.0]\n'
        f'net = input(3) |> batch_norm() |> dense(1) |> compile(optimizer = adam(lr = 0.05), seed = 1, '
        f'dtype = "{dtype}")\n'
        f'print(net.weights[0].mean, net.weights[0].var)\n'
        f'net = net.fit(X, Y, epochs = 3, batch_size = 32, shuffle = false, verbose = 0)\n'
        f'w = net.weights[0]\nprint(keys(w), dtype(w.mean), dtype(w.var))\n'
        f'p = net.predict(X)\n'
        f'save_model(net, "{path}")\nback = load_model("{path}")\n'
        f'print(all(back.weights[0].mean == w.mean), all(back.weights[0].var == w.var))\n'
        f'print(all(back.predict(X) == p), back.evaluate(X, Y) == net.evaluate(X, Y))')
    assert lines[0] == "[0, 0, 0] [1, 1, 1]"
    assert lines[1:] == [f'["gamma", "beta", "mean", "var"] {dtype} {dtype}', "true true", "true true"]
    # The running statistics: PyTorch's update over the nine batches in order, from (0, 1).
    X = interp.get("X")
    net = interp.get("net")
    w = net.get("weights")[0].fields
    mean, var = np.zeros(3), np.ones(3)
    for _ in range(3):
        for start in range(0, 96, 32):
            b = X[start:start + 32].astype(dtype).astype(np.float64)
            mean = 0.9 * mean + 0.1 * b.mean(axis=0)
            var = 0.9 * var + 0.1 * b.var(axis=0, ddof=1)
    tol = 1e-12 if dtype == "float64" else 1e-5
    np.testing.assert_allclose(w["mean"], mean, rtol=tol)
    np.testing.assert_allclose(w["var"], var, rtol=tol)
    # predict normalises with them (inference mode), then the dense layer
    xhat = (X - w["mean"]) / np.sqrt(w["var"] + 1e-5) * w["gamma"] + w["beta"]
    d = net.get("weights")[1].fields
    np.testing.assert_allclose(interp.get("p"), xhat @ d["w"] + d["b"], rtol=tol * 10, atol=tol * 10)


def test_images_channels_last_and_a_batch_of_one_in_training(run):
    lines, _ = run(
        'seed(2)\nX = randn(20, 4, 4, 2)\nY = sum(reshape(X, 20, 32), axis = 1)\n'
        'net = input(4, 4, 2) |> batch_norm() |> dense(1) |> compile(seed = 1)\nprint(net)\n'
        'net = net.fit(X, Y, epochs = 2, batch_size = 10, verbose = 0)\nprint(size(net.weights[0].mean))\n'
        'one = input(2) |> batch_norm() |> dense(1) |> compile(seed = 1)\n'
        'try\n    one.fit([1, 2; 3, 4; 5, 6], [1; 2; 3], batch_size = 2, shuffle = false, verbose = 0)\n'
        'catch err\n    print(err.message)\nend try\n'
        'try\n    input(2) |> batch_norm(1.0)\ncatch err\n    print(err.message)\nend try')
    text = "\n".join(lines)
    assert "batch_norm()" in text and "m x 4 x 4 x 2" in text
    assert lines[-3] == "[2]"
    assert lines[-2].startswith("The batch_norm layer got a training batch of one example")
    assert lines[-1].startswith("The layer batch_norm(spec) takes no gamma")
