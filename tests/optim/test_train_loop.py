"""train_loop: the seed's numbers, names vs values, containers, results, the tape, errors."""
import numpy as np
import pytest

from lamina.errors import LaminaError

SETUP = """
x = [1.0, 2.0, 3.0, 4.0]
y_true = [2.0, 4.0, 6.0, 8.0]
w = param(0.0)
function loss_fn(w)
    pred = w * x
    diff = pred - y_true
    return mean(diff .^ 2)
end function
"""


def test_seed_line(run):
    lines, interp = run(SETUP + """
opt = sgd(w, 0.01)
losses = train_loop("loss_fn", w, 100, optimizer = "opt")
print("train_loop (sgd): loss {round(losses[0], 3)} -> {round(losses[99], 5)}")
print(tape_size())
""")
    assert lines == ["train_loop (sgd): loss 30 -> 0", "0"]
    losses = interp.get("losses")
    assert losses.shape == (100,) and np.all(np.diff(losses) < 0)
    # An independent computation of the same run: w <- w - lr * d/dw mean((w x - y)^2).
    x, y, w = np.arange(1.0, 5.0), 2 * np.arange(1.0, 5.0), 0.0
    for epoch in range(100):
        assert losses[epoch] == pytest.approx(np.mean((w * x - y) ** 2), rel=1e-12)
        w -= 0.01 * np.mean(2 * (w * x - y) * x)


def test_values_instead_of_names_and_returning_all(run):
    lines, interp = run(SETUP + """
r = train_loop(loss_fn, w, 50, optimizer = adam(w, lr = 0.1), returning = "all")
print(length(r.losses), r.losses[0])
print(r.params == r.optimizer._params[0], r.optimizer._step)
""")
    assert lines[0] == "50 30"
    assert lines[1] == "true 50"
    assert abs(interp.get("r").fields["params"] - 2.0) < 0.2


def test_record_and_list_parameters(run):
    lines, interp = run("""
x = [1.0, 2.0, 3.0]
y = [3.0, 5.0, 7.0]
p = {w = 0.0, b = 0.0}
r = train_loop(q -> mean((q.w * x + q.b - y) .^ 2), p, 500, optimizer = adam(p, lr = 0.1), returning = "all")
print(round(r.params.w, 1), round(r.params.b, 1))
l = train_loop(q -> mean((q[0] * x + q[1] - y) .^ 2), [0.0, 0.0], 500, optimizer = "adam")
print(l[499] < l[0])
""")
    assert lines == ["2 1", "true"]


def test_an_optimizer_name_or_none_starts_from_the_given_values(run):
    lines, _ = run(SETUP + """
a = train_loop(loss_fn, 1.0, 3, optimizer = "rmsprop")
b = train_loop(loss_fn, 1.0, 3)
print(a[0], b[0])
""")
    assert lines == ["7.5 7.5"]


def test_a_variable_named_like_an_optimizer_wins(run):
    lines, _ = run(SETUP + """
adam = sgd(5.0, 0.0)
l = train_loop(loss_fn, 0.0, 2, optimizer = "adam")
print(l)
""")
    assert lines == ["[67.5, 67.5]"]


def test_matrix_parameters_and_the_tape_is_fresh_each_epoch(run):
    lines, _ = run("""
X = [1.0, 0.0; 0.0, 1.0; 1.0, 1.0]
Y = [1.0; 2.0; 3.0]
function loss(w)
    return mean((X * w - Y) .^ 2)
end function
r = train_loop(loss, zeros(2, 1), 200, optimizer = sgd(zeros(2, 1), 0.1), returning = "all")
print(round(r.params, 3), tape_size())
""")
    assert lines == ["[1; 2] 0"]


@pytest.mark.parametrize("body, kind, words", [
    ("train_loop(loss_fn, w, 5, optimizer = sgd({a = 1.0}, 0.1))", "ValueError",
     ["match", "one value: scalar", "record with fields a"]),
    ("train_loop(loss_fn, w, 5, optimizer = sgd([1.0, 2.0], 0.1))", "ValueError", ["vector of length 2"]),
    ("train_loop(p -> [1.0, 2.0] * p, w, 5)", "TypeError", ["epoch 0", "number"]),
    ("train_loop(p -> 3.0, w, 5)", "TapeError", ["epoch 0", "depend"]),
    ("train_loop(p -> exp(p * 1000), 1.0, 5, optimizer = sgd(1.0, 1.0))", "ValueError", ["epoch", "Inf"]),
    ("train_loop(p -> (p - 1000) ^ 2, 0.0, 1000, optimizer = sgd(0.0, 10.0))", "ValueError", ["epoch 119", "Inf"]),
    ("train_loop(p -> sqrt(p - 2.0), 1.0, 3)", "ValueError", ["epoch 0", "NaN"]),
    ("train_loop(\"nope\", w, 5)", "NameError", ["nope"]),
    ("train_loop(3.0, w, 5)", "TypeError", ["function"]),
    ("train_loop(loss_fn, w, -1)", "ValueError", ["epochs"]),
    ("train_loop(loss_fn, w, 5, optimizer = \"nosuch\")", "NameError", ["nosuch", "adam"]),
    ("train_loop(loss_fn, w, 5, optimizer = 3.0)", "TypeError", ["optimizer"]),
    ("train_loop(loss_fn, w, 5, returning = \"best\")", "ValueError", ["returning"]),
])
def test_errors(run, body, kind, words):
    with pytest.raises(LaminaError) as e:
        run(SETUP + body)
    assert e.value.kind == kind, e.value.message
    for word in words:
        assert word in e.value.message, e.value.message


