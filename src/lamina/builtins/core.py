"""Core builtins: output, sizes of things, lists and records, functions, errors."""
from __future__ import annotations

import sys
import time

import numpy as np

from .. import printing
from ..autodiff import ops, shaping
from ..errors import LaminaError
from ..lang.operators import bracket, truth
from ..lang.runtime import call, for_each
from ..printing import format_value, set_options
from ..values import (
    LibObject,
    Record,
    Tracked,
    as_int,
    as_mask,
    as_str,
    describe,
    is_function,
    tensor_dtype,
    value_of,
)
from .registry import Const, GradCase, Shape, builtin

CORE = "Core"


@builtin("print", elsewhere={"disp": "MATLAB", "println": "Julia"},
         any_rank="items", tracked="constant", category=CORE,
         probes=["print(p, q)"],
         shapes=[Shape("print(a, b, ...)", "any values", "no output",
                       "Writes the values joined by one space, then a newline.")],
         summary="Writes values to standard output, joined by spaces, ending the line.",
         examples=['print("total:", 1 + 2)\nprint([1, 2; 3, 4])\nprint({name = "w", value = 0.5})'],
         notes="Numbers print without a decimal point when they are whole (`30`, not `30.0`); "
               "otherwise as the shortest text that reads back to the same float64. Tensors print "
               "in bracket syntax with rows joined by `; ` (a 1 x n matrix ends its row with `;`: "
               "`[1, 2;]`), every digit, when that fits in 80 characters; a larger tensor prints "
               "as aligned lines with 6 significant digits under a header, its middle elided "
               "beyond 1000 elements (see print_options). Strings inside lists and records are "
               "quoted, a string on its own is not.")
def print_(*values):
    text = " ".join(format_value(v) for v in values) + "\n"
    try:
        sys.stdout.write(text)
    except BrokenPipeError:
        raise                      # the reader went away (`| head`): the command line stops quietly
    except OSError as exc:         # a full disk, an I/O error: as write_csv says it
        raise LaminaError("ValueError", f"print cannot write the output: {exc.strerror or exc}.") from None


def _option(x, what: str, low: int):
    """A print option: a whole number of at least `low`, or Inf (no bound)."""
    v = value_of(x)
    if isinstance(v, float) and v == float("inf"):
        return v
    return as_int(x, what, minimum=low)


def _digits(x) -> int:
    """print_options' digits: 1 to 22, as R's options(digits) (a float64 has 17 significant digits)."""
    n = as_int(x, "print_options' digits", minimum=1)
    if n > 22:
        raise LaminaError("ValueError", f"print_options' digits must be at most 22, not {n}: a "
                          "float64 has 17 significant digits.")
    return n


@builtin("print_options", any_rank=True, tracked="constant", category=CORE,
         probes=["print_options(digits = p[0] * 2)"],
         shapes=[Shape("print_options(digits = n, limit = m, width = w)", "whole numbers (limit, width: or Inf)",
                       "record", "Sets the options given; returns the previous ones."),
                 Shape("print_options()", "no input", "record", "The current options.")],
         summary="How large tensors print: the significant digits, the element count beyond which the "
                 "middle is elided, and the line width an exact tensor may take.",
         examples=["print(print_options())\nbefore = print_options(digits = 3, limit = 20)\n"
                   "print(reshape(range(1, 31) / 7, 5, 6))\nprint_options(width = Inf)\n"
                   "print(range(0, 12) / 3)\nprint_options(digits = before.digits, limit = before.limit, "
                   "width = before.width)",
                   "print_options(limit = 30)\nprint(range(0, 100) * 1.5)"],
         notes="A tensor whose exact text (every digit, the form that reads back) fits in width "
               "characters (80) prints so. A larger one prints as a block: a header with its shape, "
               "then aligned lines with digits (6, at most 22) significant digits; columns that do not fit in the "
               "width go to further blocks, each under a line naming its columns, as MATLAB shows "
               "them. When it has more than limit (1000) elements, the middle rows (⋮) and the "
               "columns that do not fit in the width (…) are left out instead, as in Julia and "
               "NumPy; limit = Inf shows everything. Inside a list, "
               "a record or a string such a tensor stays on one line. width = Inf prints every "
               "tensor exactly, on one line. The options hold for the whole process, like warnings.")
