"""load_model on crafted files: each is a ValueError naming the file and the bad field or
array, never a Python error, never NumPy's words about pickles, never a model that fails later."""
from __future__ import annotations

import io
import json
import zipfile

import numpy as np
import pytest

from lamina.errors import LaminaError
from lamina.models.evaluate import predict
from lamina.models.save import load_model, save_model

NET = ('net = input(2) |> dense(3, activation = "relu") |> dense(1) |>\n'
       '      compile(optimizer = lr_plateau(lr = 0.1, patience = 2, base = "adam"), seed = 1)\n'
       'net = net.fit([0, 1; 1, 0; 1, 1], [1; 2; 3], epochs = 3)\n')


@pytest.fixture
def good(tmp_path, run):
    _, interp = run(NET)
    path = tmp_path / "good.npz"
    save_model(interp.get("net"), str(path))
    return path


def arrays_of(path):
    with np.load(path) as data:
        return {k: data[k] for k in data.files}


def write(path, arrays):
    with open(path, "wb") as f:
        np.savez(f, **arrays)
    return path


def crafted(good, name, edit_meta=None, **arrays):
    """good.npz with its header changed by edit_meta(meta) and arrays replaced (None removes)."""
    a = arrays_of(good)
    if edit_meta is not None:
        meta = json.loads(str(a["meta"]))
        edited = edit_meta(meta)
        a["meta"] = np.array(json.dumps(meta if edited is None else edited))
    for k, v in arrays.items():
        if v is None:
            a.pop(k)
        else:
            a[k] = v
    return write(good.parent / name, a)


def error_of(path) -> str:
    with pytest.raises(LaminaError) as e:
        load_model(str(path))
    err = e.value
    assert err.kind == "ValueError", err
    assert f"'{path}'" in err.message, err.message
    assert "pickle" not in err.message.lower(), err.message    # never NumPy's advice
    assert "Error:" not in err.message, err.message             # never a Python exception's name
    return err.message.split("or it is damaged: ", 1)[1]


def test_the_good_file_loads_and_predicts(good):
    net = load_model(str(good))
    assert predict(net, np.array([[0.0, 1.0]])).shape == (1, 1)


def test_not_an_archive(good, tmp_path):
    npy = tmp_path / "array.npy"
    np.save(npy, np.zeros(3))
    renamed = tmp_path / "renamed.npz"
    npy.rename(renamed)
    assert error_of(renamed) == "it is a single NumPy array (a .npy file), not a .npz archive of a model's arrays."
    text = tmp_path / "text.npz"
    text.write_text("hello")
    assert error_of(text) == "it is not a .npz archive (a zip file of NumPy arrays)."
    cut = tmp_path / "cut.npz"
    cut.write_bytes(good.read_bytes()[:-100])
    assert error_of(cut).startswith("it is not a readable zip archive")


def test_arrays_that_are_not_plain_numbers(good, tmp_path):
    pickled = tmp_path / "objects.npz"
    with open(pickled, "wb") as f:
        np.savez(f, **{**arrays_of(good), "param0": np.array([{"a": 1}], dtype=object)})
    assert error_of(pickled) == "its array 'param0' holds Python objects, which a model file never does."
    assert error_of(crafted(good, "ints.npz", param0=np.zeros((2, 3), dtype=np.int64))) == \
        "its array 'param0' is 2x3 of int64, not float64 or float32 numbers."
    assert error_of(crafted(good, "meta.npz", meta=np.zeros(3))) == \
        "its 'meta' array is 3 of float64, not the text of a header."
    assert error_of(crafted(good, "nometa.npz", meta=None)) == "it has no 'meta' header."


def raw_member(good, tmp_path, name, payload: bytes, member="param0.npy"):
    """good.npz with one member's bytes replaced by payload."""
    out = tmp_path / name
    with zipfile.ZipFile(good) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            dst.writestr(info.filename, payload if info.filename == member else src.read(info))
    return out


def npy_header(shape, dtype="<f8") -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": dtype, "fortran_order": False, "shape": shape})
    return buf.getvalue()


