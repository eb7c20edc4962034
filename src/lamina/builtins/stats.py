"""Descriptive statistics builtins (the numerics are in lamina.stats.descriptive)."""
from __future__ import annotations

import numpy as np

from ..errors import LaminaError
from ..stats import descriptive as D
from ..stats import moments as Mo
from ..stats import ordering as O
from ..stats.args import flag
from ..stats.distributions import Distribution
from ..values import LibObject
from .registry import WHOLE_NUMBERS, Const, GradCase, Shape, builtin, refuse_tracked

CATEGORY = "Statistics"
AXIS_NOTE = ("Without an axis every element counts (a matrix is one sample); axis 0 works down "
             "the rows, giving one result per column as a 1 x n row, and axis 1 along each row, "
             "giving one per row as an m x 1 column, as for sum and mean. On any rank axis = k keeps "
             "axis k with length 1 (of a 2x3x4 array, axis 1 gives 2x1x4), axis = [0, 2] takes the "
             "slices across both (1x3x1), and a negative axis counts from the end.")
NAN_NOTE = ("A NaN in the data makes the result NaN; skipnan = true leaves NaNs out instead.")
V, M, R3, R4 = (5,), (4, 3), (2, 3, 4), (2, 1, 3, 2)
CONSTANT_NOTE = ("Values count as constant when they are all equal or differ by rounding "
                 "alone (max - min at most 10 eps max |x|, so [0.1, 0.1, 0.1], whose mean is off in "
                 "the last digit, is constant).")
ORDER_NOTE = ("Differentiable: the gradient of an order statistic goes to the element it came "
              "from (on ties, to one of them), and a value between two order statistics passes "
              "its gradient to both, in the interpolation's proportions (all of it to an infinite "
              "one, which is then the value); a NaN left out by skipnan gets none.")


def _reduce_shapes(name: str, what: str, extra: str = "") -> list[Shape]:
    return [Shape(f"{name}(x{extra})", "tensor", "number", f"The {what} of every element."),
            Shape(f"{name}(x{extra}, axis = k)", "tensor, axis or list of axes", "row, column or array",
                  f"axis 0: the {what} of each column, a 1 x n row; axis 1: of each row, an m x 1 "
                  f"column; on any rank along axis k (or axes [j, k]), each kept with length 1."),
            Shape(f"{name}(x{extra}, skipnan = true)", "tensor with NaNs", "number, row or column",
                  "The same, leaving NaNs out.")]


@builtin("median", pure="a value", any_rank=True, category=CATEGORY, shapes=_reduce_shapes("median", "median"),
         summary="The middle value of the data: half the elements are at most the median, half at least.",
         examples=["print(median([3, 1, 4, 1, 5]), median([1, 2, 3, 4]))",
                   "m = [1, 5; 2, 8; 9, 0]\nprint(median(m, axis = 0), median(m, axis = 1))",
                   "x = [1, 0 / 0, 3]    # 0 / 0 is NaN\nprint(median(x), median(x, skipnan = true))",
                   "x = reshape(range(1, 25), 2, 3, 4)\nprint(median(x, axis = -1))"],
         notes="With an even count the median is the mean of the two middle values, computed as "
               "quantile(x, 0.5) computes it (so it does not overflow near the largest float). Of a "
               "vector of dates: the middle date (with an even count, the day halfway falls on), of "
               "date-times the middle instant; NA if one is missing, unless skipnan. "
               + AXIS_NOTE + " " + NAN_NOTE + " " + ORDER_NOTE,
         grad=[GradCase((V,)), GradCase(((4,),)), GradCase((M,), {"axis": 0}), GradCase((M,), {"axis": 1}),
               GradCase((R3,)), GradCase((R3,), {"axis": 1}), GradCase((R3,), {"axis": [0, -1]}),
               GradCase((R4,), {"axis": 3})])
def median(x, axis=None, skipnan=False):
    if axis is None and isinstance(x, LibObject) and hasattr(x, "central"):
        return x.central("median", flag(skipnan, "median's skipnan"))     # the middle of some dates
    return D.median(x, axis=axis, skipnan=skipnan)


