"""Differentiable reshaping and joining: reshape, hcat, vcat, take; and linspace.

In hcat and vcat a vector counts as a column (n x 1) and a number as 1 x 1,
except that vcat of numbers and vectors only is their concatenation, a vector, and that the
empty vector [] next to other pieces adds nothing (as torch.cat skips it).
Each piece's gradient is its block of the result's gradient, in its own shape.
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import LaminaError, describe_shape
from ..values import describe, float_array, tensor_dtype, value_of
from .tape import record


def _block_vjp(index, shape: tuple):
    """The VJP of a piece: its block `g[index]`, reshaped to the piece's own shape."""
    if not shape:
        return lambda g: float(g[index].reshape(()))
    return lambda g: g[index].reshape(shape)


def reshape(a, shape: tuple):
    """The elements of `a` in row-major order, arranged as `shape` (one or two sizes)."""
    x = value_of(a)
    arr = float_array(x)
    count = math.prod(shape)                      # Python ints: no int64 wrap-around to 0
    if arr.size != count:
        raise LaminaError("ShapeError", f"reshape keeps every element: {describe_shape(arr.shape)} has "
                          f"{arr.size}, but {describe_shape(shape)} holds {count}.")
    old = arr.shape
    return record(arr.reshape(shape).copy(), (a,), (_block_vjp(Ellipsis, old),))


def _as_2d(x, dtype, nothing) -> np.ndarray:
    """A piece as a matrix: a number is 1 x 1 (of the result's dtype), a vector a column, and
    the empty vector [] the block of shape `nothing` that adds no row or column, as torch.cat
    skips it (a column too when `nothing` is None: every piece is []). So a loop can start
    from acc = [] and join matrices to it."""
    if type(x) is not np.ndarray:
        return np.full((1, 1), x, dtype=dtype)
    if x.ndim == 2:
        return x
    return x.reshape(-1, 1) if x.size or nothing is None else np.empty(nothing, dtype=x.dtype)


def _first_joined(values: list):
    """The index of the first piece that is not the empty vector (None when every piece is)."""
    return next((i for i, v in enumerate(values) if type(v) is not np.ndarray or v.shape != (0,)), None)


def hcat(pieces: list):
    """Join side by side: every piece needs the same number of rows."""
    if not pieces:
        raise LaminaError("ValueError", "hcat needs at least one tensor to join.")
    values = [value_of(p) for p in pieces]
    k = _first_joined(values)
    if k is None:
        k, rows, nothing = 0, 0, None
    else:
        rows = np.size(values[k]) if np.ndim(values[k]) < 2 else values[k].shape[0]
        nothing = (rows, 0)
    dtype = tensor_dtype(*values)           # once: per piece it made joining n pieces quadratic
    mats = [_as_2d(v, dtype, nothing) for v in values]
    for i, m in enumerate(mats):
        if m.shape[0] != rows:
            raise LaminaError("ShapeError", f"hcat joins pieces with the same number of rows, but piece {k} "
                              f"({describe_shape(np.shape(values[k]))}) has {rows} and piece {i} "
                              f"({describe_shape(np.shape(values[i]))}) has {m.shape[0]}; a vector counts "
                              f"as a column.")
    out = np.concatenate(mats, axis=1)
    vjps, lo = [], 0
    for v, m in zip(values, mats):
        vjps.append(_block_vjp((slice(None), slice(lo, lo + m.shape[1])), np.shape(v)))
        lo += m.shape[1]
    return record(out, pieces, vjps)


def vcat(pieces: list):
    """Stack top to bottom: numbers and vectors give a longer vector; else columns must agree."""
    if not pieces:
        raise LaminaError("ValueError", "vcat needs at least one tensor to join.")
    values = [value_of(p) for p in pieces]
    if all(type(v) is not np.ndarray or v.ndim == 1 for v in values):
        dtype = tensor_dtype(*values)
        flat = [np.atleast_1d(np.asarray(v, dtype=dtype)) for v in values]
        out = np.concatenate(flat)
        vjps, lo = [], 0
        for v, f in zip(values, flat):
            vjps.append(_block_vjp(slice(lo, lo + len(f)), np.shape(v)))
            lo += len(f)
        return record(out, pieces, vjps)
    cols = next(v.shape[1] for v in values if np.ndim(v) == 2)
    dtype = tensor_dtype(*values)
    mats = [_as_2d(v, dtype, (0, cols)) for v in values]
    for i, m in enumerate(mats):
        if m.shape[1] != cols:
            hint = (" A vector counts as a column; to append it as a row, write v'."
                    if np.ndim(values[i]) == 1 else "")
            raise LaminaError("ShapeError", f"vcat stacks pieces with the same number of columns ({cols}), "
                              f"but piece {i} is {describe_shape(np.shape(values[i]))} with "
                              f"{m.shape[1]} column{'' if m.shape[1] == 1 else 's'}.{hint}")
    out = np.concatenate(mats, axis=0)
    vjps, lo = [], 0
    for v, m in zip(values, mats):
        vjps.append(_block_vjp((slice(lo, lo + m.shape[0]), slice(None)), np.shape(v)))
        lo += m.shape[0]
    return record(out, pieces, vjps)


def take(x, idx):
    """The elements of a vector (rows of a matrix) at the whole-number indices `idx`, which may
    repeat: a repeated item's gradients add up."""
    v = value_of(x)
    idx = np.asarray(idx, dtype=np.intp)
    shape = v.shape

    def vjp(g):
        full = np.zeros(shape, dtype=v.dtype)
        np.add.at(full, idx, g)
        return full
    return record(v[idx].copy(), (x,), (vjp,))


def linspace(a, b, n: int):
    """n evenly spaced numbers from a to b, both included: a (1 - t) + b t for t = i / (n - 1)."""
    out = np.linspace(value_of(a), value_of(b), n)
    t = np.linspace(0.0, 1.0, n) if n > 1 else np.zeros(n)
    return record(out, (a, b), (lambda g: float(np.dot(g, 1.0 - t)), lambda g: float(np.dot(g, t))))


DTYPES = {"float64": np.float64, "float32": np.float32}


def dtype_of(name, what: str):
    """The NumPy dtype a program names ("float64" or "float32")."""
    if isinstance(name, str) and name in DTYPES:
        return DTYPES[name]
    shown = f'"{name}"' if isinstance(name, str) else describe(name)
    raise LaminaError("ValueError", f'{what} must be "float64" or "float32", not {shown}.')


def like_items_of(out, xs):
    """`out`, built from the items of `xs` (map, parallel_map): float32 when xs is a float32
    tensor and out a tensor (its items were numbers, which are float64 on their own)."""
    v = value_of(xs)
    if isinstance(v, np.ndarray) and v.dtype == np.float32 and type(value_of(out)) is np.ndarray:
        return astype(out, np.float32)
    return out


def astype(a, dtype):
    """A tensor converted to `dtype` (a fresh array even when it has it already); its gradient
    is converted back. A number stays a number: numbers are always float64."""
    x = value_of(a)
    if type(x) is not np.ndarray:
        return a
    src = x.dtype
    return record(x.astype(dtype), (a,), (lambda g: np.asarray(g, dtype=src),))
