"""Reading and writing `a[i]`, `m[i, j]`, `a[lo:hi]`, `v[[0, 2]]`, `v[v > 0]` on tensors, lists,
strings, records and tables.

What an index item picks (positions, slices, index lists, masks) is selection.py's rule; this
module applies it. An integer index drops its dimension; a slice, an index list or a mask keeps
it. `m[i]` on a matrix is row `i` (and `m[list]` those rows). Reading an element of a logical
tensor gives a bool.
"""
from __future__ import annotations

import numpy as np

from ..autodiff import ops
from ..errors import LaminaError, shape_str
from ..values import LibObject, Record, Tracked, describe
from .selection import (ALL, OuterKey, as_kept, bounds, is_list, picked, position, positions,  # noqa: F401
                        tensor_key)  # (ALL: the runtime's)


def get(target, items: tuple):
    v = target.value if type(target) is Tracked else target
    if isinstance(v, np.ndarray):
        key = tensor_key(v.shape, items)
        if type(target) is Tracked:
            return ops.index(target, key)
        if _picks_rows(key, v.shape):               # v[list] or m[list, :]: what fit's batches do
            return v.take(key[0], axis=0)
        out = picked(v, key)
        if out.ndim == 0:
            return bool(out) if v.dtype == bool else float(out)
        if out.base is None:            # index arrays picked into new memory: already a copy
            return out
        return out.copy()
    if isinstance(target, (list, str)):
        return _sequence_get(target, items)
    if isinstance(target, Record) and len(items) == 1 and isinstance(items[0], str):
        return target.get(items[0])
    if isinstance(target, LibObject) and hasattr(target, "index_get"):   # e.g. a table: t[:, "name"]
        return target.index_get(items)
    raise LaminaError("TypeError", f"Cannot index {describe(target)}.")


def _picks_rows(key: tuple, shape: tuple) -> bool:
    """Whether `key` picks whole rows (elements of a vector, slices of an array) by one index list."""
    first = key[0]
    if type(first) is not np.ndarray or first.ndim != 1 or type(key) is OuterKey:
        return False
    return all(type(k) is slice and k.step is None and not k.start and k.stop in (None, n)
               for k, n in zip(key[1:], shape[1:]))


def _sequence_get(seq, items: tuple):
    kind = "list" if isinstance(seq, list) else "string"
    if len(items) != 1:
        raise LaminaError("IndexError", f"A {kind} takes one index; got {len(items)}.")
    item = items[0]
    if isinstance(item, slice):
        return seq[bounds(item, len(seq))]
    if is_list(item):
        picked = [seq[i] for i in _picks(item, seq, kind)]
        return picked if kind == "list" else "".join(picked)
    return seq[position(item, len(seq), "An index", lambda: f"a {kind} of length {len(seq)}")]


def _picks(item, seq, kind: str) -> np.ndarray:
    unit = "items" if kind == "list" else "characters"
    return positions(item, len(seq), unit, lambda: f"a {kind} of length {len(seq)}")


def put(target, items: tuple, value, owned: bool):
    """`target` with `target[items] = value`; `owned` allows writing in place (a tensor or a list)."""
    if type(target) is Tracked or (type(value) is Tracked and isinstance(target, np.ndarray)):
        v = target.value if type(target) is Tracked else target
        if not isinstance(v, np.ndarray):
            raise LaminaError("TypeError", f"Cannot assign into {describe(target)} by index.")
        if v.dtype == bool:                 # a number stored into a mask makes it numbers
            target = v.astype(np.float64)
        return ops.setindex(target, tensor_key(v.shape, items), value)
    if isinstance(target, np.ndarray):
        key = tensor_key(target.shape, items)
        logical = target.dtype == bool
        data = _fit(value, np.shape(picked(target, key)), logical)
        if logical and not _is_logical(data):
            out = target.astype(np.float64)
        else:
            out = target if owned else target.copy()
        out[key] = as_kept(key, data)
        return out
    if isinstance(target, list):
        return _list_put(target, items, value, owned)
    if isinstance(target, Record) and len(items) == 1 and isinstance(items[0], str):
        return target.with_field(items[0], value)
    if isinstance(target, str):
        raise LaminaError("TypeError", "Strings cannot be changed by index; build a new string instead.")
    if isinstance(target, LibObject) and hasattr(target, "index_put"):   # a table: a new one
        return target.index_put(items, value, owned)
    raise LaminaError("TypeError", f"Cannot assign into {describe(target)} by index.")


def _list_put(target: list, items: tuple, value, owned: bool) -> list:
    if len(items) != 1 or isinstance(items[0], slice):
        raise LaminaError("IndexError", "A list element is assigned with one index: lst[i] = value, or "
                          "lst[positions] = value for several.")
    out = target if owned else list(target)
    if is_list(items[0]):
        picked = _picks(items[0], target, "list")
        if isinstance(value, list):
            if len(value) != len(picked):
                raise LaminaError("ShapeError", f"Cannot store a list of {len(value)} items into the "
                                  f"{len(picked)} positions an index list or mask picks.")
            for i, x in zip(picked, value):
                out[i] = x
        else:
            for i in picked:
                out[i] = value
        return out
    i = position(items[0], len(target), "An index", lambda: f"a list of length {len(target)}")
    out[i] = value
    return out


def _is_logical(x) -> bool:
    return type(x) is bool or (type(x) is np.ndarray and x.dtype == bool)


def _fit(value, shape: tuple, logical: bool = False):
    """The value to store into a region of `shape`: a number (a bool into a logical tensor), or
    a tensor of that shape; a 1 x n row or an m x 1 column stretches over a matrix region."""
    if (isinstance(value, bool) and not logical) or not isinstance(value, (bool, float, int, np.ndarray)):
        raise LaminaError("TypeError", f"Only numbers and tensors can be stored into a tensor, not {describe(value)}.")
    if not isinstance(value, np.ndarray):
        return value
    if value.shape == shape:
        return value
    if value.ndim == 1 and len(shape) == 2 and 1 in shape and value.size == shape[0] * shape[1]:
        return value.reshape(shape)
    if value.ndim == len(shape) >= 2 and all(v in (1, s) for v, s in zip(value.shape, shape)):
        return np.broadcast_to(value, shape)
    region = "one element" if shape == () else (f"a {shape_str(shape)}" if len(shape) == 1 else f"a {shape_str(shape)} region")
    raise LaminaError("ShapeError", f"Cannot store {describe(value)} into {region}.")
