"""Math builtins along a sequence: diff, cumprod, reverse, argsort (lamina.autodiff.sequences and
lamina.stats.ordering do the work)."""
from __future__ import annotations

import numpy as np

from ..autodiff import sequences as Q
from ..errors import LaminaError
from ..stats import ordering as O
from ..stats.args import flag
from ..values import LibObject, describe, is_numeric, numeric_or_tracked, value_of
from .mathfns import axis_arg
from .registry import WHOLE_NUMBERS, GradCase, Shape, builtin

CATEGORY = "Math"
V, M = (5,), (3, 4)


@builtin("diff", pure="a value", category=CATEGORY, twice=True,
         shapes=[Shape("diff(v)", "vector", "vector", "v[i + 1] - v[i]: one element fewer."),
                 Shape("diff(m, axis = k)", "matrix, 0 or 1", "matrix",
                       "Differences down each column (axis 0: one row fewer) or along each row (axis 1).")],
         summary="Differences between neighbouring elements: changes from one step to the next.",
         examples=["print(diff([1, 4, 9, 16]))", "print(diff([1, 2; 4, 8; 9, 18], axis = 0))",
                   "prices = [100, 102, 99, 105]\nprint(round(diff(log(prices)), 4))   # log returns"],
         notes="diff(v) has one element fewer than v (an empty vector for a vector of 0 or 1 "
               "elements); cumsum undoes it: v[0] + cumsum(diff(v)) gives back v[1:]. A matrix needs "
               "an axis, since a difference across the end of a row means nothing. For the second "
               "difference write diff(diff(v)). A NaN makes the differences next to it NaN. Of a "
               "vector of dates, the days from each to the next (a fraction of a day between "
               "date-times; NaN beside a missing date), as date - date gives. "
               "Differentiable: each difference passes its gradient to its two elements, +1 and -1.",
         grad=[GradCase((V,)), GradCase((M,), {"axis": 0}), GradCase((M,), {"axis": 1}), GradCase(((1,),))])
def diff(x, axis=None):
    if isinstance(x, LibObject) and axis is None:
        from ..stats.dates import Dates          # here: diff of numbers never loads Arrow
        if isinstance(x, Dates) and not x.scalar:     # the days from each date to the next
            return x.take(slice(1, None)).operator("-", x.take(slice(None, -1)), False)
    if not isinstance(value_of(x), np.ndarray):      # before numeric_or_tracked, which takes a number
        raise LaminaError("TypeError", f"diff needs a vector or matrix, not {describe(x)}.")
    return Q.diff(numeric_or_tracked(x, "diff's argument"), axis_arg(axis))


@builtin("cumprod", pure="a value", category=CATEGORY,
         shapes=[Shape("cumprod(x)", "vector", "vector", "Running products."),
                 Shape("cumprod(x, axis = k)", "matrix, 0 or 1", "matrix",
                       "Running products down each column (axis 0) or along each row (axis 1)."),
                 Shape("cumprod(m)", "matrix", "vector", "Running products of the elements in row-major order.")],
         summary="Cumulative products: element i of the result is the product of elements 0 to i.",
         examples=["print(cumprod([1, 2, 3, 4]))",
                   "returns = [0.1, -0.05, 0.2]\nprint(round(cumprod(1 + returns), 4))   # growth of 1",
                   "print(cumprod([1, 2; 3, 4], axis = 0), cumprod([1, 2; 3, 4], axis = 1))"],
         notes="The companion of cumsum, with the same axes: the last element of cumprod(v) is "
               "prod(v), and without an axis a matrix is read row by row. A NaN makes every later "
               "product NaN; skipnan = true counts NaNs as 1. Products overflow to Inf (or "
               "underflow to 0) quickly; for long products of probabilities, take cumsum(log(p)). "
               "Differentiable: element j's gradient is the sum, over the products that include it, "
               "of each product's gradient times the other factors, exact where an element is 0.",
         grad=[GradCase((V,)), GradCase((M,)), GradCase((M,), {"axis": 0}), GradCase((M,), {"axis": 1}),
               GradCase(((),))])