@builtin("var", pure="a value", any_rank=True, category=CATEGORY,
         shapes=_reduce_shapes("var", "sample variance") +
         [Shape("var(x, ddof = 0)", "tensor, whole number", "number, row or column",
                "The population variance (divide by n); ddof = d divides by n - d.")],
         summary="The variance of the data: the mean squared distance from the mean, as a sample "
                 "variance (dividing by n - 1) unless ddof says otherwise.",
         examples=["x = [2, 4, 4, 4, 5, 5, 7, 9]\nprint(var(x), var(x, ddof = 0))",
                   "m = [1, 2; 3, 6; 5, 10]\nprint(var(m, axis = 0), var(m, axis = 1))"],
         notes="var divides the sum of squared deviations by n - ddof, and ddof is 1 by default: "
               "the unbiased sample variance, as in R, MATLAB and Julia (NumPy's default is 0). "
               "With n - ddof <= 0 the variance is NaN. " + AXIS_NOTE + " " + NAN_NOTE + " "
               "Differentiable: the gradient for x is 2 (x - mean) / (n - ddof) in each slice.",
         grad=[GradCase((V,)), GradCase((M,), {"axis": 0}), GradCase((M,), {"axis": 1, "ddof": 0}),
               GradCase(((),), {"ddof": 0}), GradCase((R3,)), GradCase((R3,), {"axis": 2}),
               GradCase((R3,), {"axis": [0, 1], "ddof": 0}), GradCase((R4,), {"axis": [-1, 0]})])
def var(x, axis=None, ddof=1.0, skipnan=False):
    return Mo.var(x, axis=axis, ddof=ddof, skipnan=skipnan)


@builtin("std", elsewhere={"sd": "R"},
         pure="a value", any_rank=True, category=CATEGORY,
         shapes=_reduce_shapes("std", "sample standard deviation") +
         [Shape("std(x, ddof = 0)", "tensor, whole number", "number, row or column",
                "The population standard deviation (divide by n).")],
         summary="The standard deviation: the square root of var, a sample statistic (dividing by "
                 "n - 1) unless ddof says otherwise.",
         examples=["x = [2, 4, 4, 4, 5, 5, 7, 9]\nprint(round(std(x), 4), std(x, ddof = 0))",
                   "print(round(std([1, 2; 3, 6; 5, 10], axis = 0), 4))"],
         notes="sqrt(var(x, ddof = d)), with ddof 1 by default (the sample standard deviation; "
               "pass ddof = 0 for the population one). " + AXIS_NOTE + " " + NAN_NOTE + " "
               "Differentiable: the gradient for x is (x - mean) / ((n - ddof) std), and 0 where std is 0 "
               "(as torch gives).",
         grad=[GradCase((V,)), GradCase((M,), {"axis": 0, "ddof": 0}), GradCase((M,), {"axis": 1}),
               GradCase((R3,)), GradCase((R3,), {"axis": 0}), GradCase((R3,), {"axis": [1, 2]}),
               GradCase((R4,), {"axis": 2, "ddof": 0})])
def std(x, axis=None, ddof=1.0, skipnan=False):
    return Mo.std(x, axis=axis, ddof=ddof, skipnan=skipnan)


@builtin("quantile", pure="a value", any_rank=True, category=CATEGORY,
         shapes=[Shape("quantile(x, q)", "tensor, probability", "number", "The q-quantile of every element."),
                 Shape("quantile(x, qs)", "tensor, vector of probabilities", "vector", "Several quantiles at once."),
                 Shape("quantile(x, q, axis = k)", "tensor, probability, axis or list of axes",
                       "row, column or array",
                       "Per column (axis 0, a 1 x n row) or per row (axis 1, an m x 1 column); several "
                       "qs give a matrix, the qs along axis k (along the first of several axes)."),
                 Shape("quantile(d, p)", "distribution, probability or tensor", "number or tensor",
                       "The inverse cdf of a distribution (see normal).")],
         summary="Quantiles of data: the value below which a fraction q of the data lies "
                 "(quantile(x, 0.5) is the median). Also the inverse cdf of a distribution.",
         examples=["x = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\nprint(quantile(x, 0.25), quantile(x, [0.1, 0.5, 0.9]))",
                   "m = [1, 10; 2, 20; 3, 30; 4, 40]\nprint(quantile(m, 0.5, axis = 0))\n"
                   "print(quantile(m, [0.25, 0.75], axis = 0))",
                   "print(round(quantile(normal(0, 1), 0.975), 4))"],
         notes="Linear interpolation between order statistics (R's default type 7, NumPy's "
               "'linear'): the q-quantile of n sorted values sits at position q * (n - 1): the "
               "order statistic there when that is a whole number, else lo + f (hi - lo) between "
               "its neighbours lo and hi, f the fractional part. An infinite neighbour is the "
               "result (quantile([1, 2, 1 / 0], 0.75) is Inf), and -Inf and Inf give NaN. "
               "Probabilities outside 0 to 1 are a ValueError. With several qs and axis 0 the result "
               "has one row per q and one column per column of x; with axis 1 one row per row of x "
               "and one column per q: on any rank the qs lie along the reduced axis (the first of "
               "several), the other reduced axes kept with length 1. " + AXIS_NOTE + " " + NAN_NOTE + " Given a distribution, "
               "quantile(d, p) is its inverse cdf, computed by SciPy. " + ORDER_NOTE + " The "
               "probabilities get no gradient: a tracked q is a TypeError.",
         grad=[GradCase((V, Const(0.3))), GradCase((M, Const(np.array([0.25, 0.9]))), {"axis": 1}),
               GradCase((M, Const(0.5)), {"axis": 0}), GradCase(((6,), Const(np.array([0.0, 0.5, 1.0])))),
               GradCase((R3, Const(0.3))), GradCase((R3, Const(0.7)), {"axis": -1}),
               GradCase((R3, Const(np.array([0.2, 0.6]))), {"axis": [2, 0]}),
               GradCase((R4, Const(0.4)), {"axis": 1})])
