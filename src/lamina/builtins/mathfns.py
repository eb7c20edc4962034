"""Math builtins: elementwise functions, mod and clamp, reductions and rounding, on tensors of
any rank (the tests of truth and of NaN / Inf are in logic.py).

The differentiable ones call primitives in lamina.autodiff (which record on the
tape when an input is tracked); rounding, sign and the truth tests pass no
gradient and return plain values even for tracked inputs.
"""
from __future__ import annotations

import math

import numpy as np

from ..autodiff import functions as F
from ..autodiff import ops
from ..autodiff import reductions as R
from ..autodiff.broadcast import align
from ..errors import LaminaError
from ..values import (
    LibObject,
    as_int,
    describe,
    format_number,
    lamina_value,
    numeric_or_tracked,
    value_of,
)
from .registry import Const, GradCase, Shape, builtin

CATEGORY = "Math"
S, V, M, R3, R4 = (), (4,), (3, 2), (2, 3, 4), (2, 1, 2, 3)
UNARY = [GradCase((S,)), GradCase((V,)), GradCase((M,)), GradCase((R3,)), GradCase((R4,))]


def axis_arg(axis):
    return None if axis is None else as_int(axis, "The axis")


def axes_arg(axis, name: str):
    """A reduction's axis: None, a whole number, or a vector or list of them (several axes)."""
    return R.axis_value(axis, f"{name}'s axis")


def operands(*args) -> list:
    """The operands of a builtin that combines several (value, what) pairs, as numeric_or_tracked
    takes each; a logical tensor (a mask) beside a float32 tensor becomes float32 0/1, as it does
    in an operator (lang/operators._num): a mask adapts to the tensor it meets, as a number does."""
    xs = [numeric_or_tracked(x, what) for x, what in args]
    if all(type(x) is float for x in xs):
        return xs
    if any(type(v) is np.ndarray and v.dtype == np.float32 for v in map(value_of, xs)):
        xs = [x.astype(np.float32) if type(a) is np.ndarray and a.dtype == bool else x
              for x, (a, _) in zip(xs, args)]
    return xs


def _elementwise(name: str, meaning: str, example: str, output: str):
    return dict(category=CATEGORY,
                shapes=[Shape(f"{name}(x)", "number or tensor", "same shape", meaning)],
                summary=f"{meaning} Works elementwise on tensors of any rank.",
                examples=[example], notes=output)


@builtin("exp", pure="a value", any_rank=True, twice=True, **_elementwise("exp", "The exponential e^x.", "print(round(exp([0.0, 1.0]), 4))",
                               "Computed with IEEE float64: exp(1000) is Inf. The derivative is exp(x) "
                               "itself, reused from the forward value."), grad=UNARY)
def exp(x):
    return F.exp(numeric_or_tracked(x, "exp\'s argument"))


@builtin("log", pure="a value", any_rank=True, twice=True, **_elementwise("log", "The natural logarithm.", "print(log(exp(2.0)))",
                               "log(0) is -Inf and the log of a negative number is NaN (no error). "
                               "The derivative is 1/x."), grad=[GradCase(c.args, domain="positive") for c in UNARY])
def log(x):
    return F.log(numeric_or_tracked(x, "log\'s argument"))


@builtin("log10", pure="a value", any_rank=True, twice=True, **_elementwise("log10", "The base-10 logarithm.", "print(log10([1, 10, 1000, 0.01]))",
                                 "log10(0) is -Inf and the log of a negative number is NaN (no error). "
                                 "The derivative is 1/(x ln 10)."),
         grad=[GradCase(c.args, domain="positive") for c in UNARY])
def log10(x):
    return F.log10(numeric_or_tracked(x, "log10\'s argument"))


@builtin("log2", pure="a value", any_rank=True, twice=True, **_elementwise("log2", "The base-2 logarithm.", "print(log2([1, 8, 0.5]))",
                                "log2(0) is -Inf and the log of a negative number is NaN (no error). "
                                "The derivative is 1/(x ln 2)."),
         grad=[GradCase(c.args, domain="positive") for c in UNARY])
def log2(x):
    return F.log2(numeric_or_tracked(x, "log2\'s argument"))