def cumprod(x, axis=None, skipnan=False):
    return Q.cumprod(numeric_or_tracked(x, "cumprod's argument"), axis_arg(axis),
                     skipnan=flag(skipnan, "cumprod's skipnan"))


@builtin("reverse", elsewhere={"rev": "R", "flip": "NumPy"},
         pure="a new reversed copy", category=CATEGORY, twice=True,
         shapes=[Shape("reverse(v)", "vector, list or string", "the same kind", "The elements in reverse order."),
                 Shape("reverse(m)", "matrix", "matrix", "Row-major order reversed: both axes flipped."),
                 Shape("reverse(m, axis = k)", "matrix, 0 or 1", "matrix",
                       "The rows in reverse order (axis 0), or each row reversed (axis 1).")],
         summary="Reverses the order of the elements of a vector, the items of a list, or the "
                 "characters of a string.",
         examples=["print(reverse([1, 2, 3]), reverse(\"stressed\"))",
                   "print(reverse([1, 2; 3, 4], axis = 0), reverse([1, 2; 3, 4], axis = 1))",
                   "print(reverse(sort([3, 1, 2])))"],
         notes="A matrix without an axis has its row-major order reversed, which flips both axes "
               "(the shape stays). reverse(sort(v)) is sort(v, descending = true) except where there "
               "are NaNs, which sort puts last either way. A number is its own reverse. "
               "Differentiable: each element's gradient comes back from where it moved.",
         grad=[GradCase((V,)), GradCase((M,)), GradCase((M,), {"axis": 0}), GradCase((M,), {"axis": 1}),
               GradCase(((),))])
def reverse(x, axis=None):
    if isinstance(x, (list, str)):
        if axis is not None:
            raise LaminaError("TypeError", f"reverse of {describe(x)} takes no axis.")
        return x[::-1]
    if not is_numeric(x):
        raise LaminaError("TypeError", f"reverse takes a vector, matrix, list or string, not {describe(x)}.")
    return Q.reverse(x, axis_arg(axis))


@builtin("argsort", pure="a value", tracked="constant", category=CATEGORY,
         probes=["argsort(p)", "argsort(q, axis = 1)", "argsort(q, by = row -> row[0] - p[0])"],
         float64_results=(WHOLE_NUMBERS, ("result",)),
         shapes=[Shape("argsort(v)", "vector or list", "vector", "The 0-based indices that sort v."),
                 Shape("argsort(v, descending = true)", "vector or list", "vector", "For decreasing order."),
                 Shape("argsort(m, axis = k)", "matrix, 0 or 1", "matrix",
                       "The indices that sort each column (axis 0) or each row (axis 1)."),
                 Shape("argsort(xs, by = f)", "vector, matrix or list; function or field name", "vector",
                       "The order of sort(xs, by = f).")],
         summary="The indices that would sort a vector: v[argsort(v)] is sort(v). Use it to put other "
                 "data in the same order.",
         examples=["v = [30, 10, 20]\nprint(argsort(v), argsort(v, descending = true))",
                   "names = [\"c\", \"a\", \"b\"]\nscores = [3, 1, 2]\nfor i in argsort(scores)\n    print(names[i])\nend for",
                   "print(argsort([3, 1; 2, 5], axis = 0))"],
         notes="Stable: equal values keep their order, in either direction, and NaN sorts last "
               "either way, exactly as sort; dates by time, a category by its levels, a missing "
               "cell last. Without an axis a matrix's indices count row by row (as argmax does). by is a function of each element (each row of a matrix, each item of a "
               "list) or the field name of a list of records, as for sort. Indices are numbers; "
               "they pass no gradient (sort itself is differentiable).")
def argsort(x, axis=None, descending=False, by=None):
    return O.argsort(x, axis=axis_arg(axis), descending=descending, by=by)
