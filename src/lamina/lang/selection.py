"""What an index picks: Lamina index items -> NumPy keys (indexing.py reads and writes with them).

An index item is a whole number (a position: 0-based, negative from the end; it drops its
dimension), a slice `a:b` (half-open; keeps its dimension), an index list (a vector of
positions, `v[[0, 2]]`; repeats allowed; keeps its dimension) or a mask (a logical tensor from
a comparison, `v[v > 15]`: one true or false per element of the dimension; keeps it). A row or
column (`sum(m, axis = 1) > 0` is an m x 1 column) serves as a vector. On a matrix, a mask of
the matrix's own shape picks elements, row by row, into a vector: `m[m > 2]`. Two index lists
pick rows and columns (the submatrix, as in MATLAB and Julia, not NumPy's pairs).
"""
from __future__ import annotations

import math

import numpy as np

from ..autodiff.indexing import OuterKey, as_kept, picked  # noqa: F401  (the key's readers, for indexing.py)
from ..errors import LaminaError, describe_shape
from ..values import LARGEST_WHOLE, LibObject, Tracked, describe, format_number

ALL = slice(None, None)
_F64 = np.dtype(np.float64)
_min, _max = np.minimum.reduce, np.maximum.reduce
_trunc = math.trunc


def whole(x, what: str) -> int:
    v = x.value if type(x) is Tracked else x
    if type(v) is float and v.is_integer() and abs(v) <= LARGEST_WHOLE:
        return _trunc(v)
    if isinstance(v, bool) or not isinstance(v, (float, int)):
        raise LaminaError("TypeError", f"{what} must be a whole number, a slice, an index list or a mask, "
                          f"not {describe(x)}.")
    if v != v or v in (float("inf"), float("-inf")) or v != int(v):
        raise LaminaError("TypeError", f"{what} must be a whole number, not {format_number(v)}.")
    return int(v)


def position(item, n: int, what: str, container) -> int:
    """The position `item` names in a dimension of n; `container()` describes it for a message
    (called only when the index is out of range: error text costs nothing on the way)."""
    i = whole(item, what)
    j = i + n if i < 0 else i
    if not 0 <= j < n:
        raise LaminaError("IndexError", f"Index {format_number(i)} is out of range for {container()} "
                          f"(valid: {_valid(n)}).")
    return j


def _valid(n: int) -> str:
    return f"0 to {n - 1}, or -{n} to -1" if n else "none: it is empty"


def bounds(item: slice, n: int) -> slice:
    lo = None if item.start is None else whole(item.start, "A slice bound")
    hi = None if item.stop is None else whole(item.stop, "A slice bound")
    return slice(*slice(lo, hi).indices(n)[:2])


def is_list(item) -> bool:
    """Whether an index item is an index list or a mask (a tensor) rather than a position."""
    return type(item.value if type(item) is Tracked else item) is np.ndarray


def positions(item, n: int, unit: str, container) -> np.ndarray:
    """The positions an index list or mask picks from a dimension of n `unit`s (elements, rows,
    columns), as an int array; `container()` names what is indexed, for messages."""
    v = item.value if type(item) is Tracked else item
    if v.ndim == 2:
        if 1 not in v.shape:
            kind = "A logical matrix" if v.dtype == bool else "An index list"
            raise LaminaError("IndexError", f"{kind} of shape {'x'.join(map(str, v.shape))} cannot pick "
                              f"{unit} of {container()}: an index list or mask is a vector (or one row or "
                              f"column){' and a mask with the shape of a matrix picks its elements' if v.dtype == bool else ''}.")
        v = v.reshape(-1)
    if v.dtype == _F64 and len(v):
        # The common case in few passes: every position whole and in range. Anything else
        # (NaN, a fraction, out of range) takes the checks below, which word the error.
        lo, hi = _min(v), _max(v)
        if -n <= lo and hi < n:
            idx = v.astype(np.int64)
            if (idx == v).all():
                return np.where(idx < 0, idx + n, idx) if lo < 0 else idx
    if v.dtype == bool:
        if len(v) != n:
            raise LaminaError("IndexError", f"A mask of length {len(v)} cannot pick {unit} of {container()}: "
                              f"it needs one true or false for each of the {n} {unit}.")
        return np.flatnonzero(v)
    ok = np.isfinite(v) & (v == np.round(v))
    if not ok.all():
        raise LaminaError("TypeError", f"An index list holds whole numbers (positions), but this one holds "
                          f"{format_number(v[~ok][0])}.")
    outside = (v < -n) | (v >= n)
    if outside.any():
        raise LaminaError("IndexError", f"Index {format_number(v[outside][0])} in the index list is out of range "
                          f"for {container()} (valid: {_valid(n)}).")
    idx = v.astype(np.int64)
    return np.where(idx < 0, idx + n, idx)


