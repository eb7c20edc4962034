"""Types and text: asking what a value is, converting, and working with strings."""
from __future__ import annotations

import re

import numpy as np

from ..errors import LaminaError
from ..lang.runtime import for_each
from ..printing import format_value
from ..values import (
    Record,
    as_str,
    describe,
    format_number,
    type_name,
    value_of,
    values_equal,
)
from .registry import Shape, builtin

TEXT = "Text & types"


@builtin("type", any_rank=True, pure="a string", tracked="constant", category=TEXT,
         probes=["type(p)"],
         shapes=[Shape("type(x)", "any value", "string", "The kind of value.")],
         summary="Names the kind of a value: number, bool, string, none, vector, matrix, list, record, function, ...",
         examples=['print(type(1), type([1, 2]), type([1, 2; 3, 4]), type("a"), type({a = 1}))'],
         notes="A tensor of rank 3 or more is an `array` (a matrix has rank 2, a vector 1), a tensor of "
               "bools a `logical vector`, `logical matrix` or `logical array`. Library values name their "
               "kind too (`optimizer`, `model`). A tracked value reports the kind of the number or "
               "tensor it holds.")
def type_(x):
    return type_name(x)


@builtin("string", any_rank=True, pure="a string", tracked="constant", category=TEXT,
         probes=["string(p)"],
         shapes=[Shape("string(x)", "any value", "string", "The text print would write for x.")],
         summary="Converts any value to the text that print would write for it.",
         examples=['s = string(0.5) + " and " + string([1, 2])\nprint(s)'],
         notes="The same formatting as print and string interpolation.")
def string(x):
    return format_value(x)


@builtin("format", any_rank=True, pure="a string", tracked="constant", category=TEXT,
         probes=['format(p, ".2f")', 'format(q, "5.1f")'],
         shapes=[Shape("format(x, spec)", "number, string, bool or none; format spec", "string",
                       "x written with the spec."),
                 Shape("format(v, spec)", "tensor, list or record; format spec", "string",
                       "Each number written with the spec, laid out as print does.")],
         summary="Writes a value with a format spec of Python's mini-language: \".2f\" two decimals, "
                 "\"5d\" a whole number in 5 columns, \">10\" right-aligned in 10, \",\" thousands "
                 "separated, \".1%\" a percentage.",
         examples=['print(format(3.14159, ".2f"), format(42, "5d"), format("ada", ">6"), format(1234567, ","))',
                   'v = [0.5, 1.25, -3]\nprint(format(v, ".3f"), format([1, 2; 3, 4], "3d"), format(0.256, ".1%"))',
                   'x = 2.5\nn = 7\nprint("x = {x:.2f}, n = {n:03d}, share {0.125:.1%}")'],
         notes="The spec is [[fill]align][sign][0][width][,][.precision][type], as in Python's format(), "
               "and the same spec follows a ':' in a string's interpolation, {x:.2f}. The whole-number "
               "types (d, x, o, b) take a float that is whole (3.0 with d is 3) and are a ValueError "
               "for 2.5. Without a type a whole number is written as one, and .3 means 3 significant "
               "digits (3.14159 is 3.14). On a tensor, a list or a record the spec applies to each "
               "number, so format(v, \"8.3f\") aligns a vector's elements in 8 columns. A string, a "
               "bool or none takes fill, alignment and width, and a precision that keeps that many "
               "characters, as in Python (format(\"abcdef\", \".2\") is ab). NaN and Inf are written as Lamina "
               "writes them. Rounding is Python's: the exact binary value is rounded, ties to even "
               "(format(0.125, \".0%\") is 12%). An invalid spec is a ValueError that shows the "
               "mini-language.")
def format_(x, spec):
    return format_value(x, spec=as_str(spec, "format's spec"))


@builtin("number", pure="a number", tracked="constant", category=TEXT,
         probes="takes text",
         shapes=[Shape("number(s)", "string", "number", "Parses a number."),
                 Shape("number(b)", "bool", "number", "true is 1, false is 0.")],
         summary="Converts text (or a bool) to a number.",
         examples=['print(number("2.5") * 2)\nprint(number(true))'],
         notes="Accepts the number syntax of Lamina literals (ASCII digits, an optional sign, "
               "fraction and exponent: \"-2.5e3\") plus `NaN`, `Inf` and `-Inf` in any letter case, "
               "with spaces around; anything else (\"1_000\", \"infinity\", other scripts' "
               "digits) is a ValueError.")
def number(x):
    x = value_of(x)                              # a tracked number is a number too
    if isinstance(x, bool):
        return 1.0 if x else 0.0
    if isinstance(x, float):
        return x
    text = as_str(x, "number's argument").strip()
    if not NUMBER_TEXT.fullmatch(text):
        raise LaminaError("ValueError", f'"{x}" is not a number.')
    return float(text)


# Python's float() also takes "1_000", "infinity" and any script's digits
NUMBER_TEXT = re.compile(r"[+-]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|inf)|nan", re.ASCII | re.IGNORECASE)