@builtin("log1p", pure="a value", any_rank=True, twice=True, **_elementwise("log1p", "log(1 + x), accurate for x near 0.",
                                 "print(log1p(1e-10), log(1 + 1e-10))",
                                 "For tiny x, 1 + x rounds off the digits of x, and log(1 + x) loses "
                                 "them; log1p keeps them (log-likelihoods of small probabilities, "
                                 "log(1 + exp(z)) as log1p(exp(z))). log1p(-1) is -Inf, below -1 NaN. "
                                 "The derivative is 1/(1 + x)."),
         grad=[GradCase(c.args, domain="unit") for c in UNARY])
def log1p(x):
    return F.log1p(numeric_or_tracked(x, "log1p\'s argument"))


@builtin("expm1", pure="a value", any_rank=True, twice=True, **_elementwise("expm1", "exp(x) - 1, accurate for x near 0.",
                                 "print(expm1(1e-10), exp(1e-10) - 1)",
                                 "The companion of log1p: exp(x) - 1 for tiny x cancels to a few "
                                 "correct digits, expm1 keeps all of them. The derivative is exp(x)."),
         grad=UNARY)
def expm1(x):
    return F.expm1(numeric_or_tracked(x, "expm1\'s argument"))


@builtin("sqrt", pure="a value", any_rank=True, twice=True, **_elementwise("sqrt", "The square root.", "print(sqrt([4.0, 2.25]))",
                                "The square root of a negative number is NaN. The derivative is "
                                "1/(2 sqrt(x)), Inf at 0."), grad=[GradCase(c.args, domain="positive") for c in UNARY])
def sqrt(x):
    return F.sqrt(numeric_or_tracked(x, "sqrt\'s argument"))


@builtin("sin", pure="a value", any_rank=True, twice=True, **_elementwise("sin", "The sine (radians).", "print(round(sin([0.0, 1.5707963267948966]), 4))",
                               "Infinite input gives NaN. The derivative is cos(x)."), grad=UNARY)
def sin(x):
    return F.sin(numeric_or_tracked(x, "sin\'s argument"))


@builtin("cos", pure="a value", any_rank=True, twice=True, **_elementwise("cos", "The cosine (radians).", "print(round(cos([0.0, 3.141592653589793]), 4))",
                               "Infinite input gives NaN. The derivative is -sin(x)."), grad=UNARY)
def cos(x):
    return F.cos(numeric_or_tracked(x, "cos\'s argument"))


@builtin("abs", pure="a value", any_rank=True, twice=True, **_elementwise("abs", "The absolute value.", "print(abs([-1.5, 0.0, 2.0]))",
                               "The derivative is the sign of x, taken as 0 at x = 0."),
         grad=[GradCase(c.args, domain="away_from_zero") for c in UNARY])
def abs_(x):
    return F.abs(numeric_or_tracked(x, "abs\'s argument"))


_REDUCE_CASES = [GradCase((V,)), GradCase((M,)), GradCase((M, Const(0))), GradCase((M, Const(1))),
                 GradCase((M,), {"axis": 1}), GradCase((S,)), GradCase((M,), {"skipnan": True}, domain="with_nan"),
                 GradCase((M,), {"axis": 0, "skipnan": True}, domain="with_nan"),
                 GradCase((V,), {"skipnan": True}, domain="with_nan"), GradCase((R3,)),
                 GradCase((R3,), {"axis": 1}), GradCase((R3,), {"axis": -1}), GradCase((R3,), {"axis": [0, 2]}),
                 GradCase((R4,), {"axis": [3, 1]}), GradCase((R4,), {"axis": -4}),
                 GradCase((R3,), {"axis": [1, 2], "skipnan": True}, domain="with_nan")]
ORIENTATION = ("Along an axis the result keeps its orientation: axis 0 of an m x n matrix gives a "
               "1 x n row, axis 1 an m x 1 column, so m - mean(m, axis = 0) and m ./ sum(m, axis = 1) "
               "broadcast the right way on every shape. On any rank axis = k keeps axis k with length 1 "
               "(of a 2x3x4 array, axis 1 gives 2x1x4), axis = [0, 2] reduces both (1x3x1), and a "
               "negative axis counts from the end (-1 the last); a vector's axis 0 is all of it.")
SKIPNAN = "skipnan = true leaves NaN elements out (they get no gradient)."


