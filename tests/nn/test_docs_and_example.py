"""Every nn/optimizer/training builtin is documented, and its examples run and print;
the GRU example program learns."""
import contextlib
import io
import pathlib
import re
import subprocess
import sys

import pytest

from lamina.builtins import gru, losses, nn, optimizers, training
from lamina.builtins.registry import REGISTRY
from lamina.interpreter import Interpreter

MODULES = {m.__name__ for m in (nn, losses, gru, optimizers, training)}
MINE = sorted(name for name, spec in REGISTRY.items() if spec.fn.__module__ in MODULES)
ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_the_builtins_are_registered():
    assert set(MINE) >= {
        "dense", "relu", "sigmoid", "tanh", "softmax_rows", "log_softmax_rows", "leaky_relu", "gelu",
        "dropout", "mse", "mae", "cross_entropy", "binary_cross_entropy", "gru_init", "gru_cell",
        "gru_forward", "sgd", "nesterov_sgd", "adam", "adamw", "nadam", "adamax", "rmsprop",
        "adagrad", "adadelta", "optimizer_step", "train_loop"}


@pytest.mark.parametrize("name", MINE)
def test_documented_and_examples_print(name):
    spec = REGISTRY[name]
    assert spec.category == ("Optimizers & training" if spec.fn.__module__ in (optimizers.__name__, training.__name__)
                             else "Neural nets")
    assert spec.shapes and spec.summary and spec.notes and spec.examples
    for example in spec.examples:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            Interpreter().run(example, f"<example of {name}>")
        assert out.getvalue().strip(), f"an example of {name} printed nothing"


def test_the_gru_example_learns():
    r = subprocess.run([sys.executable, "-m", "lamina.cli", str(ROOT / "examples" / "gru_sine.lam")],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    first, last = map(float, re.match(r"loss (\S+) -> (\S+):", r.stdout).groups())
    assert first / last >= 10
