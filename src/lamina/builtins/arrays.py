"""Tensor builtins for any rank: fill, ndims, permute, squeeze, unsqueeze, cat and stack (the
constructors zeros and ones, size and reshape are in tensors.py; matmul and einsum in
products.py)."""
from __future__ import annotations

import numpy as np

from ..autodiff import shaping
from ..errors import LaminaError
from ..values import as_int, describe, numeric_or_tracked, value_of
from .registry import Const, GradCase, Shape, builtin
from .tensors import pieces

CATEGORY = "Tensors"


def _axes(order, what: str) -> tuple:
    """Whole numbers given as one number, a vector or a list of numbers."""
    v = value_of(order)
    if type(v) is np.ndarray and v.ndim == 1:
        return tuple(as_int(float(k), what) for k in v)
    if isinstance(order, list):
        return tuple(as_int(k, what) for k in order)
    if type(v) is np.ndarray:
        raise LaminaError("TypeError", f"{what} must be a number or a vector of them, not {describe(order)}.")
    return (as_int(order, what),)


@builtin("fill", pure="a value", twice=True, category=CATEGORY,
         shapes=[Shape("fill(v, n)", "number, length", "vector", "A vector of n copies of v."),
                 Shape("fill(v, r, c)", "number, rows, columns", "matrix", "An r x c matrix of v."),
                 Shape("fill(v, d0, d1, d2, ...)", "number, sizes", "array",
                       "An array of that shape holding v everywhere."),
                 Shape("fill(v, dims)", "number, vector of sizes", "tensor",
                       "The shape given as a vector: fill(v, size(a)) is shaped like a."),
                 Shape('fill(v, r, c, dtype = "float32")', "number, sizes; dtype name", "tensor",
                       'In float32 (dtype = "float64", the default, like every tensor a program writes).')],
         summary="A tensor of any shape holding one number everywhere: the value first, then the sizes.",
         examples=["print(fill(7, 3), fill(0.5, 2, 2))",
                   "a = fill(-1, 2, 3, 4)\nprint(size(a), a[1, 2, 3])"],
         notes="Julia's fill(v, dims...): the value first, then the sizes as zeros and ones take "
               "them (one by one or as one vector). NumPy calls this full(shape, v), with the value "
               "last. Lamina has fill only: fill(2, 3) is three 2s, and a full(2, 3) beside it in "
               "NumPy's order would be two 3s; two names taking the same two things in opposite "
               "orders are a slip waiting in every program that moves between them. With no size "
               "it is v itself. The value may be tracked: its gradient is the sum of the result's.",
         grad=[GradCase(((), Const(2.0), Const(3.0), Const(4.0))),
               GradCase(((), Const(2.0), Const(1.0), Const(3.0), Const(2.0))), GradCase(((), Const(3.0)))])
def fill(value, *dims, dtype="float64"):
    v = numeric_or_tracked(value, "fill's value")
    if type(value_of(v)) is not float:
        raise LaminaError("TypeError", f"fill's value must be a number, not {describe(value)}; the sizes "
                          f"come after it, as in fill(0.5, 2, 3).")
    kind = shaping.dtype_of(dtype, "fill's dtype")
    return shaping.fill(v, shaping.sizes(dims, lambda word: f"The {word} given to fill"), kind)


@builtin("ndims", pure="a number", tracked="constant", category=CATEGORY, any_rank=True,
         probes=["ndims(q)", "ndims(p[0])"],
         shapes=[Shape("ndims(x)", "number or tensor", "number",
                       "Its number of axes: 0 for a number, 1 for a vector, 2 for a matrix.")],
         summary="The number of axes (the rank) of a tensor: 0 for a number, 1 for a vector, 2 for a matrix.",
         examples=["print(ndims(5), ndims([1, 2]), ndims([1, 2; 3, 4]), ndims(zeros(2, 3, 4)))"],
         notes="ndims(x) is length(size(x)): NumPy's ndim, Julia's ndims. A mask counts as a tensor "
               "of its shape.")
def ndims(x):
    return float(np.ndim(value_of(numeric_or_tracked(x, "ndims's argument"))))


@builtin("permute", pure="a new tensor", twice=True, category=CATEGORY, any_rank=True,
         shapes=[Shape("permute(x, order)", "tensor, vector of axes", "tensor",
                       "Axis i of the result is axis order[i] of x.")],
         summary="Reorders the axes of a tensor: axis i of the result is axis order[i] of x.",
         examples=["a = reshape(range(24), 2, 3, 4)\nb = permute(a, [2, 0, 1])\nprint(size(b), b[3, 1, 2] == a[1, 2, 3])",
                   "print(permute([1, 2, 3; 4, 5, 6], [1, 0]))"],
         notes="As NumPy's transpose(x, order) and PyTorch's permute. The order names each axis of "
               "x exactly once (a negative axis counts from the end); an axis named twice or left "
               "out is a ShapeError. permute(m, [1, 0]) of a matrix is m'. The result is a new "
               "tensor in its own row-major order. The gradient is permuted back.",
         grad=[GradCase(((2, 3, 4), Const(np.array([2.0, 0.0, 1.0])))),
               GradCase(((2, 3, 4, 5), Const(np.array([3.0, 1.0, 0.0, 2.0])))),
               GradCase(((2, 3), Const(np.array([-1.0, 0.0]))))])
def permute(x, order):
    return shaping.permute(numeric_or_tracked(x, "permute's argument"), _axes(order, "permute's order"))


