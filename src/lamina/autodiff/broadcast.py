"""The one broadcasting rule of the language, forward (align) and backward (unbroadcast).

Scalars broadcast with anything. A 1-D vector acts as a COLUMN when it meets a
matrix: an m x n matrix with a length-k vector needs k == m and applies v[i] to
row i. Two vectors need equal lengths (a length-1 vector is not a scalar). Two
tensors of the same rank, matrices or more, broadcast axis by axis as in NumPy
and Julia (equal sizes, or 1 in one of them, which stretches). A tensor of rank 3
or more meets only a scalar or a tensor of its own rank: NumPy aligns a lower-rank
operand from the right and Julia from the left, and with batch-first arrays
(b x t x d) a length-d vector would fill the batch axis under one rule and the
feature axis under the other, silently wrong for someone whenever b == d; the
error says to lift it with reshape or unsqueeze. Every binary elementwise op calls
`align` before computing and `unbroadcast` in its VJPs, so the rule lives here
and nowhere else.
"""
from __future__ import annotations

import numpy as np

from ..errors import LaminaError, shape_str
from ..values import Tracked
from .tape import record1, second_order


def align(x, y, op: str):
    """Operands ready for NumPy broadcasting: (x2, y2, x_shape, y_shape).

    `x` and `y` are floats or float arrays; a vector meeting a matrix comes
    back as a k x 1 view. The shapes are the operands' own, for `unbroadcast`.
    """
    sx = x.shape if type(x) is np.ndarray else ()
    sy = y.shape if type(y) is np.ndarray else ()
    if not sx or not sy or sx == sy:
        return x, y, sx, sy
    if len(sx) == 1 and len(sy) == 2:
        if sx[0] == sy[0]:
            return x.reshape(sx[0], 1), y, sx, sy
    elif len(sx) == 2 and len(sy) == 1:
        if sy[0] == sx[0]:
            return x, y.reshape(sy[0], 1), sx, sy
    elif len(sx) == len(sy) >= 2:
        if all(a == b or a == 1 or b == 1 for a, b in zip(sx, sy)):
            return x, y, sx, sy
    raise mismatch(sx, sy, op)


def mismatch(sx: tuple, sy: tuple, op: str) -> LaminaError:
    msg = f"Elementwise {op} needs shapes that broadcast, but got {shape_str(sx)} and {shape_str(sy)}."
    if len(sx) + len(sy) == 3:
        (v, m) = (sx, sy) if len(sx) == 1 else (sy, sx)
        msg += (f" A vector acts as a column against a matrix, so its length must equal the "
                f"matrix's row count ({m[0]}); to apply a vector of length {v[0]} to each row, "
                f"make it a 1x{v[0]} row with v'.")
    elif len(sx) == 1 and len(sy) == 1:
        msg += " Two vectors must have the same length."
    elif len(sx) != len(sy):
        (low, high) = (sx, sy) if len(sx) < len(sy) else (sy, sx)
        lifted = ", ".join(["1"] * (len(high) - len(low)) + [str(n) for n in low])
        msg += (f" A tensor of rank {len(high)} meets only a number or a tensor of rank {len(high)}: "
                f"give the other its axes with reshape, e.g. reshape(v, {lifted}) to line it up with "
                f"the last axes (or unsqueeze).")
    else:
        msg += " Each dimension must be equal, or 1 in one of them."
    return LaminaError("ShapeError", msg)


def unbroadcast(g, shape: tuple):
    """Sum the gradient `g` of a broadcast result back to an operand's `shape`.

    A scalar operand gets a Python float; a vector that acted as a column gets
    the sum over each row; a matrix gets sums over the axes it was stretched on.
    """
    if type(g) is not np.ndarray:        # scalar result: only scalar operands
        return sum_to(g, shape) if type(g) is Tracked else g
    if not shape:
        return float(g.sum())
    if g.shape == shape:
        return g
    if len(shape) == 1:                  # a vector that acted as a column
        return g.sum(axis=1)
    axes = tuple(i for i, (n, m) in enumerate(zip(shape, g.shape)) if n == 1 and m != 1)
    return g.sum(axis=axes, keepdims=True)


@second_order
def sum_to(g, shape: tuple):
    """`unbroadcast` of a gradient recorded on the tape (a keep sweep): the sum back to `shape`."""
    x = g.value if type(g) is Tracked else g
    if type(x) is not np.ndarray or x.shape == shape:
        return g
    wide = x.shape
    return record1(unbroadcast(x, shape), g, lambda h: stretch(h, wide, shape))


@second_order
def stretch(h, wide: tuple, shape: tuple):
    """A value of `shape` repeated over the shape `wide` it was broadcast to (sum_to's VJP)."""
    x = h.value if type(h) is Tracked else h
    if type(x) is not np.ndarray:
        out = np.full(wide, x)
    elif len(shape) == 1 and len(wide) == 2:         # a vector that acted as a column
        out = np.repeat(x[:, None], wide[1], axis=1)
    else:
        out = np.broadcast_to(x, wide).copy()
    return record1(out, h, lambda k: sum_to(k, shape))
