"""The model builtins are registered and documented, their examples run; the digits and
sequences examples learn; a seeded fit repeats exactly across processes; the progress bar
shows on a terminal."""
import contextlib
import io
import os
import pathlib
import pty
import re
import subprocess
import sys
import time

import pytest

from lamina.builtins import layers, lr_schedules, models
from lamina.builtins.registry import load_all
from lamina.interpreter import Interpreter

ROOT = pathlib.Path(__file__).resolve().parents[2]
LAMINA = [sys.executable, "-m", "lamina"]
REGISTRY = load_all()
MODELS = (models.__name__, layers.__name__)
MINE = sorted(n for n, s in REGISTRY.items() if s.fn.__module__ in (*MODELS, lr_schedules.__name__))


def test_the_builtins_are_registered():
    assert MINE == sorted(["input", "compile", "fit", "predict", "evaluate", "quick_mlp",
                           "save_model", "load_model", "lr_plateau", "lr_adaptive", "lr_step", "lr_cosine",
                           "gru", "embedding", "layer_norm", "flatten", "summary", "custom_layer"])
    assert any(s.code.startswith("dense(spec, units") for s in REGISTRY["dense"].shapes)
    assert any(s.code == "input(steps, features)" for s in REGISTRY["input"].shapes)
    assert any(s.code == "input(height, width, channels)" for s in REGISTRY["input"].shapes)


@pytest.mark.parametrize("name", MINE)
def test_documented_and_examples_print(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)                      # examples that save files write here
    spec = REGISTRY[name]
    assert spec.category == ("Models" if spec.fn.__module__ in MODELS else "Optimizers & training")
    assert spec.summary and len(spec.notes) > 100
    assert spec.shapes and all(s.input and s.output and s.description for s in spec.shapes)
    for example in spec.examples:
        outputs = []
        for _ in range(2):
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                Interpreter().run(example, f"<example of {name}>")
            outputs.append(out.getvalue())
        assert outputs[0].strip(), f"an example of {name} printed nothing"
        assert outputs[0] == outputs[1], f"an example of {name} is not deterministic"


def test_the_digits_example_classifies_held_out_images():
    start = time.perf_counter()
    r = subprocess.run(LAMINA + ["examples/digits.lam"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert time.perf_counter() - start < 30
    accuracy = float(re.search(r"held-out accuracy: (\S+)% of 450 images", r.stdout).group(1))
    assert accuracy > 90


def test_the_sequences_example_learns_and_reloads(tmp_path):
    start = time.perf_counter()
    r = subprocess.run(LAMINA + [str(ROOT / "examples" / "sequences.lam")], cwd=tmp_path,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert time.perf_counter() - start < 20
    positives, total = map(int, re.search(r"(\d+) of (\d+) sequences have a 7 after a 3", r.stdout).groups())
    assert total == 1200 and 0.1 < positives / total < 0.3
    accuracy = float(re.search(r"held-out accuracy: (\S+)% of 300 sequences", r.stdout).group(1))
    assert accuracy > 95
    yes = re.search(r"P\(yes\): \[(.*)\]", r.stdout).group(1).split(", ")
    assert [float(p) > 0.5 for p in yes] == [True, True, False, False]
    assert "loaded back, same predictions: true" in r.stdout
    assert (tmp_path / "sequences_model.npz").exists()


SEEDED = """print_options(width = Inf)     # every digit, each value on one line
X = [0.1, 0.9; 0.8, 0.2; 0.3, 0.3; 0.9, 0.7; 0.5, 0.1; 0.2, 0.6; 0.7, 0.8; 0.4, 0.4]
Y = [1, 0, 0, 1, 0, 1, 1, 0]
net = input(2) |> dense(6, activation = "relu") |> dropout(0.3) |> dense(2, activation = "softmax") |>
      compile(optimizer = lr_adaptive(lr = 0.05), loss = "cross_entropy", seed = 11)
net = net.fit(X, Y, epochs = 25, batch_size = 3, validation_split = 0.25)
print(net.loss_history)
print(net.val_loss_history)
print(net.weights[0].w)
"""


def test_the_same_seed_gives_the_same_loss_history_in_every_run(tmp_path):
    program = tmp_path / "seeded.lam"
    program.write_text(SEEDED)
    runs = [subprocess.run(LAMINA + [str(program)], capture_output=True, text=True, timeout=120)
            for _ in range(2)]
    assert all(r.returncode == 0 for r in runs), runs[0].stderr
    assert runs[0].stdout == runs[1].stdout and len(runs[0].stdout.splitlines()) == 3
    history = runs[0].stdout.splitlines()[0]
    assert history.count(",") == 24


def run_on_a_terminal(source: str, tmp_path) -> str:
    program = tmp_path / "bar.lam"
    program.write_text(source)
    pid, fd = pty.fork()
    if pid == 0:                                     # the child: stdout is the terminal
        os.execv(sys.executable, LAMINA + [str(program)])
    out = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    os.waitpid(pid, 0)
    return out.decode("utf-8", "replace")


BAR = ('net = input(1) |> dense(1) |> compile(seed = 0)\n'
       'net = net.fit([1.0, 2.0, 3.0], [2.0, 4.0, 6.0], epochs = 5{options})\nprint("done", net.epochs)\n')


def test_a_progress_bar_on_a_terminal_and_silence_with_verbose_0(tmp_path):
    shown = run_on_a_terminal(BAR.format(options=""), tmp_path)
    assert "epoch 5/5" in shown and "ex/s" in shown and "loss" in shown and "done 5" in shown, shown
    quiet = run_on_a_terminal(BAR.format(options=", verbose = 0"), tmp_path)
    assert "epoch" not in quiet and "done 5" in quiet, quiet
    # true and false read as 1 and 0, as in Keras.
    for options, bar in ((", verbose = false", False), (", verbose = true", True)):
        out = run_on_a_terminal(BAR.format(options=options), tmp_path)
        assert ("epoch 5/5" in out) == bar and "done 5" in out, out