def _skip(skipnan, name: str) -> bool:
    if isinstance(skipnan, bool):
        return skipnan
    raise LaminaError("TypeError", f"{name}'s skipnan must be true or false, not {describe(skipnan)}.")


def _reduction(name: str, what: str, example: str, notes: str):
    return dict(category=CATEGORY,
                shapes=[Shape(f"{name}(x)", "tensor", "number", f"{what} of every element."),
                        Shape(f"{name}(x, axis)", "tensor, axis k", "row, column or array",
                              f"{what} along axis k, kept with length 1: axis 0 of a matrix gives a "
                              f"1 x n row, axis 1 an m x 1 column."),
                        Shape(f"{name}(x, axis = [j, k])", "tensor, list of axes", "array",
                              f"{what} along several axes, each kept with length 1."),
                        Shape(f"{name}(x, skipnan = true)", "tensor", "number",
                              f"{what} of the elements that are not NaN.")],
                summary=f"{what} of the elements of a tensor, or along some of its axes.",
                examples=[example, f"m = [1, 3; 2, 2]    # axis -1 is the last; [0, 1] both, kept as 1 x 1\n"
                                   f"print({name}(m, axis = -1), {name}(m, axis = [0, 1]))",
                          f"x = reshape(range(1, 25), 2, 3, 4)\n"
                          f"print(size({name}(x, axis = 1)), size({name}(x, axis = [0, 2])))\n"
                          f"print({name}(x, axis = [0, 2]))"],
                notes=f"{notes} {ORIENTATION} {SKIPNAN}")


@builtin("sum", elsewhere={"colSums": "R", "rowSums": "R"},
         pure="a value", any_rank=True, twice=True, **_reduction("sum", "The sum", "m = [1, 3; 2, 2]\nprint(sum(m), sum(m, 0), sum(m, axis = 1))\n"
                             "print(m ./ sum(m, axis = 1), sum([1, NaN, 2], skipnan = true))",
                             "A matrix is summed over all elements unless an axis is given. The "
                             "gradient of a sum is 1 for every element it added; with skipnan a slice "
                             "of NaNs only sums to 0."), grad=_REDUCE_CASES)
def sum_(x, axis=None, *, skipnan=False):
    return R.sum(numeric_or_tracked(x, "sum\'s argument"), axes_arg(axis, "sum"), _skip(skipnan, "sum"))


@builtin("mean", elsewhere={"colMeans": "R", "rowMeans": "R"},
         pure="a value", any_rank=True, twice=True, **_reduction("mean", "The mean", "m = [1, 2; 3, 4]\nprint(mean(m), mean(m, axis = 0))\n"
                              "print(m - mean(m, axis = 0), mean([1, NaN, 3], skipnan = true))",
                              "The sum divided by the count; the mean of an empty tensor is NaN, and "
                              "so is the mean of a slice of NaNs only with skipnan. Of a vector of "
                              "dates: the day the mean falls on (R's mean.Date, as it prints), of "
                              "date-times the mean instant; NA if one is missing, unless skipnan."),
         grad=_REDUCE_CASES)
def mean(x, axis=None, *, skipnan=False):
    if axis is None and isinstance(x, LibObject) and hasattr(x, "central"):
        return x.central("mean", _skip(skipnan, "mean"))        # the middle of some dates
    return R.mean(numeric_or_tracked(x, "mean\'s argument"), axes_arg(axis, "mean"), _skip(skipnan, "mean"))


@builtin("prod", pure="a value", any_rank=True, twice=True, **_reduction("prod", "The product", "print(prod([1, 2, 3, 4]), prod([1, 2; 3, 4], axis = 0))",
                              "The gradient for each element is the product of all the others, "
                              "computed from running products so that zeros are handled exactly; with "
                              "skipnan a NaN counts as 1."),
         grad=_REDUCE_CASES)
def prod(x, axis=None, *, skipnan=False):
    return R.prod(numeric_or_tracked(x, "prod\'s argument"), axes_arg(axis, "prod"), _skip(skipnan, "prod"))


