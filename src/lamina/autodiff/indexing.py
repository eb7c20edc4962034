"""Reading and writing parts of tensors, and bracket literals, on the tape.

`index` and `setindex` take a key the runtime has already normalized (lang/selection.py): a
tuple with one entry per dimension, each a non-negative int in range, a slice with step None
or an array of positions (an index list, which may repeat; two of them as an open mesh), or
a one-entry tuple holding a boolean matrix of the source's shape. Reading scatters the
gradient back into zeros of the source's shape (adding up repeated picks); writing splits it
between the old value (region zeroed) and the stored value (only the writes that landed:
with repeated positions the last one wins).
"""
from __future__ import annotations

import numpy as np

from ..errors import LaminaError, describe_shape, shape_str
from ..values import Tracked, describe, tensor_dtype
from .broadcast import unbroadcast
from .tape import TAPE, record, record1, second_order


class OuterKey(tuple):
    """The key of a rank-3+ selection with index lists beside other lists or positions: NumPy
    would pair the lists up (and move their axis first); Lamina picks every combination, as
    MATLAB and Julia do, each list keeping its axis in place and each position dropping its
    own. The entries are np.ix_'s open mesh, a position as a one-element axis; `region` is the
    shape a read gives (positions' axes dropped), `kept` the mesh's shape (they stay, as 1)."""
    region: tuple
    kept: tuple

    @classmethod
    def of(cls, shape: tuple, key: list) -> "OuterKey":
        axes = [np.arange(n)[k] if type(k) is slice else np.atleast_1d(np.asarray(k, dtype=np.int64))
                for k, n in zip(key, shape)]
        out = cls(np.ix_(*axes))
        out.kept = tuple(len(a) for a in axes)
        out.region = tuple(len(a) for a, k in zip(axes, key) if type(k) is not int)
        return out


def picked(v: np.ndarray, key: tuple):
    """`v[key]`, an OuterKey's positions' axes dropped."""
    return v[key].reshape(key.region) if type(key) is OuterKey else v[key]


def as_kept(key: tuple, data):
    """Data of a selection's shape in the shape `key` writes (an OuterKey's dropped axes back as 1)."""
    return data.reshape(key.kept) if type(key) is OuterKey and type(data) is np.ndarray else data


def _lists(key: tuple) -> bool:
    return any(type(k) is np.ndarray and k.dtype != bool for k in key)


@second_order
def index(x, key: tuple):
    """`x[key]`: a copy of the selected part (a Python float for one element)."""
    v = x.value if type(x) is Tracked else x
    part = picked(v, key)
    out = float(part) if part.ndim == 0 else part.copy()
    shape = v.shape
    repeats = _lists(key)

    def vjp(g):
        if TAPE.keeping:
            return scatter(g, shape, key, v.dtype)
        return _scattered(g, shape, key, repeats, v.dtype)
    return record(out, (x,), (vjp,))


def _scattered(g, shape: tuple, key: tuple, repeats: bool, dtype):
    full = np.zeros(shape, dtype=dtype)
    if repeats:
        np.add.at(full, key, as_kept(key, g))
    else:
        full[key] = as_kept(key, g)
    return full


@second_order
def scatter(g, shape: tuple, key: tuple, dtype):
    """`g` placed at `key` in zeros of `shape` (repeated positions adding up): index's VJP on
    the tape, whose own VJP is the index again."""
    gv = g.value if type(g) is Tracked else g
    return record1(_scattered(gv, shape, key, _lists(key), dtype), g, lambda h: index(h, key))


@second_order
def masked(x, mask: np.ndarray):
    """`x .* mask` for a constant mask (on the tape)."""
    v = x.value if type(x) is Tracked else x
    return record1(v * mask, x, lambda g: masked(g, mask))


@second_order
def reshaped(x, shape: tuple):
    """`x` with the same elements in `shape` (a number for shape ())."""
    v = x.value if type(x) is Tracked else x
    if type(v) is not np.ndarray:
        return record1(np.full(shape, v), x, lambda g: reshaped(g, ())) if shape else x
    before = v.shape
    out = float(v.reshape(())) if shape == () else v.reshape(shape).copy()
    return record1(out, x, lambda g: reshaped(g, before))


