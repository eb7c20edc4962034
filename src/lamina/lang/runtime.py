"""What compiled Lamina code calls: operators, indexing, calls, loops, conditions.

Each operator helper first tries the case that dominates interpreted code (two
Python floats) and otherwise dispatches: numbers and tensors (tracked or not)
go to autodiff.ops, which owns the shape rules; everything else is checked here.
Helpers raise LaminaError without a span; the runner attaches the span of the
compiled node that called them.
"""
from __future__ import annotations

import itertools
import math
import sys
import types

import numpy as np

from .. import ownership
from ..autodiff import linalg, ops
from ..errors import LaminaError
from ..printing import format_row, format_value
from ..values import LibObject, Record, Tracked, describe, is_numeric, values_equal
from . import container_ops, indexing
from .modules import Module
from .pyerrors import CALLEE, caught
from .scope import CODE_FILENAME, builtins_of, mangle

NUMERIC = {
    "+": ops.add, "-": ops.sub, "*": ops.mul, "/": ops.div,
    ".*": ops.emul, "./": ops.ediv, "^": ops.pow, ".^": ops.epow, "%": ops.mod,
}


def _num(x, other=None):
    """An operand as autodiff.ops takes it: an int as a float, a logical tensor as 0/1 numbers
    (float32 ones beside a float32 tensor: a mask adapts to the tensor it meets, as a number does)."""
    if type(x) is int:
        return float(x)
    if type(x) is np.ndarray and x.dtype == bool:
        o = other.value if type(other) is Tracked else other
        return x.astype(np.float32 if type(o) is np.ndarray and o.dtype == np.float32 else np.float64)
    return x


def _logical(x) -> bool:
    return type(x) is np.ndarray and x.dtype == bool


def binary(op: str, a, b):
    if is_numeric(a) and is_numeric(b):
        return NUMERIC[op](_num(a, b), _num(b, a))
    if op == "+" and isinstance(a, str) and isinstance(b, str):
        return a + b
    if container_ops.holds_numbers(a) or container_ops.holds_numbers(b):
        return container_ops.combine(op, a, b, binary)
    hint = ""
    if isinstance(a, str) or isinstance(b, str):
        hint = ' To build text, use interpolation: "{a} and {b}".'
    elif isinstance(a, bool) or isinstance(b, bool):
        hint = " Booleans are not numbers here; use if/else to choose a number."
    raise LaminaError("TypeError", f"Cannot apply '{op}' to {describe(a)} and {describe(b)}.{hint}")


def _scalar_or_tracked(a, b) -> bool:
    """Both operands floats or tracked values: autodiff.ops takes them as they are (binary's
    checks and conversions would change nothing), the scalar tape's fast path."""
    return (type(a) is Tracked or type(a) is float) and (type(b) is Tracked or type(b) is float)


def add(a, b):
    if type(a) is float and type(b) is float:
        return a + b
    if _scalar_or_tracked(a, b):
        return ops.add(a, b)
    return binary("+", a, b)


def sub(a, b):
    if type(a) is float and type(b) is float:
        return a - b
    if _scalar_or_tracked(a, b):
        return ops.sub(a, b)
    return binary("-", a, b)


def mul(a, b):
    if type(a) is float and type(b) is float:
        return a * b
    if _scalar_or_tracked(a, b):
        return ops.mul(a, b)
    return binary("*", a, b)


def div(a, b):
    if type(a) is float and type(b) is float and b:
        return a / b
    return binary("/", a, b)


def emul(a, b):
    if type(a) is float and type(b) is float:
        return a * b
    return binary(".*", a, b)


def ediv(a, b):
    if type(a) is float and type(b) is float and b:
        return a / b
    return binary("./", a, b)


def mod(a, b):
    if type(a) is float and type(b) is float and b:
        return a % b
    return binary("%", a, b)


def ldiv(a, b):
    """`A \\ b`: the x with A x = b, by the function the solve builtin uses; a number divides."""
    if not (is_numeric(a) and is_numeric(b)):
        return binary("\\", a, b)
    a, b = _num(a, b), _num(b, a)
    if type(a.value if type(a) is Tracked else a) is float:
        return ops.ediv(b, a)
    try:
        return linalg.solve(a, b)
    except LaminaError as err:
        raise LaminaError(err.kind, f"A \\ b solves A x = b, as solve(A, b) does: {err.message}") from None


