"""custom_layer: a layer written in Lamina. An affine custom layer is a dense layer (the same first
weights from the same seed, the same training); a layer over sequences steps its weights as torch
does; fit, predict, evaluate, save and load (the same numbers after loading) in float64 and
float32; each bad argument's message."""
import json

import numpy as np
import pytest

from lamina.errors import LaminaError

DATA = "seed(1)\nX = randn(60, 4)\nY = X * [2, 0; -1, 1; 0, 0.5; 0.5, 0] + 0.5\n"
AFFINE = ('custom_layer("affine", params = {w = s -> [s[-1], 2], b = [1, 2]}, init = {b = "zeros"},\n'
          '             forward = (p, x) -> x * p.w + p.b)')


def test_an_affine_custom_layer_is_a_dense_layer(run):
    _, interp = run(DATA + f"a = input(4) |> {AFFINE} |> compile(optimizer = adam(lr = 0.05), seed = 3)\n"
                    "b = input(4) |> dense(2) |> compile(optimizer = adam(lr = 0.05), seed = 3)\n"
                    "w0 = [a.weights[0], b.weights[0]]\n"
                    "a = a.fit(X, Y, epochs = 5, batch_size = 16, verbose = 0)\n"
                    "b = b.fit(X, Y, epochs = 5, batch_size = 16, verbose = 0)\n"
                    "P = [predict(a, X), predict(b, X)]\nE = [evaluate(a, X, Y), evaluate(b, X, Y)]")
    (wa, wb), (a, b) = interp.get("w0"), (interp.get("a"), interp.get("b"))
    np.testing.assert_array_equal(wa.fields["w"], wb.fields["w"])      # the same Glorot draw
    np.testing.assert_array_equal(wa.fields["b"], wb.fields["b"])
    np.testing.assert_allclose(a.loss_history, b.loss_history, rtol=1e-12)
    P = interp.get("P")
    np.testing.assert_allclose(P[0], P[1], rtol=1e-11, atol=1e-12)
    assert a.loss_history[-1] < 0.5 * a.loss_history[0]
    assert a.spec.parameter_counts() == [10] and a.spec.shapes[1].shape == (2,)


