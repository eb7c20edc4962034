"""Argument checks shared by the statistics builtins."""
from __future__ import annotations

import numpy as np

from ..autodiff.reductions import check_axis
from ..errors import LaminaError, describe_shape, shape_str
from ..values import as_int, describe, value_of


def data(x, what: str) -> np.ndarray:
    """A number, vector or matrix (tracked or not) as an array of at least one dimension: a
    float32 tensor stays float32, anything else is float64."""
    v = value_of(x)
    if isinstance(v, np.ndarray):
        return v if v.dtype == np.float64 or v.dtype == np.float32 else v.astype(np.float64)
    if isinstance(v, (float, int)) and not isinstance(v, bool):
        return np.array([float(v)])
    raise LaminaError("TypeError", f"{what} must be a number, vector or matrix, not {describe(x)}.")


def vector(x, what: str) -> np.ndarray:
    """A vector, or a matrix with one row or one column, as a 1-D float64 array."""
    v = data(x, what)
    if v.ndim == 2 and 1 in v.shape:
        return v.reshape(-1)
    if v.ndim != 1:
        raise LaminaError("ShapeError", f"{what} must be a vector, not {describe_shape(v.shape)}.")
    return v


def matrix(x, what: str) -> np.ndarray:
    """A matrix whose rows are examples; a vector counts as one column."""
    v = data(x, what)
    return v.reshape(-1, 1) if v.ndim == 1 else v


def axis_of(shape: tuple, axis, what: str):
    """None (every element) or 0 / 1 for a matrix, checked like sum's axis."""
    if axis is None:
        return None
    return check_axis(shape, as_int(axis, f"{what}'s axis"), what)


def shaped_like(g: np.ndarray, x):
    """A gradient computed on data(x) in the shape and dtype of the argument x itself (a float
    for a number)."""
    v = value_of(x)
    if type(v) is not np.ndarray:
        return float(g.reshape(-1)[0])
    return g.reshape(v.shape).astype(v.dtype, copy=False)


def flag(x, what: str) -> bool:
    if isinstance(x, bool):
        return x
    raise LaminaError("TypeError", f"{what} must be true or false, not {describe(x)}.")


def no_nan(a: np.ndarray, what: str) -> np.ndarray:
    if np.isnan(a).any():
        raise LaminaError("ValueError", f"{what} contains NaN; remove those rows first "
                          "(drop_missing(t) for a table, drop_missing(x) for a vector).")
    return a


def same_rows(a: np.ndarray, b: np.ndarray, what: str) -> None:
    if a.shape[0] != b.shape[0]:
        raise LaminaError("ShapeError", f"{what} need the same number of rows (examples), but got "
                          f"{a.shape[0]} and {b.shape[0]}.")
