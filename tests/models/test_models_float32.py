"""float32 models: compile(..., dtype = "float32") and quick_mlp keep weights, optimizer state,
data and predictions in float32, train to the accuracy of float64, and save and load as float32."""
import numpy as np
import pytest

from lamina.errors import LaminaError
from lamina.models.fit import fit
from lamina.models.save import load_model, save_model

DIGITS = ('data = as_matrix(read_csv("examples/data/digits.csv"))\n'
          'parts = train_test_split(data[:, 0:64] / 16, data[:, 64], test = 0.25, seed = 0)\n'
          'spec = input(64) |> dense(32, activation = "relu") |> dropout(0.1) |>\n'
          '       dense(10, activation = "softmax")\n'
          'nets = []\nscores = []\n'
          'for d in ["float64", "float32"]\n'
          '    net = compile(spec, optimizer = adam(lr = 0.005), loss = "cross_entropy", seed = 1, dtype = d)\n'
          '    net = fit(net, parts.X_train, parts.Y_train, epochs = 12, batch_size = 32, verbose = 0)\n'
          '    nets = append(nets, net)\n'
          '    scores = append(scores, evaluate(net, parts.X_test, parts.Y_test))\n'
          'end for\n')


def test_a_float32_model_on_the_digits_trains_to_the_accuracy_of_float64(run):
    _, interp = run(DIGITS)
    net64, net32 = interp.get("nets")
    acc64, acc32 = (s.get("accuracy") for s in interp.get("scores"))
    assert acc64 > 0.9
    assert abs(acc32 - acc64) <= 0.015               # within a point and a half
    assert net32.get("dtype") == "float32" and net64.get("dtype") == "float64"
    for p in net32.optimizer.params:
        assert p.dtype == np.float32
    for state in net32.optimizer.state:
        assert all(v.dtype == np.float32 for v in state.values())   # Adam's moments
    # the loss curves agree to float32 precision over 12 epochs of training
    np.testing.assert_allclose(net32.loss_history, net64.loss_history, rtol=0.05)
    assert net32.loss_history.dtype == np.float64    # histories are numbers, always float64


def test_float32_predictions_and_data_conversion(run):
    out, _ = run('X = [0.0, 0.0; 0.0, 1.0; 1.0, 0.0; 1.0, 1.0]\n'
                 'm = quick_mlp(X, [0, 1, 1, 0], loss = "cross_entropy", seed = 1, epochs = 200, '
                 'verbose = 0, dtype = "float32")\n'
                 'p = predict(m, X)\n'
                 'print(m.dtype, dtype(p), dtype(m.weights[0].w), evaluate(m, X, [0, 1, 1, 0]).accuracy)\n'
                 'print(round(sum(p, 1), 4))')
    assert out == ["float32 float32 float32 1", "[1; 1; 1; 1]"]     # a column: sum along axis 1 keeps it


def test_quick_mlp_float64_is_the_default(run):
    out, _ = run('m = quick_mlp([0.0; 1.0], [0.0; 1.0], epochs = 2, verbose = 0)\nprint(m.dtype)')
    assert out == ["float64"]


@pytest.mark.parametrize("layers", [
    'input(3, 2) |> gru(4) |> dense(1, activation = "sigmoid")',
    'input(6) |> layer_norm() |> dense(3, activation = "tanh") |> dropout(0.2) |> dense(1, activation = "sigmoid")',
    'input(4) |> embedding(5, 3) |> gru(4, return_sequences = true) |> dense(1, activation = "sigmoid")',
])
def test_every_layer_keeps_float32_in_fit_and_predict(run, layers):
    _, interp = run('seed(3)\nX = floor(5 * rand(24, 6))\n'
                    f'X = X[:, 0:{4 if "embedding" in layers else 6}]\n'
                    'Y = sum(X > 2, 1) > 1\n'
                    f'net = {layers} |> compile(loss = "binary_cross_entropy", seed = 2, dtype = "float32")\n'
                    'net = fit(net, X, Y, epochs = 3, batch_size = 8, verbose = 0)\n'
                    'p = predict(net, X)')
    net = interp.get("net")
    assert [p.dtype for p in net.optimizer.params] == [np.float32] * len(net.optimizer.params)
    assert interp.get("p").dtype == np.float32
    assert np.all(np.isfinite(net.loss_history))