@builtin("join", pure="a string", tracked="constant", category=TEXT,
         probes=['join([p[0], "a"], ", ")'],
         shapes=[Shape("join(items)", "list or vector", "string", "The items as text, end to end."),
                 Shape("join(items, sep)", "list or vector, string", "string",
                       "The items as text with sep between them.")],
         summary="Joins the items of a list or vector into one string.",
         examples=['print(join(["a", "b", "c"], ", "))\nprint(join([1, 2.5], " | "))'],
         notes="Each item is formatted as print would write it. The separator defaults to the empty "
               "string, as in Julia's join.")
def join(items, sep=""):
    # strings and numbers, by far the most common items, written without format_value's machinery
    return as_str(sep, "join's separator").join(
        x if type(x) is str else format_number(x) if type(x) is float else format_value(x)
        for x in for_each(items))


@builtin("split", elsewhere={"strsplit": "R"},
         pure="a list of strings", tracked="constant", category=TEXT,
         probes="takes text",
         shapes=[Shape("split(s)", "string", "list of strings", "The words of s: cut at runs of white space."),
                 Shape("split(s, sep)", "string, string", "list of strings", "Cuts s at each sep.")],
         summary="Splits a string into a list of strings, at white space or at each occurrence of a separator.",
         examples=['print(split("a,b,,c", ","))\nprint(split("  two   words "))'],
         notes="Without a separator, runs of white space (spaces, tabs, newlines) separate the parts "
               "and none of the parts is empty, as in Python's str.split() and Julia's split(s). With "
               "one, every occurrence cuts, so two separators in a row give an empty part. An empty "
               "separator is a ValueError.")
def split(s, sep=None):
    s = as_str(s, "split's text")
    if sep is None:
        return s.split()
    sep = as_str(sep, "split's separator")
    if not sep:
        raise LaminaError("ValueError", "split needs a non-empty separator.")
    return s.split(sep)


@builtin("upper", elsewhere={"toupper": "R"},
         pure="a new string", tracked="constant", category=TEXT,
         probes="takes text",
         shapes=[Shape("upper(s)", "string", "string", "Upper-case copy.")],
         summary="Returns the string in upper case.",
         examples=['print(upper("lamina"))'], notes="Unicode-aware, as Python's str.upper.")
def upper(s):
    return as_str(s, "upper's argument").upper()


@builtin("lower", elsewhere={"tolower": "R"},
         pure="a new string", tracked="constant", category=TEXT,
         probes="takes text",
         shapes=[Shape("lower(s)", "string", "string", "Lower-case copy.")],
         summary="Returns the string in lower case.",
         examples=['print(lower("LaMiNa"))'], notes="Unicode-aware, as Python's str.lower.")
def lower(s):
    return as_str(s, "lower's argument").lower()


@builtin("trim", pure="a new string", tracked="constant", category=TEXT,
         probes="takes text",
         shapes=[Shape("trim(s)", "string", "string", "Without leading and trailing white space.")],
         summary="Removes white space from both ends of a string.",
         examples=['print("[" + trim("  hi  ") + "]")'], notes="Spaces, tabs and newlines count as white space.")
def trim(s):
    return as_str(s, "trim's argument").strip()


@builtin("replace", pure="a new string", tracked="constant", category=TEXT,
         probes="takes text",
         shapes=[Shape("replace(s, old, new)", "three strings", "string", "Every old replaced by new.")],
         summary="Replaces every occurrence of one substring with another.",
         examples=['print(replace("a-b-c", "-", "+"))'], notes="Plain text, not a pattern.")
def replace(s, old, new):
    return as_str(s, "replace's text").replace(as_str(old, "replace's old text"), as_str(new, "replace's new text"))


# kinds of item that never equal a string or a number (values_equal compares the rest)
_PLAIN = frozenset({str, float, bool, type(None), list, Record, np.ndarray})


@builtin("contains", elsewhere={"grepl": "R"},
         any_rank=True, pure="true or false", tracked="constant", category=TEXT,
         probes="takes text",
         shapes=[Shape("contains(s, part)", "string, string", "bool", "Whether part occurs in s."),
                 Shape("contains(xs, x)", "list, value", "bool", "Whether x is an item of the list."),
                 Shape("contains(v, x)", "tensor, number", "bool", "Whether x is an element of v.")],
         summary="Tells whether a string contains a substring, or a list or tensor an item.",
         examples=['print(contains("lamina", "min"), contains([1, "a"], "a"), contains([1, 2, 3], 2))'],
         notes="Items and elements are compared with ==, so NaN is never contained. A tensor holds "
               "numbers only: contains(v, \"a\") is false.")
def contains(s, part):
    if isinstance(s, list):
        p = value_of(part)
        if type(p) is str or type(p) is float:
            # an item of another plain kind never equals p: only the others go through values_equal
            # (per item it costs microseconds, 100 times what == on a string or number does)
            return any(x == p if type(x) is type(p) else type(x) not in _PLAIN and values_equal(x, p)
                       for x in s)
        return any(values_equal(x, part) for x in s)
    if isinstance(s, str):
        return as_str(part, "contains's part") in s
    v, x = value_of(s), value_of(part)
    if isinstance(v, np.ndarray):
        return isinstance(x, (bool, float)) and bool(np.any(v == x))
    raise LaminaError("TypeError", f"contains needs a string, list or tensor, not {describe(s)}.")
