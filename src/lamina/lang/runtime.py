"""What compiled Lamina code calls, gathered in HELPERS: the operators (operators.py), the
stores (stores.py), and here reading elements and fields, calls, loops and output.

Compiled code finds each helper under its name (`_add`, `_index`, ...) in its namespace and
its builtins: a global lookup, cached by CPython, with no module attribute in between.
Helpers raise LaminaError without a span; the runner attaches the span of the compiled node
that called them.
"""
from __future__ import annotations

import itertools
import math
import sys

import numpy as np

from ..autodiff import ops
from ..errors import LaminaError
from ..printing import format_row, format_value
from ..values import LibObject, Record, Tracked, describe
from . import indexing
from .modules import Module
from .operators import (add, and_rest, bracket, div, ediv, emul, epower, eq, ge, gt, ldiv, le, lt, matmul, matrix,
                        mod, mul, ne, neg, not_, or_rest, pos, power, sub, transpose, truth)
from .pyerrors import CALLEE, called_itself, caught
from .scope import CODE_FILENAME, builtins_of, mangle
from .stores import (F64, _NDARRAY, _trunc, append_var, set_field, set_field_index_var, set_field_var, set_index,
                     set_index_var, set_item_var)


# -- reading fields and elements -------------------------------------------------
def field(target, name: str):
    if isinstance(target, (Record, LibObject)):
        return target.get(name)
    raise LaminaError("TypeError", f"Cannot read field '{name}' of {describe(target)}; only records "
                      "and library objects have fields.")


def index(target, items: tuple):
    # The case that dominates loops, a number from a float vector by a whole index, in line;
    # everything else (and every error) goes through indexing.get.
    if len(items) == 1:
        return item(target, items[0])
    if len(items) == 2 and type(target) is _NDARRAY and target.ndim == 2 and target.dtype is F64:
        i, j = items
        if type(i) is float and type(j) is float and i.is_integer() and j.is_integer():
            try:
                return target.item(_trunc(i), _trunc(j))
            except (IndexError, OverflowError):
                pass
    return indexing.get(target, items)


def item(target, i):
    """`v[i]` with one index that is not a slice: index() without the index tuple. A whole
    float index into a float vector is read in line; NumPy's own bounds check (its negative
    indices count from the end, as ours do) sends one out of range to indexing.get's error."""
    if type(i) is float and type(target) is _NDARRAY and target.ndim == 1 and target.dtype is F64 \
            and i.is_integer():
        try:
            return target.item(_trunc(i))
        except (IndexError, OverflowError):
            pass
    return indexing.get(target, (i,))


def make_slice(start, stop):
    return slice(start, stop)


# -- calls -----------------------------------------------------------------------
def is_user_function(f) -> bool:
    code = getattr(f, "__code__", None)
    return code is not None and code.co_filename == CODE_FILENAME


def call(f, args: tuple, kwargs: dict | None = None, name: str | None = None):
    """Call a Lamina function or builtin from a builtin or a keyword call site."""
    if kwargs and is_user_function(f):
        kwargs = {mangle(k): v for k, v in kwargs.items()}
    try:
        return f(*args, **(kwargs or {}))
    except TypeError as exc:
        if not called_itself(exc.__traceback__):
            raise
        raise call_error(f, exc, name) from None


def call_site(f, args: tuple, kwargs: dict | None = None):
    """`f(x, k = v)` in compiled code: a bad call names f as the call site writes it."""
    return call(f, args, kwargs, CALLEE)


def call_error(f, exc: TypeError, name: str | None = None) -> LaminaError:
    """A Python TypeError raised by the call itself (bad arguments) as a Lamina error."""
    from .pyerrors import translate_call_error
    return translate_call_error(f, exc, name)


def calling(f, how: str):
    """f, for a builtin to hand to the layers below the language (autodiff, optim), which call it
    as Python calls a function: a call whose arguments do not bind (a function of the wrong
    number of parameters) is a Lamina TypeError that begins with `how` ("minimize calls f(x)"),
    where it was a Python TypeError the interpreter could only report as its own bug."""
    def call_f(*args):
        try:
            return f(*args)
        except TypeError as exc:
            if not called_itself(exc.__traceback__):
                raise
            message = call_error(f, exc).message
            raise LaminaError("TypeError", f"{how}; {message[0].lower()}{message[1:]}") from None
    return call_f


def method(target, name: str, lookup, args: tuple, kwargs: dict | None):
    """`target.name(args)`: a function stored in a record field, else `name(target, args)`."""
    if isinstance(target, Record) and name in target.fields:
        f = target.fields[name]
        if callable(f) and not isinstance(f, LibObject):
            return call(f, args, kwargs)
        raise LaminaError("TypeError", f"Field '{name}' of the record is {describe(f)}, not a function.")
    if type(target) is Module:
        f = target.get(name)
        if callable(f) and not isinstance(f, LibObject):
            return call(f, args, kwargs)
        raise LaminaError("TypeError", f"'{name}' of the module {target.name} is {describe(f)}, not a function.")
    try:
        f = lookup()
    except NameError:      # a local of that name not yet assigned: the builtin, if there is one
        f = None
    if not callable(f) or isinstance(f, LibObject):
        # A variable that holds no function (`fit = linreg(...)`) does not hide the builtin of
        # that name from x.fit(...): the method is the builtin's.
        key = mangle(name)
        builtin = builtins_of(lookup.__globals__, (key,)).get(key)
        if callable(builtin):
            return call(builtin, (target,) + args, kwargs)
        if f is None and builtin is None:
            raise LaminaError("NameError", f"{describe(target).capitalize()} has no method '{name}', and no "
                              f"function named '{name}' exists.")
        raise LaminaError("TypeError", f"'{name}' is {describe(f if f is not None else builtin)}, not a "
                          f"function, so x.{name}(...) cannot call it.")
    return call(f, (target,) + args, kwargs)


