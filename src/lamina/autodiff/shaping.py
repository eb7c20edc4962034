"""Differentiable reshaping and joining: reshape (squeeze and unsqueeze are reshapes), permute,
cat, stack, hcat, vcat, take, diag; and linspace. Every result is a fresh array (never a view of an
operand), since a store may write into a value that nobody else holds.

cat and stack take tensors of any rank: cat joins along an axis they share (same rank, equal
sizes off that axis), stack along a new one (equal shapes).

In hcat and vcat a vector counts as a column (n x 1) and a number as 1 x 1,
except that vcat of numbers and vectors only is their concatenation, a vector, and that the
empty vector [] next to other pieces adds nothing (as torch.cat skips it).
Each piece's gradient is its block of the result's gradient, in its own shape.

Second order (autodiff/tape.py): every op here is linear, and in a keep sweep its VJP is its
adjoint on the tape (a block is an index and a reshape, a permutation the inverse one, each of
diag's forms the other), so its gradients can be differentiated again.
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import LaminaError, describe_shape
from ..values import Tracked, as_int, describe, float_array, tensor_dtype, value_of
from .broadcast import unbroadcast
from .indexing import index, reshaped, scatter
from .ops import emul
from .tape import TAPE, record, record1, second_order


@second_order
def _block_vjp(key: tuple, shape: tuple):
    """The VJP of a piece: its block `g[key]`, reshaped to the piece's own shape."""
    if not shape:
        return lambda g: reshaped(index(g, key), ()) if TAPE.keeping else float(g[key].reshape(()))
    return lambda g: reshaped(index(g, key), shape) if TAPE.keeping else g[key].reshape(shape)


def reshape(a, shape: tuple, what: str = "reshape"):
    """The elements of `a` in row-major order, arranged as `shape` (any number of sizes, one of
    them -1 at most: the size that keeps the count). Shape () gives a number."""
    x = value_of(a)
    arr = float_array(x)
    shape = _inferred(arr, tuple(shape), what)
    count = math.prod(shape)                      # Python ints: no int64 wrap-around to 0
    if arr.size != count:
        raise LaminaError("ShapeError", f"{what} keeps every element: {describe_shape(arr.shape)} has "
                          f"{arr.size}, but {describe_shape(shape)} holds {count}.")
    old = arr.shape
    out = float(arr.reshape(())) if not shape else arr.reshape(shape).copy()
    return record(out, (a,), (_reshape_vjp(old),))


@second_order
def _reshape_vjp(shape: tuple):
    """The VJP of reshape from `shape`: the gradient in that shape again (a number's, when the
    result was a number of one element, as an array of it)."""
    if not shape:
        return lambda g: reshaped(g, ()) if TAPE.keeping else float(np.reshape(g, ()))
    return lambda g: reshaped(g, shape) if TAPE.keeping else np.reshape(g, shape)


@second_order
def fill(v, shape: tuple, dtype):
    """A tensor of `shape` holding the number `v` everywhere (the number itself for shape ());
    the gradient for v is the sum of the result's."""
    x = value_of(v)
    if not shape:
        return record(x, (v,), (1.0,))
    return record(np.full(shape, x, dtype=dtype), (v,), (lambda g: unbroadcast(g, ()) if TAPE.keeping
                                                         else float(np.sum(g)),))


