"""Data builtins: tables and CSV files, describe, train/test splits, standardize."""
from __future__ import annotations

import numpy as np

from ..autodiff import shaping
from ..errors import LaminaError
from ..printing import format_number
from ..rng import generator
from ..stats import data as DT
from ..stats import rows as RW
from ..stats.table import as_table
from ..values import as_int, value_of
from ..values import describe as describe_value
from .registry import FLOAT64_STATISTICS, Const, GradCase, Shape, builtin, refuse_tracked

CATEGORY = "Data"
TABLE_NOTE = ("A table has named columns of one length: numeric columns are vectors, text columns "
              "read as lists of strings. t.name and t[:, \"name\"] read a column, t[i, \"name\"] one cell, "
              "t[a:b, :] (or t[i]) some rows and t[:, [\"a\", \"b\"]] some columns, each as a new "
              "table. print shows the first rows.")
SMALL = 'write_csv({x = [1, 2, 3, 4], y = [2.1, 3.9, 6.2, 7.8], group = ["a", "b", "a", "b"]}, "small.csv")\n'


@builtin("read_csv", pure="a table", tracked="constant", category=CATEGORY,
         probes="takes a path",
         shapes=[Shape("read_csv(path)", "file path", "table", "The file's columns, named by its header line."),
                 Shape("read_csv(path, sep = \";\")", "path, one character", "table", "Another field separator."),
                 Shape("read_csv(path, types = {id = \"text\"})", "path, record of types", "table",
                       "Read a column as text (or \"number\": fail unless it is numeric)."),
                 Shape("read_csv(path, na = [\"\", \"-\"])", "path, list of strings", "table",
                       "The cells that are missing values (as R's na.strings)."),
                 Shape("read_csv(path, columns = [\"a\", \"b\"])", "path, column names", "table",
                       "Only those columns, in that order.")],
         summary="Reads a CSV file with a header line into a table: numeric columns become vectors, "
                 "others text.",
         examples=[SMALL + 't = read_csv("small.csv")\nprint(t)\nprint(t.y, t[:, "group"], t[2, "x"])',
                   'write_csv({id = ["007", "12"], score = ["9.5", "-"]}, "ids.csv")\n'
                   't = read_csv("ids.csv", types = {id = "text"}, na = ["", "-"])\nprint(t.id, t.score)'],
         notes="The first line names the columns (names must be unique and not empty). A column's "
               "type is decided by all its cells: it is numeric when every cell that is not missing is "
               "a number (a missing cell is NaN), text when at most half of them are, and otherwise a "
               "ValueError naming the first cell that is not a number (a typo in a column of numbers "
               "should not turn it into text). The missing cells are the empty ones and NA, N/A, n/a, "
               "NaN, nan, null and NULL, or the words of na (an empty cell always is); in a text "
               "column they are missing too (printed NA, read as \"\"). A number is written with the "
               "ASCII digits 0-9, an optional sign, decimal point and exponent (7, -2.5, .5, 3e-4), or "
               "is Inf, inf, -Inf; anything else is text, even where Python would read a number: "
               "1_000, \"1,000\", ١٢ and Infinity are text. Whole numbers beyond 2^53, which a "
               "float64 cannot hold exactly (ids), keep their digits as text. types = {col = \"text\"} "
               "(or text = [\"col\"]) reads a column as text whatever it holds; \"number\" makes a "
               "column that is not numeric an error. A field in quotes may hold the separator, line "
               "breaks and quotes (each written twice, \"\") and keeps its text exactly, spaces "
               "included (a number in quotes is still a number); an unquoted field is trimmed of the "
               "spaces around it. sep may be any one character but a quote or a line break. Empty "
               "lines (and lines of only spaces) are skipped; a line holding only \"\" is a row with "
               "one empty field. The file must be UTF-8 (a byte order mark is skipped); lines end with "
               "\\n, \\r\\n or \\r. A line may be at most 1,048,576 bytes and a field at most 131,072 "
               "characters, so reading a file that is not CSV (say /dev/zero) stops with an error "
               "instead of filling memory. The whole file is checked before a table is returned: bytes "
               "that are not UTF-8, a NUL byte, an over-long line or field, a quote that is never "
               "closed or a row with the wrong number of fields is a ValueError naming the file, the "
               "line and the column, so nothing is half-read. An ordinary file is read by Apache "
               "Arrow's reader on every core; a read of more than two seconds shows a progress bar on "
               "the terminal. Relative paths are relative to the working directory. Under lamina "
               "--allow-read or --sandbox, a file outside the allowed folders is a PermissionError. "
               + TABLE_NOTE)
