"""optim/minimize.py (the minimize builtin): each method against SciPy run on the same function
with hand-written derivatives, bounds, extra arguments, the flat view of a record, the warning
and field of a run that stops short, and bad calls."""
import contextlib
import io

import numpy as np
import pytest
from scipy import optimize, stats

from lamina import warnings as channel
from lamina.autodiff.tape import TAPE
from lamina.errors import LaminaError
from lamina.interpreter import Interpreter
from lamina.lang.scope import mangle

ROSEN = "rosen = x -> (1 - x[0]) ^ 2 + 100 * (x[1] - x[0] ^ 2) ^ 2\n"


@pytest.fixture(autouse=True)
def fresh_channel():
    channel.reset()
    yield
    channel.reset()
    TAPE.reset()


def run(code: str, **variables) -> tuple[Interpreter, str]:
    """The interpreter after running `code` (with `variables` bound first) and what it wrote on stderr."""
    interp, err = Interpreter(), io.StringIO()
    for name, value in variables.items():
        interp.namespace[mangle(name)] = value
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        interp.run(code, "m.lam")
    return interp, err.getvalue()


def result(code: str, **variables):
    interp, err = run(code, **variables)
    return interp.get("r"), err


def error(code: str, **variables) -> LaminaError:
    with pytest.raises(LaminaError) as info:
        run(code, **variables)
    return info.value


def rosen(x):
    return (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2


def rosen_grad(x):
    return np.array([-2 * (1 - x[0]) - 400 * x[0] * (x[1] - x[0] ** 2), 200 * (x[1] - x[0] ** 2)])


def rosen_hess(x):
    return np.array([[2 - 400 * x[1] + 1200 * x[0] ** 2, -400 * x[0]], [-400 * x[0], 200.0]])


@pytest.mark.parametrize("method, scipy_method", [("bfgs", "BFGS"), ("lbfgs", "L-BFGS-B"),
                                                  ("newton", "trust-exact")])
def test_each_gradient_method_follows_scipy_with_the_derivatives_written_by_hand(method, scipy_method):
    r, err = result(ROSEN + f'r = minimize(rosen, [-1.2, 1.0], method = "{method}")')
    hess = {"hess": rosen_hess} if method == "newton" else {}
    ref = optimize.minimize(lambda x: (rosen(x), rosen_grad(x)), [-1.2, 1.0], jac=True,
                            method=scipy_method, **hess)
    x = r.fields["x"]
    assert err == ""
    assert r.fields["converged"] is True and ref.success
    assert r.fields["iterations"] == ref.nit
    np.testing.assert_allclose(x, ref.x, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(x, [1.0, 1.0], atol=1e-4)
    assert r.fields["value"] == pytest.approx(rosen(x), abs=1e-15)
    np.testing.assert_allclose(r.fields["gradient"], rosen_grad(x), rtol=1e-12, atol=1e-14)
    assert r.fields["message"] == ref.message


def test_newton_on_a_quadratic_reaches_the_solution_of_the_linear_system():
    A = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])
    b = np.array([1.0, -2.0, 0.5])
    r, _ = result("r = minimize(x -> x' * A * x / 2 - b' * x, [0.0, 0.0, 0.0], method = \"newton\")", A=A, b=b)
    np.testing.assert_allclose(r.fields["x"], np.linalg.solve(A, b), rtol=1e-12)
    assert r.fields["converged"] is True


def test_nelder_mead_runs_f_on_plain_numbers_so_a_builtin_without_a_gradient_may_be_used():
    code = "f = x -> (cdf(normal(0, 1), x) - 0.8) ^ 2\n"
    r, _ = result(code + 'r = minimize(f, 0.0, method = "nelder_mead", tol = 1e-10)')
    ref = optimize.minimize(lambda x: (stats.norm.cdf(x[0]) - 0.8) ** 2, [0.0], method="Nelder-Mead", tol=1e-10)
    assert r.fields["x"] == pytest.approx(ref.x[0], abs=1e-12)
    assert r.fields["x"] == pytest.approx(stats.norm.ppf(0.8), abs=1e-6)
    assert "gradient" not in r.fields and r.fields["iterations"] == ref.nit
    assert r.fields["evaluations"] == ref.nfev + 1          # and once at x0, to check it is finite
    # The gradient methods run f on the tape, and cdf refuses a tracked value.
    assert error(code + "r = minimize(f, 0.0)").kind == "TypeError"


