"""fit: the loop's numbers against independent computations, every option, and the errors."""
import re

import numpy as np
import pytest

from lamina.autodiff.tape import TAPE
from lamina.errors import LaminaError
from lamina.models.evaluate import evaluate
from lamina.models.fit import _validation, fit

SEED_NETS = """
Xxor = [0.0, 0.0; 0.0, 1.0; 1.0, 0.0; 1.0, 1.0]
Yxor = [0.0; 1.0; 1.0; 2.0]
net = input(2) |> dense(4, activation = "relu") |> dense(1, activation = "none") |>
      compile(optimizer = lr_plateau(lr = 0.1, patience = 5, base = "adam"), loss = "mse", seed = 7)
net = net.fit(Xxor, Yxor, epochs = 60)
n = length(net.loss_history)
print("compile + fit(lr_plateau): loss {round(net.loss_history[0], 4)} -> {round(net.loss_history[n - 1], 4)}")
net2 = input(2) |> dense(4, activation = "relu") |> dense(1, activation = "none") |>
       compile(optimizer = lr_adaptive(lr = 0.05), loss = "mse", seed = 7)
net2 = net2.fit(Xxor, Yxor, epochs = 60)
n2 = length(net2.loss_history)
print("compile + fit(lr_adaptive): loss {round(net2.loss_history[0], 4)} -> {round(net2.loss_history[n2 - 1], 4)}")
"""


def test_the_seed_lines_fall_clearly(run):
    lines, interp = run(SEED_NETS)
    for line, name in zip(lines, ["lr_plateau", "lr_adaptive"]):
        m = re.fullmatch(rf"compile \+ fit\({name}\): loss (\d+(?:\.\d+)?) -> (\d+(?:\.\d+)?)", line)
        assert m, line
        first, last = map(float, m.groups())
        assert last < 0.05 * first
    for name in ("net", "net2"):
        h = interp.get(name).get("loss_history")
        assert h.shape == (60,) and np.all(np.isfinite(h))


def forward_mse(params, x, y):
    w0, b0, w1, b1 = params
    h = np.maximum(x @ w0 + b0, 0)
    out = h @ w1 + b1
    return h, out, np.mean((out - y) ** 2)


def test_full_batch_sgd_matches_a_hand_computation(xor, build):
    x, y = xor
    net = build([(3, "relu"), (1, "none")], optimizer="sgd", lr=0.1, seed=4)
    params = [p.copy() for p in net.optimizer.params]
    trained = fit(net, x, y, epochs=20, shuffle=False, verbose=0)
    want = []
    for _ in range(20):
        w1 = params[2]
        h, out, loss = forward_mse(params, x, y)
        want.append(loss)
        d_out = 2 * (out - y) / y.size
        dh = (d_out @ w1.T) * (h > 0)
        grads = [x.T @ dh, dh.sum(0, keepdims=True), h.T @ d_out, d_out.sum(0, keepdims=True)]
        params = [p - 0.1 * g for p, g in zip(params, grads)]
    np.testing.assert_allclose(trained.get("loss_history"), want, rtol=1e-12)
    for got, p in zip(trained.optimizer.params, params):
        np.testing.assert_allclose(got, p, rtol=1e-12)


def test_mini_batches_with_adam_match_torch(blobs, build):
    torch = pytest.importorskip("torch")
    x, labels = blobs
    net = build([(5, "tanh"), (3, "softmax")], inputs=3, loss="cross_entropy", lr=0.01, seed=2)
    trained = fit(net, x, labels, epochs=4, batch_size=32, shuffle=False, verbose=0)
    w0, b0, w1, b1 = [torch.tensor(p, requires_grad=True) for p in net.optimizer.params]
    opt = torch.optim.Adam([w0, b0, w1, b1], lr=0.01)
    xt, yt = torch.tensor(x), torch.tensor(labels, dtype=torch.long)
    history = []
    for _ in range(4):
        total = 0.0
        for s in range(0, 120, 32):
            opt.zero_grad()
            scores = torch.tanh(xt[s:s + 32] @ w0 + b0) @ w1 + b1
            loss = torch.nn.functional.cross_entropy(scores, yt[s:s + 32])
            loss.backward()
            opt.step()
            total += loss.item() * len(yt[s:s + 32])
        history.append(total / 120)
    np.testing.assert_allclose(trained.get("loss_history"), history, rtol=1e-10)
    np.testing.assert_allclose(trained.optimizer.params[2], w1.detach().numpy(), rtol=1e-9, atol=1e-12)