def read_csv(path, sep=",", text=None, na=None, types=None, columns=None):
    return DT.read_csv(path, sep=sep, text=text, na=na, types=types, columns=columns)


@builtin("write_csv", elsewhere={"to_csv": "pandas"},
         tracked="constant", category=CATEGORY,
         probes=['write_csv(q, "probe.csv")'],
         shapes=[Shape("write_csv(t, path)", "table, file path", "no output", "Writes the table with a header line."),
                 Shape("write_csv(r, path)", "record of columns, path", "no output", "Each field a column."),
                 Shape("write_csv(X, path, names = [...])", "matrix, path, column names", "no output",
                       "A matrix's columns (named x0, x1, ... without names).")],
         summary="Writes a table, a record of columns or a matrix to a CSV file with a header line.",
         examples=[SMALL + 'print(read_csv("small.csv").x)',
                   'write_csv([1, 2; 3, 4], "m.csv", names = ["a", "b"])\nprint(read_csv("m.csv"))'],
         notes="Numbers are written as the shortest text that reads back to the same number (2, 0.1, "
               "1e+20, 1.5e-7; NaN, Inf and -Inf), so read_csv(path) gives back exactly the values "
               "written; a missing text cell is an empty field. The text is made a column at a time "
               "by Apache Arrow and written in pieces, so a large table's text is never held whole. "
               "Text that holds a comma, a quote or a line break, or begins or ends with a space, is "
               "written in quotes (a quote inside as two), and an empty string alone on its line as "
               "\"\", so read_csv gives every string back exactly (read a text column whose cells "
               "look like numbers with text = [...]). The file is UTF-8 with \\n line ends. "
               "An existing file is replaced atomically: the text goes to a temporary file in the same "
               "folder, which then takes the file's place, so a crash leaves the old file or the new "
               "one, never half of one. Under lamina --allow-write or --sandbox, a path outside the "
               "allowed folders is a PermissionError.")
def write_csv(x, path, names=None):
    DT.write_csv(x, path=path, names=names)


@builtin("table", elsewhere={"DataFrame": "pandas", "tibble": "R", "data_frame": "R"},
         pure="a table", tracked="refuses", category=CATEGORY,
         probes=["table(q)"],
         shapes=[Shape("table(r)", "record of columns", "table", "Each field a column (vector or list of strings)."),
                 Shape("table(X, names)", "matrix, list of names", "table", "A matrix's columns, named.")],
         summary="Makes a table from a record of equally long columns or from a matrix.",
         examples=['t = table({city = ["Oslo", "Rome"], temp = [4.5, 15.2]})\nprint(t)\nprint(t.temp)',
                   'print(table([1, 2; 3, 4], ["a", "b"]))'],
         notes=TABLE_NOTE + " Columns are copied; the table never changes after it is made. The "
               "names of table(X, names) must be unique: a name given twice is a ValueError.")
def table(x, names=None):
    refuse_tracked("table", (x,))
    return DT.make_table(x, names=names)


@builtin("as_matrix", pure="a matrix", tracked="constant", category=CATEGORY,
         probes="takes a table, and a table refuses tracked columns",
         shapes=[Shape("as_matrix(t)", "table of numeric columns", "matrix", "Every column, in order."),
                 Shape("as_matrix(t, names)", "table, list of column names", "matrix", "Those columns, in that order.")],
         summary="The numeric columns of a table as the columns of a matrix (rows are the table's rows).",
         examples=[SMALL + 't = read_csv("small.csv")\nprint(as_matrix(t, ["x", "y"]))'],
         notes="A text column cannot go into a matrix: name the numeric columns you want. The "
               "result is a fresh matrix (one copy of the columns), ready for linreg or kmeans; fit, "
               "predict and evaluate take the table itself.")
def as_matrix(t, names=None):
    return DT.as_matrix(t, names=names)


@builtin("columns", elsewhere={"colnames": "R"},
         pure="a list of strings", tracked="constant", category=CATEGORY,
         probes="takes a table",
         shapes=[Shape("columns(t)", "table", "list of strings", "The column names, in order.")],
         summary="The names of a table's columns.",
         examples=['t = table({a = [1, 2], b = ["x", "y"]})\nprint(columns(t), nrows(t))'],
         notes="keys(t) gives the same list.")