def test_save_and_load_keep_float32(tmp_path, run):
    _, interp = run('X = [0.0, 0.0; 0.0, 1.0; 1.0, 0.0; 1.0, 1.0]\n'
                    'm = quick_mlp(X, [0.0; 1.0; 1.0; 0.0], seed = 1, epochs = 20, verbose = 0, dtype = "float32")')
    net = interp.get("m")
    path = str(tmp_path / "net.npz")
    save_model(net, path)
    back = load_model(path)
    assert back.get("dtype") == "float32"
    for p, q in zip(net.optimizer.params, back.optimizer.params):
        assert q.dtype == np.float32 and np.array_equal(p, q)
    for s, t in zip(net.optimizer.state, back.optimizer.state):
        assert all(t[k].dtype == np.float32 and np.array_equal(s[k], t[k]) for k in s)
    x = np.array([[0.0, 0.0], [1.0, 1.0]])
    a = fit(net, x, np.array([0.0, 0.0]), epochs=2, verbose=0)
    b = fit(back, x, np.array([0.0, 0.0]), epochs=2, verbose=0)
    for p, q in zip(a.optimizer.params, b.optimizer.params):
        assert q.dtype == np.float32 and np.array_equal(p, q)


def test_a_file_mixing_float32_and_float64_weights_is_refused(tmp_path, run):
    _, interp = run('m = input(2) |> dense(1) |> compile(seed = 1, dtype = "float32")')
    path = str(tmp_path / "net.npz")
    save_model(interp.get("m"), path)
    with np.load(path) as f:
        arrays = dict(f)
    arrays["param1"] = arrays["param1"].astype(np.float64)
    np.savez(path, **arrays)
    with pytest.raises(LaminaError) as e:
        load_model(path)
    assert e.value.message == (f"load_model: '{path}' is not a model saved by save_model, or it is damaged: "
                               "param1 (the weight 'b' of layer 0, dense(1, activation = \"none\")) is "
                               "float64, but the model's weights are float32.")


def test_a_bad_dtype_is_a_value_error(run):
    with pytest.raises(LaminaError) as e:
        run('m = input(2) |> dense(1) |> compile(dtype = "float16")')
    assert e.value.message == 'compile\'s dtype must be "float64" or "float32", not "float16".'


@pytest.mark.parametrize("layers", [
    'input(3, 2) |> gru(4) |> dense(2, activation = "softmax")',
    'input(6) |> layer_norm() |> dense(3, activation = "gelu") |> dropout(0.2) |> dense(2, activation = "softmax")',
    'input(4) |> embedding(5, 3) |> gru(4, return_sequences = true) |> dense(2, activation = "softmax")',
    'input(6) |> dense(5, activation = "leaky_relu") |> dense(2, activation = "softmax")',
])
def test_a_float32_training_step_computes_every_gradient_in_float32(run, layers):
    """The gradients as the reverse sweep makes them (before grad() rounds them to the weights'
    dtype): a float64 array anywhere on the way would reach them."""
    from lamina.autodiff.grad import backward
    from lamina.autodiff.tape import TAPE
    from lamina.models.fit import data_of

    _, interp = run('seed(3)\nX = floor(5 * rand(12, 6))\n'
                    f'X = X[:, 0:{4 if "embedding" in layers else 6}]\n'
                    'Y = sum(X > 2, 1) > 1\n'
                    f'net = {layers} |> compile(loss = "cross_entropy", seed = 2, dtype = "float32")')
    net = interp.get("net")
    x, y = data_of(net, interp.get("X"), interp.get("Y"), "test")
    assert x.dtype == np.float32 and y.dtype == np.float32
    TAPE.reset()
    leaves = [TAPE.leaf(p, True) for p in net.optimizer.params]
    loss = net.batch_loss(x, y, leaves, training=True, rng=np.random.default_rng(0))
    found, _, _ = backward(loss, {leaf.node for leaf in leaves})
    TAPE.reset()
    assert len(found) == len(leaves)
    assert [g.dtype for g, _ in found.values()] == [np.float32] * len(leaves)


def test_fit_takes_a_float32_X_as_it_is_and_converts_a_float64_one_once():
    # fit, predict and evaluate check X with models/data.features; a float32 X used to be
    # widened to float64 and narrowed back: two copies of the data on every call.
    from lamina.models.data import features
    from lamina.models.layers.dense import dense_layer
    from lamina.models.spec import input_spec
    spec = dense_layer(input_spec(4.0), 2.0, "relu")
    x32 = np.random.default_rng(0).standard_normal((50, 4)).astype(np.float32)
    assert features(x32, spec, "fit", np.float32) is x32
    x64 = np.random.default_rng(1).standard_normal((50, 4))
    got = features(x64, spec, "fit", np.float32)
    assert got.dtype == np.float32 and np.array_equal(got, x64.astype(np.float32))
    assert features(x32, spec, "fit", np.float64).dtype == np.float64     # a float64 model widens
