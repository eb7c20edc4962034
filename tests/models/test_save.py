"""save_model / load_model: an exact round trip, and clear errors for bad files."""
import json
import zipfile

import numpy as np
import pytest

from lamina.errors import LaminaError
from lamina.models.fit import fit
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
    expect_error(junk, "not a NumPy .npz file")

    other = tmp_path / "other.npz"
    np.savez(other, a=np.zeros(3))
    expect_error(other, "a part is missing or malformed")

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
    expect_error(rewrite("loss.npz", meta(loss="hinge")), "malformed")
    expect_error(rewrite("shape.npz", lambda a: a.update(param0=np.zeros((3, 3)))), "shapes do not match")
    expect_error(rewrite("gone.npz", lambda a: a.pop("param3")), "missing")
    expect_error(rewrite("json.npz", lambda a: a.update(meta=np.array("{not json"))), "malformed")
    expect_error(rewrite("kind.npz", lambda a: a.update(param0=np.zeros((2, 3), dtype=np.int64))),
                 "not a float matrix")
    assert zipfile.is_zipfile(good)


def test_save_errors(tmp_path, run):
    with pytest.raises(LaminaError) as e:
        run(f'net = input(2) |> dense(1) |> compile()\nsave_model(net, "{tmp_path}/no/such/dir/m.npz")')
    assert e.value.kind == "ValueError" and "could not write" in e.value.message
    with pytest.raises(LaminaError, match="needs a compiled model"):
        run('save_model(input(2) |> dense(1), "m.npz")')
    with pytest.raises(LaminaError, match="path must be a string"):
        run('save_model(input(2) |> dense(1) |> compile(), 3)')