def test_array_headers_are_not_trusted(good, tmp_path):
    huge = raw_member(good, tmp_path, "huge.npz", npy_header((10**6, 10**6)) + bytes(48))
    assert error_of(huge) == ("its array 'param0' is damaged: its header says 1000000x1000000 of float64 "
                              "(8000000000000 bytes), but it holds 48 bytes.")
    junk = raw_member(good, tmp_path, "junk.npz", b"\x93NUMPY\x01\x00garbage")
    assert error_of(junk).startswith("its array 'param0' has no valid .npy header")
    other = raw_member(good, tmp_path, "other.npz", b"x", member="meta.npy")
    assert error_of(other).startswith("its array 'meta' has no valid .npy header")
    odd = tmp_path / "odd.npz"
    with zipfile.ZipFile(good) as src, zipfile.ZipFile(odd, "w") as dst:
        for info in src.infolist():
            dst.writestr(info, src.read(info))
        dst.writestr("readme.txt", b"hello")
    assert error_of(odd) == "it holds 'readme.txt', which is not a NumPy array (.npy) member."


def test_a_corrupted_byte_is_caught_by_the_checksum(good, tmp_path):
    data = bytearray(good.read_bytes())
    with zipfile.ZipFile(good) as z:
        info = z.getinfo("param0.npy")
    data[info.header_offset + 30 + len(info.filename) + 128 + 3] ^= 0xFF    # inside param0's numbers
    flipped = tmp_path / "flipped.npz"
    flipped.write_bytes(bytes(data))
    assert error_of(flipped) == "it is not a readable zip archive (Bad CRC-32 for file 'param0.npy')."


@pytest.mark.parametrize("header, expected", [
    ([1, 2], "its header is [1, 2], not a record of fields."),
    (5, "its header is 5, not a record of fields."),
    ("model", 'its header is "model", not a record of fields.'),
])
def test_a_header_that_is_not_a_record(good, header, expected):
    assert error_of(crafted(good, "h.npz", lambda m: header)) == expected


def test_a_header_nested_without_end(good, tmp_path):
    assert error_of(crafted(good, "deep.npz", meta=np.array("[" * 100_000))) == \
        "its header is nested too deeply to be a model's header."


def setter(path, value):
    """An edit that sets meta[path...] = value (path: keys and list indexes)."""
    def edit(meta):
        target = meta
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return edit


def remover(path):
    def edit(meta):
        target = meta
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]
    return edit


def version_2(inputs, steps):
    """An edit that makes the header version 2's: the input's width and steps for its shape."""
    def edit(meta):
        rest = {k: v for k, v in meta.items() if k not in ("format", "version", "shape")}
        return {"format": meta["format"], "version": 2, "inputs": inputs, "steps": steps, **rest}
    return edit


