"""Orderings: sort and argsort, by value, by a key function, or by a record field.

Every ordering is stable (equal keys keep their order, in either direction) and puts NaN last
in either direction. Dates sort by time and a category by the order of its levels, a missing
cell last as NaN is. A key function sees each element of a vector as a number, each row of a
matrix as a vector, and each item of a list as it is; it must give numbers or strings, all of
one kind. Sorting a tensor is differentiable: each sorted value's gradient goes back to the
element (or row) it came from.
"""
from __future__ import annotations

import numpy as np

from ..autodiff import shaping
from ..autodiff.tape import record
from ..errors import LaminaError
from ..values import LibObject, Record, describe, is_function, lamina_value, value_of
from .args import axis_of, data, flag, shaped_like


def order_of(keys: list, down: bool) -> list[int]:
    """The stable order of keys (numbers or strings), NaNs last in either direction."""
    nan = [i for i, k in enumerate(keys) if k != k]
    rest = [i for i, k in enumerate(keys) if k == k]
    rest.sort(key=keys.__getitem__, reverse=down)
    return rest + nan


def nan_arg_extreme(v: np.ndarray, largest: bool, axis=None):
    """The index of the first largest (or smallest) element that is not NaN, along axis or of
    the whole (row-major), as nanargmax; but nanargmax reads a NaN as -Inf, so it picked a NaN
    before a -Inf. Every slice must hold a number."""
    best = (np.nanmax if largest else np.nanmin)(v, axis=axis, keepdims=axis is not None)
    return np.argmax(v == best, axis=axis)


def _checked_keys(keys: list, what: str) -> list:
    kinds = set()
    for k in keys:
        if isinstance(k, str):
            kinds.add("string")
        elif isinstance(k, (float, int)) and not isinstance(k, bool):
            kinds.add("number")
        else:
            raise LaminaError("TypeError", f"{what} must be numbers or strings, not {describe(k)}.")
    if len(kinds) > 1:
        raise LaminaError("TypeError", f"{what} must be all numbers or all strings, not a mix of both.")
    return keys


def _plain_keys(xs: list, who: str) -> list:
    kinds = {type(v) for v in xs}
    if not (kinds <= {str} or kinds <= {float, int}):
        raise LaminaError("TypeError", f"{who} of a list needs all strings or all numbers.")
    return xs


def keys_by(x, by, who: str) -> list:
    """The key of each element (vector), row (matrix) or item (list) under `by`: a function of
    it, or the name of a field of records."""
    v = value_of(x)
    if isinstance(v, np.ndarray):
        items = v.tolist() if v.ndim == 1 else [row.copy() for row in v]
    elif isinstance(v, list):
        items = v
    elif _cells(v):
        items = v.elements()
    else:
        raise LaminaError("TypeError", f"{who} with by needs a vector, matrix (its rows) or list, not {describe(x)}.")
    if isinstance(by, str):
        if not all(isinstance(item, Record) for item in items):
            raise LaminaError("TypeError", f"{who}(xs, by = \"{by}\") sorts a list of records by their field "
                              f"'{by}', but xs is {describe(x)}" + (" holding other values" if isinstance(v, list)
                                                                   else "") + "; give by a function instead.")
        keys = [value_of(item.get(by)) for item in items]
        return _checked_keys(keys, f"The fields '{by}' that {who} compares")
    if not is_function(by):
        raise LaminaError("TypeError", f"{who}'s by must be a function or a field name, not {describe(by)}.")
    from ..lang.runtime import call
    return _checked_keys([value_of(call(by, (item,))) for item in items], f"The keys that {who}'s by gives")


def _cells(x) -> bool:
    """A vector of dates or a category: cells that sort by time or by level. (Their modules, and
    Arrow with them, are imported once such a value exists, not by every sort of numbers.)"""
    if not isinstance(x, LibObject):
        return False
    from .categories import Categorical
    from .dates import Dates
    return isinstance(x, Categorical) or isinstance(x, Dates) and not x.scalar


def _cell_order(x, down: bool) -> np.ndarray:
    """The stable order of the cells, as a table's rows by this column (missing cells last)."""
    from . import columns as C
    return C.arrow_order([x], down)


def _no_axis(x, axis, who: str) -> None:
    if axis is not None:
        raise LaminaError("TypeError", f"{who} of {describe(x)} takes no axis: it has one.")


def sort(x, axis=None, descending=False, by=None):
    down = flag(descending, "sort's descending")
    if _cells(x):
        _no_axis(x, axis, "sort")
        return x.take(_cell_order(x, down) if by is None else order_of(keys_by(x, by, "sort"), down))
    if by is not None:
        if axis is not None:
            raise LaminaError("TypeError", "sort takes by or axis, not both: by reorders the items "
                              "(a matrix's rows) by their keys.")
        order = order_of(keys_by(x, by, "sort"), down)
        return [x[i] for i in order] if isinstance(x, list) else shaping.take(x, order)
    if isinstance(x, list):
        if axis is not None:
            raise LaminaError("TypeError", "sort of a list takes no axis.")
        return [x[i] for i in order_of(_plain_keys(x, "sort"), down)]
    a = data(x, "sort's data")
    k = axis_of(a.shape, axis, "sort")
    flat = a if k is not None else a.reshape(-1)
    k = -1 if k is None else k

    def vjp(g):
        # each sorted value's gradient goes back to the element it came from
        order = np.argsort(-flat if down else flat, axis=k, kind="stable")
        back = np.zeros(flat.shape)
        np.put_along_axis(back, order, g, axis=k)
        return shaped_like(back, x)
    out = lamina_value(-np.sort(-flat, axis=k) if down else np.sort(flat, axis=k))
    return record(out, (x,), (vjp,))


def argsort(x, axis=None, descending=False, by=None):
    """0-based indices that sort x (as numbers); along an axis, one ordering per column or row."""
    down = flag(descending, "argsort's descending")
    if _cells(x) and by is None:
        _no_axis(x, axis, "argsort")
        return _cell_order(x, down).astype(np.float64)
    if by is not None or isinstance(x, list):
        if axis is not None:
            raise LaminaError("TypeError", "argsort takes an axis only for a tensor without by.")
        keys = keys_by(x, by, "argsort") if by is not None else _plain_keys(x, "argsort")
        return np.array(order_of(keys, down), dtype=np.float64)
    a = data(x, "argsort's data")
    k = axis_of(a.shape, axis, "argsort")
    flat = a if k is not None else a.reshape(-1)
    return np.argsort(-flat if down else flat, axis=-1 if k is None else k, kind="stable").astype(np.float64)
