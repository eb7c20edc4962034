"""The layers conv1d, conv2d, max_pool, avg_pool and global_avg_pool: output shapes and parameter
counts, labels as the summary prints them, predictions equal to the same network in torch with the same
weights (float64, to 1e-10), Glorot-uniform kernels and zero biases, fit, evaluate, save_model and
load_model in float64 and float32, net.layers' records, and the messages for an input a layer
cannot take."""
import numpy as np
import pytest

from lamina.errors import LaminaError
from lamina.models.compile import compile_model
from lamina.models.evaluate import evaluate, predict
from lamina.models.fit import fit
from lamina.models.save import load_model, save_model
from lamina.optim.registry import get

IMAGE_NET = ('input(8, 7, 2) |> conv2d(4, 3, padding = "same", activation = "relu") |> max_pool(2) |>\n'
             '  conv2d(6, [2, 3], stride = [1, 2], dilation = 1, groups = 2, activation = "tanh") |>\n'
             '  avg_pool(2, stride = 1, padding = "same") |> global_avg_pool() |> dense(3, activation = "softmax")')
SEQUENCE_NET = ('input(12, 3) |> conv1d(5, 3, stride = 2, padding = 1, activation = "gelu") |>\n'
                '  max_pool(2, stride = 1) |> conv1d(4, 2, dilation = 2) |> avg_pool(2) |> flatten() |> dense(1)')


def spec_of(run, code):
    return run(f"spec = {code}")[1].get("spec")


def test_each_layers_output_shape_parameters_and_label(run):
    spec = spec_of(run, IMAGE_NET)
    assert [s.shape for s in spec.shapes] == [(8, 7, 2), (8, 7, 4), (4, 3, 4), (3, 1, 6), (3, 1, 6), (6,), (3,)]
    assert spec.parameter_counts() == [3 * 3 * 2 * 4 + 4, 0, 2 * 3 * 2 * 6 + 6, 0, 0, 6 * 3 + 3]
    assert [layer.label() for layer in spec.layers[:5]] == [
        'conv2d(4, 3, padding = "same", activation = "relu")', "max_pool(2)",
        'conv2d(6, [2, 3], stride = [1, 2], groups = 2, activation = "tanh")',
        'avg_pool(2, stride = 1, padding = "same")', "global_avg_pool()"]
    spec = spec_of(run, SEQUENCE_NET)
    assert [s.shape for s in spec.shapes] == [(12, 3), (6, 5), (5, 5), (3, 4), (1, 4), (4,), (1,)]
    assert spec.parameter_counts() == [3 * 3 * 5 + 5, 0, 2 * 5 * 4 + 4, 0, 0, 5]


def test_the_layers_records_and_weights(run):
    lines, interp = run(f"net = {IMAGE_NET} |> compile(seed = 3)\nprint(net.layers[2])\n"
                        "print(size(net.weights[0].w), size(net.weights[0].b), size(net.weights[1].w))")
    assert lines == ['{kind="conv2d", filters=6, kernel=[2, 3], stride=[1, 2], padding="valid", '
                     'dilation=[1, 1], groups=2, activation="tanh"}', "[3, 3, 2, 4] [4] [2, 3, 2, 6]"]
    weights = interp.get("net").get("weights")
    for k, fan in ((0, 9 * (2 + 4)), (1, 6 * (2 + 6))):
        w, b = weights[k].fields["w"], weights[k].fields["b"]
        limit = np.sqrt(6.0 / fan)
        assert np.all(np.abs(w) <= limit) and np.abs(w).max() > 0.8 * limit    # Glorot-uniform
        np.testing.assert_array_equal(b, 0.0)


