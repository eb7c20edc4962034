"""Differentiable linear algebra beyond `*`: dot and solve."""
from __future__ import annotations

import numpy as np

from ..errors import LaminaError, describe_shape, shape_str
from ..values import Tracked
from .tape import record


def dot(a, b):
    """The sum of elementwise products of two tensors of the same shape (a number)."""
    x = a.value if type(a) is Tracked else a
    y = b.value if type(b) is Tracked else b
    sx, sy = np.shape(x), np.shape(y)
    if sx != sy:
        raise LaminaError("ShapeError", f"dot needs two operands of the same shape, but got "
                          f"{describe_shape(sx)} and {describe_shape(sy)}.")
    if not sx:
        return record(x * y, (a, b), (lambda g: g * y, lambda g: g * x))
    return record(float(np.vdot(x, y)), (a, b), (lambda g: g * y, lambda g: g * x))


def solve(a, b):
    """x with A x = b, for a square A and b a vector or a matrix of right-hand sides."""
    A = a.value if type(a) is Tracked else a
    B = b.value if type(b) is Tracked else b
    if np.ndim(A) != 2 or A.shape[0] != A.shape[1]:
        raise LaminaError("ShapeError", f"solve(A, b) needs a square matrix A, not {describe_shape(np.shape(A))}.")
    if np.ndim(B) not in (1, 2) or B.shape[0] != A.shape[0]:
        raise LaminaError("ShapeError", f"solve(A, b) needs b with as many rows as A ({A.shape[0]}), "
                          f"not {describe_shape(np.shape(B))}.")
    try:
        x = np.linalg.solve(A, B)
    except np.linalg.LinAlgError:
        raise LaminaError("ValueError", f"solve(A, b): the {shape_str(A.shape)} matrix A is singular, so "
                          f"A x = b has no unique solution.") from None
    AT = A.T

    def vjp_b(g):
        return np.linalg.solve(AT, g)

    def vjp_a(g):
        gb = np.linalg.solve(AT, g)
        return -np.outer(gb, x) if x.ndim == 1 else -gb @ x.T
    return record(x, (a, b), (vjp_a, vjp_b))