def quantile(x, q, axis=None, skipnan=False):
    if isinstance(x, Distribution):
        if axis is not None or skipnan is not False:
            raise LaminaError("TypeError", "quantile(d, p) of a distribution takes no axis or skipnan: "
                              "they are for data.")
        return x.quantile(q)
    return D.quantile(x, q=q, axis=axis, skipnan=skipnan)


@builtin("cov", pure="a value", category=CATEGORY,
         shapes=[Shape("cov(x, y)", "two vectors of length n", "number", "The sample covariance of x and y."),
                 Shape("cov(X)", "n x k matrix (rows are observations)", "k x k matrix",
                       "The covariance of every pair of columns."),
                 Shape("cov(x)", "vector", "number", "The sample variance of x.")],
         summary="Sample covariance: how two variables vary together. Rows are observations, "
                 "columns variables; divides by n - 1 unless ddof says otherwise.",
         examples=["print(cov([1, 2, 3, 4], [2, 4, 5, 9]))",
                   "X = [1, 2; 2, 4; 3, 5; 4, 9]\nprint(cov(X))"],
         notes="cov(x, y) = sum((x - mean(x)) .* (y - mean(y))) / (n - ddof), ddof = 1 by default "
               "(the unbiased sample covariance, as in R and MATLAB). The diagonal of cov(X) holds "
               "the column variances. A NaN makes the results that involve it NaN; skipnan = true "
               "drops every row that has a NaN in any column used. Differentiable in x and y "
               "(rows that skipnan drops get no gradient).",
         grad=[GradCase((V, V)), GradCase((M,)), GradCase((V,)), GradCase(((5, 2),), {"ddof": 0})])
def cov(x, y=None, ddof=1.0, skipnan=False):
    return Mo.cov(x, y=y, ddof=ddof, skipnan=skipnan)


@builtin("corr", elsewhere={"cor": "R", "corrcoef": "NumPy"},
         pure="a value", category=CATEGORY,
         shapes=[Shape("corr(x, y)", "two vectors of length n", "number", "Pearson's correlation of x and y."),
                 Shape("corr(X)", "n x k matrix (rows are observations)", "k x k matrix",
                       "The correlation of every pair of columns.")],
         summary="Pearson's correlation coefficient, from -1 (perfectly opposed) through 0 to 1 "
                 "(perfectly in step).",
         examples=["print(corr([1, 2, 3, 4], [2, 4, 6, 8]), corr([1, 2, 3], [3, 2, 1]))",
                   "X = [1, 2, 5; 2, 4, 3; 3, 5, 2; 4, 9, 1]\nprint(round(corr(X), 3))"],
         notes="cov(x, y) / (std(x) * std(y)); the ddof cancels. A constant variable has no "
               "correlation: the results that involve it are NaN (its own diagonal entry too). "
               + CONSTANT_NOTE + " A NaN makes the results that involve it NaN; "
               "skipnan = true drops every row that has a NaN in any column used. Differentiable "
               "in x and y.",
         grad=[GradCase((V, V)), GradCase(((6, 3),))])
def corr(x, y=None, skipnan=False):
    return Mo.corr(x, y=y, skipnan=skipnan)


