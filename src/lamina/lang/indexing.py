"""Reading and writing `a[i]`, `m[i, j]`, `a[lo:hi]` on tensors, lists and strings.

Indices are 0-based; a negative index counts from the end; a slice `a:b` is
half-open and either end may be left out. An integer index drops its dimension
and a slice keeps it. `m[i]` on a matrix is row `i`.
"""
from __future__ import annotations

import numpy as np

from ..autodiff import ops
from ..errors import LaminaError, describe_shape, shape_str
from ..values import LARGEST_WHOLE, LibObject, Record, Tracked, describe, format_number

ALL = slice(None, None)


def _whole(x, what: str) -> int:
    v = x.value if type(x) is Tracked else x
    if type(v) is float and v == v and abs(v) <= LARGEST_WHOLE and v == int(v):
        return int(v)
    if isinstance(v, bool) or not isinstance(v, (float, int)):
        raise LaminaError("TypeError", f"{what} must be a whole number or a slice, not {describe(x)}.")
    if v != v or v in (float("inf"), float("-inf")) or v != int(v):
        raise LaminaError("TypeError", f"{what} must be a whole number, not {format_number(v)}.")
    return int(v)


def _position(item, n: int, what: str, container) -> int:
    """The position `item` names in a dimension of n; `container()` describes it for a message
    (called only when the index is out of range: error text costs nothing on the way)."""
    i = _whole(item, what)
    j = i + n if i < 0 else i
    if not 0 <= j < n:
        valid = f"0 to {n - 1}, or -{n} to -1" if n else "none: it is empty"
        raise LaminaError("IndexError", f"Index {format_number(i)} is out of range for {container()} "
                          f"(valid: {valid}).")
    return j


def _bounds(item: slice, n: int) -> slice:
    lo = None if item.start is None else _whole(item.start, "A slice bound")
    hi = None if item.stop is None else _whole(item.stop, "A slice bound")
    return slice(*slice(lo, hi).indices(n)[:2])


def tensor_key(shape: tuple, items: tuple) -> tuple:
    """Lamina index items -> a NumPy basic-indexing key with one entry per dimension."""
    if len(shape) == 0:
        raise LaminaError("TypeError", "A number cannot be indexed.")
    if len(items) > len(shape):
        kind = "A vector takes one index" if len(shape) == 1 else "A matrix takes at most two indices"
        raise LaminaError("IndexError", f"{kind}; got {len(items)}.")
    key = []
    for axis, item in enumerate(items):
        n = shape[axis]
        if isinstance(item, slice):
            key.append(_bounds(item, n))
        elif len(shape) == 1:
            key.append(_position(item, n, "An index", lambda: describe_shape(shape)))
        else:
            key.append(_position(item, n, "A row index" if axis == 0 else "A column index",
                                 lambda: f"{'rows' if axis == 0 else 'columns'} of {describe_shape(shape)}"))
    key.extend([ALL] * (len(shape) - len(key)))
    return tuple(key)


def get(target, items: tuple):
    v = target.value if type(target) is Tracked else target
    if isinstance(v, np.ndarray):
        key = tensor_key(v.shape, items)
        if type(target) is Tracked:
            return ops.index(target, key)
        out = v[key]
        return float(out) if out.ndim == 0 else out.copy()
    if isinstance(target, (list, str)):
        return _sequence_get(target, items)
    if isinstance(target, Record) and len(items) == 1 and isinstance(items[0], str):
        return target.get(items[0])
    if isinstance(target, LibObject) and hasattr(target, "index_get"):   # e.g. a table: t[:, "name"]
        return target.index_get(items)
    raise LaminaError("TypeError", f"Cannot index {describe(target)}.")


def _sequence_get(seq, items: tuple):
    kind = "list" if isinstance(seq, list) else "string"
    if len(items) != 1:
        raise LaminaError("IndexError", f"A {kind} takes one index; got {len(items)}.")
    item = items[0]
    if isinstance(item, slice):
        return seq[_bounds(item, len(seq))]
    return seq[_position(item, len(seq), "An index", lambda: f"a {kind} of length {len(seq)}")]


def put(target, items: tuple, value, owned: bool):
    """`target` with `target[items] = value`; `owned` allows writing in place."""
    if type(target) is Tracked or type(value) is Tracked:
        v = target.value if type(target) is Tracked else target
        if not isinstance(v, np.ndarray):
            raise LaminaError("TypeError", f"Cannot assign into {describe(target)} by index.")
        return ops.setindex(target, tensor_key(v.shape, items), value)
    if isinstance(target, np.ndarray):
        key = tensor_key(target.shape, items)
        region = target[key]
        data = _fit(value, region.shape)
        out = target if owned else target.copy()
        out[key] = data
        return out
    if isinstance(target, list):
        if len(items) != 1 or isinstance(items[0], slice):
            raise LaminaError("IndexError", "A list element is assigned with one index: lst[i] = value.")
        i = _position(items[0], len(target), "An index", lambda: f"a list of length {len(target)}")
        out = list(target)
        out[i] = value
        return out
    if isinstance(target, Record) and len(items) == 1 and isinstance(items[0], str):
        return target.with_field(items[0], value)
    if isinstance(target, str):
        raise LaminaError("TypeError", "Strings cannot be changed by index; build a new string instead.")
    raise LaminaError("TypeError", f"Cannot assign into {describe(target)} by index.")


def _fit(value, shape: tuple):
    """The value to store into a region of `shape`: a number, or a tensor of that shape."""
    if isinstance(value, bool) or not isinstance(value, (float, int, np.ndarray)):
        raise LaminaError("TypeError", f"Only numbers and tensors can be stored into a tensor, not {describe(value)}.")
    if not isinstance(value, np.ndarray):
        return value
    if value.shape == shape:
        return value
    if value.ndim == 1 and len(shape) == 2 and 1 in shape and value.size == shape[0] * shape[1]:
        return value.reshape(shape)
    region = "one element" if shape == () else (f"a {shape_str(shape)}" if len(shape) == 1 else f"a {shape_str(shape)} region")
    raise LaminaError("ShapeError", f"Cannot store {describe(value)} into {region}.")
