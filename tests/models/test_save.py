"""save_model / load_model: an exact round trip, and clear errors for bad files."""
import json
import zipfile

import numpy as np
import pytest

from lamina.errors import LaminaError
from lamina.models.fit import fit
from lamina.models.layer import KINDS
from lamina.models.save import load_model, save_model


def same(a, b):
    assert a.spec.inputs == b.spec.inputs and a.spec.layers == b.spec.layers
    assert a.loss.name == b.loss.name and a.seed == b.seed and a.epochs == b.epochs
    assert a.optimizer.rule is b.optimizer.rule and a.optimizer.hp == b.optimizer.hp
    assert a.optimizer.t == b.optimizer.t
    for p, q in zip(a.optimizer.params, b.optimizer.params):
        np.testing.assert_array_equal(p, q)
    for s, t in zip(a.optimizer.state, b.optimizer.state):
        assert s.keys() == t.keys() and all(np.array_equal(s[k], t[k]) for k in s)
    for h in ("loss_history", "val_loss_history", "lr_history"):
        np.testing.assert_array_equal(getattr(a, h), getattr(b, h))
    assert (a.schedule is None) == (b.schedule is None)
    if a.schedule is not None:
        assert a.schedule.kind is b.schedule.kind and a.schedule.settings == b.schedule.settings
        assert a.schedule.base.hp == b.schedule.base.hp and a.schedule_state == b.schedule_state


def test_round_trip_is_exact_and_training_continues_identically(tmp_path, run, blobs):
    x, labels = blobs
    _, interp = run('net = input(3) |> dense(6, activation = "gelu") |> dropout(0.2) |>\n'
                    '      dense(3, activation = "softmax") |>\n'
                    '      compile(optimizer = lr_plateau(lr = 0.02, patience = 1, base = nadam(beta1 = 0.8)),\n'
                    '              loss = "cross_entropy", seed = 4)')
    net = fit(interp.get("net"), x, labels, epochs=5, validation_split=0.2, verbose=0)
    path = str(tmp_path / "model")                   # no extension: written to exactly this path
    save_model(net, path)
    back = load_model(path)
    same(net, back)
    same(fit(net, x, labels, epochs=3, validation_split=0.2, verbose=0),
         fit(back, x, labels, epochs=3, validation_split=0.2, verbose=0))


def test_every_schedule_and_an_untrained_model(tmp_path, run):
    for opt in ('lr_adaptive(lr = 0.1)', 'lr_step(0.1, 3)', 'lr_cosine(0.1, 10)', '"sgd"', 'adamw(lr = 0.3)'):
        _, interp = run(f'net = input(2) |> dense(1) |> compile(optimizer = {opt}, seed = 2)\n'
                        f'net = net.fit([0, 1; 1, 0; 1, 1], [1, 1, 2], epochs = 3)')
        for model in (interp.get("net"),):
            save_model(model, str(tmp_path / "m.npz"))
            same(model, load_model(str(tmp_path / "m.npz")))


def test_in_a_program(tmp_path, run, monkeypatch):
    monkeypatch.chdir(tmp_path)
    lines, _ = run('net = input(2) |> dense(2, activation = "tanh") |> dense(1) |> compile(seed = 1)\n'
                   'net = net.fit([0, 1; 1, 0], [1, 2], epochs = 4)\nsave_model(net, "n.npz")\n'
                   'back = load_model("n.npz")\nprint(back.loss_history == net.loss_history, back.epochs)\n'
                   'print(type(back))')
    assert lines == ["[1, 1, 1, 1] 4", "model"]


def expect_error(path, words):
    with pytest.raises(LaminaError) as e:
        load_model(str(path))
    assert e.value.kind == "ValueError" and str(path) in e.value.message and words in e.value.message, \
        e.value.message


def test_missing_file_and_folder(tmp_path):
    expect_error(tmp_path / "nope.npz", "there is no file")
    expect_error(tmp_path, "is a folder")