def torch_image_net(weights):
    torch = pytest.importorskip("torch")
    nn = torch.nn
    convs = [nn.Conv2d(2, 4, 3, padding=1), nn.Conv2d(4, 6, (2, 3), stride=(1, 2), groups=2)]
    for conv, fields in zip(convs, (weights[0].fields, weights[1].fields)):
        conv.weight.data = torch.tensor(fields["w"].transpose(3, 2, 0, 1).copy())
        conv.bias.data = torch.tensor(fields["b"])
    dense = nn.Linear(6, 3)
    dense.weight.data = torch.tensor(weights[2].fields["w"].T.copy())
    dense.bias.data = torch.tensor(weights[2].fields["b"][0])
    # avg_pool(2, stride 1, "same") pads one after on each axis and leaves it out of the mean
    same_avg = lambda t: (nn.functional.avg_pool2d(nn.functional.pad(t, [0, 1, 0, 1]), 2, 1)
                          / nn.functional.avg_pool2d(nn.functional.pad(torch.ones_like(t), [0, 1, 0, 1]), 2, 1))
    return lambda x: torch.softmax(dense(same_avg(torch.tanh(convs[1](nn.functional.max_pool2d(
        torch.relu(convs[0](x.permute(0, 3, 1, 2))), 2)))).mean(dim=(2, 3))), dim=1).detach().numpy()


def torch_sequence_net(weights):
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    w1, b1 = (torch.tensor(weights[0].fields[k]) for k in ("w", "b"))
    w2, b2 = (torch.tensor(weights[1].fields[k]) for k in ("w", "b"))
    wd, bd = (torch.tensor(weights[2].fields[k]) for k in ("w", "b"))

    def net(x):
        h = F.gelu(F.conv1d(x.permute(0, 2, 1), w1.permute(2, 1, 0), b1, stride=2, padding=1))
        h = F.conv1d(F.max_pool1d(h, 2, 1), w2.permute(2, 1, 0), b2, dilation=2)
        h = F.avg_pool1d(h, 2).permute(0, 2, 1).reshape(len(x), -1)     # flatten, channels last
        return (h @ wd + bd).detach().numpy()
    return net


@pytest.mark.parametrize("code, reference, shape", [(IMAGE_NET, torch_image_net, (8, 7, 2)),
                                                    (SEQUENCE_NET, torch_sequence_net, (12, 3))])