@builtin("logsumexp", pure="a value", any_rank=True, twice=True, category=CATEGORY,
         shapes=[Shape("logsumexp(x)", "tensor", "number", "log(sum(exp(x))) over every element."),
                 Shape("logsumexp(x, axis = k)", "tensor, axis or list of axes", "row, column or array",
                       "Along axis k (or axes [j, k]), each kept with length 1, as sum's.")],
         summary="log(sum(exp(x))) without overflow: the log of a sum of exponentials, over every element "
                 "or along axes.",
         examples=["print(logsumexp([1000, 1000]), log(sum(exp([1000, 1000]))))",
                   "m = [0, 1; 2, 3]\nprint(logsumexp(m, axis = 1))\nprint(round(exp(m - logsumexp(m, axis = 1)), 4))   # each row's softmax"],
         notes="Computed as t + log(sum(exp(x - t))) with t the largest element of each slice, so "
               "exp never overflows and the largest term is exactly 1, as scipy.special.logsumexp "
               "and torch.logsumexp compute it (torch drops the axis unless keepdim = True). The "
               "log-likelihood of a mixture and the normaliser of log-probabilities are written "
               "with it: x - logsumexp(x, axis = 1) is each row's log-softmax. An empty tensor "
               "gives -Inf (the log of an empty sum), a slice of -Inf only -Inf, an Inf element "
               "Inf and a NaN NaN. The gradient is the softmax along the axes, "
               f"exp(x - logsumexp(x)). {ORIENTATION}",
         grad=[GradCase((V,)), GradCase((M,)), GradCase((M,), {"axis": 0}), GradCase((M,), {"axis": 1}),
               GradCase((S,)), GradCase((R3,)), GradCase((R3,), {"axis": -1}), GradCase((R3,), {"axis": [0, 2]}),
               GradCase((R4,), {"axis": [3, 1]})])
def logsumexp(x, axis=None):
    return R.logsumexp(numeric_or_tracked(x, "logsumexp\'s argument"), axes_arg(axis, "logsumexp"))


def _extreme(name: str, what: str, pair: str):
    return dict(category=CATEGORY,
                shapes=[Shape(f"{name}(x)", "tensor", "number", f"The {what} element."),
                        Shape(f"{name}(x, axis = k)", "tensor, axis or list of axes", "row, column or array",
                              f"The {what} along axis k (or axes [j, k]), kept with length 1: of each "
                              f"column of a matrix (axis 0, a 1 x n row) or row (axis 1, an m x 1 column)."),
                        Shape(f"{name}(x, skipnan = true)", "tensor", "number",
                              f"The {what} element that is not NaN."),
                        Shape(f"{name}(a, b)", "two numbers or tensors", "broadcast shape",
                              f"Elementwise {what} of a and b, with broadcasting.")],
                summary=f"The {what} element of a tensor, or with two operands their elementwise "
                        f"{what} ({pair}).",
                examples=[f"print({name}([3, 1, 2]), {name}([1, 5; 7, 2], axis = 0), {name}([1, 5; 7, 2], axis = [0, 1]))",
                          f"print({name}([-1.5, 0.5, 2.0], 0), {name}([4, NaN, 1], skipnan = true))",
                          f"x = reshape(range(1, 25), 2, 3, 4)\nprint({name}(x, axis = [0, 2]))"],
                notes=f"With one operand the gradient goes to the {what} element (the first one "
                      f"on ties); a NaN element makes the result NaN unless skipnan = true leaves "
                      f"NaNs out (a slice of NaNs only then gives NaN). {ORIENTATION} With two "
                      f"operands, as in "
                      f"MATLAB and Julia, the {what} is taken elementwise under the language's "
                      f"broadcasting and each element's gradient goes to the operand it came from; "
                      f"where the two are equal the whole gradient goes to the first operand, a "
                      f"(torch splits it in halves), so {name}(a, b) and {name}(b, a) differ in "
                      f"their gradients there. A NaN in either operand gives NaN and passes the "
                      f"whole gradient to both operands, as torch.{name}imum does.")


_EXTREME_CASES = [GradCase((V,)), GradCase((M,)), GradCase((M,), {"axis": 0}), GradCase((M,), {"axis": 1}),
                  GradCase((S, S)), GradCase((V, V)), GradCase((M, S)), GradCase((M, (3,))),
                  GradCase((M, (1, 2))), GradCase((V, Const(0.0))), GradCase((M,), {"skipnan": True}, domain="with_nan"),
                  GradCase((M,), {"axis": 1, "skipnan": True}, domain="with_nan"), GradCase((R3,)),
                  GradCase((R3,), {"axis": 1}), GradCase((R3,), {"axis": [0, -1]}), GradCase((R4,), {"axis": [1, 2]}),
                  GradCase((R3,), {"axis": 0, "skipnan": True}, domain="with_nan"), GradCase((R3, R3)),
                  GradCase((R3, (1, 3, 1))), GradCase((R4, S))]