def test_corrupt_files(tmp_path, run):
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"this is not a model")
    expect_error(junk, "it is not a .npz archive (a zip file of NumPy arrays)")

    other = tmp_path / "other.npz"
    np.savez(other, a=np.zeros(3))
    expect_error(other, "it has no 'meta' header")

    _, interp = run('net = input(2) |> dense(3, activation = "relu") |> dense(1) |> compile(seed = 1)')
    good = tmp_path / "good.npz"
    save_model(interp.get("net"), str(good))
    truncated = tmp_path / "truncated.npz"
    truncated.write_bytes(good.read_bytes()[:200])
    expect_error(truncated, "not a model saved by save_model")

    def rewrite(name, change):
        with np.load(good) as data:
            arrays = {k: data[k] for k in data.files}
        change(arrays)
        path = tmp_path / name
        with open(path, "wb") as f:
            np.savez(f, **arrays)
        return path

    def meta(**edit):
        def change(arrays):
            m = json.loads(str(arrays["meta"]))
            m.update(edit)
            arrays["meta"] = np.array(json.dumps(m))
        return change

    expect_error(rewrite("fmt.npz", meta(format="something")), "lamina-model format")
    expect_error(rewrite("ver.npz", meta(version=99)), "version 99")
    expect_error(rewrite("loss.npz", meta(loss="hinge")), "its header's loss: compile has no loss \"hinge\"")
    expect_error(rewrite("shape.npz", lambda a: a.update(param0=np.zeros((3, 3)))), "shapes do not match")
    expect_error(rewrite("gone.npz", lambda a: a.pop("param3")), "missing")
    expect_error(rewrite("json.npz", lambda a: a.update(meta=np.array("{not json"))), "its header is not JSON")
    expect_error(rewrite("kind.npz", lambda a: a.update(param0=np.zeros((2, 3), dtype=np.int64))),
                 "its array 'param0' is 2x3 of int64, not float64 or float32 numbers")
    assert zipfile.is_zipfile(good)


def test_save_errors(tmp_path, run):
    with pytest.raises(LaminaError) as e:
        run(f'net = input(2) |> dense(1) |> compile()\nsave_model(net, "{tmp_path}/no/such/dir/m.npz")')
    assert e.value.kind == "ValueError" and "could not write" in e.value.message
    with pytest.raises(LaminaError, match="needs a compiled model"):
        run('save_model(input(2) |> dense(1), "m.npz")')
    with pytest.raises(LaminaError, match="path must be a string"):
        run('save_model(input(2) |> dense(1) |> compile(), 3)')


SEQUENCE_NET = ('seed(2)\nX = floor(5 * rand(40, 4))\nY = sum(X == 2, 1) > 0\n'
                'net = input(4) |> embedding(5, 3) |> layer_norm() |> gru(4, return_sequences = true) |>\n'
                '      gru(3) |> dropout(0.1) |> dense(2, activation = "softmax") |>\n'
                '      compile(optimizer = "adam", loss = "cross_entropy", seed = 6)\n'
                'net = net.fit(X, Y, epochs = 3, batch_size = 8, verbose = 0)\n')


def test_round_trip_of_the_sequence_layers(tmp_path, run):
    _, interp = run(SEQUENCE_NET)
    net, X, Y = (interp.get(k) for k in ("net", "X", "Y"))
    path = str(tmp_path / "seq.npz")
    save_model(net, path)
    back = load_model(path)
    same(net, back)
    assert back.spec.steps is None and [s.steps for s in back.spec.shapes] == [None, 4, 4, 4, None, None, None]
    from lamina.models.evaluate import predict
    np.testing.assert_array_equal(predict(back, X), predict(net, X))
    same(fit(net, X, Y, epochs=2, verbose=0), fit(back, X, Y, epochs=2, verbose=0))


