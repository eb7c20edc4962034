"""The stores of compiled code: `v[i] = x`, `r.x = v`, `r.v[i] = x`, `v = append(v, x)`.

A store on a variable writes into the variable's value when no other value holds it, so that
a loop filling a vector, a list, a table or a record does not copy it whole at every store;
otherwise it makes the new value (indexing.put, Record.with_field). Who holds a value is
proved by reference counts, by the rule of lamina/ownership.py, each store stating the holders
it knows of. The number into a float vector at a whole index, the store loops are made of,
is written in line.
"""
from __future__ import annotations

import math
import sys
import types

import numpy as np

from .. import ownership
from ..errors import LaminaError
from ..values import LibObject, Record, describe
from . import indexing
from .modules import Module

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
        elif len(items) == 2:
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


# Bound once as globals for the fast paths here and in runtime.py's reads, which import them.
F64 = np.dtype(np.float64)
_NDARRAY, _refcount, _FUNCTION, _trunc = np.ndarray, sys.getrefcount, types.FunctionType, math.trunc


# The stores' proof that no one else holds a value (lamina/ownership.py), by the holders they
# know: the program's variable and the store's parameter (for r.v[i] = x's inner value: the
# record's field table and the parameter); a record's field table, held by the record alone.
UNSHARED_REFS = ownership.refs_limit(holders=2)
FIELD_TABLE_REFS = ownership.refs_limit(holders=1)