def print_options(digits=None, limit=None, width=None):
    if digits is None and limit is None and width is None:
        before = printing.OPTIONS         # rebound by set_options: read it now
    else:
        before = set_options(None if digits is None else _digits(digits),
                             None if limit is None else _option(limit, "print_options' limit", 0),
                             None if width is None else _option(width, "print_options' width", 10))
    return Record({"digits": float(before.digits), "limit": float(before.limit), "width": float(before.width)})


@builtin("length", elsewhere={"numel": "MATLAB", "len": "Python"},
         any_rank="items", pure="a number", tracked="constant", category=CORE,
         probes=["length(p)"],
         shapes=[Shape("length(x)", "tensor, list or string", "number",
                       "The number of elements, items or characters.")],
         summary="Counts the elements of a tensor, the items of a list or the characters of a string.",
         examples=['print(length([1, 2, 3]))\nprint(length([1, 2; 3, 4]))\nprint(length(["a", "b"]), length("hello"))'],
         notes="A matrix counts all of its elements (rows times columns). A number has length 1; "
               "none and records have no length.")
def length(x):
    v = value_of(x)
    if isinstance(v, np.ndarray):
        return float(v.size)
    if isinstance(v, (list, str)):
        return float(len(v))
    if isinstance(v, float) and not isinstance(v, bool):
        return 1.0
    if isinstance(v, LibObject) and hasattr(v, "__len__"):         # dates, a category
        return 1.0 if getattr(v, "scalar", False) else float(len(v))
    raise LaminaError("TypeError", f"length needs a tensor, list or string, not {describe(x)}.")


@builtin("append", any_rank="items", pure="a new list or vector", category=CORE,
         shapes=[Shape("append(list, item)", "list, any value", "list", "A new list with the item at the end."),
                 Shape("append(v, x)", "vector, number", "vector", "A new vector with x at the end.")],
         summary="Returns a new list or vector with one more item at the end.",
         examples=['xs = []\nfor i = 1 to 3\n    xs = append(xs, i ^ 2)\nend for\nprint(xs)\n'
                   'names = append(["a"], "b")\nprint(names)'],
         notes="Values are never changed in place, so append returns the longer value and the "
               "original is unchanged. A loop that builds a list or vector with v = append(v, x) "
               "still takes time in proportion to its length: v grows where it is when no other "
               "value holds it, which no program can tell apart. Appending a number to a vector "
               "(or to `[]`) gives a vector, and a date to a vector of dates (or to `[]`) a vector of "
               "dates; appending anything else gives a list. Differentiable: a tracked vector or number "
               "passes its gradient through (a list keeps its items as they are).",
         grad=[GradCase(((3,), ())), GradCase(((0,), ()))])
def append(xs, item):
    v = value_of(xs)
    if isinstance(v, np.ndarray) and v.ndim == 1 and type(value_of(item)) is float:
        if type(xs) is not Tracked and type(item) is not Tracked:
            # the vector's dtype, as the number adapts to it (a mask's is float64: 0/1 and the number)
            return np.append(v, np.asarray(item, dtype=tensor_dtype(v)))
        return shaping.vcat([xs, item])
    if isinstance(v, np.ndarray) and v.ndim == 1:
        if not v.size:
            return bracket((item,))          # as [item]: a date makes a vector of dates
        return for_each(xs) + [item]        # anything but a number: a list of the vector's items
    if isinstance(xs, list):
        return xs + [item]
    cells = v.elements() if isinstance(v, LibObject) else None
    if cells is not None:                    # a vector of dates (a date keeps it one), a category
        return bracket(tuple(cells) + (item,))
    raise LaminaError("TypeError", f"append needs a list or vector, not {describe(xs)}.")


def _append_in_place(seq, item):
    """append(seq, item) written into seq itself, for `v = append(v, x)` once lang/stores.py's
    append_var has made sure that no other value holds v (a loop building a list or vector so
    copied it at every step: quadratic); None where append makes a new value instead."""
    if type(seq) is list:
        seq.append(item)
        return seq
    if type(seq) is np.ndarray and seq.ndim == 1 and seq.dtype.kind == "f" and type(item) is float \
            and seq.base is None:
        n = seq.size
        try:
            seq.resize(n + 1, refcheck=False)       # realloc: amortized, not a copy per append
        except (ValueError, BufferError):           # memory it does not own, or an exported buffer
            return None
        seq[n] = item
        return seq
    return None


append.in_place = _append_in_place


