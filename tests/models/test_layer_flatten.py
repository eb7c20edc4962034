"""flatten: the tensor op against NumPy's reshape (torch.flatten(x, 1)) with its gradient, and the
layer in an image model: the same numbers from X as an m x h x w x c array and as the matrix of its
rows, against NumPy by hand; fit, evaluate, save and load in float64 and float32."""
import numpy as np
import pytest

from lamina.autodiff import ops, reductions
from lamina.autodiff.grad import grad
from lamina.autodiff.tape import TAPE
from lamina.errors import LaminaError
from lamina.models.compile import compile_model
from lamina.models.evaluate import evaluate, predict
from lamina.models.fit import fit
from lamina.models.layers.dense import dense_layer
from lamina.models.layers.flatten import flatten_layer, flatten_rows
from lamina.models.save import load_model, save_model
from lamina.models.spec import input_spec
from lamina.optim.registry import get

H, W, C, M = 4, 3, 2, 10


@pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 3, 4), (2, 1, 3, 2), (3, 2, 2, 1, 2)])
def test_the_op_is_torchs_flatten_from_axis_1(shape):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(len(shape))
    x, R = rng.standard_normal(shape), None
    want = torch.flatten(torch.tensor(x), 1) if len(shape) > 1 else torch.tensor(x).reshape(-1, 1)
    TAPE.reset()
    leaf = TAPE.leaf(x, True)
    out = flatten_rows(leaf)
    np.testing.assert_array_equal(out.value, want.numpy())
    assert not np.shares_memory(out.value, x)
    R = rng.standard_normal(out.value.shape)
    g = grad(reductions.sum(ops.emul(out, R)), leaf)
    TAPE.reset()
    np.testing.assert_array_equal(g, R.reshape(shape))


def test_the_builtin(run):
    lines, _ = run("x = reshape(range(1, 13), 2, 3, 2)\nprint(flatten(x))\nprint(size(flatten([1, 2, 3])))\n"
                   "print(flatten([1, 2; 3, 4]))")
    assert lines == ["[1, 2, 3, 4, 5, 6; 7, 8, 9, 10, 11, 12]", "[3, 1]", "[1, 2; 3, 4]"]
    with pytest.raises(LaminaError) as e:
        run("flatten(2)")
    assert e.value.kind == "ShapeError" and e.value.message == (
        "flatten keeps the first axis (examples) and makes the rest one, so it needs a tensor, not the number 2.")
    with pytest.raises(LaminaError, match="flatten\\(x\\) takes no keyword 'axis'"):
        run("flatten([1, 2; 3, 4], axis = 1)")
    with pytest.raises(LaminaError, match="The layer flatten\\(spec\\) has no keyword 'axis'"):
        run("input(2, 2) |> flatten(axis = 1)")


def image_net(dtype="float64", units=3):
    spec = dense_layer(flatten_layer(input_spec(float(H), float(W), float(C))), float(units), "softmax")
    return compile_model(spec, get("adam").with_hp(lr=0.05), "cross_entropy", 2.0, dtype)


def images(seed=0):
    rng = np.random.default_rng(seed)
    X4 = rng.standard_normal((M, H, W, C))
    return X4, X4.reshape(M, -1), rng.integers(0, 3, M).astype(float)


def softmax(z):
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def test_an_image_model_reads_the_array_and_its_rows_alike():
    net = image_net()
    assert [s.shape for s in net.spec.shapes] == [(H, W, C), (H * W * C,), (3,)]
    assert net.spec.parameter_counts() == [0, 24 * 3 + 3]
    X4, X2, y = images()
    d = net.get("weights")[0].fields
    want = softmax(X4.reshape(M, -1) @ d["w"] + d["b"])
    np.testing.assert_allclose(predict(net, X4), want, rtol=1e-13)
    np.testing.assert_array_equal(predict(net, X4), predict(net, X2))
    by_array = fit(net, X4, y, epochs=3, batch_size=4, verbose=0)
    by_rows = fit(net, X2, y, epochs=3, batch_size=4, verbose=0)
    np.testing.assert_array_equal(by_array.loss_history, by_rows.loss_history)
    assert by_array.loss_history[-1] < by_array.loss_history[0]
    assert evaluate(by_array, X4, y).fields == evaluate(by_array, X2, y).fields


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_an_image_model_saves_and_loads(tmp_path, dtype):
    X4, _, y = images(1)
    net = fit(image_net(dtype), X4, y, epochs=2, verbose=0)
    path = str(tmp_path / "img.npz")
    save_model(net, path)
    back = load_model(path)
    assert back.spec.example == (H, W, C) and back.dtype is np.dtype(dtype).type
    np.testing.assert_array_equal(predict(back, X4), predict(net, X4))
    assert predict(back, X4).dtype == np.dtype(dtype)
    again = [fit(m, X4, y, epochs=2, verbose=0) for m in (net, back)]
    np.testing.assert_array_equal(again[0].loss_history, again[1].loss_history)


def test_x_of_the_wrong_shape_names_the_input():
    net = image_net()
    with pytest.raises(LaminaError) as e:
        predict(net, np.zeros((5, H, W)))
    assert e.value.kind == "ShapeError" and e.value.message == (
        "predict: X is a 5x4x3 array, but the model takes input(4, 3, 2): an array X must be m x 4 x 3 x 2, "
        "or a matrix of 24 columns (4 x 3 x 2, row-major), one row per example.")
    with pytest.raises(LaminaError) as e:
        predict(net, np.zeros((5, 12)))
    assert e.value.message == ("predict: X is a 5x12 matrix, but the model takes input(4, 3, 2): X needs 24 "
                               "columns (4 x 3 x 2, row-major), one row per example, or is an m x 4 x 3 x 2 array.")
