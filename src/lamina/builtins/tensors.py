"""Tensor builtins: constructors, shape, reshaping and joining, argmax (products and solve are in
linalg.py)."""
from __future__ import annotations

import functools

import numpy as np

from ..autodiff import ops, shaping
from ..autodiff.reductions import check_axis
from ..errors import LaminaError, shape_str
from ..stats.ordering import nan_arg_extreme
from ..values import LibObject, Tracked, as_float, as_int, describe, numeric_or_tracked, value_of
from .mathfns import axis_arg, operands
from .registry import WHOLE_NUMBERS, Const, GradCase, Shape, builtin, refuse_tracked

CATEGORY = "Tensors"


def _size(n, what: str) -> int:
    return as_int(n, what, minimum=0)


def _filled(value: float, dims: tuple, name: str, dtype="float64"):
    kind = shaping.dtype_of(dtype, f"{name}'s dtype")
    shape = shaping.sizes(dims, lambda word: f"The {word} given to {name}")
    return float(value) if not shape else np.full(shape, value, dtype=kind)


def _constructor_doc(name: str, what: str, example: str, note: str) -> dict:
    """The page of zeros and ones: sizes as numbers or as one vector of them."""
    return dict(
        category=CATEGORY, probes="its arguments are sizes",
        shapes=[Shape(f"{name}(n)", "length", "vector", f"A vector of n {what}."),
                Shape(f"{name}(r, c)", "rows, columns", "matrix", f"An r x c matrix of {what}."),
                Shape(f"{name}(d0, d1, d2, ...)", "sizes", "array",
                      f"An array of that shape: {name}(2, 3, 4) is 2 x 3 x 4."),
                Shape(f"{name}(dims)", "vector of sizes", "tensor",
                      f"The shape given as a vector, as size returns it: {name}(size(a)) is shaped like a."),
                Shape(f'{name}(r, c, dtype = "float32")', "sizes; dtype name", "tensor",
                      'In float32 (dtype = "float64", the default, like every tensor a program writes).')],
        summary=f"A tensor of any shape filled with {what}.",
        examples=[example, f"a = {name}(2, 3, 4)\nprint(size(a), ndims(a), size({name}(size(a))))"],
        notes=f"Sizes must be whole numbers, 0 or more, given one by one or as one vector (MATLAB takes "
              f"both). {note} With no size, or the empty vector (size of a number), it is the number "
              f"{0 if name == 'zeros' else 1} (a number stays a number, float64).")


@builtin("zeros", pure="a value", tracked="constant",
         **_constructor_doc("zeros", "zeros", "print(zeros(3), zeros(2, 2))",
                            "zeros(0) is the empty vector []."))
def zeros(*dims, dtype="float64"):
    return _filled(0.0, dims, name="zeros", dtype=dtype)


@builtin("ones", pure="a value", tracked="constant",
         **_constructor_doc("ones", "ones", "print(ones(3), ones(1, 4))",
                            "ones(1, n) is a 1 x n row, which broadcasts across the rows of a matrix."))
def ones(*dims, dtype="float64"):
    return _filled(1.0, dims, name="ones", dtype=dtype)


@builtin("eye", pure="a matrix", tracked="constant", category=CATEGORY,
         probes="its argument is a size",
         shapes=[Shape("eye(n)", "size", "matrix", "The n x n identity matrix."),
                 Shape('eye(n, dtype = "float32")', "size; dtype name", "matrix",
                       'In float32 (dtype = "float64", the default, like every tensor a program writes).')],
         summary="The n x n identity matrix: ones on the diagonal, zeros elsewhere.",
         examples=["print(eye(2))"],
         notes="eye(n) * v is v for any vector of length n.")
def eye(n, *, dtype="float64"):
    return np.eye(_size(n, "The size given to eye"), dtype=shaping.dtype_of(dtype, "eye's dtype"))


