"""Ctrl-C while fit trains: it stops after the current batch and returns the model trained so
far, with the completed epochs' histories and `interrupted` true; Ctrl-C elsewhere is as before.

In process, a real SIGINT is sent from inside a chosen batch (fit's train_step wrapped to
count batches); through a real `lamina` process, SIGINT arrives after a few epochs.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from lamina.models import fit as fit_module
from lamina.models.fit import fit


@pytest.fixture
def rows():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((12, 2))
    return x, x @ np.array([[1.0], [-2.0]]) + 0.5


def batches_with(monkeypatch, at_call: int, how: str) -> list:
    """Wrap fit's train_step: at call `at_call` (counted from 1) Ctrl-C is pressed inside the
    batch ("signal": a real SIGINT; "raise": a KeyboardInterrupt, as a second Ctrl-C gives).
    Returns the list of optimizers the completed batches produced."""
    real, done = fit_module.train_step, []

    def step(model, opt, xb, yb, rng, **held):
        if len(done) + 1 == at_call and how == "raise":
            raise KeyboardInterrupt
        if len(done) + 1 == at_call:
            os.kill(os.getpid(), signal.SIGINT)
        loss, new, buffers = real(model, opt, xb, yb, rng, **held)
        done.append(new)
        return loss, new, buffers
    monkeypatch.setattr(fit_module, "train_step", step)
    return done


def test_ctrl_c_finishes_the_batch_then_returns_the_completed_epochs(rows, build, monkeypatch, capsys):
    x, y = rows
    full = fit(build([(4, "tanh"), (1, "none")], lr=0.05, seed=1), x, y, epochs=6, batch_size=4, verbose=0)
    assert not full.interrupted and full.get("interrupted") is False
    done = batches_with(monkeypatch, at_call=8, how="signal")       # epoch 2 (from 0), its 2nd batch
    net = fit(build([(4, "tanh"), (1, "none")], lr=0.05, seed=1), x, y, epochs=6, batch_size=4, verbose=1)
    assert len(done) == 8                        # the batch Ctrl-C arrived in was finished
    assert net.interrupted and net.get("interrupted") is True and net.epochs == 2
    np.testing.assert_array_equal(net.get("loss_history"), full.get("loss_history")[:2])
    assert net.get("lr_history").size == 2 and net.get("val_loss_history").size == 0
    for w, finished in zip(net.optimizer.params, done[-1].params):
        np.testing.assert_array_equal(w, finished)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler   # Ctrl-C is itself again
    assert capsys.readouterr().err == ("warning: fit stopped by Ctrl-C after 2 complete epochs; it returns "
                                       "the model trained so far (interrupted = true).\n")
    assert "; fit was interrupted (Ctrl-C)" in net.describe()


@pytest.mark.parametrize("verbose", [0, 1, 2])
def test_the_notice_of_a_ctrl_c_is_written_whatever_verbose_says(rows, build, monkeypatch, capsys, verbose):
    # with verbose = 0 a script went on to print a half-trained model's results without a word
    x, y = rows
    batches_with(monkeypatch, at_call=5, how="signal")
    net = fit(build([(1, "none")], seed=2), x, y, epochs=4, batch_size=4, verbose=verbose)
    assert net.interrupted
    assert capsys.readouterr().err.splitlines()[-1] == (
        "warning: fit stopped by Ctrl-C after 1 complete epoch; it returns the model trained so far "
        "(interrupted = true).")


def test_a_keyboard_interrupt_inside_a_batch_drops_that_batch(rows, build, monkeypatch):
    x, y = rows
    done = batches_with(monkeypatch, at_call=5, how="raise")
    net = fit(build([(4, "tanh"), (1, "none")], lr=0.05, seed=1), x, y, epochs=6, batch_size=4, verbose=0)
    assert net.interrupted and net.epochs == 1 and len(done) == 4
    for w, finished in zip(net.optimizer.params, done[-1].params):
        np.testing.assert_array_equal(w, finished)


def test_ctrl_c_in_the_last_batch_of_an_epoch_keeps_that_epoch(rows, build, monkeypatch):
    x, y = rows
    batches_with(monkeypatch, at_call=3, how="signal")             # the last batch of epoch 0
    net = fit(build([(1, "none")], seed=2), x, y, epochs=4, batch_size=4, verbose=0)
    assert (net.interrupted, net.epochs) == (True, 1)
    batches_with(monkeypatch, at_call=6, how="signal")             # the last batch of the last epoch
    net = fit(build([(1, "none")], seed=2), x, y, epochs=2, batch_size=4, verbose=0)
    assert (net.interrupted, net.epochs) == (False, 2)             # nothing was cut short


def test_ctrl_c_in_the_first_epoch(rows, build, monkeypatch):
    x, y = rows
    start = build([(1, "none")], seed=2)
    batches_with(monkeypatch, at_call=1, how="signal")
    net = fit(start, x, y, epochs=4, batch_size=4, verbose=0)
    assert (net.interrupted, net.epochs, net.get("loss_history").size) == (True, 0, 0)
    assert not np.array_equal(net.optimizer.params[0], start.optimizer.params[0])   # one batch trained
    assert net.describe().endswith("interrupted (Ctrl-C) in its first epoch")
    again = fit(net, x, y, epochs=1, batch_size=4, verbose=0)
    assert not again.interrupted and again.epochs == 1


def test_interrupted_is_not_saved(rows, build, monkeypatch, tmp_path):
    from lamina.models.save import load_model, save_model
    x, y = rows
    batches_with(monkeypatch, at_call=5, how="signal")
    net = fit(build([(1, "none")], seed=2), x, y, epochs=4, batch_size=4, verbose=0)
    save_model(net, str(tmp_path / "m.npz"))
    loaded = load_model(str(tmp_path / "m.npz"))
    assert net.interrupted and not loaded.interrupted and loaded.epochs == net.epochs == 1


PROGRAM = """\
seed(0)
X = randn(4000, 20)
Y = X * randn(20, 1)
net = input(20) |> dense(64, activation = "relu") |> dense(1) |> compile(seed = 1)
net = net.fit(X, Y, epochs = 100000, batch_size = 4, verbose = 2)
print("epochs", net.epochs, length(net.loss_history), net.interrupted)
print(net.loss_history)
print("the program goes on")
n = 0
while true
    n += 1