@builtin("squeeze", pure="a new tensor", twice=True, category=CATEGORY, any_rank=True,
         shapes=[Shape("squeeze(x)", "tensor", "tensor", "x without its axes of length 1."),
                 Shape("squeeze(x, axis = k)", "tensor, axis or vector of axes", "tensor",
                       "Only axis k (or the axes listed), which must have length 1.")],
         summary="Removes axes of length 1.",
         examples=["a = zeros(2, 1, 3, 1)\nprint(size(squeeze(a)), size(squeeze(a, axis = 1)), "
                   "size(squeeze(a, axis = [1, 3])))",
                   "print(squeeze([1, 2, 3]'), squeeze([5]))"],
         notes="As NumPy's squeeze and PyTorch's. Naming an axis whose length is not 1 is a "
               "ShapeError. A tensor whose axes all have length 1 becomes a number. The gradient "
               "is reshaped back.",
         grad=[GradCase(((2, 1, 4),)), GradCase(((1, 3, 1, 2),), {"axis": 2.0}),
               GradCase(((2, 1, 3, 1),), {"axis": Const(np.array([1.0, -1.0]))})])
def squeeze(x, *, axis=None):
    axes = None if axis is None else _axes(axis, "squeeze's axis")
    return shaping.squeeze(numeric_or_tracked(x, "squeeze's argument"), axes)


@builtin("unsqueeze", pure="a new tensor", twice=True, category=CATEGORY, any_rank=True,
         shapes=[Shape("unsqueeze(x, k)", "tensor or number, position", "tensor",
                       "x with a new axis of length 1 at position k of the result.")],
         summary="Adds an axis of length 1 at position k (NumPy's expand_dims).",
         examples=["v = [1, 2, 3]\nprint(unsqueeze(v, 0), unsqueeze(v, 1))",
                   "print(size(unsqueeze(zeros(2, 3), -1)), size(unsqueeze(zeros(2, 3), 0)))"],
         notes="PyTorch's name; NumPy calls it expand_dims. k counts positions in the result, from "
               "0 (first) to the input's rank (last; -1 is also the last), so unsqueeze(v, 0) of a "
               "vector is a 1 x n row and unsqueeze(v, 1) an n x 1 column. It lifts a tensor to the "
               "rank of an array it meets: a tensor of rank 3 or more meets only a number or a "
               "tensor of its own rank, so a length-d vector beside a b x t x d array is written "
               "reshape(v, 1, 1, d), or unsqueeze(unsqueeze(v, 0), 0). The gradient is reshaped back.",
         grad=[GradCase(((2, 3, 4), Const(1.0))), GradCase(((2, 3, 4), Const(-1.0))),
               GradCase(((2, 1, 3, 2), Const(4.0))), GradCase(((3,), Const(0.0)))])
def unsqueeze(x, k):
    return shaping.unsqueeze(numeric_or_tracked(x, "unsqueeze's argument"), as_int(k, "unsqueeze's position"))


@builtin("cat", elsewhere={"concatenate": "NumPy"},
         pure="a value", twice=True, category=CATEGORY, any_rank=True,
         shapes=[Shape("cat(a, b, ..., axis = k)", "tensors of one rank", "tensor",
                       "Joined along axis k (0 when not given); the other sizes must agree."),
                 Shape("cat(list, axis = k)", "list of tensors", "tensor", "The items of the list, joined.")],
         summary="Joins tensors of one rank along an axis they have.",
         examples=["print(cat([1, 2], [3]), cat([1, 2; 3, 4], [5, 6; 7, 8], axis = 1))",
                   "a = zeros(2, 3, 4)\nprint(size(cat(a, ones(2, 5, 4), axis = 1)), size(cat([a, a, a], axis = -1)))"],
         notes="As NumPy's concatenate and PyTorch's cat. Every piece has the rank of the first and "
               "the same sizes off the axis; a number has no axis to join along (stack makes numbers "
               "a vector). Unlike hcat and vcat, which read a vector as a column, cat never changes "
               "a piece's rank: give a piece its axes with reshape or unsqueeze. Each piece's "
               "gradient is its block of the result's gradient.",
         grad=[GradCase(((2, 3, 4), (2, 1, 4)), {"axis": 1.0}),
               GradCase(((2, 3, 4, 2), (2, 3, 4, 3)), {"axis": -1.0}), GradCase(((3,), (2,)))])
def cat(*args, axis=0.0):
    return shaping.cat(pieces(args, "cat"), as_int(axis, "cat's axis"))


@builtin("stack", pure="a value", twice=True, category=CATEGORY, any_rank=True,
         shapes=[Shape("stack(list, axis = k)", "list of tensors of one shape", "tensor",
                       "Stacked along a new axis at position k of the result (0 when not given)."),
                 Shape("stack(a, b, ..., axis = k)", "tensors of one shape", "tensor",
                       "The same, the pieces given as arguments.")],
         summary="Stacks tensors of one shape along a new axis.",
         examples=["print(stack([[1, 2], [3, 4], [5, 6]]), stack([1, 2], [3, 4], axis = 1))",
                   "m = zeros(3, 4)\nprint(size(stack([m, m])), size(stack([m, m], axis = -1)))"],
         notes="As NumPy's stack and PyTorch's: n pieces of one shape give a tensor with a new axis "
               "of length n at position k of the result (0 to the pieces' rank; -1 the last). "
               "Numbers stack into a vector; b matrices t x d stack into a b x t x d array, a batch. "
               "Each piece's gradient is its slice of the result's gradient.",
         grad=[GradCase(((2, 3, 4), (2, 3, 4)), {"axis": 0.0}),
               GradCase(((2, 3, 4), (2, 3, 4), (2, 3, 4)), {"axis": -1.0}),
               GradCase(((2, 1, 3, 2), (2, 1, 3, 2)), {"axis": 2.0}),
               GradCase(((2, 3), (2, 3)), {"axis": 1.0}), GradCase(((), ()))])
def stack(*args, axis=0.0):
    return shaping.stack(pieces(args, "stack"), as_int(axis, "stack's axis"))
