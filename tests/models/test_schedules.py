"""LR schedules: each rule against a hand computation, through fit, and their errors."""
import math

import numpy as np
import pytest

from lamina.errors import LaminaError
from lamina.models.callbacks.schedule import Schedule
from lamina.models.fit import fit

XOR = 'X = [0.0, 0.0; 0.0, 1.0; 1.0, 0.0; 1.0, 1.0]\nY = [0.0; 1.0; 1.0; 2.0]\n' \
      'spec = input(2) |> dense(4, activation = "relu") |> dense(1, activation = "none")\n'


def schedule(run, source) -> Schedule:
    return run(f"s = {source}")[1].get("s")


def walk(s: Schedule, losses, lr=None):
    """The rates of successive epochs when the monitored losses are `losses`."""
    lr, state, out = s.settings["lr"] if lr is None else lr, {}, []
    for epoch, loss in enumerate(losses):
        out.append(lr)
        lr, state = s.next_lr(lr, epoch, loss, state)
    return out


def test_plateau_reduces_after_patience_epochs_without_a_new_best(run):
    s = schedule(run, 'lr_plateau(lr = 1.0, patience = 2, factor = 0.5, min_lr = 0.2)')
    losses = [5, 4, 4, 4.5, 3, 3, 3, 3, 3, 3, 3, 3]
    assert walk(s, losses) == [1, 1, 1, 1, 0.5, 0.5, 0.5, 0.25, 0.25, 0.2, 0.2, 0.2]


def test_plateau_needs_a_relative_improvement(run):
    s = schedule(run, 'lr_plateau(lr = 1.0, patience = 1)')
    assert walk(s, [1.0, 0.99999, 0.5]) == [1, 1, 0.5]


def test_adaptive_grows_after_a_better_epoch_and_cuts_after_a_worse_one(run):
    s = schedule(run, 'lr_adaptive(lr = 1.0, grow = 2, cut = 0.25, max_lr = 3)')
    assert walk(s, [5, 4, 3, 3, 6, 1, 0.5, 0.1]) == [1, 1, 2, 3, 3, 0.75, 1.5, 3]
    s = schedule(run, 'lr_adaptive(lr = 1.0, cut = 0.5, min_lr = 0.3)')
    assert walk(s, [1, 2, 3, 4]) == [1, 1, 0.5, 0.3]


def test_step_and_cosine(run):
    s = schedule(run, 'lr_step(lr = 0.8, every = 3, factor = 0.5)')
    assert walk(s, [1] * 7) == [0.8, 0.8, 0.8, 0.4, 0.4, 0.4, 0.2]
    s = schedule(run, 'lr_cosine(lr = 1.0, epochs = 4, min_lr = 0.2)')
    want = [0.2 + 0.8 * (1 + math.cos(math.pi * min(e, 4) / 4)) / 2 for e in range(6)]
    np.testing.assert_allclose(walk(s, [1] * 6), want, rtol=1e-15)


def test_schedules_drive_fit_and_lr_history(run):
    lines, _ = run(XOR + 'net = compile(spec, optimizer = lr_step(0.1, 2), seed = 7)\n'
                        'net = net.fit(X, Y, epochs = 5)\nprint(net.lr_history, net.optimizer.lr)\n'
                        'net = net.fit(X, Y, epochs = 2)\nprint(net.lr_history)\nprint(net.schedule)')
    assert lines == ["[0.1, 0.1, 0.05, 0.05, 0.025] 0.025",
                     "[0.1, 0.1, 0.05, 0.05, 0.025, 0.025, 0.0125]",
                     'lr_step(lr = 0.1, every = 2, factor = 0.5, min_lr = 0, base = "adam")']


def test_plateau_watches_the_validation_loss_when_there_is_one(build):
    rng = np.random.default_rng(2)
    x, xv, y, yv = (rng.standard_normal((30, 5)), rng.standard_normal((30, 5)),
                    rng.standard_normal(30), rng.standard_normal(30))
    from lamina.builtins.lr_schedules import lr_plateau
    net = build([(32, "relu"), (1, "none")], inputs=5, seed=0)
    net = net.evolve(schedule=lr_plateau(0.05, patience=2.0, factor=0.5),
                     optimizer=net.optimizer.with_hp(lr=0.05))
    with_val = fit(net, x, y, epochs=40, validation_data=[xv, yv], verbose=0)
    without = fit(net, x, y, epochs=40, verbose=0)
    val, lrs = with_val.get("val_loss_history"), with_val.get("lr_history")
    assert lrs[-1] < 0.05 and without.get("lr_history")[-1] == 0.05     # training loss keeps falling
    first_cut = int(np.argmax(lrs < 0.05))
    best = np.minimum.accumulate(val)
    assert best[first_cut - 1] == best[first_cut - 3]                     # two epochs without a new best


