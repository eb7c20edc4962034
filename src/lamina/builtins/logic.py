"""Tests of truth and of NaN / Inf: any, all, isnan, isinf, isfinite, on tensors of any rank.

None passes a gradient: each returns true or false, or a logical tensor (a mask), as a
comparison does.
"""
from __future__ import annotations

import math

import numpy as np

from ..autodiff import ops, shaping, special
from ..autodiff import reductions as R
from ..errors import LaminaError
from ..values import LibObject, as_mask, describe, numeric_or_tracked, value_of
from .registry import Const, GradCase, Shape, builtin

CATEGORY = "Math"


def _truth_values(x, fn: str):
    if isinstance(x, bool):
        return np.asarray(x)
    return value_of(numeric_or_tracked(x, f"{fn}\'s argument")) != 0


def _truth_reduce(x, axis, fn, name: str):
    t = _truth_values(x, name)
    axes = R.reduced_axes(np.shape(t), R.axis_value(axis, f"{name}'s axis"), name)
    if axes is None:
        return bool(fn(t))
    return fn(t, axis=axes, keepdims=True)        # a logical row or column, as sum's axis gives


def _truth_doc(name: str, meaning: str, summary: str, example: str, notes: str):
    return dict(category=CATEGORY,
                shapes=[Shape(f"{name}(x)", "tensor, mask, number or bool", "bool", meaning),
                        Shape(f"{name}(x, axis = k)", "tensor, axis or list of axes", "logical tensor",
                              "The same along axis k (or axes [j, k]), kept with length 1: for each "
                              "column of a matrix (axis 0, a 1 x n row) or row (axis 1, an m x 1 column).")],
                summary=summary, examples=[example], notes=notes)


@builtin("any", pure="a value", any_rank=True, tracked="constant", probes=["any(p)"], **_truth_doc(
    "any", "Whether any element is nonzero.",
    "true when at least one element is nonzero (or true); false for an empty tensor.",
    "v = [0.5, -1.0, 2.0]\nprint(any(v > 1), any(v > 5))\nm = [1, 0; 0, 0]\nprint(any(m, axis = 0), any(m, axis = 1))",
    "Comparisons of tensors give masks (logical tensors), so any(v > 1) asks whether some element "
    "of v exceeds 1. NaN counts as nonzero. Along an axis the result is a mask that keeps its "
    "orientation, as sum's does (axis = k keeps axis k with length 1 on any rank; axis = [0, 2] "
    "reduces both; a negative axis counts from the end)."))
def any_(x, axis=None):
    return _truth_reduce(x, axis, np.any, "any")


@builtin("all", pure="a value", any_rank=True, tracked="constant", probes=["all(p)"], **_truth_doc(
    "all", "Whether every element is nonzero.",
    "true when every element is nonzero (or true); true for an empty tensor.",
    "v = [0.5, -1.0, 2.0]\nprint(all(v > -2), all(v > 0))\nm = [1, 2; 0, 3]\nprint(all(m, axis = 0), all(m, axis = 1))",
    "The companion of any(); use it to reduce an elementwise comparison to one condition for if "
    "or while. Along an axis the result is a mask that keeps its orientation, as for any."))
def all_(x, axis=None):
    return _truth_reduce(x, axis, np.all, "all")


def _test(name: str, meaning: str, example: str, notes: str, fn, number, probes: list[str], cells=None,
          elsewhere=None):
    @builtin(name, pure="true or false, or a logical tensor", any_rank=True, tracked="constant", probes=probes,
             category=CATEGORY, elsewhere=elsewhere,
             shapes=[Shape(f"{name}(x)", "number or tensor", "bool, or a logical tensor", meaning)],
             summary=f"{meaning} Elementwise on a tensor, giving a logical tensor (a mask) like a comparison.",
             examples=[example],
             notes=notes + " The result passes no gradient.")
    def test(x):
        if type(x) is float:
            return number(x)
        found = cells(x) if cells is not None and isinstance(x, (LibObject, list)) else None
        if found is not None:
            return found
        v = value_of(numeric_or_tracked(x, f"{name}'s argument"))
        if type(v) is float:
            return bool(fn(v))
        return fn(v)          # a logical tensor (a mask), like a comparison: v[isnan(v)] = 0
    return test


def _missing_cells(x):
    """isnan of dates, a category or a list of strings (a text column): where a cell is missing (a
    bool for one date); None for any other value. (Imported here: isnan of numbers never loads
    Arrow.)"""
    if isinstance(x, list):
        if not x or not all(isinstance(s, str) for s in x):
            return None
        from ..stats.columns import MISSING_WORDS
        return np.array([s in MISSING_WORDS for s in x], dtype=bool)
    from ..stats.categories import Categorical
    from ..stats.dates import Dates
    if not isinstance(x, (Categorical, Dates)):
        return None
    gone = x.missing()
    return bool(gone[0]) if getattr(x, "scalar", False) else gone


