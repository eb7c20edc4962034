"""dense(x, w, b) = x * w + b, composed of the language's own `*` and `+`.

So it follows the language exactly: `*` is scaling when either side is a
number, else the matrix product; `+ b` uses the one broadcasting rule
(autodiff.broadcast): a vector b acts as a column, so b[i] is added to row i;
a 1 x n row b is added to every row (per unit); a number to everything.
"""
from __future__ import annotations

from ..autodiff import ops
from ..errors import LaminaError
from ..values import numeric_or_tracked


def dense(x, w, b=None):
    x = numeric_or_tracked(x, "dense's x")
    w = numeric_or_tracked(w, "dense's w")
    b = None if b is None else numeric_or_tracked(b, "dense's b")
    try:
        z = ops.mul(x, w)
        return z if b is None else ops.add(z, b)
    except LaminaError as e:
        if e.kind != "ShapeError":
            raise
        raise LaminaError("ShapeError", f"dense(x, w, b) computes x * w + b. {e.message}") from None