# -- loops ---------------------------------------------------------------------
def for_range(start, stop, step=None):
    a = _bound(start, "start")
    b = _bound(stop, "stop")
    s = 1.0 if step is None else _bound(step, "step")
    if s == 0:
        raise LaminaError("ValueError", "A for loop's step cannot be 0.")
    if math.isinf(b):
        # `for i = 0 to Inf` counts until a break; toward -Inf with a positive step, never.
        return (a + k * s for k in itertools.count()) if (b > 0) == (s > 0) else iter(())
    if a == int(a) and s == int(s):
        end = math.floor(b) + 1 if s > 0 else math.ceil(b) - 1
        return map(float, range(int(a), end, int(s)))
    n = (b - a) / s
    if n < 0:
        return iter(())
    if math.isinf(n):                         # more steps than a float counts: never ends
        return (a + k * s for k in itertools.count())
    # Rounding a, b and s to floats and dividing moves n by a few ulps of these magnitudes:
    # `0 to 0.3 step 0.1` has n = 2.9999999999999996 and 4 values. (Capped at half a step: for
    # a step far below the bounds' ulps the estimate is huge or infinite.)
    slack = min(4 * sys.float_info.epsilon * ((abs(a) + abs(b)) / abs(s) + n), 0.5)
    return _steps(a, b, s, math.floor(n + slack) + 1, slack * abs(s))


def _steps(a: float, b: float, s: float, count: int, near: float):
    """a, a + s, ...: `count` values, the last of them b itself when rounding puts it past b or
    within `near` of it (so `0 to 0.3 step 0.1` ends at 0.3, as MATLAB's colon does)."""
    for k in range(count - 1):
        yield a + k * s
    if count > 1:
        last = a + (count - 1) * s
        yield b if (last - b) * s > 0 or abs(last - b) <= near else last
    elif count == 1:
        yield a


def _bound(x, what: str) -> float:
    v = x.value if type(x) is Tracked else x
    if type(v) is bool or not isinstance(v, (float, int)):
        raise LaminaError("TypeError", f"A for loop's {what} must be a number, not {describe(x)}.")
    if v != v:
        raise LaminaError("ValueError", f"A for loop's {what} is NaN.")
    if what != "stop" and math.isinf(v):
        raise LaminaError("ValueError", f"A for loop's {what} cannot be infinite.")
    return float(v)


def for_each(x):
    if type(x) is Tracked and np.ndim(x.value):      # a tracked number is no sequence: below
        return [indexing.get(x, (float(i),)) for i in range(len(x.value))]
    if isinstance(x, np.ndarray):
        return x.tolist() if x.ndim == 1 else [row.copy() for row in x]
    if isinstance(x, (list, str)):
        return x
    if isinstance(x, Record):
        return list(x.fields)
    items = x.elements() if isinstance(x, LibObject) else None
    if items is not None:
        return items
    raise LaminaError("TypeError", f"Cannot loop over {describe(x)}; 'for x in ...' takes a vector, "
                      "matrix (its rows), list, string, record (its field names), or a vector of dates "
                      "or a category (their cells).")


# -- output --------------------------------------------------------------------
def show(x) -> str:
    """`{x}` in a string: as print writes x, on one line, except that a 1 x n matrix is written
    as its row, `[1, 2, 3]`."""
    v = x.value if type(x) is Tracked else x
    if type(v) is np.ndarray and v.ndim == 2 and v.shape[0] == 1 and v.size:
        return format_row(v)
    return format_value(x, top=False)


def show_spec(x, spec: str) -> str:
    """`{x:spec}` in a string: x written with a format spec (Python's mini-language)."""
    return format_value(x, spec=spec, top=False)


def echo(x) -> None:
    if x is not None:
        print(format_value(x, quote_strings=True))


HELPERS = {
    "_add": add, "_sub": sub, "_mul": mul, "_div": div, "_emul": emul, "_ediv": ediv,
    "_pow": power, "_epow": epower, "_mod": mod, "_float_mod": ops.mod, "_ldiv": ldiv, "_matmul": matmul,
    "_neg": neg, "_pos": pos,
    "_transpose": transpose,
    "_lt": lt, "_le": le, "_gt": gt, "_ge": ge, "_eq": eq, "_ne": ne,
    "_truth": truth, "_not": not_, "_bracket": bracket, "_matrix": matrix,
    "_and_rest": and_rest, "_or_rest": or_rest, "_ndarray": np.ndarray,
    "_field": field, "_set_field": set_field, "_index": index,
    "_set_index": set_index, "_set_index_var": set_index_var, "_set_item_var": set_item_var, "_item": item,
    "_set_field_var": set_field_var, "_set_field_index_var": set_field_index_var,
    "_append_var": append_var, "_slice": make_slice, "_ALL": indexing.ALL,
    "_call": call_site, "_method": method, "_for_range": for_range, "_for_each": for_each,
    "_show": show, "_show_spec": show_spec, "_echo": echo, "_float": float, "_type": type, "_Record": Record,
    "_NameError": NameError,
    "_caught": caught, "_Catchable": Exception,
}
