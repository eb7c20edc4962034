"""grad(..., keep = true): gradients recorded on the tape and differentiated again (exact at
second and third order, against torch), and the refusals around it."""
import contextlib
import io

import numpy as np
import pytest
import torch

from lamina.errors import LaminaError
from lamina.interpreter import Interpreter


def run(source: str) -> list[str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        Interpreter().run(source, "prog.lam")
    return out.getvalue().splitlines()


def failure(source: str) -> LaminaError:
    with pytest.raises(LaminaError) as info, contextlib.redirect_stdout(io.StringIO()):
        Interpreter().run(source, "prog.lam")
    return info.value


def test_the_gradient_of_a_kept_gradient_is_exact():
    # the program: without keep it was 12 (the constant g), the answer is 36
    assert run("p = param(2.0)\ng = grad(p ^ 3, wrt = p, keep = true)\nprint(g)\n"
               "print(grad(g * p, wrt = p))") == ["12", "36"]


def test_third_order_through_kept_gradients():
    # d^3/dx^3 x^4 / (1 + x) at 1.5, kept twice, against torch
    lines = run("x = param(1.5)\nf = x ^ 4 / (1 + x)\ng = grad(f, wrt = x, keep = true)\n"
                "h = grad(g, wrt = x, keep = true)\nprint(h, grad(h, wrt = x))")
    t = torch.tensor(1.5, dtype=torch.float64, requires_grad=True)
    f = t ** 4 / (1 + t)
    (g,) = torch.autograd.grad(f, t, create_graph=True)
    (h,) = torch.autograd.grad(g, t, create_graph=True)
    (k,) = torch.autograd.grad(h, t)
    got = [float(v) for v in lines[0].split()]
    assert got == pytest.approx([h.item(), k.item()], rel=1e-12)


def test_a_hessian_vector_product_by_hand_equals_torch():
    rng = np.random.default_rng(3)
    A = rng.standard_normal((4, 4))
    w, v = rng.standard_normal(4), rng.standard_normal(4)
    src = (f"A = {_matrix(A)}\nw = param({_vector(w)})\nv = {_vector(v)}\n"
           "loss = (w' * A * w) ^ 2 + w[0] * w[1] ./ w[2]\n"
           "g = grad(loss, wrt = w, keep = true)\nhv = grad(g' * v, wrt = w)\n"
           "for i = 0 to 3\n    print(hv[i])\nend for")
    got = np.array([float(x) for x in run(src)])
    At, vt = torch.tensor(A), torch.tensor(v)

    def f(t):
        return (t @ At @ t) ** 2 + t[0] * t[1] / t[2]
    _, want = torch.autograd.functional.hvp(f, torch.tensor(w), vt)
    assert np.allclose(got, want.numpy(), rtol=1e-12, atol=1e-12)


def test_a_kept_gradient_of_several_targets_and_an_unreached_one():
    lines = run("a = param(2.0)\nb = param(3.0)\nc = param(1.0)\n"
                "g = grad(a ^ 2 * b, wrt = [a, b, c], keep = true)\n"
                "print(g[0], g[1], g[2])\n"
                "print(grad(g[0] + g[1], wrt = [a, b]))")
    # g = [2ab, a^2, 0]: d(2ab + a^2)/da = 2b + 2a = 10, d/db = 2a = 4
    assert lines == ["12 4 0", "[10, 4]"]


def test_keep_must_be_true_or_false():
    err = failure("p = param(1.0)\ngrad(p * p, wrt = p, keep = 1)")
    assert err.kind == "TypeError" and err.message == "grad's keep must be true or false, not a number."


def test_an_op_whose_gradient_is_first_order_only_is_named():
    err = failure("x = param(randn(1, 8, 2))\nk = param(randn(3, 2, 2))\n"
                  "y = conv1d(x, k)\ng = grad(y[0, 1, 0] * y[0, 2, 1], wrt = k, keep = true)")
    assert err.kind == "TapeError" and err.span.line == 4
    assert "the gradient of conv (lamina.nn.conv) is first order only" in err.message
    assert "or take the gradient without keep" in err.message


def test_without_keep_a_gradient_meeting_its_parameters_again_says_to_keep():
    err = failure("p = param(2.0)\ng = grad(p ^ 3, wrt = p)\nh = grad(g * p, wrt = p)")
    assert err.kind == "TapeError" and "grad(..., keep = true)" in err.message


def test_a_kept_sweep_leaves_ordinary_gradients_alone():
    # an ordinary grad after a kept one on the same tape gives plain values, as before
    lines = run("w = param([1.0, 2.0])\nloss = w' * w\ng = grad(loss, wrt = w, keep = true)\n"
                "print(grad(loss, wrt = w), g)")
    assert lines == ["[2, 4] [2, 4]"]


def _vector(v) -> str:
    return "[" + ", ".join(repr(float(x)) for x in v) + "]"


def _matrix(m) -> str:
    return "[" + "; ".join(", ".join(repr(float(x)) for x in row) for row in m) + "]"



def test_a_kept_gradient_has_its_values_dtype():
    # through a product that gives a number (float64), the kept gradient of a float32 w is float32
    lines = run("A = float32([1.0, 2.0; 3.0, 4.0])\nw = param(float32([1.0, 2.0]))\n"
                "g = grad((w' * A * w) ^ 2, wrt = w, keep = true)\nprint(dtype(g), g)\n"
                "h = grad(sum(g), wrt = w)\nprint(dtype(h), h)")
    # f = q^2, q = w'Aw = 27, B = A + A': g = 2q Bw = 54 [12, 21]; sum(g) = 2q 1'Bw, whose
    # gradient is 2 (33 Bw + q B1) = 2 (33 [12, 21] + 27 [7, 13])
    assert lines == ["float32 [648, 1134]", "float32 [1170, 2088]"]
