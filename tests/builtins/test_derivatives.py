"""hessian, jacobian and hvp of Lamina functions: shapes as torch.autograd.functional gives them,
numbers equal to torch's in float64, and clear errors."""
import contextlib
import io

import numpy as np
import pytest
import torch

from lamina.errors import LaminaError
from lamina.interpreter import Interpreter


def value(source: str):
    """The value of the program's variable `out`."""
    interp = Interpreter()
    with contextlib.redirect_stdout(io.StringIO()):
        interp.run(source, "prog.lam")
    return interp.namespace["L_out"]


def failure(source: str) -> LaminaError:
    with pytest.raises(LaminaError) as info, contextlib.redirect_stdout(io.StringIO()):
        Interpreter().run(source, "prog.lam")
    return info.value


def lit(a: np.ndarray) -> str:
    if a.ndim == 1:
        return "[" + ", ".join(repr(float(x)) for x in a) + "]"
    return "[" + "; ".join(", ".join(repr(float(x)) for x in row) for row in a) + "]"


RNG = np.random.default_rng(11)
A = RNG.standard_normal((3, 3))
W = RNG.standard_normal((2, 3))
X = RNG.standard_normal(3)


def test_the_hessian_of_a_matrix_parameter_is_rank_4_as_torch_gives_it():
    got = value(f"A = {lit(A)}\nx = {lit(X)}\nf = W -> (x' * (W' * W) * x) ^ 2 + W[0, 1] * W[1, 2] * W[0, 0]\n"
                f"out = hessian(f, {lit(W)})")
    At, xt = torch.tensor(A), torch.tensor(X)

    def f(t):
        return (xt @ (t.T @ t) @ xt) ** 2 + t[0, 1] * t[1, 2] * t[0, 0]
    want = torch.autograd.functional.hessian(f, torch.tensor(W)).numpy()
    assert got.shape == (2, 3, 2, 3) and np.allclose(got, want, rtol=1e-12, atol=1e-12)


def test_the_hessian_of_a_record_is_a_record_of_blocks():
    out = value("f = p -> p.a ^ 3 * (p.b' * p.b) + p.b[0] / p.a\n"
                "out = hessian(f, {a = 1.5, b = [1.0, -2.0]})")

    def f(a, b):
        return a ** 3 * (b @ b) + b[0] / a
    want = torch.autograd.functional.hessian(f, (torch.tensor(1.5, dtype=torch.float64),
                                                 torch.tensor([1.0, -2.0], dtype=torch.float64)))
    blocks = out.fields
    assert list(blocks) == ["a", "b"] and list(blocks["a"].fields) == ["a", "b"]
    assert blocks["a"].fields["a"] == pytest.approx(want[0][0].item(), rel=1e-13)
    assert np.allclose(blocks["a"].fields["b"], want[0][1].numpy(), rtol=1e-13)
    assert np.allclose(blocks["b"].fields["a"], want[1][0].numpy(), rtol=1e-13)
    assert np.allclose(blocks["b"].fields["b"], want[1][1].numpy(), rtol=1e-13)


def test_the_jacobian_of_a_matrix_valued_function():
    got = value(f"A = {lit(A)}\nout = jacobian(x -> A * x .* x + x[1] * [1.0, 2.0, 3.0], {lit(X)})")
    At = torch.tensor(A)
    want = torch.autograd.functional.jacobian(lambda t: At @ t * t + t[1] * torch.tensor([1.0, 2.0, 3.0],
                                                                                       dtype=torch.float64),
                                              torch.tensor(X)).numpy()
    assert got.shape == (3, 3) and np.allclose(got, want, rtol=1e-13, atol=1e-15)


def test_hvp_is_the_hessian_times_v():
    v = RNG.standard_normal(3)
    src = f"A = {lit(A)}\nf = x -> (x' * A * x) ^ 2 / (1 + x[0] ^ 2)\nx = {lit(X)}\nv = {lit(v)}\n"
    hv = value(src + "out = hvp(f, x, v)")
    H = value(src + "out = hessian(f, x)")
    At = torch.tensor(A)
    _, want = torch.autograd.functional.hvp(lambda t: (t @ At @ t) ** 2 / (1 + t[0] ** 2),
                                            torch.tensor(X), torch.tensor(v))
    assert np.allclose(hv, want.numpy(), rtol=1e-12) and np.allclose(H @ v, hv, rtol=1e-12)


def test_a_function_that_ignores_its_point_gives_zeros():
    assert value("out = hessian(x -> 3.0, 2.0)") == 0.0
    assert np.array_equal(value("out = jacobian(x -> [1.0, 2.0], [5.0])"), np.zeros((2, 1)))


@pytest.mark.parametrize("source, kind, words", [
    ("hessian(x -> x .* x, [1.0, 2.0])", "ShapeError",
     "hessian's function must return a number (a scalar loss), but it returned a vector of length 2"),
    ("hessian(3.0, [1.0])", "TypeError", "hessian's first argument must be a function of the point, not a number"),
    ("jacobian(x -> x, \"abc\")", "TypeError", "jacobian's x must be a number or a tensor of numbers"),
    ("hvp(x -> x' * x, [1.0, 2.0], [1.0])", "ShapeError", "hvp's v must have x's shape"),
    ("hessian(x -> \"no\", 1.0)", "TypeError", "hessian's function must return a number or a tensor, not a string"),
])
def test_bad_calls_are_clear(source, kind, words):
    err = failure(source)
    assert err.kind == kind and words in err.message and err.span.line == 1