@builtin("concat", any_rank="items", pure="a new list or vector", category=CORE,
         shapes=[Shape("concat(a, b)", "two lists (or two vectors)", "list (or vector)",
                       "The items of a followed by the items of b.")],
         summary="Joins two lists (or two vectors) end to end.",
         examples=['print(concat([1, 2], [3]))\nprint(concat(["a"], ["b", "c"]))'],
         notes="For matrices use hcat and vcat, which follow the vector-as-column rule. `[]` "
               "joins a list as the empty list, so a loop can start from acc = []. "
               "Differentiable for vectors (each part's gradient is its block).",
         grad=[GradCase(((3,), (2,)))])
def concat(a, b):
    va, vb = value_of(a), value_of(b)
    if isinstance(va, np.ndarray) and isinstance(vb, np.ndarray) and va.ndim == vb.ndim == 1:
        return shaping.vcat([a, b])
    if isinstance(a, list) and isinstance(b, list):
        return a + b
    cells = [x.elements() if isinstance(x, LibObject) else None for x in (va, vb)]
    if all(c is not None for c in cells):    # two vectors of dates (or categories): their cells
        return bracket(tuple(cells[0] + cells[1]))
    # [] is an empty list as much as an empty vector (as in append)
    if isinstance(a, list) and _empty_vector(vb):
        return list(a)
    if isinstance(b, list) and _empty_vector(va):
        return list(b)
    raise LaminaError("TypeError", f"concat needs two lists or two vectors, not {describe(a)} and {describe(b)}.")


def _empty_vector(v) -> bool:
    return isinstance(v, np.ndarray) and v.ndim == 1 and v.size == 0


@builtin("keys", any_rank="items", pure="a list of strings", tracked="constant", category=CORE,
         probes=["keys({a = p})"],
         shapes=[Shape("keys(r)", "record", "list of strings", "The field names in order.")],
         summary="Lists the field names of a record.",
         examples=['r = {a = 1, b = 2}\nprint(keys(r))'],
         notes="Fields keep the order in which the record literal (or later assignments) added them.")
def keys(r):
    if isinstance(r, Record):
        return list(r.fields)
    if isinstance(r, LibObject):
        return list(r.field_names())
    raise LaminaError("TypeError", f"keys needs a record, not {describe(r)}.")


@builtin("has", any_rank="items", pure="true or false", tracked="constant", category=CORE,
         probes="takes a record and a name",
         shapes=[Shape("has(r, name)", "record, string", "bool", "Whether the record has that field.")],
         summary="Tells whether a record has a field of the given name.",
         examples=['r = {a = 1}\nprint(has(r, "a"), has(r, "b"))'],
         notes="Reading a missing field is a NameError; has lets a program check first. It "
               "answers for any value with fields (a table's columns, a model's fields), as keys "
               "lists them.")
def has(r, name):
    name = as_str(name, "has's field name")
    if isinstance(r, Record):
        return name in r.fields
    if isinstance(r, LibObject):        # a table's columns, a model's fields: what keys lists
        return name in r.field_names()
    raise LaminaError("TypeError", f"has needs a record, not {describe(r)}.")


def _callable(f, what: str, fn: str):
    if not is_function(f):
        raise LaminaError("TypeError", f"{what} (its second argument) must be a function, not "
                          f"{describe(f)}: {fn}(xs, f) takes the values first.")
    return f


def _items(xs, fn: str) -> list:
    """The elements `map` or `filter` goes through, with a message in its own words."""
    if isinstance(value_of(xs), (np.ndarray, list, str, Record)):
        return for_each(xs)
    cells = _cells(xs)                  # dates, a category
    if cells is None:
        raise LaminaError("TypeError", f"{fn}'s first argument must be a vector, matrix (its rows), "
                          f"list, string or record to go through, not {describe(xs)}: {fn}(xs, f) "
                          "takes the values first and the function second.")
    return cells


