"""save_model / load_model of weights of any rank: a layer whose weight is a rank-4 kernel (a conv
layer's out x in x h x w) saves and loads exactly, in float64 and float32, and the reader's checks
still refuse a weight of the wrong rank or shape and a .npy header that disagrees with its data."""
import io
import json
import zipfile
from dataclasses import dataclass

import numpy as np
import pytest

from lamina.autodiff import ops, shaping
from lamina.builtins.registry import load_all
from lamina.errors import LaminaError
from lamina.models.compile import compile_model
from lamina.models.evaluate import predict
from lamina.models.fit import fit
from lamina.models.layer import KINDS, DataShape, Layer, register
from lamina.models.layers.dense import dense_layer
from lamina.models.save import load_model, save_model
from lamina.models.spec import input_spec
from lamina.optim.registry import get

KERNEL = (3, 1, 2, 2)       # out x in x h x w over an input of 4 = 2 x 2 numbers


@dataclass(frozen=True)
class Kernel(Layer):
    """y = x * reshape(k, 3, 4)', k a 3 x 1 x 2 x 2 kernel: a 2 x 2 convolution that covers its
    whole 2 x 2 input, the one place a model holds a weight of rank 4."""
    kind = "kernel4"

    def output(self, data: DataShape) -> DataShape:
        return DataShape((KERNEL[0],))

    def parameters(self, data: DataShape) -> dict:
        return {"k": KERNEL}

    def init(self, data, rng) -> list:
        return [rng.uniform(-0.5, 0.5, KERNEL)]

    def forward(self, x, params, data, training, rng, logits=False):
        return ops.mul(x, ops.transpose(shaping.reshape(params[0], (KERNEL[0], 4))))


@pytest.fixture
def kernel_kind():
    register(Kernel)
    yield Kernel
    del KINDS["kernel4"]


def data():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((32, 4))
    return X, X @ np.array([[1.0], [-2.0], [0.5], [0.25]])


def trained(dtype: str):
    spec = dense_layer(input_spec(4.0).with_layer(Kernel()), 1.0, "none")
    X, Y = data()
    return fit(compile_model(spec, get("adam").with_hp(lr=0.05), "mse", 1.0, dtype), X, Y, epochs=3, verbose=0)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_a_rank_4_kernel_and_its_optimizer_state_round_trip_exactly(kernel_kind, tmp_path, dtype):
    net = trained(dtype)
    k = net.optimizer.params[0]
    assert k.shape == KERNEL and k.dtype == np.dtype(dtype)
    path = str(tmp_path / "kernel.npz")
    save_model(net, path)
    back = load_model(path)
    for p, q in zip(net.optimizer.params, back.optimizer.params):
        assert p.shape == q.shape and p.dtype == q.dtype
        np.testing.assert_array_equal(p, q)
    for s, t in zip(net.optimizer.state, back.optimizer.state):
        assert s.keys() == t.keys() == {"m", "v"}
        for slot in s:
            assert s[slot].shape == t[slot].shape and s[slot].dtype == t[slot].dtype
            np.testing.assert_array_equal(s[slot], t[slot])
    assert back.optimizer.state[0]["m"].shape == KERNEL and np.any(back.optimizer.state[0]["m"] != 0)
    weights = back.get("weights")[0].fields["k"]      # the model's record of weights holds it as saved
    assert weights.shape == KERNEL
    np.testing.assert_array_equal(weights, k)
    X, Y = data()
    np.testing.assert_array_equal(predict(back, X), predict(net, X))
    again = [fit(m, X, Y, epochs=2, verbose=0) for m in (net, back)]
    np.testing.assert_array_equal(again[0].loss_history, again[1].loss_history)


def arrays_of(path) -> dict:
    with np.load(path) as f:
        return {key: f[key] for key in f.files}


def error_of(path) -> str:
    with pytest.raises(LaminaError) as e:
        load_model(str(path))
    assert e.value.kind == "ValueError" and f"'{path}'" in e.value.message, e.value.message
    return e.value.message.split("or it is damaged: ", 1)[1]


def saved(tmp_path) -> dict:
    path = tmp_path / "kernel.npz"
    save_model(trained("float64"), str(path))
    return arrays_of(path)


def test_a_kernel_of_another_rank_or_shape_is_refused(kernel_kind, tmp_path):
    arrays = saved(tmp_path)
    where = "param0 (the weight 'k' of layer 0, kernel4)"
    for name, k, words in [
            ("matrix.npz", arrays["param0"].reshape(3, 4),
             f"{where} is 3x4, not an array of rank 4."),
            ("rank5.npz", arrays["param0"].reshape(3, 1, 2, 2, 1),
             f"{where} is 3x1x2x2x1, not an array of rank 4."),
            ("shape.npz", arrays["param0"].reshape(1, 3, 2, 2),
             f"the weights' shapes do not match the layers: {where} is 1x3x2x2, but it must be 3x1x2x2.")]:
        path = tmp_path / name
        np.savez(path, **dict(arrays, param0=k))
        assert error_of(path) == words
    path = tmp_path / "state.npz"                    # the optimizer's state of a rank-4 weight too
    np.savez(path, **dict(arrays, state0_m=arrays["state0_m"].reshape(1, 3, 2, 2)))
    assert error_of(path) == ("the weights' shapes do not match the layers: state0_m is 1x3x2x2, "
                              "but it must be 3x1x2x2.")


def npy(header_shape: tuple, data: np.ndarray) -> bytes:
    """A .npy member whose header claims `header_shape` over the bytes of `data`."""
    out = io.BytesIO()
    np.lib.format.write_array_header_1_0(out, {"descr": "<f8", "fortran_order": False, "shape": header_shape})
    return out.getvalue() + data.astype("<f8").tobytes()


def test_a_rank_4_npy_header_that_disagrees_with_its_data_is_refused(kernel_kind, tmp_path):
    arrays = saved(tmp_path)
    for name, shape, words in [
            ("short.npz", (3, 1, 2, 3), "its array 'param0' is damaged: its header says 3x1x2x3 of float64 "
                                        "(144 bytes), but it holds 96 bytes."),
            ("long.npz", (3, 1, 2, 1), "its array 'param0' is damaged: its header says 3x1x2x1 of float64 "
                                       "(48 bytes), but it holds 96 bytes.")]:
        path = tmp_path / name
        with zipfile.ZipFile(path, "w") as z:
            for key, a in arrays.items():
                if key == "param0":
                    z.writestr("param0.npy", npy(shape, a))
                else:
                    buf = io.BytesIO()
                    np.lib.format.write_array(buf, a)
                    z.writestr(f"{key}.npy", buf.getvalue())
        assert error_of(path) == words
    assert json.loads(str(arrays["meta"]))["layers"][0] == {"kind": "kernel4", "settings": {}}


def test_the_builtins_take_such_a_model_and_name_an_array_given_for_a_model(kernel_kind, tmp_path):
    builtins = load_all()
    path = str(tmp_path / "kernel.npz")
    net = trained("float32")
    builtins["save_model"].fn(net, path)
    back = builtins["load_model"].fn(None, path)      # scoped: no program (so no functions to compile)
    assert back.optimizer.params[0].shape == KERNEL and back.optimizer.params[0].dtype == np.float32
    np.testing.assert_array_equal(back.optimizer.params[0], net.optimizer.params[0])
    with pytest.raises(LaminaError) as e:
        builtins["save_model"].fn(np.zeros((2, 3, 4)), path)
    assert e.value.kind == "TypeError"
    assert e.value.message == "save_model needs a model (made by input, layers and compile), not a 2x3x4 array."
