"""dense(x, w, b) = x * w + b, composed of the language's own `*` and `+`.

So it follows the language exactly: `*` is scaling when either side is a
number, else the matrix product; `+ b` uses the one broadcasting rule
(autodiff.broadcast): a vector b acts as a column, so b[i] is added to row i;
a 1 x n row b is added to every row (per unit); a number to everything.

On an array x of rank 3 or more (a batch of sequences, b x t x k) the language has
no `*` to lean on, and dense does what Keras's Dense does: w (k x n) multiplies
along x's last axis, giving b x t x n, and b is added per unit (a number, or a 1 x n
row). That is one tape entry of its own (`dense_last_axis`), with its VJPs beside it; when
`TAPE.keeping` they are products.matmul and broadcast.sum_to on the operands as given, so dense is
differentiable twice in both forms (autodiff/tape.py "Second order").
"""
from __future__ import annotations

import numpy as np

from ..autodiff import ops
from ..autodiff.broadcast import sum_to
from ..autodiff.products import matmul, shaped, swap_last
from ..autodiff.tape import TAPE, record, second_order
from ..errors import LaminaError, describe_shape
from ..values import numeric_or_tracked, value_of


def dense(x, w, b=None):
    x = numeric_or_tracked(x, "dense's x")
    w = numeric_or_tracked(w, "dense's w")
    b = None if b is None else numeric_or_tracked(b, "dense's b")
    if np.ndim(value_of(x)) > 2 and np.ndim(value_of(w)) > 0:
        return dense_last_axis(x, w, b)
    try:
        z = ops.mul(x, w)
        return z if b is None else ops.add(z, b)
    except LaminaError as e:
        if e.kind != "ShapeError":
            raise
        raise LaminaError("ShapeError", f"dense(x, w, b) computes x * w + b. {e.message}") from None


@second_order
def dense_last_axis(x, w, b=None):
    """x (... x k, of rank 3 or more) times w (k x n) along x's last axis, plus b per unit
    (a number or a 1 x n row): ... x n, as one tape entry."""
    xv, wv = value_of(x), value_of(w)
    k = xv.shape[-1]
    if np.ndim(wv) != 2 or wv.shape[0] != k:
        raise LaminaError("ShapeError", f"dense(x, w, b) on {describe_shape(xv.shape)} multiplies along "
                          f"its last axis, so w must be a {k} x n matrix, not {describe_shape(np.shape(wv))}.")
    n = wv.shape[1]
    bv = None if b is None else value_of(b)
    if bv is not None and np.ndim(bv) != 0 and np.shape(bv) != (1, n):
        row = " (b' makes the vector that row)" if np.shape(bv) == (n,) else ""
        raise LaminaError("ShapeError", f"dense(x, w, b) on {describe_shape(xv.shape)} adds b to each unit "
                          f"of the last axis, so b must be a number or a 1 x {n} row{row}, not "
                          f"{describe_shape(np.shape(bv))}.")
    z = xv @ wv
    if bv is not None:
        z += bv if np.ndim(bv) == 0 else bv.reshape(n)     # one bias per unit, the last axis

    rows = xv.size // k

    def d_b(g):
        if TAPE.keeping:
            return sum_to(g, ()) if np.ndim(bv) == 0 else sum_to(shaped(g, (rows, n)), (1, n))
        return float(np.sum(g)) if np.ndim(bv) == 0 else g.reshape(-1, n).sum(axis=0, keepdims=True)

    return record(z, (x, w, b), (lambda g: matmul(g, swap_last(w)) if TAPE.keeping else g @ wv.T,
                                 lambda g: matmul(swap_last(shaped(x, (rows, k))), shaped(g, (rows, n)))
                                 if TAPE.keeping else xv.reshape(-1, k).T @ g.reshape(-1, n),
                                 d_b))