@builtin("size",
         pure="a value", tracked="constant", category=CATEGORY, any_rank=True,
         probes=["size(q)", "size(q, -1)"],
         float64_results=(WHOLE_NUMBERS, ("result",)),
         shapes=[Shape("size(x)", "tensor", "vector", "All its dimensions: [n] for a vector, [m, n] for a "
                       "matrix, [d0, d1, d2] for an array of rank 3."),
                 Shape("size(x, axis)", "tensor, axis", "number",
                       "The size along one axis (0 the first; -1 the last).")],
         summary="The dimensions of a tensor: [n] for a vector, [rows, columns] for a matrix, one "
                 "size per axis for any rank.",
         examples=["m = zeros(2, 3)\nprint(size(m), size(m, 1), size([1, 2, 3]))",
                   "a = zeros(2, 3, 4)\nprint(size(a), size(a, -1), length(size(a)))"],
         notes="A number has no dimensions: size(5) is []. length(x) counts all elements instead, "
               "and ndims(x) is length(size(x)). A negative axis counts from the end.")
def size(x, axis=None):
    shape = np.shape(value_of(numeric_or_tracked(x, "size\'s argument")))
    if axis is None:
        return np.array(shape, dtype=np.float64)
    k = as_int(axis, "The axis")
    if not -len(shape) <= k < len(shape):
        axes = f"its axes are 0 to {len(shape) - 1}, or -{len(shape)} to -1" if shape else "it has none"
        raise LaminaError("ValueError", f"size: axis {k} does not exist for {describe(x)} ({axes}).")
    return float(shape[k])


@builtin("range", elsewhere={"seq": "R", "arange": "NumPy"},
         pure="a vector", tracked="refuses", category=CATEGORY,
         probes=["range(p[0])", "range(0, p[3], 0.5)"],
         float64_results=(WHOLE_NUMBERS, ("result",)),
         shapes=[Shape("range(n)", "count", "vector", "0, 1, ..., n-1."),
                 Shape("range(a, b)", "start, stop", "vector", "a, a+1, ... up to but not including b."),
                 Shape("range(a, b, step)", "start, stop, step", "vector", "From a toward b by step."),
                 Shape("range(d1, d2, days)", "two dates (or date-times), days", "vector of dates",
                       "Every day (or every days days) from d1 up to but not including d2.")],
         summary="A vector of evenly stepped numbers, half-open like Python's range; or of dates.",
         examples=["print(range(4), range(2, 5), range(1, 0, -0.25))",
                   'print(range(date("2024-02-27"), date("2024-03-02")))\n'
                   'print(range(date("2024-01-01"), date("2024-02-01"), 7))'],
         notes="The stop value is never included. The step may be fractional or negative but "
               "not 0; a range that goes nowhere is the empty vector. From one date to another "
               "it steps by whole days (date-times by any number of days: 0.25 is six hours), "
               "as R's seq(d1, d2, by = 7) without its last date; the first of each month is "
               "date(year, range(1, 13), 1).")
def range_(a, b=None, step=1.0):
    refuse_tracked("range", (a, b, step))
    if isinstance(a, LibObject) and hasattr(a, "range_to"):
        return a.range_to(b, step)          # range(d1, d2, 7): every week from one date to another
    start, stop = (0.0, as_float(a, "The stop of range")) if b is None else (
        as_float(a, "The start of range"), as_float(b, "The stop of range"))
    s = as_float(step, "The step of range")
    if s == 0 or s != s:
        raise LaminaError("ValueError", "range needs a nonzero step.")
    if not all(np.isfinite((start, stop, s))):
        raise LaminaError("ValueError", "range needs finite start, stop and step.")
    out = np.arange(start, stop, s, dtype=np.float64)
    # arange counts ceil((stop - start) / step) elements, and a rounded quotient can count one
    # more: range(1, 1.3, 0.1) ended at 1.3000000000000003.
    if out.size and (out[-1] >= stop if s > 0 else out[-1] <= stop):
        out = out[:-1]
    return out


@builtin("linspace", pure="a vector", twice=True, category=CATEGORY,
         shapes=[Shape("linspace(a, b, n)", "start, stop, count", "vector",
                       "n evenly spaced numbers from a to b, both included.")],
         summary="n evenly spaced numbers from a to b inclusive.",
         examples=["print(linspace(0, 1, 5))"],
         notes="Unlike range, both ends are included; linspace(a, b, 1) is [a]. Differentiable in "
               "a and b: element i is a (1 - t) + b t with t = i / (n - 1).",
         grad=[GradCase(((), (), Const(5.0))), GradCase(((), (), Const(1.0)))])