def test_a_loss_function_error_propagates_with_its_kind(run):
    with pytest.raises(LaminaError) as e:
        run(SETUP + "train_loop(p -> p * [1.0, 2.0] * [1.0, 2.0], w, 3)")
    assert e.value.kind == "ShapeError"


def test_names_are_resolved_in_the_programs_own_scope(run):
    # A top-level name works from inside a function; a local one does not, and says to pass it.
    lines, _ = run(SETUP + """
function train(n)
    return train_loop("loss_fn", w, n, optimizer = "opt")
end function
opt = sgd(w, 0.01)
losses = train(3)
print(round(losses, 4))
""")
    assert lines == ["[30, 21.675, 15.6602]"]     # w: 0, 0.3, 0.555 (by hand: w += 0.01 * 15 * (2 - w))
    with pytest.raises(LaminaError) as e:
        run(SETUP + "function f()\n  g = p -> mean(p .^ 2)\n  return train_loop(\"g\", w, 2)\nend function\nf()")
    assert e.value.kind == "NameError" and "names no top-level variable" in e.value.message


def test_two_interpreters_resolve_names_in_their_own_programs():
    from lamina.interpreter import Interpreter
    a, b = Interpreter(), Interpreter()
    a.run("f = p -> (p - 1) ^ 2\nr = train_loop(\"f\", 0.0, 2, optimizer = sgd(0.0, 0.1))")
    b.run("f = p -> (p - 5) ^ 2\nr = train_loop(\"f\", 0.0, 2, optimizer = sgd(0.0, 0.1))")
    np.testing.assert_allclose(a.get("r"), [1.0, 0.64])      # (0 - 1)^2, then w = 0.2
    np.testing.assert_allclose(b.get("r"), [25.0, 16.0])     # (0 - 5)^2, then w = 1


def test_a_track_value_stays_as_it_is_and_is_still_differentiated(run):
    # w trains (sgd, lr 0.01: w <- w - 0.01 * 2w each epoch); b, given as track(), is frozen,
    # and the loss function still sees it tracked (the loss depends on it).
    lines, interp = run("""
p = {w = param([1.0, -2.0]), b = track(3.0)}
r = train_loop(q -> sum(q.w .* q.w) + q.b * q.b, p, 4, optimizer = "sgd", returning = "all")
print(r.params.b, r.optimizer)
""")
    assert lines == ["3 <optimizer sgd(lr=0.01, momentum=0), 2 parameters (1 frozen), 4 steps>"]
    r = interp.get("r")
    w = np.array([1.0, -2.0])
    for _ in range(4):
        w = w - 0.01 * (2.0 * w)
    assert np.array_equal(r.fields["params"].fields["w"], w)
    losses = r.fields["losses"]
    assert np.allclose(losses, [5.0 * 0.98 ** (2 * e) + 9.0 for e in range(4)], rtol=1e-15, atol=0)


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


def test_parameters_of_rank_3_and_4_train_as_by_hand(run):
    _, interp = run("seed(5)\nW = randn(2, 3, 4)\nK = randn(3, 3, 1, 8)    # K: a 3 x 3 x 1 x 8 convolution kernel\n"
                    "r = train_loop(q -> (q.w[1, 2, 3] - 2) ^ 2 + 3 * q.k[0, 1, 0, 7] ^ 2, {w = W, k = K}, 5,\n"
                    "               optimizer = sgd(lr = 0.1, momentum = 0.5), returning = \"all\")\n"
                    "n = tape_size()")
    W, K, r = interp.get("W"), interp.get("K"), interp.get("r").fields
    # sgd with momentum, element by element: only the two elements the loss reads move
    a, b, va, vb, losses = W[1, 2, 3], K[0, 1, 0, 7], 0.0, 0.0, []
    for _ in range(5):
        losses.append((a - 2) ** 2 + 3 * b ** 2)
        va, vb = 0.5 * va + 2 * (a - 2), 0.5 * vb + 6 * b
        a, b = a - 0.1 * va, b - 0.1 * vb
    np.testing.assert_allclose(r["losses"], losses, rtol=1e-14)
    w, k = W.copy(), K.copy()
    w[1, 2, 3], k[0, 1, 0, 7] = a, b
    np.testing.assert_allclose(r["params"].fields["w"], w, rtol=1e-14, atol=0)
    np.testing.assert_allclose(r["params"].fields["k"], k, rtol=1e-14, atol=1e-16)
    assert r["optimizer"].get("_step") == 5 and interp.get("n") == 0


def test_parameters_of_another_rank_than_the_optimizers_are_named(run):
    with pytest.raises(LaminaError) as e:
        run("W = randn(2, 3, 4)\ntrain_loop(q -> q[0, 0, 0] ^ 2, W, 2, optimizer = sgd(reshape(W, 6, 4), 0.1))")
    assert e.value.kind == "ValueError"
    assert "train_loop's parameters (one value: 2x3x4) do not match the optimizer's (one value: 6x4)" \
        in e.value.message
