"""Builtins that differentiate a function: hessian, jacobian, hvp (autodiff/higher.py)."""
from __future__ import annotations

from ..autodiff import handed, higher
from ..lang.runtime import calling
from ..values import as_function
from .registry import Shape, builtin

CATEGORY = "Autodiff"

_POINT = ("x is a number, a tensor, or a record or list of them (the parameters, any depth); each "
          "member is made a fresh tracked value and f is called once on them. A tracked x is "
          "taken as its value: the result is not recorded on the tape, and like a gradient taken "
          "without keep, it is refused in a later grad against a value it depends on (x, or a "
          "tracked value f reads), since that would need its own derivative.")


def _function(f, name: str):
    return calling(as_function(f, f"{name}'s first argument", "a function of the point"), f"{name} calls f(x)")


def _handed_out(name: str, derivative, f, **point):
    """`derivative` (higher.hessian, ...) of f at the point, handed out as grad hands out a
    gradient when it depends on tracked values (autodiff/handed.py)."""
    depends = set()
    result = derivative(_function(f, name), depends=depends, **point)
    return handed.hand_out_derivative(result, depends, name)


@builtin("hessian", any_rank=True, pure="a value", tracked="constant", category=CATEGORY,
         probes=["hessian(x -> sum(x .^ 3), p)"],
         shapes=[Shape("hessian(f, x)", "function returning a number, number", "number",
                       "The second derivative of f at x."),
                 Shape("hessian(f, x)", "function returning a number, tensor of shape S", "tensor of shape S + S",
                       "H[i, j] = d2 f / dx[i] dx[j]: an n x n matrix for a vector of n."),
                 Shape("hessian(f, p)", "function of a record, record", "record of records",
                       "h.a.b is the block d2 f / dp.a dp.b, of shape a's + b's.")],
         summary="The exact Hessian (matrix of second derivatives) of a function returning a number, "
                 "by the tape: one kept gradient, then one reverse sweep per parameter.",
         examples=["print(hessian(x -> x ^ 3, 2.0))",
                   "A = [2.0, 1.0; 1.0, 3.0]\nprint(hessian(x -> x' * A * x, [1.0, -1.0]))",
                   "f = p -> p.a ^ 2 * (p.b' * p.b)\nh = hessian(f, {a = 1.0, b = [1.0, 2.0]})\n"
                   "print(h.a.a, h.a.b, h.b.b)"],
         notes="Shaped as PyTorch's torch.autograd.functional.hessian: for a tensor of shape S the "
               "result has shape S + S (for a matrix parameter, a rank-4 array); for a record the "
               "blocks are a record of records. " + _POINT + " f must return a number; every "
               "operation it uses must be differentiable twice (grad's keep), otherwise a TapeError "
               "names the operation. Computed as the gradient recorded on the tape (keep = true) "
               "followed by one reverse sweep per element of it, exact to rounding (no finite "
               "differences).")
def hessian(f, x):
    return _handed_out("hessian", higher.hessian, f, x=x)


@builtin("jacobian", any_rank=True, pure="a value", tracked="constant", category=CATEGORY,
         probes=["jacobian(x -> x .^ 2, p)"],
         shapes=[Shape("jacobian(f, x)", "function, tensor of shape S", "tensor of shape O + S",
                       "J[i, j] = d f(x)[i] / dx[j] for a result of shape O."),
                 Shape("jacobian(f, p)", "function, record", "record",
                       "One Jacobian per member, of shape O + the member's.")],
         summary="The exact Jacobian of a function at x: the derivative of each element of its "
                 "result with respect to each element of x, one reverse sweep per result element.",
         examples=["print(jacobian(x -> [x[0] * x[1], sin(x[0])], [1.0, 2.0]))",
                   "print(jacobian(x -> x .^ 2, [1.0, 2.0, 3.0]))"],
         notes="Shaped as PyTorch's torch.autograd.functional.jacobian: a result of shape O and a "
               "parameter of shape S give shape O + S (a number's shapes are empty: a function of a "
               "number returning a number gives a number). " + _POINT + " The result elements "
               "that do not depend on x give rows of zeros.")
def jacobian(f, x):
    return _handed_out("jacobian", higher.jacobian, f, x=x)


@builtin("hvp", any_rank=True, pure="a value", tracked="constant", category=CATEGORY,
         probes=["hvp(x -> sum(x .^ 3), p, p)"],
         shapes=[Shape("hvp(f, x, v)", "function returning a number, point, direction shaped as x",
                       "shaped as x", "The Hessian of f at x times v, without forming the Hessian.")],
         summary="The Hessian-vector product H(x) v of a function returning a number: the "
                 "derivative of the gradient in the direction v, at the cost of about two gradients.",
         examples=["A = [2.0, 1.0; 1.0, 3.0]\nprint(hvp(x -> x' * A * x, [1.0, -1.0], [1.0, 0.0]))"],
         notes="Computed as the gradient of dot(grad f, v), with the gradient kept on the tape "
               "(reverse over reverse), as torch.autograd.functional.hvp gives it. v has x's "
               "structure and shapes. " + _POINT)
def hvp(f, x, v):
    return _handed_out("hvp", higher.hvp, f, x=x, v=v)
