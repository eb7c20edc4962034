"""Types and text: asking what a value is, converting, and working with strings."""
from __future__ import annotations

from ..errors import LaminaError
from ..printing import format_value
from ..values import as_str, describe, type_name
from .registry import Shape, builtin

TEXT = "Text & types"


@builtin("type", tracked="constant", category=TEXT,
         shapes=[Shape("type(x)", "any value", "string", "The kind of value.")],
         summary="Names the kind of a value: number, bool, string, none, vector, matrix, list, record, function, ...",
         examples=['print(type(1), type([1, 2]), type([1, 2; 3, 4]), type("a"), type({a = 1}))'],
         notes="Library values name their kind too (`optimizer`, `model`). A tracked value reports the "
               "kind of the number or tensor it holds.")
def type_(x):
    return type_name(x)


@builtin("string", tracked="constant", category=TEXT,
         shapes=[Shape("string(x)", "any value", "string", "The text print would write for x.")],
         summary="Converts any value to the text that print would write for it.",
         examples=['s = string(0.5) + " and " + string([1, 2])\nprint(s)'],
         notes="The same formatting as print and string interpolation.")
def string(x):
    return format_value(x)


@builtin("number", tracked="constant", category=TEXT,
         shapes=[Shape("number(s)", "string", "number", "Parses a number."),
                 Shape("number(b)", "bool", "number", "true is 1, false is 0.")],
         summary="Converts text (or a bool) to a number.",
         examples=['print(number("2.5") * 2)\nprint(number(true))'],
         notes="Accepts the number syntax of Lamina literals plus `NaN`, `Inf` and `-Inf`; anything "
               "else is a ValueError.")
def number(x):
    if isinstance(x, bool):
        return 1.0 if x else 0.0
    if isinstance(x, float):
        return x
    text = as_str(x, "number's argument").strip()
    try:
        return float(text)
    except ValueError:
        raise LaminaError("ValueError", f'"{x}" is not a number.') from None


@builtin("join", tracked="constant", category=TEXT,
         shapes=[Shape("join(items)", "list or vector", "string", "The items as text, end to end."),
                 Shape("join(items, sep)", "list or vector, string", "string",
                       "The items as text with sep between them.")],
         summary="Joins the items of a list or vector into one string.",
         examples=['print(join(["a", "b", "c"], ", "))\nprint(join([1, 2.5], " | "))'],
         notes="Each item is formatted as print would write it. The separator defaults to the empty "
               "string, as in Julia's join.")
def join(items, sep=""):
    from ..lang.runtime import for_each
    return as_str(sep, "join's separator").join(format_value(x) for x in for_each(items))


@builtin("split", tracked="constant", category=TEXT,
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


@builtin("upper", tracked="constant", category=TEXT,
         shapes=[Shape("upper(s)", "string", "string", "Upper-case copy.")],
         summary="Returns the string in upper case.",
         examples=['print(upper("lamina"))'], notes="Unicode-aware, as Python's str.upper.")
def upper(s):
    return as_str(s, "upper's argument").upper()


@builtin("lower", tracked="constant", category=TEXT,
         shapes=[Shape("lower(s)", "string", "string", "Lower-case copy.")],
         summary="Returns the string in lower case.",
         examples=['print(lower("LaMiNa"))'], notes="Unicode-aware, as Python's str.lower.")
def lower(s):
    return as_str(s, "lower's argument").lower()


@builtin("trim", tracked="constant", category=TEXT,
         shapes=[Shape("trim(s)", "string", "string", "Without leading and trailing white space.")],
         summary="Removes white space from both ends of a string.",
         examples=['print("[" + trim("  hi  ") + "]")'], notes="Spaces, tabs and newlines count as white space.")
def trim(s):
    return as_str(s, "trim's argument").strip()


@builtin("replace", tracked="constant", category=TEXT,
         shapes=[Shape("replace(s, old, new)", "three strings", "string", "Every old replaced by new.")],
         summary="Replaces every occurrence of one substring with another.",
         examples=['print(replace("a-b-c", "-", "+"))'], notes="Plain text, not a pattern.")
def replace(s, old, new):
    return as_str(s, "replace's text").replace(as_str(old, "replace's old text"), as_str(new, "replace's new text"))


@builtin("contains", tracked="constant", category=TEXT,
         shapes=[Shape("contains(s, part)", "string, string", "bool", "Whether part occurs in s."),
                 Shape("contains(xs, x)", "list, value", "bool", "Whether x is an item of the list.")],
         summary="Tells whether a string contains a substring, or a list an item.",
         examples=['print(contains("lamina", "min"), contains([1, "a"], "a"))'],
         notes="List items are compared with ==.")
def contains(s, part):
    from ..values import values_equal
    if isinstance(s, list):
        return any(values_equal(x, part) for x in s)
    if isinstance(s, str):
        return as_str(part, "contains's part") in s
    raise LaminaError("TypeError", f"contains needs a string or list, not {describe(s)}.")