def power(a, b):
    if type(a) is float and type(b) is float:
        return ops.fpow(a, b)
    return binary("^", a, b)


def epower(a, b):
    if type(a) is float and type(b) is float:
        return ops.fpow(a, b)
    return binary(".^", a, b)


def neg(a):
    if type(a) is float:
        return -a
    if is_numeric(a):
        return ops.neg(_num(a))
    if container_ops.holds_numbers(a):
        return container_ops.negate(a, neg)
    raise LaminaError("TypeError", f"Cannot negate {describe(a)}.")


def pos(a):
    if is_numeric(a):
        return a
    raise LaminaError("TypeError", f"Unary '+' needs a number or tensor, not {describe(a)}.")


def transpose(a):
    if _logical(a):
        return a.T.copy() if a.ndim == 2 else a.reshape(1, -1)     # a mask stays a mask
    if is_numeric(a):
        return ops.transpose(_num(a))
    raise LaminaError("TypeError", f"Cannot transpose {describe(a)}; ' transposes a vector or matrix.")


def compare(op: str, a, b):
    if is_numeric(a) and is_numeric(b):
        return ops.compare(op, _num(a, b), _num(b, a))
    if op in ("==", "!=") and isinstance(a, list) != isinstance(b, list) and isinstance(a if isinstance(b, list) else b, str):
        # a text column against one string (t.species == "setosa"): a mask, item by item
        items, text = (a, b) if isinstance(a, list) else (b, a)
        same = np.array([x == text for x in items], dtype=bool)
        return same if op == "==" else ~same
    if op == "==":
        return values_equal(a, b)
    if op == "!=":
        return not values_equal(a, b)
    if isinstance(a, str) and isinstance(b, str):
        return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
    raise LaminaError("TypeError", f"Cannot compare {describe(a)} and {describe(b)} with '{op}'.")


def lt(a, b):
    if type(a) is float and type(b) is float:
        return a < b
    return compare("<", a, b)


def le(a, b):
    if type(a) is float and type(b) is float:
        return a <= b
    return compare("<=", a, b)


def gt(a, b):
    if type(a) is float and type(b) is float:
        return a > b
    return compare(">", a, b)


def ge(a, b):
    if type(a) is float and type(b) is float:
        return a >= b
    return compare(">=", a, b)


def eq(a, b):
    if type(a) is float and type(b) is float:
        return a == b
    return compare("==", a, b)


def ne(a, b):
    if type(a) is float and type(b) is float:
        return a != b
    return compare("!=", a, b)


def truth(c) -> bool:
    """A condition's value: a bool, or a number (nonzero is true)."""
    if c is True or c is False:
        return c
    if type(c) is Tracked:
        c = c.value
    if isinstance(c, (float, int)):
        if c != c:
            raise LaminaError("ValueError", "A condition is NaN, which is neither true nor false.")
        return c != 0
    if isinstance(c, np.ndarray):
        raise LaminaError("TypeError", f"A condition must be true or false, not {describe(c)}; "
                          "use any(...) or all(...) to reduce a comparison of tensors.")
    raise LaminaError("TypeError", f"A condition must be true or false, not {describe(c)}.")


def not_(c):
    """`not c`: a bool, or elementwise on a mask."""
    if _logical(c):
        return ~c
    return not truth(c)


def and_rest(a, b):
    """`a and b` when a is a mask or a true bool (or nonzero number): elementwise with a mask,
    else b (a bool, or a mask as it is, so `true and m` is `m`)."""
    if type(a) is np.ndarray:
        return mask_and(a, b)
    return b if b is True or b is False else logic_rest(b)


def or_rest(a, b):
    """`a or b` when a is a mask or a false bool (or zero): as and_rest."""
    if type(a) is np.ndarray:
        return mask_or(a, b)
    return b if b is True or b is False else logic_rest(b)


def mask_and(a, b):
    """`a and b` when a is a tensor: elementwise on masks (both sides are evaluated)."""
    return _mask_logic("and", a, b, np.logical_and)


def mask_or(a, b):
    return _mask_logic("or", a, b, np.logical_or)


def logic_rest(b):
    """The right side of `a and b` or `a or b` when a (a bool or number) did not decide: a mask
    as it is, so `true and m` is `m` elementwise; anything else as a condition."""
    return b if _logical(b) else truth(b)