CASES = {
    "epochs_inf": (setter(["epochs"], float("inf")), "its header's epochs is Infinity, not a whole number of at least 0."),
    "epochs_nan": (setter(["epochs"], float("nan")), "its header's epochs is NaN, not a whole number of at least 0."),
    "epochs_half": (setter(["epochs"], 2.5), "its header's epochs is 2.5, not a whole number of at least 0."),
    "epochs_text": (setter(["epochs"], "3"), "its header's epochs is \"3\", not a whole number of at least 0."),
    "seed_negative": (setter(["seed"], -1), "its header's seed is -1, not a whole number of at least 0."),
    "seed_bool": (setter(["seed"], True), "its header's seed is true, not a whole number of at least 0."),
    "layers_5": (setter(["layers"], [5]), "its header's layers[0] is 5, not a record of a kind and settings."),
    "layers_empty": (setter(["layers"], []), "its header's layers is an empty list; a compiled model has at least one layer."),
    "layer_extra": (setter(["layers", 0, "shape"], 1), "its header's layers[0] has a field 'shape' that it never has (its fields are kind, settings)."),
    "activation": (setter(["layers", 0, "settings", "activation"], "__import__"),
                   'its header\'s layers[0] (dense): dense has no activation "__import__"; the activations are '
                   'none, relu, leaky_relu, sigmoid, tanh, softmax, gelu, silu.'),
    "units_inf": (setter(["layers", 1, "settings", "units"], float("inf")), "its header's layers[1] (dense): "),
    "missing": (remover(["loss"]), "its header lacks the field 'loss'."),
    "unknown": (setter(["comment"], "hi"), "its header has a field 'comment' that it never has (its fields are "
                "format, version, shape, layers, loss, seed, epochs, weights_epoch, optimizer, schedule)."),
    "weights_epoch_past_the_end": (setter(["weights_epoch"], 99), "its header's weights_epoch is 99, but only 3 epochs were trained."),
    "weights_epoch_fraction": (setter(["weights_epoch"], 0.5), "its header's weights_epoch is 0.5, not a whole number of at least 0."),
    "loss_number": (setter(["loss"], 3), "its header's loss is 3, not a loss's name or a saved function."),
    "loss_mismatch": (setter(["loss"], "cross_entropy"), "its header's loss: cross_entropy needs a last layer of at "
                      "least 2 units (one per class); for two classes with one unit use binary_cross_entropy."),
    "optimizer_list": (setter(["optimizer"], [1]), "its header's optimizer is [1], not a record of fields."),
    "optimizer_name": (setter(["optimizer", "name"], "__import__"), "its header's optimizer.name is \"__import__\", "
                       "and the optimizers are sgd, nesterov_sgd, adam, adamw, nadam, adamax, rmsprop, adagrad, adadelta."),
    "optimizer_no_t": (remover(["optimizer", "t"]), "its header's optimizer lacks the field 't'."),
    "optimizer_t": (setter(["optimizer", "t"], 1.5), "its header's optimizer.t is 1.5, not a whole number of at least 0."),
    "hp_text": (setter(["optimizer", "hp", "lr"], "fast"), "its header's optimizer.hp.lr is \"fast\", not a number."),
    "hp_range": (setter(["optimizer", "hp", "beta1"], 2), "its header's optimizer.hp.beta1: adam's beta1 must be "
                 "from 0 up to (not including) 1, not 2."),
    "hp_inf": (setter(["optimizer", "hp", "lr"], float("inf")), "its header's optimizer.hp.lr: adam's lr must be finite and at least 0, not Inf."),
    "hp_extra": (setter(["optimizer", "hp", "momentum"], 0.9), "its header's optimizer.hp has a field 'momentum' that "
                 "it never has (its fields are lr, beta1, beta2, eps)."),
    "hp_missing": (remover(["optimizer", "hp", "eps"]), "its header's optimizer.hp lacks the field 'eps'."),
    "schedule_number": (setter(["schedule"], 5), "its header's schedule is 5, not a record of fields."),
    "schedule_name": (setter(["schedule", "name"], "lr_magic"), "its header's schedule.name is \"lr_magic\", and the "
                      "schedules are lr_plateau, lr_adaptive, lr_step, lr_cosine."),
    "schedule_base": (setter(["schedule", "base"], "adam"), "its header's schedule.base is \"adam\", not a record of fields."),
    "schedule_base_hp": (setter(["schedule", "base", "name"], "sgd"), "its header's schedule.base.hp lacks the field "
                         "'momentum'."),
    "schedule_base_name": (setter(["schedule", "base"], {"name": "sgd", "hp": {"lr": 0.1, "momentum": 0}}),
                           "its header's schedule.base.name is \"sgd\", but the optimizer it steps is \"adam\"."),
    "schedule_settings": (setter(["schedule", "settings"], [1]), "its header's schedule.settings is [1], not a record of fields."),
    "schedule_patience": (setter(["schedule", "settings", "patience"], 0), "its header's schedule.settings: lr_plateau's "
                          "patience must be at least 1, not 0."),
    "schedule_patience_half": (setter(["schedule", "settings", "patience"], 2.5), "its header's schedule.settings: "
                               "lr_plateau's patience must be a whole number, not 2.5."),
    "schedule_lr": (setter(["schedule", "settings", "lr"], 0.5), "its header's schedule.settings.lr (0.5) is not its "
                    "schedule.base.hp.lr (0.1)."),
    "schedule_state": (setter(["schedule", "state", "secret"], 1), "its header's schedule.state has a field 'secret' "
                       "that lr_plateau never keeps (it keeps best, wait)."),
    "schedule_state_text": (setter(["schedule", "state", "best"], "low"), "its header's schedule.state.best is \"low\", not a number."),
    "schedule_wait": (setter(["schedule", "state", "wait"], 0.5), "its header's schedule.state.wait is 0.5, not a whole number of epochs."),
    "version_text": (setter(["version"], "2"), "it is version \"2\", and this Lamina reads versions 2 and 3."),
    "shape_zero": (setter(["shape"], [0]), "its header's shape[0] is 0, not a whole number of at least 1."),
    "shape_fraction": (setter(["shape"], [2, 1.5]), "its header's shape[1] is 1.5, not a whole number of at least 1."),
    "shape_number": (setter(["shape"], 2), "its header's shape is 2, not a list of 1 to 8 sizes."),
    "shape_empty": (setter(["shape"], []), "its header's shape is [], not a list of 1 to 8 sizes."),
    "shape_rank_9": (setter(["shape"], [1] * 9), "its header's shape is [1, 1, 1, 1, 1, 1, 1, 1, 1], not a list of 1 to 8 sizes."),
    "shape_wrong": (setter(["shape"], [3]), "the weights' shapes do not match the layers: param0 (the weight 'w' "
                    "of layer 0, dense(3, activation = \"relu\")) is 2x3, but it must be 3x3."),
    "v2_steps": (version_2(2, 0), "its header's steps is 0, not a whole number of at least 1."),
    "v2_inputs": (version_2(0, None), "its header's inputs is 0, not a whole number of at least 1."),
    "v2_not_whole_steps": (version_2(3, 2), "its header's inputs (3) is not a whole number of steps (2)."),
    "v2_with_shape": (lambda meta: {**version_2(2, None)(meta), "shape": [2]}, "its header has a field "
                      "'shape' that it never has (its fields are format, version, inputs, steps, layers, loss, "
                      "seed, epochs, weights_epoch, optimizer, schedule)."),
}