def _min_max(name: str, a, b, axis, skipnan, reduce, pairwise):
    skip = _skip(skipnan, name)
    if b is None and axis is None and isinstance(a, LibObject) and hasattr(a, "extreme"):
        return a.extreme(name == "max", skip)          # the earliest or latest of some dates
    if b is None:
        return reduce(numeric_or_tracked(a, f"{name}\'s argument"), axes_arg(axis, name), skip)
    if axis is not None or skip:
        raise LaminaError("TypeError", f"{name}(a, b) compares two operands elementwise and takes no "
                          f"{'axis' if axis is not None else 'skipnan'}; use {name}(x, axis = k) or "
                          f"{name}(x, skipnan = true) to reduce one tensor.")
    return pairwise(*operands((a, f"{name}\'s argument"), (b, f"{name}\'s argument")))


@builtin("max", pure="a value", any_rank=True, twice=True, **_extreme("max", "largest", "max(x, 0) clips negatives to 0"), grad=_EXTREME_CASES)
def max_(a, b=None, axis=None, *, skipnan=False):
    if type(a) is float and type(b) is float and axis is None and skipnan is False:
        return F.maximum(a, b)      # two numbers, the case loops are made of
    return _min_max("max", a, b=b, axis=axis, skipnan=skipnan, reduce=R.amax, pairwise=F.maximum)


@builtin("min", pure="a value", any_rank=True, twice=True, **_extreme("min", "smallest", "min(x, 1) caps values at 1"), grad=_EXTREME_CASES)
def min_(a, b=None, axis=None, *, skipnan=False):
    if type(a) is float and type(b) is float and axis is None and skipnan is False:
        return F.minimum(a, b)      # two numbers, the case loops are made of
    return _min_max("min", a, b=b, axis=axis, skipnan=skipnan, reduce=R.amin, pairwise=F.minimum)


_PAIR_CASES = [GradCase((S, S), domain="away_from_zero"), GradCase((V, V), domain="away_from_zero"),
               GradCase((M, S), domain="away_from_zero"), GradCase((S, M), domain="away_from_zero"),
               GradCase((M, (3,)), domain="away_from_zero"), GradCase((M, (1, 2)), domain="away_from_zero"),
               GradCase((V, Const(0.75)), domain="away_from_zero"), GradCase((R3, R3), domain="away_from_zero"),
               GradCase((R3, (2, 1, 4)), domain="away_from_zero"), GradCase((R4, S), domain="away_from_zero")]


@builtin("mod", pure="a value", any_rank=True, twice=True, category=CATEGORY,
         shapes=[Shape("mod(a, b)", "two numbers or tensors", "broadcast shape",
                       "a - b floor(a / b): the remainder with the sign of b.")],
         summary="The floored remainder of a divided by b, as Julia's mod: the result has the sign of "
                 "b (or is 0). Works elementwise with broadcasting.",
         examples=["print(mod(7, 3), mod(-7, 3), mod(7, -3), mod(5.5, 2))",
                   "print(mod([0, 1, 2, 3, 4, 5], 3))\nprint(mod(-90, 360))"],
         notes="Floored, like Julia's mod, Python's % and NumPy's mod, unlike C's fmod or Julia's rem "
               "(which take the sign of a): mod(-7, 3) is 2, which is what wrapping an angle or "
               "an index into range wants. mod(a, 0) and mod(Inf, b) are NaN; a NaN operand gives "
               "NaN. The operator a % b is the same floored remainder. Differentiable: the derivative is 1 "
               "for a and -floor(a / b) for b (the function jumps where a / b is whole).",
         grad=_PAIR_CASES)
def mod(a, b):
    if type(a) is float and type(b) is float:
        return ops.mod(a, b)
    return ops.mod(*operands((a, "mod\'s first argument"), (b, "mod\'s second argument")))