def linspace(a, b, n):
    return shaping.linspace(_end(a, "The start of linspace"), _end(b, "The stop of linspace"),
                            _size(n, "The count given to linspace"))


def _end(x, what: str):
    """A number, tracked or not (a one-element tensor counts only untracked)."""
    if type(value_of(x)) is float:
        return x
    if type(x) is Tracked:
        raise LaminaError("TypeError", f"{what} must be a number, not {describe(x)}.")
    return as_float(x, what)


@builtin("reshape", pure="a new tensor", twice=True, category=CATEGORY, any_rank=True,
         shapes=[Shape("reshape(x, n)", "tensor, length", "vector", "The elements as a vector."),
                 Shape("reshape(x, r, c)", "tensor, rows, columns", "matrix", "The elements as r x c."),
                 Shape("reshape(x, d0, d1, d2, ...)", "tensor, sizes", "array",
                       "The elements in any shape; one size may be -1, worked out from the count."),
                 Shape("reshape(x, dims)", "tensor, vector of sizes", "tensor",
                       "The shape given as a vector: reshape(x, size(a)) is shaped like a.")],
         summary="The same elements in row-major order arranged in a new shape.",
         examples=["print(reshape([1, 2, 3, 4, 5, 6], 2, 3), reshape([1, 2; 3, 4], 4))",
                   "a = reshape(range(24), 2, 3, -1)\nprint(size(a), size(reshape(a, -1, 4)))"],
         notes="The element count must stay the same; one size may be -1, the size that keeps it. "
               "Row-major (C order, as NumPy): the last axis varies fastest, so a matrix is read row "
               "by row. The empty shape (reshape(x, size(5)), x of one element) gives a number. The "
               "gradient is reshaped back to the input's shape.",
         grad=[GradCase(((6,), Const(2.0), Const(3.0))), GradCase(((2, 3), Const(6.0))),
               GradCase(((2, 3), Const(3.0), Const(2.0))),
               GradCase(((2, 3, 4), Const(4.0), Const(-1.0))),
               GradCase(((24,), Const(np.array([2.0, 3.0, 2.0, 2.0])))),
               GradCase(((2, 3, 2, 2), Const(6.0), Const(-1.0)))])
def reshape(x, *dims):
    if not dims:
        raise LaminaError("TypeError", "reshape needs the new shape: reshape(x, 2, 3), or reshape(x, -1) "
                          "for a vector.")
    shape = shaping.sizes(dims, lambda word: f"The {word} given to reshape", infer=True)
    return shaping.reshape(numeric_or_tracked(x, "reshape\'s argument"), shape)


@builtin("transpose", pure="a new matrix", twice=True, category=CATEGORY,
         shapes=[Shape("transpose(x)", "tensor", "matrix", "The same as x': rows become columns.")],
         summary="Swaps rows and columns; a vector becomes a 1 x n row. The same as the ' operator.",
         examples=["print(transpose([1, 2; 3, 4]), size(transpose([1, 2, 3])))"],
         notes="A vector acts as a column, so its transpose is a 1 x n matrix. A number is "
               "unchanged.",
         grad=[GradCase(((3,),)), GradCase(((2, 3),))])
def transpose(x):
    return ops.transpose(numeric_or_tracked(x, "transpose\'s argument"))


@builtin("diag", pure="a value", twice=True, category=CATEGORY,
         shapes=[Shape("diag(v)", "vector", "matrix", "The square matrix with v on its diagonal, zeros elsewhere."),
                 Shape("diag(A)", "matrix", "vector", "The diagonal of A."),
                 Shape("diag(x, k)", "vector or matrix, whole number", "matrix or vector",
                       "Diagonal k instead: above the main one for k > 0, below it for k < 0.")],
         summary="A diagonal matrix from a vector, or the diagonal of a matrix as a vector.",
         examples=["print(diag([1, 2, 3]))", "A = [1, 2, 3; 4, 5, 6]\nprint(diag(A), diag(A, 1), diag(A, -1))",
                   "print(diag([1, 2], 1))"],
         notes="As MATLAB's diag and NumPy's: a vector of length n gives an n x n matrix (n + |k| "
               "square with an offset k), and a matrix of any shape gives its diagonal (as long as "
               "the shorter side, less the offset; empty when k passes the corner). So diag(diag(A)) "
               "keeps A's diagonal and zeros the rest, and sum(diag(A)) is trace(A). A number is a "
               "TypeError: [x] is a vector of one. The gradient of each form is the other form "
               "applied to the result's gradient.",
         grad=[GradCase(((3,),)), GradCase(((3, 3),)), GradCase(((2, 4),)), GradCase(((4, 2),)),
               GradCase(((3,), Const(1.0))), GradCase(((2,), Const(-2.0))), GradCase(((3, 4), Const(-1.0))),
               GradCase(((3, 4), Const(2.0)))])
