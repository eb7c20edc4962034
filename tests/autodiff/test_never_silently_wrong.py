"""grad's answers that used to be silently wrong, and the cost of a forgotten tape_reset().

Programs run in a fresh interpreter (`run`, tests/autodiff/conftest.py); numbers are checked
against NumPy by hand (tests/autodiff/test_against_torch_stats.py has torch).
"""
import contextlib
import io

import numpy as np
import pytest

import lamina.builtins.autodiff as B
from lamina.autodiff import ops, reductions
from lamina.autodiff.grad import backward, grad
from lamina.autodiff.tape import TAPE
from lamina.errors import LaminaError
from lamina.interpreter import Interpreter


def failure(source: str, name: str = "prog.lam") -> LaminaError:
    with pytest.raises(LaminaError) as info, contextlib.redirect_stdout(io.StringIO()):
        Interpreter().run(source, name)
    return info.value


def stderr_of(source: str, capsys, name: str = "prog.lam") -> str:
    capsys.readouterr()
    with contextlib.redirect_stdout(io.StringIO()):
        Interpreter().run(source, name)
    return capsys.readouterr().err


# -- wrt: every stale item is named, by its own text or its path ---------------------
def test_every_stale_item_of_wrt_is_named():
    err = failure("a = param(1)\nw = param(2)\ntape_reset()\nb = param(3)\ng = grad(b * 2, wrt = [a, b, w])\n")
    assert err.kind == "TapeError"
    assert err.message.startswith("a and w were recorded before tape_reset(), so they are no longer")
    assert "wrap their values again with param()" in err.message


def test_a_stale_item_in_a_computed_record_is_named_by_its_path():
    src = ("p = {q = param(1.0), r = param(2.0)}\nfunction params()\n    return {r = p.r, q = p.q}\n"
           "end function\ntape_reset()\np.r = param(2.0)\nloss = p.r * 3\n")
    err = failure(src + "g = grad(loss, wrt = params())\n")
    assert err.message.startswith("wrt.q was recorded before tape_reset()"), err.message
    err = failure(src + "g = grad(loss, wrt = {r = p.r, q = p.q})\n")
    assert err.message.startswith("p.q was recorded"), err.message
    err = failure(src + "g = grad(loss, p)\n")
    assert err.message.startswith("p.q was recorded"), err.message


def test_a_plain_number_among_the_targets_is_an_error():
    err = failure("a = param(1)\nprint(grad(a * a, wrt = [a, 3]))\n")
    assert err.message.startswith("wrt[1] is a number that is not tracked")


# -- warnings ----------------------------------------------------------------------------
def test_no_target_connected_to_the_loss_is_a_warning_with_the_line(capsys):
    err = stderr_of("a = param(1)\nb = param(2)\nc = a * 3\nprint(grad(c, wrt = b))\n", capsys)
    assert err.startswith("warning: grad(): the loss does not depend on wrt, so every gradient is zero")
    assert err.rstrip().endswith("(prog.lam:4)")
    assert err.count("warning") == 1
    # a bracket built after the loss is a new value: the same warning
    err = stderr_of("a = param(1)\nloss = a * 3\nv = [a, a]\nprint(grad(loss, wrt = v))\n", capsys)
    assert "prog.lam:4" in err and "does not depend on wrt" in err
    # one connected target is enough: no warning
    assert stderr_of("a = param(1)\nb = param(2)\nprint(grad(a * 3, wrt = [a, b]))\n", capsys) == ""


def test_nan_warning_names_the_place(capsys):
    err = stderr_of("w = param(0)\nprint(grad(sqrt(w) * 0 + 1, wrt = w))\n", capsys)
    assert err.startswith("warning: grad(): the loss is finite") and err.rstrip().endswith("(prog.lam:2)")


def test_grad_of_a_gradient_says_gradients_are_first_order():
    err = failure("w = param(2.0)\ng = grad(w ^ 3, wrt = w)\nh = grad(g, wrt = w)\n")
    assert err.kind == "TapeError" and "first order" in err.message and "plain" in err.message
    err = failure("w = param([1.0, 2.0])\ng = grad(sum(w .^ 3), wrt = w)\nh = grad(sum(g), wrt = w)\n")
    assert "first order" in err.message


# -- a forgotten tape_reset() ---------------------------------------------------------
def test_grad_looks_only_at_what_the_loss_depends_on():
    x = TAPE.leaf(2.0, True)
    for _ in range(20_000):                          # unrelated work kept on the tape
        ops.mul(TAPE.leaf(1.0, True), 3.0)
    y = ops.mul(ops.mul(x, x), 3.0)                 # the loss needs x, x * x and y
    found, reached, looked = backward(y, {x.node})
    assert found[x.node][0] == 12.0 and reached == 3
    assert looked < 3 + 2 * 40                      # not the 40,000 entries in between
    assert TAPE.size() > 40_000