def columns(t):
    return as_table(t, "columns's argument").names


@builtin("nrows", elsewhere={"nrow": "R"},
         pure="a number", tracked="constant", category=CATEGORY, any_rank="items",
         probes=["nrows(q)"],
         shapes=[Shape("nrows(t)", "table", "number", "How many rows the table has."),
                 Shape("nrows(X)", "matrix or array", "number", "Its first dimension, size(X, 0).")],
         summary="The number of rows of a table or matrix.",
         examples=['t = table({a = [1, 2, 3]})\nprint(nrows(t), nrows([1, 2; 3, 4; 5, 6]))'],
         notes="A matrix's rows (an array's first dimension), as R's nrow. A vector has no rows: "
               "length(v) counts its elements.")
def nrows(t):
    v = value_of(t)
    if isinstance(v, np.ndarray) and v.ndim >= 2:
        return float(v.shape[0])
    if isinstance(v, np.ndarray) and v.ndim == 1:
        raise LaminaError("TypeError", f"nrows counts the rows of a table or matrix, but got {describe_value(t)}, "
                          f"which has none: length(v) counts its elements.")
    return float(as_table(t, "nrows's argument").nrows)


@builtin("head", pure="a table, or the first elements", category=CATEGORY,
         shapes=[Shape("head(t)", "table", "table", "The first 5 rows."),
                 Shape("head(t, n)", "table, count", "table", "The first n rows."),
                 Shape("head(x, n)", "vector, matrix or list, count", "the same kind",
                       "The first n elements (rows of a matrix, items of a list).")],
         summary="The first rows of a table, as a smaller table; the first elements of a vector or "
                 "list, or rows of a matrix.",
         examples=['t = table({i = range(8), sq = range(8) .^ 2})\nprint(head(t, 3))',
                   'print(head(range(10, 20), 3), head([1, 2; 3, 4; 5, 6], 2))'],
         notes="The same as t[:n, :] (v[:n], X[:n, :], as R's head and pandas' head). Something "
               "shorter than n comes back whole. Differentiable: the kept elements pass their "
               "gradients through.",
         grad=[GradCase(((6,), Const(3.0))), GradCase(((5, 3), Const(2.0)))])
def head(t, n=5.0):
    count = as_int(n, "head's count", minimum=0)
    v = value_of(t)
    if isinstance(v, np.ndarray) and v.ndim >= 1:
        return shaping.take(t, np.arange(min(count, v.shape[0])))
    if isinstance(v, list):
        return v[:count]
    return as_table(t, "head's argument").take(slice(0, count))


RUNS = 't = table({lr = [0.1, 0.01, 0.001], loss = [0.42, 0.17, 0.31]})\n'


@builtin("best", pure="a record", tracked="constant", category=CATEGORY,
         probes="takes a table, and a table refuses tracked columns",
         shapes=[Shape("best(t, name)", "table, numeric column's name", "record",
                       "The row with the smallest number in that column."),
                 Shape("best(t, name, largest = true)", "table, column name, bool", "record",
                       "The row with the largest.")],
         summary="The winning row of a table (a sweep's, say): smallest loss, or largest accuracy.",
         examples=[RUNS + 'b = best(t, "loss")\nprint(b)\nprint(b.lr)',
                   't = table({units = [16, 64], acc = [0.91, 0.95]})\nprint(best(t, "acc", largest = true).units)'],
         notes="The row comes back as a record of its cells (numbers, or strings for text columns). "
               "NaN never wins (the rows of a sweep's failed configurations), and of equal values the "
               "first row wins. A table without rows, or whose column is NaN throughout, is a "
               "ValueError.")
def best(t, name, largest=False):
    return RW.best(t, name=name, largest=largest)