@builtin("clamp", elsewhere={"clip": "NumPy"},
         pure="a value", any_rank=True, twice=True, category=CATEGORY,
         shapes=[Shape("clamp(x, lo, hi)", "number or tensor, two bounds", "shape of x",
                       "Each element of x limited to [lo, hi].")],
         summary="Limits each element to the interval [lo, hi]: values below lo become lo, above hi "
                 "become hi.",
         examples=["print(clamp([-2, 0.5, 3], 0, 1))", "print(clamp([1, 5; 9, 2], [2, 3], 6))"],
         notes="clamp(x, lo, hi) is min(max(x, lo), hi): the bounds broadcast against x (numbers, "
               "or a vector that acts as a column of a matrix, as everywhere), and every lo must be at "
               "most its hi. Use -Inf or Inf for one open side. A NaN element stays NaN and "
               "passes no gradient (as in torch.clamp). "
               "Differentiable in all three: inside [lo, hi] (both ends included) the gradient "
               "goes to x, below to lo, above to hi.",
         grad=[GradCase((V, Const(-0.5), Const(0.5))), GradCase((M, Const(-0.3), Const(0.8))),
               GradCase((M, S, Const(10.0))), GradCase(((5,), Const(-10.0), S)),
               GradCase((S, Const(0.0), Const(1.0)), domain="unit"),
               GradCase((M, (3,), Const(10.0))), GradCase((S, S, Const(10.0))),
               GradCase((R3, Const(-0.3), Const(0.8))), GradCase((R3, (1, 3, 1), Const(10.0))),
               GradCase((R4, S, Const(10.0)))])
def clamp(x, lo, hi):
    if type(x) is float and type(lo) is float and type(hi) is float and lo <= hi:
        return F.clamp(x, lo=lo, hi=hi)
    v, low, high = operands((x, "clamp\'s argument"), (lo, "clamp\'s lo"), (hi, "clamp\'s hi"))
    out = F.clamp(v, low, high)
    o = value_of(out)
    l, h = value_of(low), value_of(high)
    if type(o) is np.ndarray:
        l, h = _against(o, l), _against(o, h)
    bad = np.asarray(l > h)
    if bad.any():
        i = int(np.argmax(bad))
        raise LaminaError("ValueError", f"clamp(x, lo, hi) needs lo <= hi, but here lo = "
                          f"{format_number(np.ravel(l)[i])} and hi = {format_number(np.ravel(h)[i])}.")
    return out


def _against(result: np.ndarray, bound) -> np.ndarray:
    """A bound of clamp stretched to the result's shape, as the broadcasting rule applied it."""
    return np.broadcast_to(align(result, bound, "clamp")[1], result.shape)


# -- not differentiable --------------------------------------------------------
@builtin("round", pure="a value", any_rank=True, tracked="constant", category=CATEGORY,
         probes=["round(p, 1)"],
         shapes=[Shape("round(x)", "number or tensor", "same shape", "Rounds to whole numbers."),
                 Shape("round(x, digits)", "number or tensor, whole number", "same shape",
                       "Rounds to `digits` decimal places (negative: to tens, hundreds, ...).")],
         summary="Rounds each element to a number of decimal places (0 by default).",
         examples=["print(round(3.14159, 2), round([0.5, 1.5, 2.5]), round(1234.5, -2))"],
         notes="Exact halves go to the even neighbour, so round(0.5) is 0 and round(1.5) is 2. With "
               "digits, the value as stored is rounded, as R, Python and Julia round: round(0.15, 1) is "
               "0.1, for 0.15 is stored as 0.1499999999999999944 (NumPy's np.round gives 0.2). digits "
               "may be negative (tens, hundreds, ...); beyond 400 either way nothing more changes. "
               "The result is a plain value: rounding passes no gradient.")
def round_(x, digits=0.0):
    if type(x) is float and type(digits) is float and digits.is_integer() and -400.0 <= digits <= 400.0:
        return _round_number(x, int(digits))
    v = value_of(numeric_or_tracked(x, "round\'s argument"))
    # A float64 has at most ~325 decimal places, so more digits change nothing (and fewer
    # than -310 round everything to 0): clamping keeps the count of digits a small number.
    places = min(max(as_int(digits, "round's digits"), -400), 400)
    if not isinstance(v, np.ndarray):
        return _round_number(float(v), places)
    return lamina_value(np.round(v) if places == 0 else _round_places(v, places))