isnan = _test("isnan", "Whether x is NaN (not a number).",
              "v = [1, 0 / 0, 3]\nprint(isnan(v), isnan(2.0), any(isnan(v)))",
              "NaN is the only value not equal to itself, so x == NaN is always false; ask isnan(x). "
              "A number gives a bool, a tensor a logical tensor of its shape: sum(isnan(v)) counts the "
              "missing values and v[isnan(v)] = 0 fills them. Of a vector of dates or a category "
              "(a table's column) it is true where a cell is missing (NA), as for a numeric column; of a "
              "list of strings (a text column, whose missing cells read back as \"\") where a string "
              "is one a table holds as missing: empty, NA, N/A, n/a, NaN, nan, null or NULL, as "
              "drop_missing decides.",
              np.isnan, math.isnan, ["isnan(p)", "isnan(p[0])"], cells=_missing_cells,
              elsewhere={"isna": "pandas", "isnull": "pandas"})
isinf = _test("isinf", "Whether x is Inf or -Inf.", "print(isinf([1 / 0, -1 / 0, 0 / 0, 1]))",
              "NaN is not infinite. A number gives a bool, a tensor a logical tensor of its shape.", np.isinf,
              math.isinf, ["isinf(q)"])
isfinite = _test("isfinite", "Whether x is an ordinary number: not NaN, Inf or -Inf.",
                 "print(isfinite([1, 1 / 0, 0 / 0]), isfinite(1e308))",
                 "isfinite(x) is the negation of isnan(x) or isinf(x). A number gives a bool, a tensor "
                 "a logical tensor of its shape.", np.isfinite,
                 math.isfinite, ["isfinite(p)"])


_R3_MASK = np.arange(24).reshape(2, 3, 4) % 3 == 0


@builtin("where", elsewhere={"ifelse": "R"}, pure="a value", any_rank=True, twice=True, category=CATEGORY,
         shapes=[Shape("where(cond, a, b)", "mask (or true, false), numbers or tensors", "number or tensor",
                       "a where cond is true and b where it is false, elementwise, broadcast together."),
                 Shape("where(cond, \"yes\", \"no\")", "mask, strings or lists of strings", "list of strings",
                       "The same for text: one string per element of cond.")],
         summary="Chooses elementwise between two values by a mask: NumPy's and PyTorch's where, R's ifelse.",
         examples=["x = [-2, 0.5, 3]\nprint(where(x > 0, x, 0), where(x > 1, \"big\", \"small\"))",
                   "t = table({x = [4, 12, 7]})\nt = with_column(t, \"size\", where(t.x > 10, \"big\", \"small\"))\n"
                   "print(t)"],
         notes="cond is a mask (a comparison such as x > 0, a logical tensor) or true or false: numbers "
               "are not conditions here. cond, a and b broadcast as the operators broadcast (a vector "
               "meets a matrix as a column), and the result has their shape; with strings (or lists "
               "of strings, one per element) cond is a vector or true or false and the result a list "
               "of strings, as a text column takes it. Differentiable: the gradient reaches a where "
               "cond holds and b where it does not, and nothing of the other reaches the result, so "
               "where(x > 0, log(x), 0) has no NaN gradient from the x it leaves out.",
         grad=[GradCase((Const(np.array([True, False, True, False])), (4,), (4,))),
               GradCase((Const(np.array([[True, False], [False, False], [True, True]])), (3, 2), ())),
               GradCase((Const(True), (), (3, 2))),
               GradCase((Const(_R3_MASK), (2, 3, 4), (2, 3, 4))),
               GradCase((Const(_R3_MASK.reshape(2, 1, 3, 4)), (2, 1, 3, 4), ()))])
def where(cond, a, b):
    keep = as_mask(cond)
    if keep is None:
        raise LaminaError("TypeError", f"where's condition must be a mask (a comparison such as x > 0) or "
                          f"true or false, not {describe(cond)}: numbers are not conditions here.")
    if any(isinstance(v, str) or isinstance(v, list) and v and all(isinstance(s, str) for s in v) for v in (a, b)):
        return _where_text(keep, a=a, b=b)
    yes, no = numeric_or_tracked(a, "where's a"), numeric_or_tracked(b, "where's b")
    other = (not keep) if type(keep) is bool else ~keep
    sides = [special.where(keep, yes, 0.0), special.where(other, no, 0.0)]
    kinds = {value_of(v).dtype for v in (yes, no) if type(value_of(v)) is np.ndarray}
    if kinds == {np.dtype(np.float32)}:         # a number beside a float32 tensor, as the operators do
        sides = [_float32(v) for v in sides]
    return ops.add(*sides)


def _float32(side):
    """One side of where (the number's, spread over the mask) in float32, on the tape."""
    v = value_of(side)
    return shaping.astype(side, np.float32) if type(v) is np.ndarray and v.dtype != np.float32 else side


def _where_text(keep, a, b) -> list:
    """where with strings: a list of strings, one per element of a vector mask."""
    mask = [keep] if type(keep) is bool else keep.tolist() if keep.ndim == 1 else None
    if mask is None:
        raise LaminaError("ShapeError", f"where with strings takes a vector mask (one per row of a text "
                          f"column), not {describe(keep)}.")
    n = len(mask)
    sides = []
    for v, name in ((a, "a"), (b, "b")):
        if isinstance(v, str):
            sides.append([v] * n)
        elif isinstance(v, list) and len(v) == n and all(isinstance(s, str) for s in v):
            sides.append(v)
        else:
            raise LaminaError("TypeError", f"where with strings needs {name} to be a string or a list of "
                              f"{n} strings (one per element of the mask), not {describe(v)}.")
    out = [x if k else y for k, x, y in zip(mask, *sides)]
    return out[0] if type(keep) is bool else out