def test_the_epoch_loss_is_the_size_weighted_mean_of_batch_losses(build):
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((10, 2)), rng.standard_normal(10)
    net = build([(3, "tanh"), (1, "none")], optimizer="sgd", lr=0.0)      # weights never move
    trained = fit(net, x, y, epochs=2, batch_size=3, verbose=0)
    full = evaluate(net, x, y).fields["loss"]
    np.testing.assert_allclose(trained.get("loss_history"), [full, full], rtol=1e-12)
    assert trained.optimizer.t == 2 * 4                                # batches of 3, 3, 3, 1


def test_fit_returns_a_new_model_and_leaves_the_old_one(run):
    lines, _ = run("""X = [0.0, 0.0; 0.0, 1.0; 1.0, 0.0; 1.0, 1.0]
Y = [0.0, 1.0, 1.0, 2.0]
net = input(2) |> dense(3, activation = "relu") |> dense(1) |> compile(seed = 1)
w = net.weights[0].w
net2 = net.fit(X, Y, epochs = 5)
print(net.epochs, length(net.loss_history), all(net.weights[0].w == w))
print(net2.epochs, length(net2.loss_history), all(net2.weights[0].w == w), net2.optimizer._step)
print(tape_size())""")
    assert lines == ["0 0 true", "5 5 false 5", "0"]


def test_fitting_again_continues_the_histories_and_the_optimizer(xor, build):
    x, y = xor
    net = build([(4, "tanh"), (1, "none")], lr=0.05, seed=3)
    once = fit(net, x, y, epochs=5, shuffle=False, verbose=0)
    twice = fit(fit(net, x, y, epochs=3, shuffle=False, verbose=0), x, y, epochs=2, shuffle=False, verbose=0)
    assert twice.epochs == 5 and twice.optimizer.t == 5
    np.testing.assert_array_equal(twice.get("loss_history"), once.get("loss_history"))
    np.testing.assert_array_equal(twice.optimizer.params[0], once.optimizer.params[0])


def test_same_seed_same_model_and_shuffle_matters(blobs, build):
    x, labels = blobs
    runs = [fit(build([(8, "relu"), ("dropout", 0.3), (3, "softmax")], inputs=3, loss="cross_entropy",
                      lr=0.01, seed=s), x, labels, epochs=3, batch_size=16, shuffle=sh, verbose=0)
            for s, sh in ((9, True), (9, True), (9, False), (10, True))]
    h = [r.get("loss_history") for r in runs]
    np.testing.assert_array_equal(h[0], h[1])
    np.testing.assert_array_equal(runs[0].optimizer.params[0], runs[1].optimizer.params[0])
    assert not np.array_equal(h[0], h[2]) and not np.array_equal(h[0], h[3])


def test_dropout_is_used_in_training_only(blobs, build):
    x, labels = blobs
    plain = build([(8, "relu"), (3, "softmax")], inputs=3, loss="cross_entropy", seed=4)
    dropped = build([(8, "relu"), ("dropout", 0.5), (3, "softmax")], inputs=3, loss="cross_entropy", seed=4)
    np.testing.assert_array_equal(plain.predict(x), dropped.predict(x))     # same weights, no dropout
    a = fit(plain, x, labels, epochs=1, batch_size=120, verbose=0).get("loss_history")[0]
    b = fit(dropped, x, labels, epochs=1, batch_size=120, verbose=0).get("loss_history")[0]
    assert a == pytest.approx(evaluate(plain, x, labels).fields["loss"]) and a != b


def test_validation_split_is_random_seeded_and_the_same_on_every_fit(blobs, build):
    x, labels = blobs
    net = build([(3, "softmax")], inputs=3, loss="cross_entropy", seed=6)
    y = np.eye(3)[labels.astype(int)]
    (xt, _), (xv, _) = _validation(net, x, y, 0.25, None)
    assert len(xv) == 30 and len(xt) == 90
    assert not np.array_equal(xv, x[-30:])                       # not Keras's tail split
    assert len({tuple(r) for r in np.vstack([xt, xv])}) == 120   # a partition of the rows
    (_, _), (xv2, _) = _validation(fit(net, x, labels, epochs=2, verbose=0), x, y, 0.25, None)
    np.testing.assert_array_equal(xv, xv2)
    (_, _), (xv3, _) = _validation(build([(3, "softmax")], inputs=3, loss="cross_entropy", seed=7),
                                   x, y, 0.25, None)
    assert not np.array_equal(xv, xv3)