@builtin("describe", pure="a table", tracked="refuses", category=CATEGORY,
         probes=["describe(q)"],
         float64_results=(FLOAT64_STATISTICS, ("result",)),
         shapes=[Shape("describe(t)", "table", "table", "count, mean, std, min, quartiles and max of each numeric column."),
                 Shape("describe(X)", "vector or matrix", "table", "The same for a vector or each column of a matrix.")],
         summary="Summary statistics of each numeric column: count, mean, std, min, 25%, 50%, 75% and max.",
         examples=[SMALL + 'print(describe(read_csv("small.csv")))', "print(describe([1, 2; 3, 4; 5, 9]))"],
         notes="Like pandas' describe: NaNs are left out and count says how many values remain; std "
               "is the sample standard deviation (ddof = 1) and the quartiles use linear "
               "interpolation, as quantile does. Text columns are skipped. The result is a table "
               "whose first column, stat (stat_ when the table has a column named stat), names "
               "each row, so describe(t).mean is not a field: read "
               "a statistic with describe(t)[1, \"x\"] or compute it with mean(t.x).")
def describe(x):
    refuse_tracked("describe", (x,))
    return DT.summarize(x)


@builtin("train_test_split", pure="a record", tracked="refuses", category=CATEGORY,
         probes=["train_test_split(q, p)"],
         shapes=[Shape("train_test_split(X, Y)", "two tensors (or tables, lists) with n rows", "record {X_train, X_test, Y_train, Y_test}",
                       "A random 80/20 split of the rows, the same rows for X and Y."),
                 Shape("train_test_split(X, Y, test = 0.25, seed = n)", "the same, fraction or count, whole number", "record",
                       "Another test share, and its own seed."),
                 Shape("train_test_split(X)", "tensor, table or list", "record {X_train, X_test}", "Split one value."),
                 Shape("train_test_split(X, Y, shuffle = false)", "the same", "record", "The last rows are the test set.")],
         summary="Splits the rows of data (and of matching labels) at random into a training set and a test set.",
         examples=["X = [1, 10; 2, 20; 3, 30; 4, 40; 5, 50]\nY = [1, 2, 3, 4, 5]\n"
                   "s = train_test_split(X, Y, test = 0.4, seed = 0)\nprint(s.X_test, s.Y_test)\nprint(size(s.X_train), s.Y_train)"],
         notes="The test set has ceil(test * n) rows (test < 1) or test rows (test a whole number "
               "of at least 1); both sets must keep at least one row. Rows keep their original "
               "order within each set. With seed the split comes from its own generator (the same "
               "seed, the same split), otherwise from the global one that seed(n) resets. A vector "
               "splits by elements, a matrix or table by rows, a list by items.")
def train_test_split(X, Y=None, test=0.2, seed=None, shuffle=True):
    refuse_tracked("train_test_split", (X, Y))
    if type(Y) is float and 0 < Y < 1:      # scikit-learn's train_test_split(X, 0.25) is its test_size
        raise LaminaError("TypeError", f"train_test_split's second argument is Y, the targets, not the "
                          f"test share: write train_test_split(X, test = {format_number(Y)}), or "
                          f"train_test_split(X, Y, test = {format_number(Y)}).")
    return DT.train_test_split(X, Y=Y, test=test, seed=seed, shuffle=shuffle, rng=generator())


@builtin("standardize", pure="a new standardized copy", category=CATEGORY,
         shapes=[Shape("standardize(X)", "n x k matrix (or vector)", "same shape",
                       "Each column shifted to mean 0 and scaled to standard deviation 1."),
                 Shape("standardize(X, like = X_train)", "matrix, matrix with the same columns", "same shape",
                       "Scaled with another matrix's column means and standard deviations.")],
         summary="Scales the columns of a data matrix to mean 0 and standard deviation 1, optionally "
                 "with the means and deviations of another (training) matrix.",
         examples=["X = [1, 100; 2, 200; 3, 600]\nprint(round(standardize(X), 4))",
                   "train = [0, 10; 2, 30]\ntest = [1, 20; 4, 50]\nprint(round(standardize(test, like = train), 4))"],
         notes="(X - mean) / std per column (axis 0), with the sample standard deviation (ddof = 1 "
               "by default, like std and zscore). A constant column has nothing to scale and "
               "becomes 0s instead of NaNs. NaNs are left out of the means and deviations and stay "
               "NaN. Scale the test set with like = the training set, so that no information from "
               "the test set leaks into training. Differentiable in X and in like (through the "
               "means and deviations too).",
         grad=[GradCase(((5, 3),)), GradCase(((4, 2), (5, 2))), GradCase(((6,),), {"ddof": 0})])
def standardize(X, like=None, ddof=1.0):
    return DT.standardize(X, like=like, ddof=ddof)
