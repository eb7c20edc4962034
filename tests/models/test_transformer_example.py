"""examples/transformer.lam: a small transformer (embedding, positional_embedding, two
transformer_blocks, a 1-wide conv1d scoring the digits at each step, a cross-entropy loss written in
Lamina) learns to sort strings of 8 digits. Run as a user runs it, it sorts more than 95% of the
held-out digits into the right place (the test recomputes that number from the model itself), and
the loss it fits is each position's cross-entropy."""
from __future__ import annotations

import contextlib
import io
import pathlib
import re

import numpy as np
import pytest

from lamina.autodiff.tape import TAPE
from lamina.interpreter import Interpreter

PROGRAM = pathlib.Path(__file__).resolve().parents[2] / "examples" / "transformer.lam"


@pytest.fixture(scope="module")
def ran():
    interp = Interpreter()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        interp.run(PROGRAM.read_text(), str(PROGRAM))
    TAPE.reset()
    return interp, out.getvalue().splitlines()


def test_it_sorts_more_than_95_percent_of_the_held_out_digits(ran):
    interp, lines = ran
    printed = float(re.search(r"held-out digits in the right place: ([\d.]+)%", "\n".join(lines)).group(1))
    X, Y = interp.get("X"), interp.get("Y")
    train, test, n = int(interp.get("train")), int(interp.get("test")), int(interp.get("n"))
    np.testing.assert_array_equal(Y, np.sort(X, axis=1))
    scores = interp.run_cell("predict(net, X[unseen, :])", "<check>").reshape(test, n, 10)
    right = np.mean(np.argmax(scores, axis=-1) == np.sort(X[train:], axis=1))
    assert right > 0.95
    assert printed == pytest.approx(100 * right, abs=0.006)


def test_the_loss_is_each_position_s_cross_entropy(ran):
    interp, _ = ran
    net, targets = interp.get("net"), interp.get("targets")
    logits = interp.run_cell("reshape(predict(net, X[0:50, :]), 50, n, 10)", "<check>")
    shifted = logits - logits.max(axis=-1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    expected = -np.sum(targets[:50] * log_p) / (50 * 8)
    assert interp.run_cell("sequence_loss(reshape(predict(net, X[0:50, :]), 50, n, 10), targets[0:50, :, :])",
                           "<loss>") == pytest.approx(expected, rel=1e-5)
    assert net.loss_history[-1] < 0.05 * net.loss_history[0]