def _round_places(v: np.ndarray, places: int) -> np.ndarray:
    """v rounded to `places` decimals as the decimal digits of each stored value say (as R, Python
    and Julia round): round(0.15, 1) is 0.1, for 0.15 is stored as 0.1499999999999999944.
    NumPy's scale-round-rescale gives 0.2 there, as x * 10 lands on the tie 1.5, so its answer is
    kept only away from ties; an element whose scaled value lies within a few units in the last
    place of a half is rounded exactly by Python's round. float32 is rounded through float64."""
    w = np.asarray(v, dtype=np.float64)
    out = np.round(w, places)
    # NumPy scales by 10^places, which overflows (Inf, or NaN from Inf / Inf) where x * 10^places
    # or 10^places itself is beyond the dtype's range: to the right of the point x then has no
    # digit left to round (x itself), to the left x is below half of 10^-places (0, or x if infinite).
    if not np.isfinite(out).all():
        if places > 0:
            out = np.where(np.isfinite(out), out, w)
        else:
            out = np.where(np.isnan(out) & ~np.isnan(w), np.where(np.isinf(w), w, 0.0 * w), out)
    if abs(places) > 22:            # 10^places is not exact: NumPy may miss by a unit anywhere
        near_tie = np.isfinite(w)
    else:
        scale = 10.0 ** abs(places)
        scaled = w * scale if places > 0 else w / scale
        # within 4.5 units in the last place of a half (a unit is at most 2.2e-16 of the value)
        near_tie = np.abs(scaled - np.floor(scaled) - 0.5) <= np.abs(scaled) * 1e-15
    for i in np.flatnonzero(near_tie):
        out.flat[i] = _round_number(float(w.flat[i]), places)
    return out.astype(v.dtype, copy=False)


def _round_number(x: float, places: int) -> float:
    """x rounded to `places` decimals as its stored value's decimal digits say (Python's round);
    a result beyond the largest float is Inf, as the arithmetic overflows."""
    if places == 0:     # round(x) is quicker than round(x, 0): half to even, the sign of a zero kept
        return math.copysign(float(round(x)), x) if x - x == 0.0 else x
    try:
        return round(x, places)
    except OverflowError:           # round(1.7e308, -308): 2e308 has no float
        return math.copysign(math.inf, x)


def _rounding(name: str, meaning: str, example: str, notes: str):
    return dict(category=CATEGORY,
                shapes=[Shape(f"{name}(x)", "number or tensor", "same shape", meaning)],
                summary=f"{meaning} Works elementwise.", examples=[example],
                notes=notes + " The result is a plain value: it passes no gradient.")


@builtin("floor", pure="a value", any_rank=True, tracked="constant", probes=["floor(p)"],
         **_rounding("floor", "The largest whole number not above x.",
                     "print(floor([1.7, -1.2]))", "floor(-1.2) is -2."))
def floor(x):
    if type(x) is float:
        return math.copysign(float(math.floor(x)), x) if x - x == 0.0 else x
    return lamina_value(np.floor(value_of(numeric_or_tracked(x, "floor\'s argument"))))


@builtin("ceil", pure="a value", any_rank=True, tracked="constant", probes=["ceil(p)"],
         **_rounding("ceil", "The smallest whole number not below x.",
                     "print(ceil([1.2, -1.7]))", "ceil(-1.7) is -1."))
def ceil(x):
    if type(x) is float:
        return math.copysign(float(math.ceil(x)), x) if x - x == 0.0 else x
    return lamina_value(np.ceil(value_of(numeric_or_tracked(x, "ceil\'s argument"))))


@builtin("sign", pure="a value", any_rank=True, tracked="constant", probes=["sign(p)"],
         **_rounding("sign", "-1, 0 or 1 as x is negative, zero or positive.",
                     "print(sign([-2.5, 0.0, 3.0]))", "The sign of NaN is NaN."))
def sign(x):
    if type(x) is float:
        return 1.0 if x > 0.0 else -1.0 if x < 0.0 else x if x != x else 0.0
    return lamina_value(np.sign(value_of(numeric_or_tracked(x, "sign\'s argument"))))