def test_a_layer_over_sequences_steps_its_weights_as_torch_does(run):
    torch = pytest.importorskip("torch")
    _, interp = run("seed(4)\nX = randn(8, 5, 2)\nY = randn(8, 1)\n"
                    'net = input(5, 2) |> custom_layer("mix", params = {w = [2, 3]}, forward = (p, x) -> tanh(matmul(x, p.w))) |>\n'
                    "      flatten() |> dense(1) |> compile(optimizer = sgd(lr = 0.2), seed = 6)\n"
                    "w0 = net.weights\nnet = net.fit(X, Y, epochs = 1, batch_size = 8, shuffle = false, verbose = 0)")
    w0, X, Y = interp.get("w0"), interp.get("X"), interp.get("Y")
    w = torch.tensor(w0[0].fields["w"], requires_grad=True)
    d = torch.tensor(w0[1].fields["w"], requires_grad=True)
    b = torch.tensor(w0[1].fields["b"], requires_grad=True)
    out = torch.tanh(torch.tensor(X) @ w).reshape(8, -1) @ d + b
    loss = torch.mean((out - torch.tensor(Y)) ** 2)
    loss.backward()
    net = interp.get("net")
    assert net.loss_history[0] == pytest.approx(loss.item(), rel=1e-13)
    after = net.get("weights")
    np.testing.assert_allclose(after[0].fields["w"], (w - 0.2 * w.grad).detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(after[1].fields["w"], (d - 0.2 * d.grad).detach().numpy(), rtol=1e-12)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_save_load_predict_the_same_numbers(run, tmp_path, dtype):
    path = tmp_path / "custom.npz"
    _, interp = run(DATA + "function gate(p, x)\n    return x .* sigmoid(p.g)\nend function\n"
                    f"net = input(4) |> custom_layer(\"gate\", params = {{g = [1, 4]}}, init = {{g = 2}}, forward = gate) |>\n"
                    f"      {AFFINE} |> compile(optimizer = adam(lr = 0.05), seed = 3, dtype = \"{dtype}\")\n"
                    f"net = net.fit(X, Y, epochs = 3, verbose = 0)\nsave_model(net, \"{path}\")\n"
                    f"back = load_model(\"{path}\")\nP = [predict(net, X), predict(back, X)]\n"
                    "more = [net.fit(X, Y, epochs = 2, verbose = 0), back.fit(X, Y, epochs = 2, verbose = 0)]\n"
                    "layers = back.layers")
    P, more = interp.get("P"), interp.get("more")
    assert P[0].dtype == P[1].dtype == np.dtype(dtype)
    np.testing.assert_array_equal(P[0], P[1])
    np.testing.assert_array_equal(more[0].loss_history, more[1].loss_history)
    np.testing.assert_array_equal(more[0].params[0], more[1].params[0])
    with np.load(path) as f:
        layers = json.loads(str(f["meta"]))["layers"]
    assert layers[0] == {"kind": "custom_layer", "settings": {
        "name": "gate", "params": {"g": [1, 4]}, "init": {"g": 2.0},
        "forward": {"function": "gate", "source": "function gate(p, x)\n    return x .* sigmoid(p.g)\nend function"}}}
    assert layers[1]["settings"]["params"]["w"] == {"function": "f", "source": "f = s -> [s[-1], 2]"}
    record = interp.get("layers")[0].fields
    assert record["kind"] == "custom_layer" and record["name"] == "gate"
    assert interp.get("back").describe().splitlines()[4].split() == ['0', 'custom_layer("gate")', 'm', 'x', '4', '4']


def test_the_output_shape_comes_from_running_forward_once(run):
    lines, interp = run('s = input(28, 28, 1) |> custom_layer("pool", forward = (p, x) -> '
                        'reshape(mean(reshape(x, size(x, 0), 14, 2, 14, 2, 1), axis = [2, 4]), size(x, 0), 14, 14, 1))\n'
                        "print(s)")
    assert lines[3:5] == ["     input(28, 28, 1)      m x 28 x 28 x 1           0",
                          '  0  custom_layer("pool")  m x 14 x 14 x 1           0']


@pytest.mark.parametrize("layer, kind, message", [
    ('custom_layer("s")', "TypeError", "custom_layer s needs forward = a function (p, x) -> y of its weights p "
                                       "(a record) and the batch x, not none."),
    ('custom_layer(forward = (p, x) -> x)', "TypeError", "The layer custom_layer(spec, name, params = {...}, "
                                                        "forward = f) needs a name (a string)."),
    ('custom_layer("", forward = (p, x) -> x)', "ValueError", "custom_layer's name cannot be empty: it names the "
                                                             "layer in print(net) and in a saved file."),
    ('custom_layer("s", params = [3], forward = (p, x) -> x)', "TypeError",
     "custom_layer s's params must be a record such as {w = [1, 4]}, not a vector of length 1."),
    ('custom_layer("s", params = {w = [0, 3]}, forward = (p, x) -> x)', "ValueError",
     "custom_layer s's weight w's size 0 must be at least 1, not 0."),
    ('custom_layer("s", params = {w = "big"}, forward = (p, x) -> x)', "TypeError",
     "custom_layer s's weight w must be a shape, a vector of sizes such as [1, 4] (or a function of the input's "
     "shape giving one), not a string."),
    ('custom_layer("s", params = {w = [1, 3]}, init = {w = "he"}, forward = (p, x) -> x)', "ValueError",
     "custom_layer s's init for w is \"he\"; the rules are glorot_uniform, zeros, ones, normal, or a number "
     "(every element starts at it)."),
    ('custom_layer("s", params = {w = [1, 3]}, init = {v = "ones"}, forward = (p, x) -> x)', "ValueError",
     "custom_layer s's init names v, which is not among its params (w)."),
    ('custom_layer("s", forward = (p, x) -> sum(x))', "ShapeError",
     "custom_layer s's forward must give one row (or array) per example, m x ..., but on a batch of 2 "
     "examples of 3 it gave a number."),
    ('custom_layer("s", forward = (p, x) -> x, extra = 1)', "TypeError",
     "The layer custom_layer(spec, name, params = {...}, forward = f, init = {...}) has no keyword 'extra'."),
])
def test_bad_arguments(run, layer, kind, message):
    with pytest.raises(LaminaError) as e:
        run(f"s = input(3) |> {layer}")
    assert (e.value.kind, e.value.message) == (kind, message)


def test_a_forward_that_changes_the_batch_is_refused_in_fit(run):
    with pytest.raises(LaminaError) as e:
        run(DATA + 'net = input(4) |> custom_layer("first2", forward = (p, x) -> x[0:2, :]) |> dense(1) |> '
                   "compile(seed = 1)\nnet = net.fit(X, Y[:, 0], batch_size = 10, verbose = 0)")
    assert e.value.kind == "ShapeError" and e.value.message == (
        "custom_layer first2's forward gave a 2x4 matrix for a batch of 10, where it gave m x 4 when the "
        "layer was made.")


def test_a_layer_whose_function_reads_the_program_is_not_saved(run, tmp_path):
    with pytest.raises(LaminaError) as e:
        run(f'k = 2\nnet = input(3) |> custom_layer("times", forward = (p, x) -> k * x) |> dense(1) |> compile()\n'
            f'save_model(net, "{tmp_path / "x.npz"}")')
    assert e.value.kind == "ValueError" and e.value.message.startswith(
        "save_model cannot save the custom layer times's forward (the anonymous function): it reads the "
        "program's variable k.")