def test_bounds_of_a_record_follow_l_bfgs_b_and_leave_other_fields_free():
    code = ("f = p -> (p.a - 3) ^ 2 + sum((p.b - [1.0, -2.0]) .^ 2) + p.a * p.b[0]\n"
            'r = minimize(f, {a = 0.0, b = [0.5, 0.5]}, method = "lbfgs", bounds = {b = [0, 2]}, tol = 1e-12)')
    r, _ = result(code)

    def f(t):
        a, b0, b1 = t
        value = (a - 3) ** 2 + (b0 - 1) ** 2 + (b1 + 2) ** 2 + a * b0
        return value, np.array([2 * (a - 3) + b0, 2 * (b0 - 1) + a, 2 * (b1 + 2)])
    ref = optimize.minimize(f, [0.0, 0.5, 0.5], jac=True, method="L-BFGS-B", tol=1e-12,
                            bounds=[(-np.inf, np.inf), (0, 2), (0, 2)])
    x = r.fields["x"]
    np.testing.assert_allclose([x.fields["a"], *x.fields["b"]], ref.x, atol=1e-9)
    np.testing.assert_allclose([x.fields["a"], *x.fields["b"]], [3.0, 0.0, 0.0], atol=1e-8)
    assert set(r.fields["gradient"].fields) == {"a", "b"}


def test_bounds_as_tensors_and_for_nelder_mead():
    r, _ = result('r = minimize(x -> sum((x - [5.0, -5.0]) .^ 2), [0.0, 0.0], method = "lbfgs", '
                  'bounds = [[-1.0, -1.0], [1.0, 3.0]])')
    np.testing.assert_allclose(r.fields["x"], [1.0, -1.0])
    r, _ = result('r = minimize(x -> (x - 5) ^ 2, 0.0, method = "nelder_mead", bounds = [-Inf, 2])')
    assert r.fields["x"] == pytest.approx(2.0, abs=1e-3)


def test_extra_arguments_are_passed_to_f_after_the_point():
    rng = np.random.default_rng(3)
    X, y = rng.normal(size=(30, 3)), rng.normal(size=30)
    r, _ = result("r = minimize((b, X, y) -> sum((X * b - y) .^ 2), zeros(3), X, y, tol = 1e-10)", X=X, y=y)
    np.testing.assert_allclose(r.fields["x"], np.linalg.lstsq(X, y, rcond=None)[0], rtol=1e-7)


def test_a_number_x0_gives_a_number_and_a_nan_after_x0_counts_as_infinity():
    # The first step from 1 goes to -8, where log is NaN: the line search steps back.
    r, err = result("r = minimize(x -> 10 * x - log(x), 1.0)")
    assert type(r.fields["x"]) is float and r.fields["x"] == pytest.approx(0.1, rel=1e-5)
    assert r.fields["converged"] is True and err == ""


def test_a_value_error_of_f_after_x0_counts_as_infinity_but_not_at_x0():
    # 10 x - log(x) again, written with normal's density: normal(0, x) refuses the step to x = -8
    code = "f = x -> 10 * x + normal(0, x).logpdf(0) + log(sqrt(2 * pi))\n"
    r, err = result(code + "r = minimize(f, 1.0)")
    assert r.fields["x"] == pytest.approx(0.1, rel=1e-5) and r.fields["converged"] is True and err == ""
    e = error(code + "r = minimize(f, -1.0)")
    assert e.kind == "ValueError" and e.message.startswith("normal: sigma must be greater than 0")