def test_predictions_equal_torchs_network_with_the_same_weights(run, code, reference, shape):
    torch = pytest.importorskip("torch")
    net = run(f"net = {code} |> compile(seed = 4)")[1].get("net")
    X = np.random.default_rng(1).standard_normal((5, *shape))
    want = reference(net.get("weights"))(torch.tensor(X))
    np.testing.assert_allclose(predict(net, X), want, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(predict(net, X.reshape(5, -1)), predict(net, X))   # X as rows too


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("code, shape, loss", [(IMAGE_NET, (8, 7, 2), "cross_entropy"),
                                               (SEQUENCE_NET, (12, 3), "mse")])
def test_fit_evaluate_save_and_load(run, tmp_path, dtype, code, shape, loss):
    spec = spec_of(run, code)
    rng = np.random.default_rng(2)
    X = rng.standard_normal((40, *shape))
    y = rng.integers(0, 3, 40).astype(float) if loss == "cross_entropy" else X.reshape(40, -1).mean(axis=1)
    net = compile_model(spec, get("adam").with_hp(lr=0.02), loss, 5.0, dtype)
    trained = fit(net, X, y, epochs=6, batch_size=8, verbose=0)
    assert trained.loss_history[-1] < trained.loss_history[0]
    assert all(w.dtype == np.dtype(dtype) for w in trained.optimizer.params)
    assert predict(trained, X).dtype == np.dtype(dtype)
    path = str(tmp_path / "conv.npz")
    save_model(trained, path)
    back = load_model(path)
    assert [layer.label() for layer in back.spec.layers] == [layer.label() for layer in trained.spec.layers]
    np.testing.assert_array_equal(predict(back, X), predict(trained, X))
    assert evaluate(back, X, y).fields == evaluate(trained, X, y).fields
    again = [fit(m, X, y, epochs=2, batch_size=8, verbose=0) for m in (trained, back)]
    np.testing.assert_array_equal(again[0].loss_history, again[1].loss_history)


BAD_SPECS = [
    ("input(64) |> conv2d(8, 3)", "ShapeError",
     "conv2d reads images (h x w x channels): start the model with input(h, w, channels); its input here "
     "is 64 per example."),
    ("input(8, 8, 1) |> conv1d(8, 3)", "ShapeError",
     "conv1d reads sequences (steps x channels): start the model with input(steps, channels); its input "
     "here is 8 x 8 x 1 per example."),
    ("input(4, 4, 1) |> conv2d(8, 5)", "ShapeError",
     "conv2d's window 5 x 5 is larger than its padded input 4 x 4 (input 4 x 4 x 1 per example, padding \"valid\")."),
    ("input(4, 4, 1) |> conv2d(2, 7, padding = 1)", "ShapeError",     # a layer's padding is a tuple
     "conv2d's window 7 x 7 is larger than its padded input 6 x 6 (input 4 x 4 x 1 per example, padding 1 x 1)."),
    ("input(4, 4, 1) |> conv2d(2, 7, padding = [1, 0])", "ShapeError",
     "conv2d's window 7 x 7 is larger than its padded input 6 x 4 (input 4 x 4 x 1 per example, padding 1 x 0)."),
    ("input(4, 1) |> conv1d(2, 7, padding = 1)", "ShapeError",
     "conv1d's window 7 is larger than its padded input 6 (input 4 steps x 1 per example, padding 1)."),
    ("input(4, 4, 3) |> conv2d(4, 3, groups = 2)", "ShapeError",
     "conv2d(4, 3, groups = 2) splits its input's 3 channels into 2 groups, which does not divide them."),
    ("input(4, 4, 2) |> conv2d(3, 3, groups = 2)", "ValueError", "conv2d's groups = 2 must divide its 3 filters."),
    ("input(4, 4, 2) |> conv2d(3, 3, activation = \"swish\")", "ValueError",
     "conv2d has no activation \"swish\"; the activations are none, relu, leaky_relu, sigmoid, tanh, softmax, "
     "gelu, silu."),
    ("input(4, 4, 2) |> conv2d(3)", "TypeError",
     "The layer conv2d(spec, filters, kernel, ...) needs the number of filters and the kernel size."),
    ("input(4, 4, 2) |> conv2d(3, 2, units = 4)", "TypeError",
     "The layer conv2d(spec, filters, kernel, stride, padding, dilation, groups, activation) has no keyword 'units'."),
    ("input(4, 4, 2) |> conv2d(0, 2)", "ValueError", "conv2d's filters must be at least 1, not 0."),
    ("input(10) |> max_pool(2)", "ShapeError",
     "max_pool pools sequences (steps x channels) or images (h x w x channels); its input here is 10 per example."),
    ("input(6, 2) |> max_pool([2, 2])", "ValueError",
     "max_pool's size is 2 x 2, for 2 spatial axes, but the input has 1."),
    ("input(6, 6, 2) |> avg_pool(3, padding = 2)", "ValueError",
     "avg_pool's padding 2 is more than half the window 3 x 3: a window could then lie wholly in the padding."),
    ("input(6, 6, 2) |> max_pool()", "TypeError", "The layer max_pool(spec, size, ...) needs the window's size."),
    ("input(10) |> global_avg_pool()", "ShapeError",
     "global_avg_pool averages over the spatial axes of sequences (steps x channels) or images "
     "(h x w x channels); its input here is 10 per example."),
]


@pytest.mark.parametrize("code, kind, message", BAD_SPECS)
def test_a_layer_names_itself_and_the_input_it_cannot_take(run, code, kind, message):
    with pytest.raises(LaminaError) as caught:
        run(f"spec = {code}")
    assert (caught.value.kind, caught.value.message) == (kind, message)
