"""Buffers in the layer protocol (layer.py): arrays a layer keeps that are not learnt by gradient,
as batch_norm's running statistics. A layer defined here (y = x - mean, the batch's mean while
fitting, a running mean otherwise) trains, predicts, validates, stops early, saves and loads with
its running mean equal to a NumPy replay of the batches."""
from dataclasses import dataclass

import numpy as np
import pytest

from lamina.autodiff import ops
from lamina.models.compile import compile_model
from lamina.models.evaluate import predict
from lamina.models.fit import fit
from lamina.models.layer import KINDS, DataShape, Layer, register
from lamina.models.layers.dense import dense_layer
from lamina.models.save import load_model, save_model
from lamina.models.spec import input_spec
from lamina.optim.registry import get
from lamina.values import value_of

MOMENTUM = 0.25


@dataclass(frozen=True)
class Centre(Layer):
    """y = x - mu: mu the batch's column means while fitting (the running mean moving a quarter of
    the way to them), the running mean otherwise. No weights, one buffer."""
    kind = "centre"

    def buffers(self, data: DataShape) -> dict:
        return {"mean": (1, data.width)}

    def init_buffers(self, data) -> list:
        return [np.zeros((1, data.width))]

    def forward_buffers(self, x, params, buffers, data, training, rng, logits=False):
        running, = buffers
        if not training:
            return ops.sub(x, running), buffers
        mu = value_of(x).mean(axis=0, keepdims=True)
        return ops.sub(x, mu), [(1 - MOMENTUM) * running + MOMENTUM * mu]


@pytest.fixture
def centre():
    register(Centre)
    yield
    del KINDS["centre"]


def data(seed=0, m=12):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, 3)) + [5.0, -2.0, 1.0]
    return X, X @ np.array([[1.0], [-1.0], [0.5]])


def net(dtype="float64"):
    spec = dense_layer(input_spec(3.0).with_layer(Centre()), 1.0, "none")
    return compile_model(spec, get("adam").with_hp(lr=0.05), "mse", 1.0, dtype)


def replay(X, epochs, batch_size, mean=None):
    """The running mean after these epochs of batches in order (fit with shuffle = false)."""
    mean = np.zeros((1, X.shape[1])) if mean is None else mean
    for _ in range(epochs):
        for start in range(0, len(X), batch_size):
            mean = (1 - MOMENTUM) * mean + MOMENTUM * X[start:start + batch_size].mean(axis=0, keepdims=True)
    return mean


def test_fit_keeps_what_each_training_batch_gives_and_predict_reads_it(centre):
    X, Y = data()
    start = net()
    assert start.buffers[0].shape == (1, 3) and not start.buffers[0].any()
    trained = fit(start, X, Y, epochs=3, batch_size=5, shuffle=False, verbose=0)
    mean = replay(X, 3, 5)
    np.testing.assert_allclose(trained.buffers[0], mean, rtol=1e-15)
    assert not start.buffers[0].any()                     # the model fit was given is unchanged
    d = trained.get("weights")
    assert list(d[0].fields) == ["mean"] and list(d[1].fields) == ["w", "b"]
    np.testing.assert_array_equal(d[0].fields["mean"], trained.buffers[0])
    np.testing.assert_allclose(predict(trained, X), (X - mean) @ d[1].fields["w"] + d[1].fields["b"], rtol=1e-13)
    again = fit(trained, X, Y, epochs=1, batch_size=5, shuffle=False, verbose=0)
    np.testing.assert_allclose(again.buffers[0], replay(X, 1, 5, mean), rtol=1e-15)


def test_validation_reads_the_running_mean_and_changes_nothing(centre):
    X, Y = data()
    Xv, Yv = data(1, 6)
    with_val = fit(net(), X, Y, epochs=2, batch_size=4, shuffle=False, validation_data=[Xv, Yv], verbose=0)
    without = fit(net(), X, Y, epochs=2, batch_size=4, shuffle=False, verbose=0)
    np.testing.assert_array_equal(with_val.buffers[0], without.buffers[0])
    d = with_val.get("weights")[1].fields
    want = np.mean(((Xv - with_val.buffers[0]) @ d["w"] + d["b"] - Yv) ** 2)
    assert with_val.val_loss_history[-1] == pytest.approx(want, rel=1e-12)


def test_early_stopping_keeps_the_best_epochs_buffers(centre):
    rng = np.random.default_rng(2)
    X, Xv = rng.standard_normal((20, 3)) * 3, rng.standard_normal((20, 3))
    Y, Yv = rng.standard_normal(20), rng.standard_normal(20)             # noise: it stops early
    stopped = fit(net(), X, Y, epochs=100, batch_size=5, shuffle=False, validation_data=[Xv, Yv],
                  early_stopping=2, verbose=0)
    best = stopped.weights_epoch
    assert best is not None and stopped.epochs == best + 3
    np.testing.assert_allclose(stopped.buffers[0], replay(X, best + 1, 5), rtol=1e-14)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_buffers_save_and_load(centre, tmp_path, dtype):
    X, Y = data()
    trained = fit(net(dtype), X, Y, epochs=2, batch_size=5, verbose=0)
    assert trained.buffers[0].dtype == np.dtype(dtype)
    path = str(tmp_path / "centre.npz")
    save_model(trained, path)
    with np.load(path) as f:
        np.testing.assert_array_equal(f["buffer0"], trained.buffers[0])
    back = load_model(path)
    assert back.buffers[0].dtype == np.dtype(dtype)
    np.testing.assert_array_equal(back.buffers[0], trained.buffers[0])
    np.testing.assert_array_equal(predict(back, X), predict(trained, X))
    more = [fit(m, X, Y, epochs=2, batch_size=5, verbose=0) for m in (trained, back)]
    np.testing.assert_array_equal(more[0].buffers[0], more[1].buffers[0])
    np.testing.assert_array_equal(more[0].loss_history, more[1].loss_history)


def test_the_summary_counts_them_apart(centre):
    assert net().describe().splitlines()[-2] == (
        "  total parameters: 4 (and 3 numbers of running statistics, not trained)")


def test_a_file_without_its_buffer_or_with_a_wrong_one_is_refused(centre, tmp_path):
    from lamina.errors import LaminaError
    path = tmp_path / "centre.npz"
    save_model(net(), str(path))
    with np.load(path) as f:
        arrays = {k: f[k] for k in f.files}
    for name, change, words in [("gone", lambda a: a.pop("buffer0"), "buffer0 (the buffer 'mean' of layer 0, centre) is missing"),
                                ("wide", lambda a: a.update(buffer0=np.zeros((1, 4))), "buffer0 (the buffer 'mean' of layer 0, "
                                 "centre) is 1x4, but it must be 1x3"),
                                ("extra", lambda a: a.update(buffer1=np.zeros((1, 3))), "it holds an array 'buffer1' that "
                                 "its model does not have (its layers have 2 weights and 1 buffer, and adam keeps m, v)")]:
        edited = dict(arrays)
        change(edited)
        bad = tmp_path / f"{name}.npz"
        with open(bad, "wb") as f:
            np.savez(f, **edited)
        with pytest.raises(LaminaError) as e:
            load_model(str(bad))
        assert e.value.kind == "ValueError" and words in e.value.message, e.value.message