def test_newton_steps_past_trial_points_where_f_is_undefined_and_refuses_a_non_finite_hessian():
    # trust-exact asks for the Hessian at each trial point before weighing its value: a trial
    # sigma below 0 (normal refuses it) is rejected by its value, not an internal error
    y = [4.1, 5.3, 3.8, 6.2]
    r, err = result("r = minimize(p -> -sum(normal(p.mu, p.sigma).logpdf(y)), {mu = 1.0, sigma = 0.5}, "
                    "method = \"newton\")", y=np.array(y))
    assert r.fields["converged"] is True and err == ""
    assert r.fields["x"].fields["mu"] == pytest.approx(np.mean(y), rel=1e-7)
    assert r.fields["x"].fields["sigma"] == pytest.approx(np.std(y), rel=1e-6)
    e = error("r = minimize(x -> abs(x) ^ 1.5 + x, 0.0, method = \"newton\")")
    assert e.kind == "ValueError" and e.message == (
        "minimize: the Hessian of the function at 0 is not finite, so no Newton step can be taken "
        "there; use method = \"bfgs\", which needs only the gradient.")


def test_float32_x0_gives_float32_x():
    r, _ = result("r = minimize(x -> sum((x - 2) .^ 2), float32([0.0, 1.0]))")
    assert r.fields["x"].dtype == np.float32 and r.fields["gradient"].dtype == np.float32
    np.testing.assert_allclose(r.fields["x"], [2.0, 2.0], rtol=1e-6)


def test_a_run_that_stops_short_warns_and_says_so_in_its_fields():
    r, err = result("r = minimize(x -> x ^ 4 - 3 * x, 0.5, max_iter = 1)")
    assert r.fields["converged"] is False and r.fields["iterations"] == 1
    assert r.fields["message"] == "Maximum number of iterations has been exceeded."
    assert err == ("warning: minimize (bfgs) did not converge after 1 iteration: Maximum number of "
                   "iterations has been exceeded. (m.lam:1)\n")


def test_evaluations_leave_the_tape_as_it_was():
    interp, _ = run("w = param(2.0)\nbefore = tape_size()\nr = minimize(x -> (x - w) ^ 2, 0.0)\nafter = tape_size()")
    assert interp.get("before") == interp.get("after") == 1
    assert interp.get("r").fields["x"] == pytest.approx(2.0, abs=1e-6)


@pytest.mark.parametrize("call, kind, words", [
    ("minimize(x -> log(x), -1.0)", "ValueError",
     "minimize: the function is NaN at the starting point -1; start where it is finite."),
    ("minimize(x -> x .^ 2, [1.0, 2.0])", "TypeError",
     "minimize's f must return a number (the value to minimize), but it returned"),
    ("minimize(x -> \"a\", 1.0)", "TypeError", "minimize's f must return a number"),
    ("minimize(3, 1.0)", "TypeError", "minimize's first argument must be the function to minimize"),
    ("minimize(x -> x ^ 2, 1.0, method = \"cg\")", "ValueError",
     "minimize's method is one of \"bfgs\", \"lbfgs\", \"newton\", \"nelder_mead\""),
    ("minimize(x -> x ^ 2, 1.0, bounds = [0, 2])", "ValueError",
     "minimize's method \"bfgs\" (BFGS) takes no bounds; use method = \"lbfgs\""),
    ("minimize(x -> x ^ 2, 1.0, method = \"lbfgs\", bounds = [2, 0])", "ValueError",
     "minimize's bounds has a lower bound above its upper bound."),
    ("minimize(x -> x ^ 2, 3.0, method = \"lbfgs\", bounds = [0, 2])", "ValueError",
     "minimize's x0 lies outside its bounds: element 0 of the flat parameters is 3"),
    ("minimize(p -> p.a ^ 2, {a = 1.0}, method = \"lbfgs\", bounds = {c = [0, 1]})", "ValueError",
     "minimize's bounds names c, which x0 does not have"),
    ("minimize(p -> p.a ^ 2, {a = 1.0}, method = \"lbfgs\", bounds = [0, 1])", "TypeError",
     "minimize's bounds for a record x0 is a record of [lower, upper] pairs"),
    ("minimize(x -> x ^ 2, 1.0, method = \"lbfgs\", bounds = [0, 1, 2])", "TypeError",
     "minimize's bounds is a pair [lower, upper]"),
    ("minimize(x -> x ^ 2, 1.0, tol = 0)", "ValueError", "minimize's tol is a number above 0, not 0."),
    ("minimize(x -> x ^ 2, \"a\")", "TypeError", "minimize's x0 must be a number or a tensor of numbers"),
])
def test_bad_calls_are_clear(call, kind, words):
    e = error(f"r = {call}")
    assert e.kind == kind and words in e.message, e.message