def _mask_logic(word: str, a, b, fn):
    if not _logical(a):
        truth(a)                              # the error for a numeric tensor as a condition
    if not (_logical(b) or type(b) is bool):
        raise LaminaError("TypeError", f"'{word}' combines two masks elementwise, but its right side is "
                          f"{describe(b)}; compare it first (x > 0) to make a mask.")
    x, y, _, _ = ops.align(a, b, word)
    return fn(x, y)


# -- literals ------------------------------------------------------------------
def bracket(items: tuple):
    """`[a, b, c]`: a vector when every item is a number, otherwise a list."""
    if all(type(x) is float for x in items):
        return np.array(items, dtype=np.float64) if items else np.zeros(0)
    if all(_is_scalar(x) for x in items):
        return ops.build_vector([_num(x) for x in items])
    return list(items)


def matrix(rows: tuple):
    """`[a, b; c, d]`: rows of numbers (or vectors, which contribute their elements)."""
    for r, row in enumerate(rows):
        for x in row:
            if not _is_scalar(x) and not (is_numeric(x) and np.ndim(x.value if type(x) is Tracked else x) == 1):
                raise LaminaError("TypeError", f"Row {r} of a matrix literal holds {describe(x)}; "
                                  "';' builds a matrix from numbers and vectors only.")
    return ops.build_matrix([[_num(x) for x in row] for row in rows])


def _is_scalar(x) -> bool:
    v = x.value if type(x) is Tracked else x
    return (type(v) is float or type(v) is int) and type(v) is not bool


# -- fields, indexing, calls ---------------------------------------------------
def field(target, name: str):
    if isinstance(target, (Record, LibObject)):
        return target.get(name)
    raise LaminaError("TypeError", f"Cannot read field '{name}' of {describe(target)}; only records "
                      "and library objects have fields.")


def set_field(target, name: str, value):
    if isinstance(target, Record):
        return target.with_field(name, value)
    if type(target) is Module:
        raise LaminaError("TypeError", f"The names of the module {target.name} cannot be assigned from "
                          "outside it; a module changes its own values, or returns new ones.")
    if isinstance(target, LibObject):
        updated = target.with_field(name, value)
        if updated is not None:
            return updated
        raise LaminaError("TypeError", f"The fields of {describe(target)} cannot be assigned; "
                          "library objects are changed only by the builtins that return new ones.")
    raise LaminaError("TypeError", f"Cannot set field '{name}' of {describe(target)}; only records have fields.")


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


def set_index(target, items: tuple, value):
    return indexing.put(target, items, value, owned=False)


def set_index_var(target, items: tuple, value):
    """`a[i] = v` on a variable: writes in place when no other value shares the array, list or
    table (copied whole at every store, a loop filling one would be quadratic)."""
    if (type(target) is np.ndarray and target.base is None or type(target) is list
            or isinstance(target, LibObject)) and _refcount(target) <= UNSHARED_REFS:
        return _put_in_place(target, items, value)
    return indexing.put(target, items, value, owned=False)


def _put_in_place(target, items: tuple, value):
    """indexing.put(owned=True) into a value no other value holds, with a number at whole indices
    into a float tensor written in line (NumPy's bounds are ours: one out of range fails below)."""
    if type(value) is float and type(target) is _NDARRAY and target.dtype is F64 and len(items) == target.ndim:
        if len(items) == 1:
            i = items[0]
            if type(i) is float and i.is_integer():
                try:
                    target[_trunc(i)] = value
                    return target
                except (IndexError, OverflowError):
                    pass
        else:
            i, j = items
            if type(i) is float and type(j) is float and i.is_integer() and j.is_integer():
                try:
                    target[_trunc(i), _trunc(j)] = value
                    return target
                except (IndexError, OverflowError):
                    pass
    return indexing.put(target, items, value, owned=True)


def set_item_var(target, i, value):
    """`v[i] = x` on a variable with one index: set_index_var without the index tuple, and
    a number into an unshared float vector at a whole index in range written in line."""
    if (type(i) is float and type(value) is float and type(target) is _NDARRAY and target.ndim == 1
            and target.base is None and target.dtype is F64 and _refcount(target) <= UNSHARED_REFS
            and i.is_integer()):
        try:
            target[_trunc(i)] = value    # NumPy's bounds are ours: one out of range fails below
            return target
        except (IndexError, OverflowError):
            pass
    # (Not through set_index_var: its own frame would hold the array once more, so that an
    # unshared array would count as shared and be copied whole at every store.)
    owned = (type(target) is _NDARRAY and target.base is None or type(target) is list) \
        and _refcount(target) <= UNSHARED_REFS
    return indexing.put(target, (i,), value, owned=owned)