def test_validation_histories(blobs, build):
    x, labels = blobs
    net = build([(6, "tanh"), (3, "softmax")], inputs=3, loss="cross_entropy", lr=0.02, seed=1)
    split = fit(net, x, labels, epochs=4, validation_split=0.2, verbose=0)
    assert split.get("val_loss_history").shape == (4,)
    given = fit(net, x[:100], labels[:100], epochs=4, validation_data=[x[100:], labels[100:]], verbose=0)
    val = given.get("val_loss_history")
    assert val.shape == (4,) and val[-1] == pytest.approx(evaluate(given, x[100:], labels[100:]).fields["loss"])
    assert fit(net, x, labels, epochs=2, verbose=0).get("val_loss_history").shape == (0,)


def test_val_loss_history_has_every_epoch_at_its_place_over_fits(blobs, build):
    # val_loss_history[e] is epoch e's validation loss over every fit: NaN for the epochs of a
    # fit without validation (before or after), empty while no epoch was validated.
    x, labels = blobs
    net = build([(6, "tanh"), (3, "softmax")], inputs=3, loss="cross_entropy", lr=0.02, seed=1)
    plain = fit(net, x[:100], labels[:100], epochs=2, verbose=0)
    assert plain.get("val_loss_history").shape == (0,)
    checked = fit(plain, x[:100], labels[:100], epochs=3, validation_data=[x[100:], labels[100:]], verbose=0)
    val = checked.get("val_loss_history")
    assert val.shape == (5,) and np.isnan(val[:2]).all() and not np.isnan(val[2:]).any()
    assert val[4] == pytest.approx(evaluate(checked, x[100:], labels[100:]).fields["loss"], rel=1e-12)
    after = fit(checked, x[:100], labels[:100], epochs=2, verbose=0)
    again = after.get("val_loss_history")
    assert again.shape == (7,) and np.array_equal(again[:5], val, equal_nan=True) and np.isnan(again[5:]).all()
    assert "validation loss" not in after.describe().splitlines()[-1]


def test_early_stopping_after_a_fit_without_validation_names_the_kept_epochs_loss(build):
    rng = np.random.default_rng(2)
    x, xv = rng.standard_normal((30, 5)), rng.standard_normal((30, 5))
    y, yv = rng.standard_normal(30), rng.standard_normal(30)          # pure noise: it overfits
    net = fit(build([(32, "relu"), (1, "none")], inputs=5, lr=0.05, seed=0), x, y, epochs=3, verbose=0)
    stopped = fit(net, x, y, epochs=200, validation_data=[xv, yv], early_stopping=3, verbose=0)
    val = stopped.get("val_loss_history")
    assert len(val) == stopped.epochs and np.isnan(val[:3]).all()
    best = int(np.nanargmin(val))
    assert stopped.weights_epoch == best
    assert evaluate(stopped, xv, yv).fields["loss"] == pytest.approx(val[best], rel=1e-12)
    assert f"validation loss {float(f'{val[best]:.4g}'):g}" in stopped.describe().splitlines()[-1]

def test_early_stopping_stops_and_keeps_the_best_weights(build):
    rng = np.random.default_rng(2)
    x, xv = rng.standard_normal((30, 5)), rng.standard_normal((30, 5))
    y, yv = rng.standard_normal(30), rng.standard_normal(30)          # pure noise: it overfits
    net = build([(32, "relu"), (1, "none")], inputs=5, lr=0.05, seed=0)
    stopped = fit(net, x, y, epochs=200, validation_data=[xv, yv], early_stopping=3, verbose=0)
    val = stopped.get("val_loss_history")
    assert stopped.epochs < 200 and len(val) == stopped.epochs == len(stopped.get("loss_history"))
    best = int(np.argmin(val))
    assert best == stopped.epochs - 4                                 # three epochs without a new best
    assert evaluate(stopped, xv, yv).fields["loss"] == pytest.approx(val[best], rel=1e-12)
    # its printout names the validation loss of the weights it holds, not the last epoch's
    tail = stopped.describe().splitlines()[-1]
    assert f"the weights of epoch {best}, kept by early stopping" in tail
    assert f"validation loss {float(f'{val[best]:.4g}'):g}" in tail
    assert stopped.weights_epoch == best and fit(stopped, x, y, epochs=1, verbose=0).weights_epoch is None
    # without validation it watches the training loss, which keeps falling here
    assert fit(net, x, y, epochs=30, early_stopping=3, verbose=0).epochs == 30


def test_a_loss_that_overflows_stops_fit_naming_epoch_and_batch(xor, build):
    x, y = xor
    net = build([(4, "relu"), (1, "none")], optimizer="sgd", lr=1e6, seed=0)
    with pytest.raises(LaminaError) as e:
        fit(net, x * 1e3, y, epochs=50, batch_size=2, shuffle=False, verbose=0)
    assert e.value.kind == "ValueError"
    assert re.search(r"fit stopped in epoch \d+, batch \d+ \(both counted from 0\): the loss is (NaN|Inf)",
                     e.value.message), e.value.message


