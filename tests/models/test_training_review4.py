"""Review 4 of training: fit's shuffle streams across fits, data that can never train, and the
validation loss."""
import numpy as np
import pytest

from lamina.errors import LaminaError
from lamina.models.fit import fit


def noisy(m=40, n=3, seed=1):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((m, n))
    return x, x @ np.arange(1.0, n + 1) + 0.1 * rng.standard_normal(m)


def test_two_fits_train_exactly_as_one_with_shuffling_and_dropout(build):
    # As a PyTorch DataLoader draws epoch after epoch from one generator: fit(2) then fit(1)
    # is fit(3), because each epoch's shuffle and dropout come from [seed, 2, epoch].
    x, y = noisy()
    net = build([(8, "relu"), ("dropout", 0.3), (1, "none")], inputs=3, lr=0.01, seed=7)
    once = fit(net, x, y, epochs=3, batch_size=8, validation_split=0.2, verbose=0)
    twice = fit(fit(net, x, y, epochs=2, batch_size=8, validation_split=0.2, verbose=0),
                x, y, epochs=1, batch_size=8, validation_split=0.2, verbose=0)
    np.testing.assert_array_equal(once.get("loss_history"), twice.get("loss_history"))
    np.testing.assert_array_equal(once.get("val_loss_history"), twice.get("val_loss_history"))
    for a, b in zip(once.params, twice.params):
        np.testing.assert_array_equal(a, b)


def test_the_first_epoch_shuffles_by_the_compile_seed_alone(build):
    # epoch 0 of a fresh model draws its order from [seed, 2, 0]: the rows in that order,
    # unshuffled, give the same first step (sgd, no dropout).
    x, y = noisy(m=12)
    net = build([(1, "none")], inputs=3, optimizer="sgd", lr=0.05, seed=3)
    order = np.random.default_rng([3, 2, 0]).permutation(12)
    a = fit(net, x, y, epochs=1, batch_size=5, verbose=0)
    b = fit(net, x[order], y[order], epochs=1, batch_size=5, shuffle=False, verbose=0)
    np.testing.assert_array_equal(a.get("loss_history"), b.get("loss_history"))
    # the second epoch of one fit is the first of a second fit
    two = fit(net, x, y, epochs=2, batch_size=5, verbose=0)
    then = fit(a, x, y, epochs=1, batch_size=5, verbose=0)
    assert two.get("loss_history")[1] == then.get("loss_history")[1]


@pytest.mark.parametrize("source, message", [
    ('fit(net, [NaN, 0; 0, 1; 1, 0; 1, 1], Y)',
     "fit: X holds NaN (in row 0); training needs finite numbers: drop or fill the rows that hold NaN "
     "or Inf first."),
    ('fit(net, X, [0; 1; Inf; 0])', "fit: Y holds Inf (in row 2); training needs finite numbers"),
    ('fit(net, X, Y, validation_data = [[1, 0; 1, -Inf], [1; 0]])',
     "fit's validation_data: X holds -Inf (in row 1); training needs finite numbers"),
    ('fit(net, X, Y, validation_data = [[1, 0; 1, 1], [NaN; 0]], early_stopping = 1)',
     "fit's validation_data: Y holds NaN (in row 0)"),
    ('fit(net32, [0, 0; 0, 1; 1, 0; 1, 1e40], Y)',
     "fit: X holds 1e+40 (in row 3), beyond the range of float32, the model's dtype (compile's dtype): "
     "standardize the data, or compile in float64."),
    ('fit(clf, [1, 2; 3, 4], [0, NaN])', "whole numbers from 0 to 1 (one per output unit), but it holds NaN."),
    ('fit(bce, [1, 2; 3, 4], [0, Inf])', "binary_cross_entropy needs targets from 0 to 1 (probabilities or "
     "one-hot rows), but Y holds Inf."),
    ('fit(net, X, Y, validation_split = NaN)', "fit's validation_split must be above 0 and below 1, not NaN."),
])
def test_data_that_cannot_train_is_named_as_the_cause(run, source, message):
    # Before: a NaN in X or Y stopped fit in some batch, blaming the learning rate; a NaN in the
    # validation rows gave an empty val_loss_history, and with early stopping the untrained
    # weights under "trained 1 epoch"; 1e40 in float32 blamed a gradient. The training rows are
    # looked at once the loss or weights go non-finite (free then), the validation rows up front.
    setup = ('X = [0.0, 0.0; 0.0, 1.0; 1.0, 0.0; 1.0, 1.0]\nY = [0.0; 1.0; 1.0; 0.0]\n'
             'net = input(2) |> dense(3, activation = "tanh") |> dense(1) |> compile(seed = 1)\n'
             'net32 = input(2) |> dense(3, activation = "tanh") |> dense(1) |> compile(seed = 1, dtype = "float32")\n'
             'clf = input(2) |> dense(2, activation = "softmax") |> compile(loss = "cross_entropy", seed = 0)\n'
             'bce = input(2) |> dense(1, activation = "sigmoid") |> compile(loss = "binary_cross_entropy")\n')
    with pytest.raises(LaminaError) as e:
        run(setup + source)
    assert e.value.kind == "ValueError" and message in e.value.message, e.value.message