def _inferred(arr: np.ndarray, shape: tuple, what: str) -> tuple:
    """`shape` with its -1 (if any) replaced by the size that keeps `arr`'s element count."""
    holes = shape.count(-1)
    if holes == 0:
        return shape
    asked = "(" + ", ".join(map(str, shape)) + ")"
    if holes > 1:
        raise LaminaError("ShapeError", f"{what} of {describe_shape(arr.shape)} to {asked}: only one size "
                          f"may be -1 (the one inferred from the element count).")
    rest = math.prod(n for n in shape if n != -1)
    if rest == 0 or arr.size % rest:
        why = ("the other sizes hold no element" if rest == 0 else
               f"{arr.size} is not a multiple of {rest}")
        raise LaminaError("ShapeError", f"{what} keeps every element: {describe_shape(arr.shape)} has "
                          f"{arr.size}, which no shape {asked} holds ({why}).")
    return tuple(arr.size // rest if n == -1 else n for n in shape)


def axis_of(k: int, rank: int, what: str, new: bool = False) -> int:
    """Axis `k` of a tensor of `rank` axes, from 0 (a negative one counts from the end); with
    `new`, a position for an axis being added (0 to rank, -1 the last of the result)."""
    n = rank + 1 if new else rank
    if not -n <= k < n:
        axes = f"axes 0 to {n - 1}, or -{n} to -1" if n else "no axis"
        place = "a new axis can go" if new else "the axes are"
        raise LaminaError("ValueError", f"{what}: axis {k} is out of range for a tensor of rank {rank} "
                          f"({place} {axes}).")
    return k % n


@second_order
def permute(a, perm: tuple):
    """The axes of `a` reordered: axis i of the result is axis perm[i] of `a` (NumPy's
    transpose, PyTorch's permute). Its gradient is permuted back."""
    x = value_of(a)
    arr = float_array(x)
    rank = arr.ndim
    shown = "[" + ", ".join(map(str, perm)) + "]"
    if len(perm) != rank:
        raise LaminaError("ShapeError", f"permute of {describe_shape(arr.shape)} needs {rank} axes, one "
                          f"for each, but {shown} has {len(perm)}.")
    axes = tuple(axis_of(k, rank, f"permute of {describe_shape(arr.shape)}") for k in perm)
    if len(set(axes)) != rank:
        twice = sorted({k for k in axes if axes.count(k) > 1})
        missing = sorted(set(range(rank)) - set(axes))
        raise LaminaError("ShapeError", f"permute needs each axis of {describe_shape(arr.shape)} exactly "
                          f"once, but {shown} names axis {twice[0]} twice and leaves out axis {missing[0]}.")
    if rank == 0:
        return record(float(arr), (a,), (1.0,))
    back = tuple(int(i) for i in np.argsort(axes))
    return record(arr.transpose(axes).copy(), (a,), (lambda g: permute(g, back) if TAPE.keeping
                                                     else g.transpose(back),))


def squeeze(a, axes=None):
    """`a` without its axes of length 1 (only `axes`, which must have length 1, when given)."""
    shape = np.shape(value_of(a))
    if axes is None:
        drop = {k for k, n in enumerate(shape) if n == 1}
    else:
        drop = {axis_of(k, len(shape), "squeeze") for k in axes}
        for k in sorted(drop):
            if shape[k] != 1:
                raise LaminaError("ShapeError", f"squeeze removes axes of length 1, but axis {k} of "
                                  f"{describe_shape(shape)} has length {shape[k]}.")
    return reshape(a, tuple(n for k, n in enumerate(shape) if k not in drop), "squeeze")


def unsqueeze(a, k: int):
    """`a` with a new axis of length 1 at position `k` of the result."""
    shape = np.shape(value_of(a))
    k = axis_of(k, len(shape), "unsqueeze", new=True)
    return reshape(a, shape[:k] + (1,) + shape[k:], "unsqueeze")


def cat(pieces: list, axis: int):
    """Join tensors of one rank along an axis they have: the other sizes must agree."""
    if not pieces:
        raise LaminaError("ValueError", "cat needs at least one tensor to join.")
    values = [value_of(p) for p in pieces]
    shapes = [np.shape(v) for v in values]
    rank = len(shapes[0])
    if rank == 0:
        raise LaminaError("ShapeError", "cat joins tensors along an axis they have, and a number has "
                          "none: stack(a, b, ...) makes numbers a vector.")
    for i, s in enumerate(shapes):
        if len(s) != rank:
            raise LaminaError("ShapeError", f"cat joins tensors of one rank, but piece 0 is "
                              f"{describe_shape(shapes[0])} and piece {i} {describe_shape(s)}; give it "
                              f"its axes with reshape or unsqueeze.")
    k = axis_of(axis, rank, "cat")
    for i, s in enumerate(shapes):
        if s[:k] + s[k + 1:] != shapes[0][:k] + shapes[0][k + 1:]:
            raise LaminaError("ShapeError", f"cat along axis {k} needs the other sizes to agree, but "
                              f"piece 0 is {describe_shape(shapes[0])} and piece {i} {describe_shape(s)}.")
    out = np.concatenate(values, axis=k, dtype=tensor_dtype(*values))
    vjps, lo = [], 0
    for s in shapes:
        vjps.append(_block_vjp((slice(None),) * k + (slice(lo, lo + s[k]),), s))
        lo += s[k]
    return record(out, pieces, vjps)


def stack(pieces: list, axis: int):
    """Join tensors (or numbers) of one shape along a new axis at position `axis` of the result."""
    if not pieces:
        raise LaminaError("ValueError", "stack needs at least one tensor to join.")
    values = [value_of(p) for p in pieces]
    shapes = [np.shape(v) for v in values]
    for i, s in enumerate(shapes):
        if s != shapes[0]:
            raise LaminaError("ShapeError", f"stack needs pieces of one shape, but piece 0 is "
                              f"{describe_shape(shapes[0])} and piece {i} {describe_shape(s)}.")
    k = axis_of(axis, len(shapes[0]), "stack", new=True)
    out = np.stack(values, axis=k, dtype=tensor_dtype(*values))
    vjps = [_block_vjp((slice(None),) * k + (i,), s) for i, s in enumerate(shapes)]
    return record(out, pieces, vjps)


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
            vjps.append(_block_vjp((slice(lo, lo + len(f)),), np.shape(v)))
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


@second_order
def take(x, idx):
    """The elements of a vector (rows of a matrix) at the whole-number indices `idx`, which may
    repeat: a repeated item's gradients add up."""
    v = value_of(x)
    idx = np.asarray(idx, dtype=np.intp)
    shape = v.shape

    def vjp(g):
        if TAPE.keeping:
            return scatter(g, shape, (idx,), v.dtype)
        full = np.zeros(shape, dtype=v.dtype)
        np.add.at(full, idx, g)
        return full
    return record(v[idx].copy(), (x,), (vjp,))


def diag(a, k: int = 0):
    """diag(v): the square matrix with the vector v on its diagonal k (0 the main one, k > 0
    above it, k < 0 below) and zeros elsewhere; diag(A): the diagonal k of a matrix, a vector.
    Each is the other's VJP."""
    if type(a) is np.ndarray:
        a = float_array(a)                # a mask's diagonal matrix holds numbers
    x = value_of(a)
    if type(x) is not np.ndarray or x.ndim not in (1, 2):
        raise LaminaError("TypeError", f"diag takes a vector (to make a diagonal matrix) or a matrix "
                          f"(to read its diagonal), not {describe(a)}.")
    if x.ndim == 1:
        n = len(x) + (k if k > 0 else -k)
        return placed_on_diagonal(a, k, (n, n))
    return diagonal(a, k)


def _diagonal_key(shape: tuple, k: int) -> tuple:
    """The positions of diagonal k of a matrix of `shape`, as (rows, columns)."""
    length = max(0, min(shape[0], shape[1] - k) if k >= 0 else min(shape[0] + k, shape[1]))
    steps = np.arange(length)
    return steps + max(-k, 0), steps + max(k, 0)


@second_order
def placed_on_diagonal(v, k: int, shape: tuple):
    """Zeros of `shape` with the vector v on diagonal k."""
    x = value_of(v)
    out = np.zeros(shape, dtype=x.dtype)
    out[_diagonal_key(shape, k)] = x
    return record1(out, v, lambda g: diagonal(g, k))


@second_order
def diagonal(m, k: int):
    """Diagonal k of the matrix m, as a vector."""
    x = value_of(m)
    shape = x.shape
    return record1(x[_diagonal_key(shape, k)], m, lambda g: placed_on_diagonal(g, k, shape))


@second_order
def linspace(a, b, n: int):
    """n evenly spaced numbers from a to b, both included: a (1 - t) + b t for t = i / (n - 1)."""
    out = np.linspace(value_of(a), value_of(b), n)
    t = np.linspace(0.0, 1.0, n) if n > 1 else np.zeros(n)
    return record(out, (a, b), (lambda g: unbroadcast(emul(g, 1.0 - t), ()) if TAPE.keeping else float(np.dot(g, 1.0 - t)),
                                lambda g: unbroadcast(emul(g, t), ()) if TAPE.keeping else float(np.dot(g, t))))


def sizes(args: tuple, what, infer: bool = False) -> tuple:
    """The shape a constructor or reshape is given: sizes as numbers (zeros(2, 3, 4)), or one
    vector of them (zeros(size(a)), as MATLAB takes both; the empty vector is the shape of a
    number). `what(word)` names a size in messages ("The row count given to zeros"). With
    `infer`, one size may be -1 (reshape works it out)."""
    if len(args) == 1 and type(value_of(args[0])) is np.ndarray:
        v = value_of(args[0])
        if v.ndim != 1:
            raise LaminaError("TypeError", f"{what('sizes')} must be numbers or one vector of them, "
                              f"not {describe(args[0])}.")
        args = tuple(float(n) for n in v)
    words = (("length",) if len(args) == 1 else ("row count", "column count") if len(args) == 2
             else tuple(f"size of axis {k}" for k in range(len(args))))
    return tuple(as_int(n, what(word), minimum=-1 if infer else 0) for n, word in zip(args, words))


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


@second_order
def astype(a, dtype):
    """A tensor converted to `dtype` (a fresh array even when it has it already); its gradient
    is converted back. A number stays a number: numbers are always float64."""
    x = value_of(a)
    if type(x) is not np.ndarray:
        return a
    src = x.dtype
    return record(x.astype(dtype), (a,), (lambda g: astype(g, src) if TAPE.keeping else np.asarray(g, dtype=src),))