def test_a_loop_without_tape_reset_costs_each_grad_only_its_own_step():
    x = np.array([1.0, 2.0, 3.0])
    wv, looked = 0.0, []
    for _ in range(300):
        w = TAPE.leaf(wv, True)
        loss = reductions.mean(ops.epow(ops.sub(ops.mul(w, x), ops.mul(2.0, x)), 2.0))
        found, _, n = backward(loss, {w.node})
        looked.append(n)
        wv -= 0.05 * float(found[w.node][0])
    assert set(looked) == {6}                      # the same work in step 300 as in step 1
    assert abs(wv - 2.0) < 1e-6


def test_a_loop_without_tape_reset_frees_each_step_and_says_nothing(capsys):
    # Each step's history belongs to the values that step computed, so it goes when the next
    # step rebinds them: nothing piles up, and there is nothing to warn about.
    src = ("x = [1.0, 2.0, 3.0]\nwv = 0.0\nfor step = 1 to 2050\n    w = param(wv)\n"
           "    g = grad(mean((w * x - 2 * x) .^ 2), wrt = w)\n    wv = wv - 0.05 * g\nend for\n"
           "print(round(wv, 6))\n")
    capsys.readouterr()
    Interpreter().run(src, "prog.lam")
    out = capsys.readouterr()
    assert out.err == "" and out.out == "2\n"


# -- who reset the tape -------------------------------------------------------------------
@pytest.mark.parametrize("trainer, line", [
    ('r = train_loop(p -> (p - 3) ^ 2, 0.0, 3, optimizer = sgd(lr = 0.1))', 'train_loop() at prog.lam:2'),
    ('net = input(1) |> dense(1) |> compile(seed = 1)\nnet = fit(net, [1; 2], [2; 4], epochs = 2, verbose = 0)',
     'fit() at prog.lam:3'),
])
def test_a_stale_value_says_which_builtin_reset_the_tape(trainer, line):
    err = failure(f"w = param([0.5, -0.5])\n{trainer}\ng = grad(sum(w), wrt = w)\n")
    assert err.kind == "TapeError"
    assert err.message.startswith(f"w was recorded before the tape was reset by {line}"), err.message


def test_tape_reset_after_a_trainer_is_named_as_tape_reset():
    err = failure("w = param(1.0)\nr = train_loop(p -> p ^ 2, 1.0, 2)\nv = param(2.0)\ntape_reset()\n"
                  "g = grad(v * 2, wrt = [w, v])\n")
    assert err.message.startswith("w was recorded before the tape was reset by train_loop() at prog.lam:2 "
                                  "(it resets the tape as it trains), and v before tape_reset(), so "
                                  "they are no longer on the tape"), err.message
    err = failure("v = param(2.0)\ntape_reset()\ng = grad(v * 2, wrt = v)\n")
    assert err.message.startswith("v was recorded before tape_reset()")


def test_the_stale_loss_names_the_reset_too():
    err = failure("w = param(1.0)\nloss = w * 2\nr = train_loop(p -> p ^ 2, 1.0, 2)\nv = param(1.0)\n"
                  "g = grad(loss, wrt = v)\n")
    assert err.message.startswith("The loss was recorded before the tape was reset by train_loop() at prog.lam:3")


def test_reset_causes_are_kept_short():
    for i in range(500):
        TAPE.reset(by=f"caller {i % 2}")
    assert len(TAPE.causes) <= 64
    assert TAPE.reset_cause(TAPE.gen - 1) == "caller 1"
    assert TAPE.reset_cause(0) is None


# -- builtins that used to drop gradients ------------------------------------------------
def test_filter_and_map_of_a_tracked_vector(run):
    out = run("w = param([1, -2, 3, -4])\nkept = filter(w, x -> x > 0)\nsq = map(w, x -> x ^ 2)\n"
              "print(kept, type(sq))\nprint(grad(sum(kept .* [10, 100]), wrt = w))\n"
              "print(grad(sum(sq), wrt = w))\n")
    assert out == ["[1, 3] vector", "[10, 0, 100, 0]", "[2, -4, 6, -8]"]


def test_var_std_and_zscore_against_numpy_by_hand():
    data = np.array([2.0, 4.0, 4.0, 5.0, 9.0])
    n, m = data.size, data.mean()
    from lamina.builtins.stats import std, var, zscore
    w = B.param(data)
    np.testing.assert_allclose(grad(var(w), w), 2 * (data - m) / (n - 1), rtol=1e-13)
    s = np.sqrt(((data - m) ** 2).sum() / n)
    np.testing.assert_allclose(grad(std(w, ddof=0), w), (data - m) / (n * s), rtol=1e-13)
    r = np.array([1.0, -2.0, 0.5, 3.0, 1.5])                  # d/dx of sum(zscore(x) .* r)
    s1 = np.sqrt(((data - m) ** 2).sum() / (n - 1))
    want = (r - r.mean()) / s1 - (data - m) * ((data - m) * r).sum() / ((n - 1) * s1 ** 3)
    np.testing.assert_allclose(grad(reductions.sum(ops.emul(zscore(w), r)), w), want, rtol=1e-12)