@builtin("map", elsewhere={"sapply": "R", "lapply": "R"},
         any_rank="items", category=CORE,
         shapes=[Shape("map(xs, f)", "vector or list, function", "vector or list",
                       "f applied to each element; numbers back give a vector."),
                 Shape("map(r, f)", "record, function", "record",
                       "f applied to each field's value; the same fields, in order.")],
         summary="Applies a function to every element of a vector or list, or to every value of a record.",
         examples=['print(map([1, 2, 3], x -> x ^ 2))\nprint(map(["a", "b"], s -> s + "!"))',
                   'g = {w = [0.5, -2.0], b = 3.0}\nprint(map(g, v -> clamp(v, -1, 1)))'],
         notes="A vector of dates or a category gives f each cell, a date or a level (as `for` "
               "visits them); results that are dates gather into a vector of dates. "
               "When every result is a number the result is a vector (a tracked one if any result "
               "is tracked: map is differentiable, and the elements of a tracked vector reach f "
               "tracked; a float32 one for a float32 xs); otherwise a list. A record gives a record "
               "with the same fields, each holding f of that field's value (a record of gradients "
               "clipped, rounded or scaled field by field); `keys(r)` lists the names. Write "
               "`xs |> map(f)` to read left to right.",
         grad=[GradCase(((4,), Const(lambda x: ops.emul(x, x))))])
def map_(xs, f):
    f = _callable(f, "map's function", "map")
    if isinstance(xs, Record):
        return Record({k: call(f, (v,)) for k, v in xs.fields.items()})
    return shaping.like_items_of(bracket(tuple(call(f, (x,)) for x in _items(xs, "map"))), xs)


@builtin("filter", any_rank="items", category=CORE,
         shapes=[Shape("filter(xs, keep)", "vector or list, function", "vector or list",
                       "The elements for which keep returns true."),
                 Shape("filter(t, row -> ...)", "table, function of a row record", "table",
                       "The rows of a table for which keep returns true."),
                 Shape("filter(X, row -> ...)", "matrix, function of a row vector", "matrix",
                       "The rows of a matrix for which keep returns true."),
                 Shape("filter(t, t.x > 0)", "table (vector, matrix, list), logical vector", "the same",
                       "The rows (elements) where the logical vector is true, as t[t.x > 0, :].")],
         summary="Keeps the elements of a vector or list, or the rows of a table or matrix, for "
                 "which a function returns true.",
         examples=['print(filter([1, -2, 3], x -> x > 0))',
                   't = table({city = ["Oslo", "Rome", "Lima"], temp = [4.5, 15.2, 19.1]})\n'
                   'print(filter(t, row -> row.temp > 10 and row.city != "Lima"))',
                   'print(filter([1, 2; -3, 4; 5, -6], row -> all(row > 0) or row[0] > 4))',
                   't = table({city = ["Oslo", "Rome", "Lima"], temp = [4.5, 15.2, 19.1]})\n'
                   'print(filter(t, t.temp > 10))'],
         notes="The function must return a bool (or a number, nonzero meaning true). It sees each "
               "element's number; for a table each row as a record whose fields are the columns "
               "(row.temp a number, row.city a string), and for a matrix each row as a vector. A "
               "table or matrix keeps its columns, even when no row is kept. In place of the function a "
               "logical vector of one true or false per element (row) keeps those where it is true, "
               "as dplyr's filter(t, x > 0) and t[t.x > 0, :] do, without a call per row; a NaN "
               "compared gives false, so its row goes. A vector of dates or a category keeps the "
               "cells chosen either way, each passed to the function as one date or level. "
               "Differentiable: the "
               "kept elements (or rows) of a tracked vector (or matrix) pass their gradients "
               "through, the others get none.",
         grad=[GradCase(((6,), Const(lambda x: x > 0))),
               GradCase(((5, 3), Const(lambda row: bool(row.sum() > 0))))])
def filter_(xs, keep):
    from ..stats.table import Table
    from ..stats.tableops import filter_rows
    mask = as_mask(keep)
    if isinstance(mask, np.ndarray):
        return _filter_by_mask(xs, mask)
    keep = _callable(keep, "filter's function", "filter")
    v = value_of(xs)
    if isinstance(v, np.ndarray) and v.ndim == 1:
        kept = [i for i, x in enumerate(v.tolist()) if truth(call(keep, (x,)))]
        return shaping.take(xs, kept)
    if isinstance(v, np.ndarray) and v.ndim == 2:
        kept = [i for i in range(v.shape[0]) if truth(call(keep, (v[i].copy(),)))]
        return shaping.take(xs, kept)
    if isinstance(xs, Table):
        return filter_rows(xs, keep, call=call, truth=truth)
    cells = _cells(xs)
    if cells is not None:           # dates, a category: each cell to keep, a column of them back
        return xs.take(np.array([i for i, x in enumerate(cells) if truth(call(keep, (x,)))], dtype=np.intp))
    return [x for x in _items(xs, "filter") if truth(call(keep, (x,)))]