def test_sequence_input_round_trip(tmp_path, run):
    _, interp = run('net = input(3, 2) |> gru(2) |> dense(1) |> compile(seed = 1)')
    save_model(interp.get("net"), str(tmp_path / "s.npz"))
    back = load_model(str(tmp_path / "s.npz"))
    assert back.spec.inputs == 6 and back.spec.steps == 3


def test_version_3_is_checked_part_by_part(tmp_path, run):
    _, interp = run('net = input(4) |> embedding(5, 3) |> gru(2) |> dense(1) |> compile(seed = 1)')
    good = tmp_path / "good.npz"
    save_model(interp.get("net"), str(good))
    with np.load(good) as data:
        meta = json.loads(str(data["meta"]))
    assert meta["version"] == 3 and meta["shape"] == [4] and meta["layers"][1] == {"kind": "gru", "settings": {
        "units": 2, "return_sequences": False}}

    def rewrite(name, change):
        with np.load(good) as data:
            arrays = {k: data[k] for k in data.files}
        m = json.loads(str(arrays["meta"]))
        change(m, arrays)
        arrays["meta"] = np.array(json.dumps(m))
        path = tmp_path / name
        with open(path, "wb") as f:
            np.savez(f, **arrays)
        return path

    def layer(i, value):
        return lambda m, a: m["layers"].__setitem__(i, value)

    expect_error(rewrite("v1.npz", lambda m, a: m.update(version=1)), "version 1 of the format")
    expect_error(rewrite("kind.npz", layer(1, {"kind": "capsule", "settings": {"units": 2}})),
                 "its header's layers[1].kind is \"capsule\", and the layer kinds are " + ", ".join(KINDS))
    expect_error(rewrite("units.npz", layer(1, {"kind": "gru", "settings": {"units": 0, "return_sequences": False}})),
                 "its header's layers[1] (gru): gru's units must be at least 1")
    expect_error(rewrite("lack.npz", layer(1, {"kind": "gru", "settings": {"units": 2}})),
                 "lack 'return_sequences'")
    expect_error(rewrite("flag.npz", layer(1, {"kind": "gru", "settings": {"units": 2, "return_sequences": 1}})),
                 "return_sequences must be true or false")
    expect_error(rewrite("shape.npz", layer(0, {"kind": "dense", "settings": {"units": 3, "activation": "relu"}})),
                 "its header's layers[1] (gru): gru reads sequences")
    expect_error(rewrite("odd.npz", layer(0, ["embedding", 5, 3])),
                 "its header's layers[0] is [\"embedding\", 5, 3], not a record of a kind and settings")
    expect_error(rewrite("shape.npz", lambda m, a: m.update(shape=[0])),
                 "its header's shape[0] is 0, not a whole number of at least 1")
    expect_error(rewrite("image.npz", lambda m, a: m.update(shape=[2, 2, 1])),
                 "its header's layers[1] (gru): gru reads sequences (steps x features per example), but its "
                 "input is 2 x 2 x 3 per example")
    expect_error(rewrite("table.npz", lambda m, a: a.update(param0=np.zeros((4, 3)))),
                 "param0 (the weight 'table' of layer 0, embedding(5, 3)) is 4x3, but it must be 5x3")
    expect_error(rewrite("uz.npz", lambda m, a: a.update(param2=np.zeros((2, 3)))),
                 "the weight 'uz' of layer 1, gru(2)")
    expect_error(rewrite("state.npz", lambda m, a: a.update(state1_m=np.zeros((1, 1)))), "state1_m is 1x1")
    expect_error(rewrite("extra.npz", lambda m, a: a.update(param12=np.zeros((1, 1)))),
                 "it holds an array 'param12' that its model does not have (its layers have 12 weights")
    expect_error(rewrite("list.npz", lambda m, a: m.update(layers={"kind": "dense"})),
                 "its header's layers is {\"kind\": \"dense\"}, not a list")
    expect_error(rewrite("sched.npz", lambda m, a: m.update(schedule={"name": "lr_step", "settings": [1]})),
                 "its header's schedule lacks the field 'base'")