@second_order
def setindex(x, key: tuple, v):
    """A new value equal to `x` with `x[key] = v` (`v` a number or a tensor fitting the region)."""
    xv = x.value if type(x) is Tracked else x
    vv = v.value if type(v) is Tracked else v
    region = np.shape(picked(xv, key))
    data = _fit(vv, region)
    out = np.array(xv, dtype=np.float32 if xv.dtype == np.float32 else np.float64)   # a mask written to is a tensor
    out[key] = as_kept(key, data)
    vshape = vv.shape if type(vv) is np.ndarray else ()
    landed = _landed(xv.shape, key, region) if _lists(key) else None

    def vjp_x(g):
        if TAPE.keeping:
            return setindex(g, key, 0.0)
        gx = g.copy()
        gx[key] = 0.0
        return gx

    def vjp_v(g):
        if TAPE.keeping:
            part = index(g, key)
            part = part if landed is None else masked(part, landed)
            if not vshape:
                return unbroadcast(part, ())
            if len(vshape) >= 2 and len(vshape) == len(region) and vshape != region:
                return unbroadcast(part, vshape)
            return reshaped(part, vshape)
        part = picked(g, key) if landed is None else picked(g, key) * landed
        if not vshape:
            return float(np.sum(part))
        if len(vshape) >= 2 and len(vshape) == len(region) and vshape != region:   # stretched over the region
            return unbroadcast(part, vshape)
        return part.reshape(vshape)
    return record(out, (x, v), (vjp_x, vjp_v))


def _landed(shape: tuple, key: tuple, region: tuple) -> np.ndarray:
    """Which elements of a written region are still there afterwards (a repeated position keeps
    its last write), as a mask in the region's shape."""
    order = np.arange(int(np.prod(region))).reshape(region)
    owner = np.full(shape, -1)
    owner[key] = as_kept(key, order)
    return picked(owner, key) == order


def _fit(value, region: tuple):
    """The value to store into a region of shape `region` (the runtime's rule for plain tensors)."""
    if isinstance(value, (float, int)) and not isinstance(value, bool):
        return value
    if type(value) is not np.ndarray:
        raise LaminaError("TypeError", f"Only numbers and tensors can be stored into a tensor, not "
                          f"{describe(value)}.")
    if value.shape == region:
        return value
    if value.ndim == 1 and len(region) == 2 and 1 in region and value.size == region[0] * region[1]:
        return value.reshape(region)
    if value.ndim == len(region) >= 2 and all(v in (1, r) for v, r in zip(value.shape, region)):
        return np.broadcast_to(value, region)
    where = ("one element" if region == () else
             f"a {shape_str(region)}" if len(region) == 1 else f"a {shape_str(region)} region")
    what = describe_shape(value.shape)
    raise LaminaError("ShapeError", f"Cannot store {what} into {where}.")


# -- bracket literals ----------------------------------------------------------
def _pieces(items):
    """(values, lengths): each item's value and how many elements it contributes."""
    values, lengths = [], []
    for item in items:
        val = item.value if type(item) is Tracked else item
        if type(val) is np.ndarray:
            if val.ndim != 1:
                raise LaminaError("TypeError", f"A {shape_str(val.shape)} matrix cannot be an element of "
                                  "a bracket literal; use hcat or vcat to join matrices.")
            lengths.append(len(val))
        else:
            lengths.append(None)   # a number: one element, and its gradient is a float
        values.append(val)
    return values, lengths


def _part_vjps(lengths, row: int | None):
    """One VJP per item: the item's slice of the gradient (of row `row` for a matrix)."""
    vjps, start = [], 0
    for n in lengths:
        vjps.append(_element_vjp(start, row) if n is None else _slice_vjp(start, start + n, row))
        start += 1 if n is None else n
    return vjps


@second_order
def _element_vjp(i: int, row):
    key = (i,) if row is None else (row, i)
    return lambda g: index(g, key) if TAPE.keeping else float(g[key])


@second_order
def _slice_vjp(lo: int, hi: int, row):
    key = (slice(lo, hi),) if row is None else (row, slice(lo, hi))
    return lambda g: index(g, key) if TAPE.keeping else g[key]


def build_vector(items: list):
    """`[a, b, c]` of numbers (tracked or not); a vector item contributes its elements."""
    values, lengths = _pieces(items)
    if all(n is None for n in lengths):
        out = np.array(values, dtype=np.float64) if values else np.zeros(0)
    else:
        dtype = tensor_dtype(*values)
        out = np.concatenate([np.atleast_1d(np.asarray(v, dtype=dtype)) for v in values])
    if not any(type(item) is Tracked for item in items):
        return out
    return record(out, items, _part_vjps(lengths, None))


def build_matrix(rows: list):
    """`[a, b; c, d]`: rows of numbers and vectors (a vector contributes its elements to its row)."""
    flat, inputs, vjps, width = [], [], [], None
    dtype = tensor_dtype(*(item for row in rows for item in row))
    for r, row in enumerate(rows):
        values, lengths = _pieces(row)
        n = sum(1 if k is None else k for k in lengths)
        if width is None:
            width = n
        elif n != width:
            raise LaminaError("ShapeError", f"Every row of a matrix literal needs the same length, but "
                              f"row 0 has {width} elements and row {r} has {n}.")
        flat.append(np.concatenate([np.atleast_1d(np.asarray(v, dtype=dtype)) for v in values])
                    if values else np.zeros(0))
        inputs.extend(row)
        vjps.extend(_part_vjps(lengths, r))
    out = np.stack(flat) if flat else np.zeros((0, 0))
    return record(out, inputs, vjps)