@builtin("zscore", pure="a new standardized copy", any_rank=True, category=CATEGORY,
         shapes=[Shape("zscore(x)", "tensor", "same shape",
                       "(x - mean) / std over every element."),
                 Shape("zscore(x, axis = k)", "tensor, axis or list of axes", "same shape",
                       "Standardized within each column (axis 0) or row (axis 1) of a matrix; on any "
                       "rank within each slice along axis k (or axes [j, k]).")],
         summary="Standard scores: how many standard deviations each element lies from the mean.",
         examples=["print(round(zscore([2, 4, 6]), 4))",
                   "print(round(zscore([1, 10; 2, 20; 3, 30], axis = 0), 4))"],
         notes="(x - mean(x)) / std(x) with the sample standard deviation (ddof = 1, as MATLAB's "
               "zscore; pass ddof = 0 for SciPy's default). A constant slice gives NaN (0 / 0), and "
               "its gradient is NaN. " + CONSTANT_NOTE + " " + AXIS_NOTE + " " + NAN_NOTE + " "
               "To scale the columns of a data matrix, and the test "
               "set with the training set's means, see standardize. Differentiable, through the "
               "mean and the standard deviation as well.",
         grad=[GradCase((V,)), GradCase((M,), {"axis": 0}), GradCase(((3, 4),), {"axis": 1, "ddof": 0}),
               GradCase((R3,)), GradCase((R3,), {"axis": 1}), GradCase((R4,), {"axis": [0, 2]})])
def zscore(x, axis=None, ddof=1.0, skipnan=False):
    return Mo.zscore(x, axis=axis, ddof=ddof, skipnan=skipnan)


@builtin("cumsum", pure="a value", any_rank=True, category=CATEGORY,
         shapes=[Shape("cumsum(x)", "vector", "vector", "Running totals."),
                 Shape("cumsum(x, axis = k)", "tensor, axis", "same shape",
                       "Running totals down each column (axis 0) or along each row (axis 1) of a "
                       "matrix; on any rank along axis k (a negative k counts from the end)."),
                 Shape("cumsum(m)", "matrix or array", "vector", "Running totals of the elements in row-major order.")],
         summary="Cumulative sums: element i of the result is the sum of elements 0 to i.",
         examples=["print(cumsum([1, 2, 3, 4]))", "print(cumsum([1, 2; 3, 4], axis = 0), cumsum([1, 2; 3, 4], axis = 1))"],
         notes="The last element of cumsum(v) is sum(v). Without an axis a matrix (or an array of "
               "any rank) is read row by row, its last axis fastest. A NaN makes every later total NaN; skipnan = true counts NaNs as 0. "
               "Differentiable: element i's gradient is the sum of the totals' gradients from i on.",
         grad=[GradCase((V,)), GradCase(((3, 4),)), GradCase(((3, 4),), {"axis": 0}),
               GradCase(((3, 4),), {"axis": 1}), GradCase((R3,)), GradCase((R3,), {"axis": 1}),
               GradCase((R4,), {"axis": -1})])
def cumsum(x, axis=None, skipnan=False):
    return D.cumsum(x, axis=axis, skipnan=skipnan)


def _by_field(row):
    return float(row[1])         # as Lamina reads an element: a number


@builtin("sort", pure="a new sorted copy", category=CATEGORY,
         shapes=[Shape("sort(x)", "vector", "vector", "The elements in increasing order."),
                 Shape("sort(x, descending = true)", "vector", "vector", "In decreasing order."),
                 Shape("sort(m, axis = k)", "matrix, 0 or 1", "matrix", "Each column (axis 0) or row (axis 1) sorted."),
                 Shape("sort(xs)", "list of strings or numbers", "list", "The items in order."),
                 Shape("sort(xs, by = f)", "vector, matrix or list; function", "the same kind",
                       "Ordered by f of each element (of each row of a matrix, of each item of a list)."),
                 Shape("sort(records, by = \"name\")", "list of records, field name", "list",
                       "The records ordered by that field.")],
         summary="Sorts the elements of a vector (or the items of a list) into increasing or decreasing "
                 "order, by their values or by a key: a function of each item, or a field of records.",
         examples=["print(sort([3, 1, 2]), sort([3, 1, 2], descending = true))",
                   "print(sort([3, 1; 2, 5; 1, 4], axis = 0))", 'print(sort(["pear", "apple", "fig"]))',
                   "print(sort([-3, 1, -2], by = abs))\nprint(sort([3, 1; 2, 5; 1, 4], by = row -> row[1]))",
                   'people = [{name = "Ann", age = 41}, {name = "Bo", age = 29}, {name = "Cy", age = 41}]\n'
                   'for p in sort(people, by = "age", descending = true)\n    print(p.name, p.age)\nend for'],
         notes="Returns a new value; the argument is unchanged. NaN sorts last (in either order). "
               "A vector of dates sorts by time and a category by the order of its levels, a missing "
               "cell last, as NaN. "
               "Without an axis a matrix is sorted as one row-major sequence and comes back as a "
               "vector. Strings sort by Unicode code point. The sort is stable: items with equal "
               "keys keep their order, in either direction. by is a function, which sees each "
               "element of a vector as a number, each row of a matrix as a vector (so a matrix "
               "sorted by a function keeps its rows whole and reorders them) and each item of a "
               "list, and must give all numbers or all strings; or the name of a field, for a list "
               "of records. by and axis do not go together. To reorder other data in the same "
               "order, use argsort. Differentiable: each sorted value's gradient goes back to the "
               "element (or row) it came from.",
         grad=[GradCase((V,)), GradCase((V,), {"descending": True}), GradCase((M,), {"axis": 0}),
               GradCase(((3, 4),), {"axis": 1, "descending": True}), GradCase(((3, 4),)),
               GradCase((V,), {"by": abs}), GradCase((M,), {"by": _by_field, "descending": True})])