end while
"""


def lamina(tmp_path, program: str) -> subprocess.Popen:
    (tmp_path / "train.lam").write_text(program)
    return subprocess.Popen([sys.executable, "-m", "lamina", str(tmp_path / "train.lam")], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})


def read_until(proc, prefix: str, count: int = 1) -> list[str]:
    lines = []
    while sum(line.startswith(prefix) for line in lines) < count:
        line = proc.stdout.readline()
        assert line, "".join(lines) + proc.stderr.read()
        lines.append(line)
    return lines


def test_ctrl_c_during_fit_in_a_real_process(tmp_path):
    """SIGINT after three epochs: fit returns the model with its completed epochs and the
    program goes on; a second SIGINT, in the loop after fit, interrupts the program as always."""
    proc = lamina(tmp_path, PROGRAM)
    try:
        shown = read_until(proc, "epoch ", 3)
        proc.send_signal(signal.SIGINT)
        rest = read_until(proc, "the program goes on")
        time.sleep(0.3)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    lines = shown + rest + out.splitlines(keepends=True)
    epochs = [line for line in lines if line.startswith("epoch ")]
    n = len(epochs)
    assert n >= 3 and epochs[-1].startswith(f"epoch {n}/100000: loss ")
    summary = next(line for line in lines if line.startswith("epochs "))
    assert summary == f"epochs {n} {n} true\n"
    history = [float(v) for v in next(line for line in lines if line.startswith("[")).strip("[]\n").split(", ")]
    assert [f"{v:.4g}" for v in history] == [line.split("loss ")[1].split(",")[0] for line in epochs]
    assert proc.returncode == 130
    assert err == (f"warning: fit stopped by Ctrl-C after {n} complete epochs; it returns the model trained "
                   f"so far (interrupted = true). ({tmp_path / 'train.lam'}:5)\nInterrupted.\n")


def test_a_second_ctrl_c_during_an_update_waits_for_the_update(rows, build):
    """fit's own handler holds a second Ctrl-C back while the weights are written: both presses
    arrive inside the 5th batch's update, which finishes whole (every parameter, and the count),
    then fit drops out of that batch as from any second Ctrl-C."""
    from dataclasses import replace

    from lamina.optim.adam import adam_in_place
    x, y = rows
    calls = []

    def pressed_twice(w, g, state, hp, t, scratch):
        if t == 5 and 5 not in calls:
            os.kill(os.getpid(), signal.SIGINT)
            os.kill(os.getpid(), signal.SIGINT)
        calls.append(t)
        adam_in_place(w, g, state, hp, t, scratch)

    start = build([(3, "tanh"), (1, "none")], lr=0.05, seed=1)
    opt = start.optimizer
    model = start.evolve(optimizer=replace(opt, rule=replace(opt.rule, update_in_place=pressed_twice)))
    net = fit(model, x, y, epochs=4, batch_size=4, verbose=0)
    assert net.interrupted and net.epochs == 1                       # epoch 1 cut short, in its 2nd batch
    assert calls.count(5) == 4 and net.optimizer.t == 5              # all four parameters of batch 5
    clean = fit(build([(3, "tanh"), (1, "none")], lr=0.05, seed=1), x, y, epochs=1, batch_size=4, verbose=0)
    assert clean.optimizer.t == 3
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_weights_that_are_no_longer_finite_stop_fit_at_the_epoch_end(rows, build, monkeypatch):
    """fit checks each batch's loss, not each gradient: weights made NaN by the last batch of
    an epoch (as a gradient holding NaN with a finite loss would) stop it there."""
    from lamina.errors import LaminaError
    x, y = rows
    real, calls = fit_module.train_step, []

    def step(model, opt, xb, yb, rng, **held):
        loss, new, buffers = real(model, opt, xb, yb, rng, **held)
        calls.append(1)
        if len(calls) == 3:                       # the last batch of epoch 0
            new.params[0][0, 0] = np.nan
        return loss, new, buffers
    monkeypatch.setattr(fit_module, "train_step", step)
    with pytest.raises(LaminaError) as e:
        fit(build([(1, "none")], seed=2), x, y, epochs=3, batch_size=4, verbose=0)
    assert e.value.kind == "ValueError" and e.value.message.startswith(
        "fit stopped at the end of epoch 0 (counted from 0): the weights are no longer finite")


def test_ctrl_c_in_the_first_epoch_after_early_stopping_no_longer_claims_the_best_epochs_weights(
        build, monkeypatch):
    rng = np.random.default_rng(2)
    x, xv = rng.standard_normal((30, 5)), rng.standard_normal((30, 5))
    y, yv = rng.standard_normal(30), rng.standard_normal(30)          # pure noise: it overfits
    net = build([(32, "relu"), (1, "none")], inputs=5, lr=0.05, seed=0)
    stopped = fit(net, x, y, epochs=200, validation_data=[xv, yv], early_stopping=3, verbose=0)
    assert stopped.weights_epoch == 0 and stopped.epochs == 4
    real, calls = fit_module.train_step, []

    def step(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:                                           # Ctrl-C in the 2nd batch
            os.kill(os.getpid(), signal.SIGINT)
        return real(*args, **kwargs)
    monkeypatch.setattr(fit_module, "train_step", step)
    again = fit(stopped, x, y, epochs=3, batch_size=8, verbose=0)
    assert again.interrupted and again.epochs == 4
    assert not np.array_equal(again.params[0], stopped.params[0])    # two batches changed them
    assert again.weights_epoch is None                                # it was 0: "kept by early stopping"
    loss, val = stopped.get("loss_history"), stopped.get("val_loss_history")
    assert again.describe().splitlines()[-1] == (f"  trained 4 epochs: loss {loss[0]:.4g} -> {loss[3]:.4g}, "
                                                  f"validation loss {val[3]:.4g}; fit was interrupted (Ctrl-C)")