def set_field_var(target, name: str, value):
    """`r.name = x` on a variable: an unshared record (its field table too) is changed in place,
    so a record built or updated field by field in a loop is not copied at every store."""
    if type(target) is Record and _refcount(target) <= UNSHARED_REFS \
            and _refcount(target.fields) <= FIELD_TABLE_REFS:
        target.fields[name] = value
        return target
    return set_field(target, name, value)


def set_field_index_var(target, name: str, inner, items: tuple, value):
    """`r.name[i] = x` on a variable, given inner = r.name (read where the field is written, for
    the span of its errors): into the tensor or list that an unshared record alone holds, in
    place; otherwise set_field(r, name, set_index(inner, items, x)), which copies both."""
    if type(target) is Record and _refcount(target) <= UNSHARED_REFS \
            and _refcount(target.fields) <= FIELD_TABLE_REFS:
        kind = type(inner)
        # held by the field table and this frame only
        if (kind is list or kind is _NDARRAY and inner.base is None) and _refcount(inner) <= UNSHARED_REFS:
            target.fields[name] = _put_in_place(inner, items, value)
            return target
    return set_field(target, name, indexing.put(inner, items, value, owned=False))


def append_var(fn, seq, item):
    """`v = append(v, x)`: when fn is the builtin append and no other value holds v, append's
    in-place form writes x into v (builtins/core.py); otherwise the call as written."""
    in_place = fn.__dict__.get("in_place") if type(fn) is _FUNCTION else None
    if in_place is not None and _refcount(seq) <= UNSHARED_REFS:
        out = in_place(seq, item)
        if out is not None:
            return out
    return fn(seq, item)


F64 = np.dtype(np.float64)
_NDARRAY, _refcount, _FUNCTION, _trunc = np.ndarray, sys.getrefcount, types.FunctionType, math.trunc


# The stores' proof that no one else holds a value (lamina/ownership.py), by the holders they
# know: the program's variable and the store's parameter (for r.v[i] = x's inner value: the
# record's field table and the parameter); a record's field table, held by the record alone.
UNSHARED_REFS = ownership.refs_limit(holders=2)
FIELD_TABLE_REFS = ownership.refs_limit(holders=1)


def make_slice(start, stop):
    return slice(start, stop)


ALL = slice(None, None)


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
        if exc.__traceback__.tb_next is not None:
            raise
        raise call_error(f, exc, name) from None


def call_site(f, args: tuple, kwargs: dict | None = None):
    """`f(x, k = v)` in compiled code: a bad call names f as the call site writes it."""
    return call(f, args, kwargs, CALLEE)


def call_error(f, exc: TypeError, name: str | None = None) -> LaminaError:
    """A Python TypeError raised by the call itself (bad arguments) as a Lamina error."""
    from .pyerrors import translate_call_error
    return translate_call_error(f, exc, name)


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
    raise LaminaError("TypeError", f"Cannot loop over {describe(x)}; 'for x in ...' takes a vector, "
                      "matrix (its rows), list, string or record (its field names).")


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
    "_pow": power, "_epow": epower, "_mod": mod, "_ldiv": ldiv, "_neg": neg, "_pos": pos,
    "_transpose": transpose,
    "_lt": lt, "_le": le, "_gt": gt, "_ge": ge, "_eq": eq, "_ne": ne,
    "_truth": truth, "_not": not_, "_bracket": bracket, "_matrix": matrix,
    "_and_rest": and_rest, "_or_rest": or_rest, "_ndarray": np.ndarray,
    "_field": field, "_set_field": set_field, "_index": index,
    "_set_index": set_index, "_set_index_var": set_index_var, "_set_item_var": set_item_var, "_item": item,
    "_set_field_var": set_field_var, "_set_field_index_var": set_field_index_var,
    "_append_var": append_var, "_slice": make_slice, "_ALL": ALL,
    "_call": call_site, "_method": method, "_for_range": for_range, "_for_each": for_each,
    "_show": show, "_show_spec": show_spec, "_echo": echo, "_float": float, "_type": type, "_Record": Record,
    "_NameError": NameError,
    "_caught": caught, "_Catchable": Exception,
}