def test_verbose_2_prints_one_line_per_epoch_and_0_and_1_print_nothing_off_a_terminal(run):
    base = ('X = [0.0, 0.0; 0.0, 1.0; 1.0, 0.0; 1.0, 1.0]\nY = [0.0, 1.0, 1.0, 2.0]\n'
            'net = input(2) |> dense(1) |> compile(seed = 1)\n')
    lines, _ = run(base + 'net = net.fit(X, Y, epochs = 3, verbose = 2, validation_split = 0.25)')
    assert len(lines) == 3 and all(re.fullmatch(r"epoch \d/3: loss \S+, val_loss \S+, lr 0\.001", l)
                                   for l in lines), lines
    for v in (0, 1):
        assert run(base + f'net = net.fit(X, Y, epochs = 3, verbose = {v})')[0] == []


def test_fit_resets_the_tape(run):
    with pytest.raises(LaminaError, match=r"before the tape was reset by fit\(\) at <test>:4"):
        run('w = param(2.0)\nloss = w ^ 2\n'
            'net = input(1) |> dense(1) |> compile(seed = 0)\nnet = net.fit([1.0, 2.0], [2.0, 4.0])\n'
            'print(grad(loss, wrt = w))')
    TAPE.reset()


@pytest.mark.parametrize("call, kind, words", [
    ('fit(net, [1, 2, 3; 4, 5, 6], [1; 2])', "ShapeError",
     "X is a 2x3 matrix, but the model takes input(2): X needs 2 columns"),
    ('fit(net, [1, 2; 3, 4], [1, 2; 3, 4])', "ShapeError",
     "Y is a 2x2 matrix, but the last layer has 1 unit; Y needs 1 column"),
    ('fit(net, [1, 2; 3, 4], [1; 2; 3])', "ShapeError", "X has 2 rows (examples) but Y is a 3x1 matrix"),
    ('fit(net, [1, 2, 3], [1, 2, 3])', "ShapeError", "X is a vector of length 3"),
    ('fit(net, [1, 2; 3, 4], "y")', "TypeError", "Y must be a vector or matrix"),
    ('fit(input(2) |> dense(1), [1, 2], [1])', "TypeError", "compile it first"),
    ('fit(3, [1, 2], [1])', "TypeError", "needs a model"),
    ('fit(net, [1, 2; 3, 4], [1, 2], epochs = -1)', "ValueError", "epochs must be at least 0"),
    ('fit(net, [1, 2; 3, 4], [1, 2], batch_size = 0)', "ValueError", "batch_size must be at least 1"),
    ('fit(net, [1, 2; 3, 4], [1, 2], shuffle = 1)', "TypeError", "shuffle must be true or false"),
    ('fit(net, [1, 2; 3, 4], [1, 2], verbose = 3)', "ValueError", "verbose must be 0, 1 or 2"),
    ('fit(net, [1, 2; 3, 4], [1, 2], validation_split = 1)', "ValueError", "above 0 and below 1"),
    ('fit(net, [1, 2; 3, 4], [1, 2], validation_split = 0.1)', "ValueError", "leaves no example of 2"),
    ('fit(net, [1, 2; 3, 4], [1, 2], validation_split = 0.3, validation_data = [[1, 2], [1]])',
     "ValueError", "not both"),
    ('fit(net, [1, 2; 3, 4], [1, 2], validation_data = [1, 2])', "TypeError",
     "validation_data must be a list [Xv, Yv], not a vector"),
    ('fit(net, [1, 2; 3, 4], [1, 2], validation_data = [[1, 2; 3, 4]])', "ValueError",
     "validation_data must be a list of two items, [Xv, Yv], not of 1."),
    ('fit(net, [1, 2; 3, 4], [1, 2], validation_data = [[1, 2, 3], [1]])', "ShapeError",
     "fit's validation_data: X is a vector of length 3"),
    ('fit(net, [1, 2; 3, 4], [1, 2], early_stopping = 0)', "ValueError", "early_stopping"),
    ('fit(net, [1, 2; 3, 4], [1, 2], epochs = 2.5)', "TypeError", "whole number"),
    ('fit(clf, [1, 2; 3, 4], [0, 3])', "ValueError", "whole numbers from 0 to 2"),
    ('fit(clf, [1, 2; 3, 4], [0, 0.5])', "ValueError", "class indices"),
    ('fit(clf, [1, 2; 3, 4], [1, 0; 0, 1])', "ShapeError", "Y is a 2x2 matrix, but the last layer has 3 units"),
    ('fit(clf, [1, 2; 3, 4], [1, 0, 0; 0, 2, 0])', "ValueError", "targets from 0 to 1"),
    ('fit(wide, [1, 2; 3, 4], [1, 2])', "ShapeError", "Y is a vector of length 2 (one target per example), but the "
     "last layer has 2 units"),
    ('fit(bce, [1, 2; 3, 4], [0, 2])', "ValueError", "binary_cross_entropy needs targets from 0 to 1"),
])
def test_errors(run, call, kind, words):
    setup = ('net = input(2) |> dense(1) |> compile(seed = 0)\n'
             'clf = input(2) |> dense(3, activation = "softmax") |> compile(loss = "cross_entropy", seed = 0)\n'
             'wide = input(2) |> dense(2) |> compile(seed = 0)\n'
             'bce = input(2) |> dense(1, activation = "sigmoid") |> compile(loss = "binary_cross_entropy")\n')
    with pytest.raises(LaminaError) as e:
        run(setup + call)
    assert e.value.kind == kind and words in e.value.message, e.value.message