def diag(x, k=0.0):
    return shaping.diag(numeric_or_tracked(x, "diag\'s argument"), as_int(k, "diag's offset k"))


def pieces(args: tuple, name: str) -> list:
    if len(args) == 1 and isinstance(args[0], list):
        args = tuple(args[0])
    return operands(*((p, f"{name}\'s argument") for p in args))


@builtin("hcat", elsewhere={"cbind": "R", "hstack": "NumPy", "horzcat": "MATLAB"},
         pure="a matrix", twice=True, category=CATEGORY,
         shapes=[Shape("hcat(a, b, ...)", "tensors with equal row counts", "matrix",
                       "Side by side; a vector counts as a column."),
                 Shape("hcat(list)", "list of tensors", "matrix", "The items of the list, side by side.")],
         summary="Joins tensors side by side. A vector counts as a column, so hcat(u, v) of two "
                 "vectors of length n is n x 2.",
         examples=["print(hcat([1, 2], [3, 4]))", "print(hcat([1, 2; 3, 4], [5, 6]))"],
         notes="Every piece needs the same number of rows; a number counts as 1 x 1. The empty "
               "vector [] adds no column (as torch.cat skips it), so a loop can start from acc = "
               "[]. Each piece's gradient is its block of the result's gradient.",
         grad=[GradCase(((3,), (3,))), GradCase(((2, 3), (2,), (2, 1)))])
def hcat(*args):
    return shaping.hcat(pieces(args, "hcat"))


@builtin("vcat", elsewhere={"rbind": "R", "vstack": "NumPy", "vertcat": "MATLAB"},
         pure="a value", twice=True, category=CATEGORY,
         shapes=[Shape("vcat(u, v, ...)", "vectors or numbers", "vector", "One longer vector."),
                 Shape("vcat(A, B, ...)", "matrices with equal column counts", "matrix",
                       "Stacked top to bottom; a vector counts as a column."),
                 Shape("vcat(list)", "list of tensors", "vector or matrix", "The items of the list, stacked.")],
         summary="Stacks tensors top to bottom. Vectors and numbers join into one longer vector; "
                 "with a matrix, a vector counts as a column, so append a row with vcat(M, v').",
         examples=["print(vcat([1, 2], [3], 4))", "print(vcat([1, 2; 3, 4], [5, 6]'))"],
         notes="Every matrix piece needs the same number of columns. The empty vector [] adds no "
               "row (as torch.cat skips it), so a loop can start from acc = [] and append rows with "
               "acc = vcat(acc, v'). Each piece's gradient is its block of the result's gradient.",
         grad=[GradCase(((3,), (), (2,))), GradCase(((2, 3), (1, 3))), GradCase(((2, 1), (3,)))])
def vcat(*args):
    return shaping.vcat(pieces(args, "vcat"))


def _arg_extreme(x, axis, skipnan, name: str):
    v = value_of(numeric_or_tracked(x, f"{name}\'s argument"))
    if not isinstance(skipnan, bool):
        raise LaminaError("TypeError", f"{name}'s skipnan must be true or false, not {describe(skipnan)}.")
    if skipnan:
        arg = functools.partial(nan_arg_extreme, largest=name == "argmax")
    else:
        arg = np.argmax if name == "argmax" else np.argmin
    if type(v) is float:
        if skipnan and v != v:
            raise LaminaError("ValueError", f"{name}(x, skipnan = true) of NaN is undefined: nothing is left.")
        return 0.0
    k = check_axis(v.shape, axis_arg(axis), name)
    if v.size == 0 and (k is None or v.shape[k] == 0):   # 0 rows searched along each row: 0 results
        raise LaminaError("ValueError", f"{name} of an empty {shape_str(v.shape)} is undefined.")
    if skipnan and np.isnan(v).all(axis=k).any():
        where = ("x" if k is None else f"a slice along axis {k}" if v.ndim > 2 else
                 "a column" if k == 0 else "a row")
        raise LaminaError("ValueError", f"{name}(x, skipnan = true) is undefined where {where} holds only "
                          f"NaN: there is no element left to pick.")
    if k is None:
        return float(arg(v))
    return np.expand_dims(arg(v, axis=k), k).astype(np.float64)   # a row or a column, as sum gives