@pytest.mark.parametrize("case", list(CASES))
def test_each_header_field_is_checked(good, case):
    edit, expected = CASES[case]
    message = error_of(crafted(good, f"{case}.npz", edit))
    if expected.endswith(": "):
        assert message.startswith(expected), message
    else:
        assert message == expected


def test_the_arrays_must_match_the_header(good):
    assert error_of(crafted(good, "hist.npz", loss_history=np.zeros(5))) == \
        "its loss_history has 5 entries, but its header says 3 epochs were trained."
    assert error_of(crafted(good, "val.npz", val_loss_history=np.zeros(4))) == \
        "its val_loss_history has 4 entries, but its header says 3 epochs were trained."
    assert error_of(crafted(good, "lr.npz", lr_history=np.zeros((3, 1)))) == "its lr_history is 3x1, not a vector."
    assert error_of(crafted(good, "nolr.npz", lr_history=None)) == "its lr_history is missing."
    assert error_of(crafted(good, "vec.npz", param1=np.zeros(3))) == \
        "param1 (the weight 'b' of layer 0, dense(3, activation = \"relu\")) is vector of length 3, not a matrix."
    assert error_of(crafted(good, "state.npz", state0_v=None)) == "state0_v is missing."
    assert error_of(crafted(good, "spare.npz", state0_velocity=np.zeros((2, 3)))) == \
        "it holds an array 'state0_velocity' that its model does not have (its layers have 4 weights, and adam keeps m, v)."


def test_big_endian_weights_read_as_the_same_numbers(good):
    a = arrays_of(good)
    path = crafted(good, "big.npz", param0=a["param0"].astype(">f8"))
    np.testing.assert_array_equal(load_model(str(path)).optimizer.params[0], a["param0"])


def test_a_header_with_more_layers_than_the_file_has_weights_is_refused_before_building(good, monkeypatch):
    # 5,000 layers in a 0.9 MB file took 26 s to refuse (each layer built a spec of all before it)
    from lamina.models.layer import Layer
    built = []
    monkeypatch.setattr(Layer, "output", lambda self, data: built.append(self) or data)
    many = [{"kind": "dense", "settings": {"units": 3, "activation": "relu"}}] * 5000
    path = crafted(good, "many.npz", lambda meta: meta.update(layers=many))
    assert error_of(path) == ("its header describes 5000 layers, 5000 of them with weights, but it "
                              "holds 4 weight arrays (param0, param1, ...).")
    assert built == []


def test_a_model_of_many_layers_loads_in_time_linear_in_its_layers(tmp_path, monkeypatch):
    """Counted, not timed: loading asks each layer its output shape a few times, not once per
    layer before it."""
    from lamina.models.compile import compile_model
    from lamina.models.layers.dense import Dense
    from lamina.models.spec import ModelSpec
    n = 400
    layers = (Dense(2, "tanh"),) * (n - 1) + (Dense(1, "none"),)
    net = compile_model(ModelSpec((2,), layers), "adam", "mse", 1.0)
    path = str(tmp_path / "deep.npz")
    save_model(net, path)
    asked = []
    real = Dense.output
    monkeypatch.setattr(Dense, "output", lambda self, data: asked.append(1) or real(self, data))
    back = load_model(path)
    assert back.spec.layers == layers and len(back.optimizer.params) == 2 * n
    x = np.array([[0.5, -1.0]])
    np.testing.assert_array_equal(predict(back, x), predict(net, x))
    assert len(asked) <= 3 * n