def test_fields_and_base(run):
    lines, interp = run('s = lr_plateau(lr = 0.1, patience = 5, base = "sgd")\n'
                        'print(s.name, s.lr, s.patience, s.factor, s.min_lr, type(s))\n'
                        'print(lr_adaptive(base = rmsprop(lr = 0.3)).lr)\nprint(lr_cosine(0.5).epochs)')
    assert lines == ["lr_plateau 0.1 5 0.5 0 schedule", "0.3", "100"]
    assert interp.get("s").base.rule.name == "sgd"


@pytest.mark.parametrize("source, kind, words", [
    ('lr_plateau(lr = 0)', "ValueError", "lr must be finite and above 0, not 0."),
    ('lr_step(lr = Inf, every = 2)', "ValueError", "lr_step's lr must be finite and above 0, not Inf."),
    ('lr_plateau(lr = 0.1, patience = 0)', "ValueError", "patience must be at least 1"),
    ('lr_plateau(lr = 0.1, factor = 1.5)', "ValueError", "factor must be above 0 and at most 1"),
    ('lr_plateau(lr = 0.1, factor = 0)', "ValueError", "factor must be above 0"),
    ('lr_plateau(lr = 0.1, min_lr = -1)', "ValueError", "min_lr must be at least 0"),
    ('lr_plateau(lr = 0.1, base = "adamm")', "ValueError", "no optimizer called 'adamm'"),
    ('lr_plateau(lr = 0.1, base = 3)', "TypeError", "base must be"),
    ('lr_plateau(lr = 0.1, base = lr_step(0.1))', "TypeError", "not another schedule"),
    ('lr_adaptive(lr = 0.1, grow = 0.9)', "ValueError", "grow must be at least 1"),
    ('lr_adaptive(lr = 0.1, cut = 2)', "ValueError", "cut must be above 0 and at most 1"),
    ('lr_adaptive(lr = "fast")', "TypeError", "lr must be a number"),
    ('lr_step(lr = 0.1, every = 1.5)', "TypeError", "whole number"),
    ('lr_cosine(lr = 0.1, epochs = 0)', "ValueError", "epochs must be at least 1"),
    ('lr_cosine(lr = 0.1, speed = 2)', "TypeError", "speed"),
])
def test_errors(run, source, kind, words):
    with pytest.raises(LaminaError) as e:
        run(source)
    assert e.value.kind == kind and words in e.value.message, e.value.message


@pytest.mark.parametrize("source, words", [
    # lr_plateau used to *raise* the rate 0.1 -> 0.5 on a plateau (Keras and torch never raise it);
    # lr_step's help says epoch 0 uses max(lr, min_lr) = 0.5 but fit ran it at 0.1, then 0.5.
    ('lr_plateau(lr = 0.1, patience = 1, min_lr = 0.5)', "lr_plateau's min_lr (0.5) must be at most its lr (0.1)."),
    ('lr_plateau(patience = 1, min_lr = 0.5, base = sgd(lr = 0.2))', "lr_plateau's min_lr (0.5) must be at most its lr (0.2)."),
    ('lr_step(lr = 0.1, every = 1, min_lr = 0.5)', "lr_step's min_lr (0.5) must be at most its lr (0.1)."),
    # lr_adaptive's rate is "kept within [min_lr, max_lr]", yet its first epoch ran outside it.
    ('lr_adaptive(lr = 0.1, max_lr = 0.01)', "lr_adaptive's lr (0.1) must be at most its max_lr (0.01)."),
    ('lr_adaptive(lr = 0.1, min_lr = 0.5, max_lr = 0.2)', "lr_adaptive's min_lr (0.5) must be at most its lr (0.1)."),
])
def test_a_rate_outside_its_bounds_is_a_value_error(run, source, words):
    with pytest.raises(LaminaError) as e:
        run(XOR + f"net = spec |> compile(optimizer = {source}, seed = 7)\n"
                  "net = net.fit(X, Y, epochs = 30)\nprint(net.lr_history)")
    assert e.value.kind == "ValueError" and e.value.message == words, e.value.message