def test_y_as_a_vector_is_one_target_per_example(xor, build):
    x, y = xor
    net = build([(3, "tanh"), (1, "none")], seed=1)
    a = fit(net, x, y, epochs=3, verbose=0).get("loss_history")
    b = fit(net, x, y.ravel(), epochs=3, verbose=0).get("loss_history")
    np.testing.assert_array_equal(a, b)
    one = build([(1, "none")], inputs=1, seed=1)
    assert fit(one, np.array([1.0, 2.0]), np.array([2.0, 4.0]), epochs=1, verbose=0).epochs == 1


def test_class_indices_and_one_hot_rows_train_the_same(blobs, build):
    x, labels = blobs
    net = build([(3, "softmax")], inputs=3, loss="cross_entropy", seed=2)
    a = fit(net, x, labels, epochs=2, verbose=0).get("loss_history")
    b = fit(net, x, np.eye(3)[labels.astype(int)], epochs=2, verbose=0).get("loss_history")
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("options", [{"shuffle": False}, {"validation_split": 0.25},
                                     {"validation_split": 0.25, "shuffle": False, "batch_size": 7}])
def test_class_indices_train_as_one_hot_rows_do_with_every_batching(blobs, build, options):
    """fit keeps class indices as indices and one-hots each batch (and the held-out rows):
    the same histories and weights, bit for bit, as the one-hot matrix gives."""
    x, labels = blobs
    net = build([(4, "relu"), (3, "softmax")], inputs=3, loss="cross_entropy", seed=3)
    a = fit(net, x, labels, epochs=3, verbose=0, **options)
    b = fit(net, x, np.eye(3)[labels.astype(int)], epochs=3, verbose=0, **options)
    for name in ("loss_history", "val_loss_history"):
        np.testing.assert_array_equal(a.get(name), b.get(name))
    for wa, wb in zip(a.params, b.params):
        np.testing.assert_array_equal(wa, wb)
    assert len(a.get("val_loss_history")) == (3 if "validation_split" in options else 0)


def test_fit_keeps_class_indices_as_a_vector(blobs, build):
    """No m x units one-hot matrix for fit (evaluate, which scores every row, still gets one)."""
    from lamina.models.fit import data_of
    x, labels = blobs
    net = build([(3, "softmax")], inputs=3, loss="cross_entropy", seed=2)
    _, y = data_of(net, x, labels, "fit", indices=True)
    assert y.dtype == np.int64 and np.array_equal(y, labels)
    _, rows = data_of(net, x, labels, "evaluate")
    assert np.array_equal(rows, np.eye(3)[labels.astype(int)])


def test_an_early_stopped_model_keeps_its_epoch_through_save_and_load(build, tmp_path):
    from lamina.models.save import load_model, save_model
    rng = np.random.default_rng(2)
    x, xv = rng.standard_normal((30, 5)), rng.standard_normal((30, 5))
    y, yv = rng.standard_normal(30), rng.standard_normal(30)
    net = build([(32, "relu"), (1, "none")], inputs=5, lr=0.05, seed=0)
    stopped = fit(net, x, y, epochs=200, validation_data=[xv, yv], early_stopping=3, verbose=0)
    save_model(stopped, str(tmp_path / "m.npz"))
    loaded = load_model(str(tmp_path / "m.npz"))
    assert loaded.weights_epoch == stopped.weights_epoch is not None
    assert loaded.describe() == stopped.describe()


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