def sort(x, axis=None, descending=False, by=None):
    return O.sort(x, axis=axis, descending=descending, by=by)


@builtin("unique", pure="a value", tracked="refuses", category=CATEGORY,
         probes=["unique(p)"],
         shapes=[Shape("unique(x)", "tensor or list", "vector or list", "The distinct values, sorted."),
                 Shape("unique(x, counts = true)", "tensor or list", "record {values, counts}",
                       "Also how often each value occurs."),
                 Shape("unique(t)", "table", "table", "Its distinct rows, each first one in the table's order."),
                 Shape("unique(t, counts = true)", "table", "table", "With a column n of how many rows each stands for.")],
         summary="The distinct values of a tensor (or list of strings), sorted, optionally with their counts.",
         examples=["print(unique([3, 1, 3, 2, 1]))", 'u = unique(["b", "a", "b"], counts = true)\nprint(u.values, u.counts)',
                   't = table({g = ["b", "a", "b", "a"], x = [1, 2, 1, 3]})\nprint(unique(t))\nprint(unique(t[:, ["g"]], counts = true))'],
         notes="A matrix is read as all of its elements. NaNs count as one value, sorted last. "
               "A vector of dates gives its distinct dates in time order, and a category its "
               "distinct cells in the order of its levels (a category still, with all its levels); "
               "a missing cell counts as one value, last. "
               "unique(y) of class labels lists the classes; counts gives how balanced they are. "
               "Of a table, unique keeps the first row of each distinct combination of cells, in "
               "the table's order, as pandas' drop_duplicates (missing cells equal each other); "
               "with counts = true a column n says how many rows each stands for.")
def unique(x, counts=False):
    refuse_tracked("unique", (x,))
    if isinstance(x, LibObject):                  # a table: loaded only when one is given
        from ..stats.table import Table
        from ..stats.tableops import distinct_rows
        if isinstance(x, Table):
            return distinct_rows(x, counts=flag(counts, "unique's counts"))
    return D.unique(x, counts=counts)


@builtin("histogram", pure="a record", tracked="refuses", category=CATEGORY,
         probes=["histogram(p)", "histogram([1, 2, 3], p)"],
         float64_results=(WHOLE_NUMBERS, ("result.counts",)),
         shapes=[Shape("histogram(x)", "tensor", "record {counts, edges}", "10 equal bins from min to max."),
                 Shape("histogram(x, bins)", "tensor, number of bins", "record {counts, edges}", "n equal bins."),
                 Shape("histogram(x, edges)", "tensor, increasing vector", "record {counts, edges}", "Bins with the given edges."),
                 Shape("histogram(x, bins, range = [lo, hi])", "tensor, count, two numbers", "record {counts, edges}",
                       "Equal bins over a fixed range.")],
         summary="Counts how many values fall in each bin; returns the counts and the bin edges "
                 "(one more edge than counts).",
         examples=["h = histogram([1, 2, 2, 3, 3, 3, 4], 3)\nprint(h.counts, h.edges)",
                   "h = histogram([0.5, 1.5, 1.7, 9], [0, 1, 2, 10])\nprint(h.counts)"],
         notes="Bins are half-open [a, b) except the last, which includes its right edge (NumPy's "
               "rule). Values outside a given range are not counted. A NaN or Inf falls in no bin and "
               "is a ValueError; skipnan = true leaves NaNs out. To draw a histogram use hist.")
def histogram(x, bins=10.0, range=None, skipnan=False):
    refuse_tracked("histogram", (x, bins, range))
    return D.histogram(x, bins=bins, range=range, skipnan=skipnan)