def test_a_validation_loss_that_overflows_stops_fit_naming_the_epoch(build):
    x, y = noisy(m=8, n=2)
    net = build([(3, "relu"), (1, "none")], seed=1)
    xv = np.array([[1e300, 1e300], [1.0, 1.0]])
    with pytest.raises(LaminaError) as e:
        fit(net, x, y, epochs=3, validation_data=[xv, np.array([1.0, 1.0])], early_stopping=1, verbose=0)
    assert e.value.kind == "ValueError"
    assert e.value.message.startswith("fit stopped at the end of epoch 0 (counted from 0): the validation "
                                      "loss is Inf."), e.value.message


def test_ctrl_c_in_the_first_epoch_after_early_stopping_no_longer_claims_the_best_epochs_weights(
        build, monkeypatch):
    import os
    import signal

    from lamina.models import fit as fit_module
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


@pytest.mark.parametrize("inside, cause", [
    ("tape_reset()", " (tape_reset())"),
    ("r = train_loop(q -> q ^ 2, 3.0, 1)", " (train_loop() at <test>:3)"),
    ("m = net.fit([1.0, 2.0], [2.0, 4.0], verbose = 0)", " (fit() at <test>:3)"),
])
def test_a_loss_function_that_resets_the_tape_is_named_as_the_cause(run, inside, cause):
    # Before: "a plain number that does not depend on the parameters", though it did.
    with pytest.raises(LaminaError) as e:
        run("net = input(1) |> dense(1) |> compile(seed = 0)\nfunction f(p)\n    " + inside +
            "\n    return p ^ 2\nend function\nlosses = train_loop(f, 1.0, 2)")
    assert e.value.kind == "TapeError"
    assert e.value.message == (f"train_loop's loss function reset the tape{cause} while it computed the "
                               f"loss at epoch 0, so the parameters it was given went stale and the loss "
                               f"does not depend on them; call tape_reset, fit and train_loop outside the "
                               f"loss function.")


def test_early_stopping_restores_the_best_weights_but_the_schedule_keeps_its_rate(run):
    # Before: the best epoch's optimizer came back with the best epoch's rate, which the
    # schedule then cut once: 0.025 where the schedule had reached 0.00625 (cut to 0.003125).
    lines, interp = run(
        'seed(2)\nX = randn(30, 5)\nY = randn(30, 1)\nXv = randn(30, 5)\nYv = randn(30, 1)\n'
        'net = input(5) |> dense(32, activation = "relu") |> dense(1) |>\n'
        '      compile(optimizer = lr_plateau(lr = 0.05, patience = 1, factor = 0.5, base = "adam"), seed = 0)\n'
        'm = net.fit(X, Y, epochs = 200, validation_data = [Xv, Yv], early_stopping = 4, verbose = 0)\n'
        'print(m.lr_history, m.optimizer.lr)\n'
        'print(m.fit(X, Y, epochs = 2, verbose = 0).lr_history)\n'
        'print(evaluate(m, Xv, Yv).loss == m.val_loss_history[0], m.epochs)')
    assert lines == ["[0.05, 0.05, 0.025, 0.0125, 0.00625] 0.003125",
                     "[0.05, 0.05, 0.025, 0.0125, 0.00625, 0.003125, 0.003125]",
                     "true 5"]