def tensor_key(shape: tuple, items: tuple) -> tuple:
    """Lamina index items -> a NumPy key with one entry per dimension: ints, slices and int
    arrays (two arrays of a matrix as an open mesh, for the submatrix), or (boolean tensor,) for
    a mask of the tensor's own shape; on a tensor of rank 3 or more, an index list beside another
    list or a position makes an `OuterKey`."""
    rank = len(shape)
    if rank == 0:
        raise LaminaError("TypeError", "A number cannot be indexed.")
    if len(items) > rank:
        kind = ("A vector takes one index" if rank == 1 else "A matrix takes at most two indices" if rank == 2
                else f"{describe_shape(shape).capitalize()} takes at most {rank} indices")
        raise LaminaError("IndexError", f"{kind}; got {len(items)}.")
    if rank >= 2 and len(items) == 1 and is_list(items[0]):
        m = items[0].value if type(items[0]) is Tracked else items[0]
        if m.dtype == bool and m.shape == shape:
            return (m,)                               # the elements a same-shaped mask picks
    key, lists, positions_ = [], 0, 0
    for axis, item in enumerate(items):
        n = shape[axis]
        if isinstance(item, slice):
            key.append(bounds(item, n))
        elif is_list(item):
            key.append(positions(item, n, _unit(shape, axis), lambda: describe_shape(shape)))
            lists += 1
        else:
            key.append(position(item, n, _what(shape, axis), lambda: _along(shape, axis)))
            positions_ += 1
    key.extend([ALL] * (rank - len(key)))
    if rank == 2 and lists == 2:
        return np.ix_(key[0], key[1])
    if rank > 2 and (lists > 1 or lists and positions_):
        return OuterKey.of(shape, key)
    return tuple(key)


def _unit(shape: tuple, axis: int) -> str:
    if len(shape) == 1:
        return "elements"
    if len(shape) == 2:
        return "rows" if axis == 0 else "columns"
    return f"positions along axis {axis}"


def _what(shape: tuple, axis: int) -> str:
    if len(shape) == 1:
        return "An index"
    if len(shape) == 2:
        return "A row index" if axis == 0 else "A column index"
    return f"The index on axis {axis}"


def _along(shape: tuple, axis: int) -> str:
    if len(shape) == 1:
        return describe_shape(shape)
    if len(shape) == 2:
        return f"{'rows' if axis == 0 else 'columns'} of {describe_shape(shape)}"
    return f"axis {axis} of {describe_shape(shape)}"


def put_one_axis(target, items: tuple, value, n: int, replaced):
    """`x[i] = v`, `x[a:b] = v` and `x[list or mask] = v` of a library value of n elements along one
    axis (dates, a category): replaced(rows, cells), the cells v once per row picked, or v's own
    (a list, a vector of dates) one per row."""
    if len(items) != 1:
        raise LaminaError("IndexError", f"{describe(target)} takes one index, not {len(items)}.")
    item = items[0]
    if isinstance(item, slice):
        rows = np.arange(n)[bounds(item, n)]
    elif is_list(item):
        rows = positions(item, n, "elements", lambda: describe(target))
    else:
        rows = [position(item, n, "An index", lambda: describe(target))]
    cells = value.elements() if isinstance(value, LibObject) else None
    if cells is None:
        cells = value if isinstance(value, list) else [value] * len(rows)
    if len(cells) != len(rows):
        raise LaminaError("ShapeError", f"Cannot store {len(cells)} values into the {len(rows)} element"
                          f"{'s' * (len(rows) != 1)} picked of {describe(target)}.")
    return replaced(rows, cells)


def index_one_axis(value, items: tuple, n: int, take, one):
    """`x[i]`, `x[a:b]` and `x[list or mask]` of a library value of n elements along one axis
    (dates, a category): a position gives `one(i)`, a slice, list or mask `take(rows)`."""
    if len(items) != 1:
        raise LaminaError("IndexError", f"{describe(value)} takes one index, not {len(items)}.")
    item = items[0]
    if isinstance(item, slice):
        return take(bounds(item, n))
    if is_list(item):
        return take(positions(item, n, "elements", lambda: describe(value)))
    return one(position(item, n, "An index", lambda: describe(value)))