def _cells(xs) -> list | None:
    """The cells of a column-like library value (a vector of dates, a category), which filter
    keeps by xs.take, or None for anything else."""
    if isinstance(xs, LibObject) and callable(getattr(xs, "take", None)):
        return xs.elements()
    return None


def _filter_by_mask(xs, mask: np.ndarray):
    """filter(t, t.x > 0): the elements, or rows, where a logical vector of one per element is true."""
    from ..stats.table import Table
    v = value_of(xs)
    # dates or a category (not one date): len and take, without making a value per cell
    column = isinstance(xs, LibObject) and not isinstance(xs, Table) and callable(getattr(xs, "take", None)) \
        and hasattr(xs, "__len__") and not getattr(xs, "scalar", False)
    if isinstance(xs, Table):
        n, what = xs.nrows, "rows"
    elif isinstance(v, np.ndarray) and v.ndim in (1, 2):
        n, what = v.shape[0], "elements" if v.ndim == 1 else "rows"
    elif isinstance(xs, list) or column:
        n, what = len(xs), "elements"
    else:
        raise LaminaError("TypeError", f"filter with a logical vector keeps the elements of a vector or "
                          f"list, or the rows of a matrix or table, not of {describe(xs)}.")
    if mask.ndim != 1 or mask.size != n:
        raise LaminaError("ShapeError", f"filter's logical vector needs one true or false for each of the "
                          f"{n} {what}, but is {describe(mask)}.")
    kept = np.flatnonzero(mask)
    if isinstance(xs, Table) or column:
        return xs.take(kept)
    if isinstance(xs, list):
        return [xs[i] for i in kept]
    return shaping.take(xs, kept)


@builtin("assert", any_rank="items", tracked="constant", category=CORE,
         probes=["assert(sum(p) > 0)"],
         shapes=[Shape("assert(cond)", "bool", "no output", "Stops with an Error when cond is false."),
                 Shape("assert(cond, message)", "bool, string", "no output", "The same with a message.")],
         summary="Checks that a condition holds and stops the program if it does not.",
         examples=['assert(1 + 1 == 2)\nprint("still running")'],
         notes="Conditions follow the rules of `if`: a bool, or a number (nonzero is true).")
def assert_(cond, message="Assertion failed."):
    if not truth(cond):
        raise LaminaError("Error", format_value(message))


@builtin("clock", any_rank=True, pure="a number", tracked="constant", category=CORE,
         probes="takes no argument",
         shapes=[Shape("clock()", "no input", "number", "Seconds from a fixed point, for timing.")],
         summary="Returns a monotonic time in seconds, for measuring how long code takes.",
         examples=['t0 = clock()\ns = 0\nfor i = 1 to 1000\n    s = s + i\nend for\nprint(s, clock() - t0 >= 0)'],
         notes="Only differences between two calls are meaningful.")
def clock():
    return time.perf_counter()


@builtin("help", any_rank="items", tracked="constant", category=CORE,
         probes="takes a builtin's name",
         shapes=[Shape("help()", "no input", "no output", "Lists the categories and their builtins."),
                 Shape("help(name)", "string", "no output", "Prints the page of one builtin."),
                 Shape("help(f)", "a builtin or a function of the program", "no output",
                       "A builtin's page (help(mean) is help(\"mean\")), or a function's parameters "
                       "and leading comment."),
                 Shape("help(module)", "an imported module", "no output",
                       "Lists the module's functions with their leading comments, and its values.")],
         summary="Prints the documentation page of a builtin, or the list of categories.",
         examples=['help("length")',
                   '# Scales v by a factor.\nfunction scale(v, by = 2)\n    return v * by\nend function\n'
                   'help(scale)'],
         notes="The page is generated from the builtin registry, the same source as the files in "
               "docs/builtins/, and its examples are run as the page is shown. An unknown name "
               "suggests the closest builtin names. The builtin itself names its page as well as "
               "its name does: help(mean) is help(\"mean\"). For a function of the program or of a "
               "module, its leading comment is the run of `#` lines just above its `function` line "
               "(or else just below it). At the interactive prompt, `?name` shows the same, "
               "rendered for the terminal.")
def help_(name=None):
    from ..docs.help import help_for
    print(help_for(name)[0])
