"""A gradient taken without keep used in a new loss: refused when the new grad differentiates
against a value the gradient depends on (that would need a second-order gradient, which only a
gradient taken with keep = true carries), whether the loss holds the gradient itself or a value
computed from it, and left alone in every first-order use (optimizer updates, printing, other
targets, a value that passes no gradient such as round(g) or g > 0, detach(g))."""
import contextlib
import io

import numpy as np
import pytest

from lamina.autodiff import handed
from lamina.errors import LaminaError
from lamina.interpreter import Interpreter


def run(source: str) -> list[str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        Interpreter().run(source, "prog.lam")
    return out.getvalue().splitlines()


def tape_error(source: str) -> LaminaError:
    with pytest.raises(LaminaError) as info:
        run(source)
    assert info.value.kind == "TapeError"
    return info.value


@pytest.mark.parametrize("use", ["g * p", "p * g", "g * p + p ^ 2", "3 * (p - g * p)"])
def test_a_gradient_of_p_in_a_loss_differentiated_against_p_is_refused(use):
    err = tape_error(f"p = param(2.0)\ng = grad(p ^ 3, wrt = p)\nprint(g)\nh = grad({use}, wrt = p)")
    assert "an earlier grad() returned" in err.message
    assert "first order" in err.message and "grad(..., keep = true)" in err.message
    assert err.span.line == 4


@pytest.mark.parametrize("loss", ["sum(g .* p)", "sum(p .* g)", "sum(g * p')",
                                  "sum(p * g)"])
def test_a_tensor_gradient_in_a_loss_is_refused_in_any_operator(loss):
    err = tape_error(f"p = param([1.0, 2.0; 3.0, 4.0])\ng = grad(sum(p .^ 3), wrt = p)\n"
                     f"h = grad({loss}, wrt = p)")
    assert "an earlier grad() returned" in err.message


def test_a_gradient_taken_through_p_is_refused_too():
    # g is the gradient with respect to q, but its value depends on p
    err = tape_error("p = param(2.0)\nq = param(3.0)\ng = grad(p * q ^ 2, wrt = q)\n"
                     "h = grad(g * p, wrt = [p, q])")
    assert "an earlier grad() returned" in err.message and err.span.line == 4


def test_first_order_uses_of_a_gradient_keep_working():
    lines = run("p = param(2.0)\n"
                "g = grad(p ^ 3, wrt = p)\n"
                "print(g, round(p - 0.1 * g, 6))\n"              # printing, an update
                "q = param(1.5)\n"
                "print(grad(g * q, wrt = q))\n"                  # a constant for another target
                "print(grad(p ^ 2, wrt = p))\n"                  # a new loss without the gradient
                "w = 1.0\n"
                "for i = 1 to 3\n"
                "    v = param(w)\n"
                "    w = w - 0.1 * grad(v ^ 2, wrt = v)\n"
                "end for\n"
                "print(round(w, 6))\n"
                "opt = sgd(2.0, 0.1)\n"
                "for i = 1 to 3\n"
                "    tape_reset()\n"
                "    x = param(opt.params)\n"
                "    opt = optimizer_step(opt, grad(x ^ 3, wrt = x))\n"
                "end for\n"
                "print(round(opt.params, 6))")
    x = 2.0
    for _ in range(3):
        x -= 0.1 * 3 * x ** 2
    assert lines == ["12 0.8", "12", "4", f"{0.8 ** 3:g}", f"{round(x, 6):g}"]


def test_two_losses_of_one_parameter_each_get_their_gradient():
    lines = run("p = param([1.0, 2.0])\n"
                "g1 = grad(sum(p .^ 2), wrt = p)\n"
                "g2 = grad(sum(3 * p), wrt = p)\n"
                "print(g1 + g2)")
    assert lines == ["[5, 7]"]
    assert np.allclose([5, 7], 2 * np.array([1.0, 2.0]) + 3)


DERIVED = ["2 * g .* p", "(g / 2) .* p", "p ./ g", "p + g", "g[0] * p", "sum(g) * p", "exp(g) .* p",
           "twice(g) .* p", "r.a .* p", "l[0] .* p", "p .^ 2 + g .^ 2", "g' * p", "reshape(g, [1, 1]) * p",
           "max(g, 1) .* p", "abs(-g) .* p", "mean([g; g]) * p", "log(g) .* p", "norm(g) * p",
           "dot(g, p)", "g' @ p", "sort(g) .* p", "cumsum(g) .* p", "vcat(g, g) .* [p; p]"]


@pytest.mark.parametrize("use", DERIVED)
def test_a_value_computed_from_a_gradient_is_refused_in_a_loss_of_its_parameter(use):
    err = tape_error("p = param([2.0])\ng = grad(sum(p .^ 3), wrt = p)\n"
                     "function twice(x)\n    return 2 * x\nend function\nr = {a = g}\nl = [g]\n"
                     f"h = grad(sum({use}), wrt = p)")
    assert "an earlier grad() returned" in err.message and err.span.line == 8


def test_a_scalar_gradient_scaled_first_is_refused():
    # the example with the gradient doubled before it meets p: 2 * 12 would be printed
    # for d(2 g p)/dp, whose value at p = 2 is 2 * (3 p^2 + 6 p^2) = 72
    err = tape_error("p = param(2.0)\ng = grad(p ^ 3, wrt = p)\nh = 2 * g\nprint(grad(h * p, wrt = p))")
    assert "keep = true" in err.message and err.span.line == 4


def test_with_keep_the_same_derived_loss_is_exact():
    assert run("p = param(2.0)\ng = grad(p ^ 3, wrt = p, keep = true)\nh = 2 * g\n"
               "print(grad(h * p, wrt = p))") == ["72"]


@pytest.mark.parametrize("use", ["round(g) .* p", "(g > 0) .* p", "detach(g) .* p", "length(g) * p"])
def test_a_value_that_passes_no_gradient_is_a_constant(use):
    assert run(f"p = param([2.0])\ng = grad(sum(p .^ 3), wrt = p)\nprint(grad(sum({use}), wrt = p))") \
        == [{"round(g) .* p": "[12]", "(g > 0) .* p": "[1]", "detach(g) .* p": "[12]",
             "length(g) * p": "[1]"}[use]]


def test_a_value_computed_from_a_gradient_is_a_constant_for_other_targets_and_after_a_reset():
    assert run("p = param(2.0)\ng = grad(p ^ 3, wrt = p)\nh = 2 * g + 1\nq = param(3.0)\n"
               "print(grad(h * q ^ 2, wrt = q))\ntape_reset()\np = param(2.0)\n"
               "print(grad(h * p, wrt = p))") == ["150", "25"]


def test_values_computed_from_gradients_print_and_leave_the_language_as_plain_values():
    interp = Interpreter()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        interp.run("p = param([1.0, 2.0])\ng = grad(sum(p .^ 2), wrt = p)\nh = {a = [0.5 * g, 1]}\n"
                   "print(h, g)", "prog.lam")
    assert out.getvalue().splitlines() == ["{a=[[1, 2], 1]} [2, 4]"]
    h = interp.get("h")
    assert type(h.fields["a"][0]) is np.ndarray and list(h.fields["a"][0]) == [1.0, 2.0]
    assert type(interp.run_cell("g", "cell")) is np.ndarray


def test_a_long_loop_over_gradients_keeps_no_history():
    # each step's value is computed from the last step's gradient; only the latest calls are
    # remembered, so neither the values nor the notes grow with the steps
    interp = Interpreter()
    interp.run("w = [1.0, 2.0]\nfor i = 1 to 200\n    v = param(w)\n"
               "    w = w - 0.1 * grad(sum(v .^ 2) + sum(v .* w), wrt = v)\nend for", "prog.lam")
    from lamina.lang.scope import mangle
    w = interp.namespace[mangle("w")]
    assert len(handed.calls_of(w)) <= handed.CALLS_KEPT and len(handed._met) <= handed.CALLS_KEPT
    expected = np.array([1.0, 2.0])
    for _ in range(200):
        expected = expected - 0.1 * 3 * expected
    np.testing.assert_allclose(interp.get("w"), expected, rtol=1e-12)


def test_a_sweep_sends_and_returns_values_computed_from_gradients_as_numbers():
    lines = run("p = param(2.0)\nh = 2 * grad(p ^ 3, wrt = p)\n"
                "function train(cfg)\n    q = param(cfg.lr)\n    return grad(q ^ 2, wrt = q) + h\nend function\n"
                "function scaled(x)\n    return x * h\nend function\n"
                "print(sweep(train, {lr = [1.0, 2.0]}).result)\nprint(parallel_map(scaled, [1.0, 2.0]))")
    assert lines == ["[26, 28]", "[24, 48]"]


@pytest.mark.parametrize("store,loss", [("a = zeros(2)\na[0] = g[1]", "sum(a .* p)"),
                                        ("a = [1.0, 2.0]\na[1] = 2 * g[0]", "sum(a .* p)"),
                                        ("r = {x = 1.0}\nr.x = g[0]", "r.x * p[0]")])
def test_a_gradient_stored_into_a_plain_value_is_refused_in_a_loss(store, loss):
    err = tape_error(f"p = param([2.0, 1.0])\ng = grad(sum(p .^ 3), wrt = p)\n{store}\nh = grad({loss}, wrt = p)")
    assert "an earlier grad() returned" in err.message and err.span.line == 5


F = "function f(x)\n    return sum(x .^ 3) * q\nend function\nq = param(2.0)\n"


@pytest.mark.parametrize("derivative,loss", [
    ("hessian(f, p)", "sum(d) * p[0]"),                       # at a tracked point
    ("jacobian(f, p)", "sum(d .* p)"),
    ("hvp(f, p, [1.0, 0.0])", "sum(d .* p)"),
    ("hvp(f, [1.0, 2.0], p)", "sum(d .* p)"),                 # a tracked direction
    ("hessian(f, [1.0, 2.0])", "sum(d) * q"),                 # a tracked value f reads
    ("jacobian(f, [1.0, 2.0])", "sum(d) * q")])
def test_a_derivative_builtin_s_result_is_refused_in_a_loss_of_what_it_depends_on(derivative, loss):
    # d(sum(hessian) * p0)/dp has a term from the hessian's own derivative, which a plain
    # matrix leaves out: [18, 0] would be printed where [24, 6] (q = 1) is right
    err = tape_error(f"{F}p = param([1.0, 2.0])\nd = {derivative}\nh = grad({loss}, wrt = [p, q])")
    assert err.span.line == 7 and derivative.split("(")[0] + "()" in err.message
    assert "keep = true" in err.message


def test_a_derivative_at_a_plain_point_of_a_plain_function_is_plain():
    interp = Interpreter()
    interp.run("function f(x)\n    return sum(x .^ 3)\nend function\nH = hessian(f, [1.0, 2.0])\n"
               "r = param(3.0)\nh = grad(sum(H) * r, wrt = r)", "prog.lam")
    from lamina.lang.scope import mangle
    assert type(interp.namespace[mangle("H")]) is np.ndarray and interp.get("h") == 18.0


def test_minimize_s_result_is_refused_in_a_loss_of_a_value_its_function_reads():
    # x* = q: d(x* q)/dq = 2 q = 4, where a constant x* would give 2
    err = tape_error("q = param(2.0)\nfunction f(x)\n    return (x - q) ^ 2\nend function\n"
                     "r = minimize(f, 0.0)\nh = grad(r.x * q, wrt = q)")
    assert err.span.line == 6 and "minimize()" in err.message and "envelope" in err.message
    assert run("function f(x)\n    return (x - 2) ^ 2\nend function\nr = minimize(f, 0.0)\n"
               "q = param(2.0)\nprint(round(r.x, 6), grad(r.x * q, wrt = q), r.converged)") == ["2 2 true"]


def test_a_function_that_uses_a_gradient_of_its_own_point_is_refused_by_the_derivative_builtins():
    # f(x) = sum(3 x^2 .* x) = 3 sum(x^3): its Hessian is diag(18 x), which a plain inner
    # gradient would halve
    for derivative in ["hessian(f, [1.0, 2.0])", "jacobian(f, [1.0, 2.0])", "hvp(f, [1.0, 2.0], [1.0, 0.0])",
                       "minimize(f, [1.0, 2.0])"]:
        err = tape_error(f"function f(x)\n    return sum(grad(sum(x .^ 3), wrt = x) .* x)\nend function\n"
                         f"d = {derivative}")
        assert "keep = true" in err.message, derivative
    assert run("function f(x)\n    return sum(grad(sum(x .^ 3), wrt = x, keep = true) .* x)\nend function\n"
               "print(hessian(f, [1.0, 2.0]))") == ["[18, 0; 0, 36]"]


def test_a_sweep_in_this_process_leaves_the_program_s_gradients_remembered():
    # each configuration takes five gradients, more than the calls remembered: the program's own
    # gradient must still be known afterwards
    err = tape_error("p = param(2.0)\nh = 2 * grad(p ^ 3, wrt = p)\n"
                     "function train(cfg)\n    for i = 1 to 5\n        q = param(cfg.lr)\n"
                     "        g = grad(q ^ 2, wrt = q)\n    end for\n    return g\nend function\n"
                     "t = sweep(train, {lr = [1.0, 2.0]})\nprint(grad(h * p, wrt = p))")
    assert err.span.line == 11
