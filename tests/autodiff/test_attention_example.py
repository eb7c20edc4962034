"""examples/attention.lam: multi-head self-attention written by hand on b x t x d arrays. Its loss
and the gradients of its four projections equal PyTorch's for the same numbers, at the start and
after its training, and the training it prints lowers the loss."""
from __future__ import annotations

import pathlib
import subprocess
import sys

import numpy as np
import pytest

from lamina.autodiff.tape import TAPE
from lamina.interpreter import Interpreter

torch = pytest.importorskip("torch")

PROGRAM = pathlib.Path(__file__).resolve().parents[2] / "examples" / "attention.lam"
NAMES = ("query", "key", "value", "out")


def torch_loss(X, Y, p: dict, heads: int):
    b, t, d = X.shape
    k = d // heads

    def split(x):
        return x.reshape(b, t, heads, k).permute(0, 2, 1, 3)
    q, keys, values = (split(X @ p[n]) for n in ("query", "key", "value"))
    weights = torch.softmax(torch.einsum("bhqk,bhsk->bhqs", q, keys) / k ** 0.5, dim=-1)
    mixed = (weights @ values).permute(0, 2, 1, 3).reshape(b, t, d)
    return ((mixed @ p["out"] - Y) ** 2).mean()


def check_against_torch(interpreter: Interpreter, params: str) -> None:
    X, Y, heads, *start = interpreter.run_cell(
        f"[X, Y, h, {', '.join(f'{params}.{n}' for n in NAMES)}]", "<values>")
    loss, grads = interpreter.run_cell(
        f"p0 = param({params})\nl0 = loss_of(p0)\n[l0, grad(l0, wrt = p0)]", "<gradient>")
    TAPE.reset()
    tp = {n: torch.tensor(v, requires_grad=True) for n, v in zip(NAMES, start)}
    expected = torch_loss(torch.tensor(X), torch.tensor(Y), tp, int(heads))
    expected.backward()
    assert loss.value == pytest.approx(expected.item(), rel=1e-12)
    for n in NAMES:
        np.testing.assert_allclose(grads.get(n), tp[n].grad.numpy(), rtol=1e-9, atol=1e-12, err_msg=n)


def test_the_attention_example_s_loss_and_gradients_equal_torch_s():
    interpreter = Interpreter()
    interpreter.run(PROGRAM.read_text(), str(PROGRAM))
    check_against_torch(interpreter, "start")
    check_against_torch(interpreter, "opt.params")


def test_the_attention_example_trains_and_prints_its_attention_weights():
    r = subprocess.run([sys.executable, "-m", "lamina", str(PROGRAM)], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0 and r.stderr == ""
    lines = r.stdout.splitlines()
    losses = [float(line.rsplit(" ", 1)[1]) for line in lines if line.startswith("step ")]
    assert [line.split(":")[0] for line in lines[:4]] == ["step 1", "step 20", "step 40", "step 60"]
    assert losses == sorted(losses, reverse=True) and losses[-1] < losses[0] / 20
    weights = np.array([float(x) for x in lines[-1].strip("[]").split(", ")])
    assert weights.shape == (6,) and abs(weights.sum() - 1) < 0.01 and np.all(np.abs(weights - 1 / 6) < 0.02)
