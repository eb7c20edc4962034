"""A gradient taken without keep used in a new loss: refused when the new grad differentiates
against a value the gradient depends on (that would need a second-order gradient, which only a
gradient taken with keep = true carries), and left alone in every first-order use (optimizer
updates, printing, other targets)."""
import contextlib
import io

import numpy as np
import pytest

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
    assert "an earlier grad() returned (the gradient for its wrt)" in err.message
    assert "first order" in err.message and "grad(..., keep = true)" in err.message
    assert err.span.line == 4


@pytest.mark.parametrize("loss", ["sum(g .* p)", "sum(p .* g)", "sum(g * p')",
                                  "sum(p * g)"])
def test_a_tensor_gradient_in_a_loss_is_refused_in_any_operator(loss):
    err = tape_error(f"p = param([1.0, 2.0; 3.0, 4.0])\ng = grad(sum(p .^ 3), wrt = p)\n"
                     f"h = grad({loss}, wrt = p)")
    assert "an earlier grad() returned (the gradient for its wrt)" in err.message


def test_a_gradient_taken_through_p_is_refused_too():
    # g is the gradient with respect to q, but its value depends on p
    err = tape_error("p = param(2.0)\nq = param(3.0)\ng = grad(p * q ^ 2, wrt = q)\n"
                     "h = grad(g * p, wrt = [p, q])")
    assert "the gradient for its wrt" in err.message and err.span.line == 4


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