def _arg_doc(name: str, what: str):
    return dict(category=CATEGORY,
                shapes=[Shape(f"{name}(x)", "tensor", "number",
                              f"The index of the {what} element (row-major for a matrix)."),
                        Shape(f"{name}(x, axis = k)", "tensor, axis", "row, column or array",
                              f"The index of the {what} in each column (axis 0, a 1 x n row) or row "
                              f"(axis 1, an m x 1 column); on any rank along axis k, kept with length 1."),
                        Shape(f"{name}(x, skipnan = true)", "tensor", "number",
                              f"The index of the {what} element that is not NaN.")],
                summary=f"Where the {what} element is: a 0-based index.",
                examples=[f"print({name}([3, 9, 1]), {name}([1, 5; 7, 2]), {name}([1, 5; 7, 2], axis = 1))",
                          f"v = [4, NaN, 8, 1]\nprint({name}(v), {name}(v, skipnan = true))"],
                notes="The first occurrence wins on ties. For a matrix (or an array of any rank) "
                      "without an axis the index counts row by row, the last axis fastest. Along an "
                      "axis the result keeps its orientation, as sum's does: axis = k keeps axis k "
                      "with length 1 on any rank, and a negative k counts from the end. A NaN counts as the extreme (its index is returned, as NumPy does); "
                      "skipnan = true passes over NaNs, and a slice of NaNs only is then a ValueError. "
                      "Indices are returned as numbers; they pass no gradient.")


@builtin("argmax", pure="a value", tracked="constant", any_rank=True, probes=["argmax(p)"],
         **_arg_doc("argmax", "largest"))
def argmax(x, axis=None, *, skipnan=False):
    return _arg_extreme(x, axis, skipnan, "argmax")


@builtin("argmin", pure="a value", tracked="constant", any_rank=True, probes=["argmin(q, axis = 0)"],
         float64_results=(WHOLE_NUMBERS, ("result",)), **_arg_doc("argmin", "smallest"))
def argmin(x, axis=None, *, skipnan=False):
    return _arg_extreme(x, axis, skipnan, "argmin")


@builtin("find", elsewhere={"which": "R", "nonzero": "NumPy"},
         pure="a value", tracked="constant", category=CATEGORY,
         probes=["find(p)", "find(q > 0)"],
         float64_results=(WHOLE_NUMBERS, ("result",)),
         shapes=[Shape("find(mask)", "logical vector (or a row or column)", "vector",
                       "The positions of the true elements."),
                 Shape("find(mask)", "logical matrix", "k x 2 matrix",
                       "One row [row, column] per true element, row by row.")],
         summary="Where a mask is true: the 0-based positions of its true elements (of the nonzero "
                 "elements of a numeric tensor).",
         examples=["v = [3, 8, 1, 9]\nprint(find(v > 2), v[find(v > 2)])",
                   "print(find([1, 5; 7, 2] > 4), find([1, 2] > 5))"],
         notes="find turns a mask into an index list: v[find(v > 2)] and v[v > 2] pick the same "
               "elements. A matrix with one row or one column (sum(m, axis = 1) > 0, say) counts "
               "as a vector; any other matrix gives its true elements' (row, column) pairs, "
               "counting row by row, as a k x 2 matrix. Given numbers, find picks the nonzero "
               "ones (NaN counts as nonzero). Positions are plain numbers: they pass no gradient.")
def find(x):
    v = value_of(x)
    if not isinstance(v, np.ndarray):
        raise LaminaError("TypeError", f"find takes a mask (a comparison of tensors, like v > 0) or a "
                          f"tensor, not {describe(x)}.")
    if v.ndim == 1 or 1 in v.shape:
        return np.flatnonzero(v).astype(np.float64)
    rows, cols = np.nonzero(v)
    return np.column_stack([rows, cols]).astype(np.float64)
