"""A table's columns: numbers as NumPy vectors, text as Apache Arrow strings.

A numeric column is a float64 (or float32) NumPy vector, NaN where a cell is missing: it is what
`t.x` hands to arithmetic and the tape, without a copy. A text column is a `TextColumn`: an Arrow
string array, null where a cell is missing, with the reading side of a list of strings (`len`,
`c[i]`, iteration: a missing cell reads as ""), so that code reading cells one at a time needs no
second form; whole-column work (sorting, grouping, joins, files, SQL) uses its `arrow` array.

Which text is missing: a cell that is empty or one of MISSING_WORDS (the words read_csv reads as
NaN in a numeric column); such a cell becomes null when the column is made, prints as NA and reads
back as "".
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

MISSING_WORDS = ("", "NA", "N/A", "n/a", "NaN", "nan", "null", "NULL")
_MISSING = pa.array(MISSING_WORDS, type=pa.string())
_WORDS = frozenset(MISSING_WORDS)
EXACT = 2.0 ** 53              # whole numbers up to this are exact in a float64


class TextColumn:
    """An Arrow string array read like a list of strings (a null cell is "")."""

    __slots__ = ("arrow", "_cells")

    def __init__(self, arrow: pa.Array):
        self.arrow = arrow
        self._cells = None

    def __len__(self) -> int:
        return len(self.arrow)

    def __getitem__(self, i):
        if isinstance(i, (slice, np.ndarray, list)):
            return take(self, i)
        s = self.arrow[i].as_py()
        return "" if s is None else s

    def __iter__(self):
        return iter(self.cells())

    def cells(self) -> list[str]:
        """Every cell as a Python string, made once (a loop over t.g reads this list)."""
        if self._cells is None:
            self._cells = pc.fill_null(self.arrow, "").to_pylist()
        return self._cells

    def __eq__(self, other):
        if isinstance(other, list):
            return self.cells() == other
        return isinstance(other, TextColumn) and self.arrow.equals(other.arrow)

    def __repr__(self) -> str:
        return f"TextColumn({self.cells()!r})"


def is_numeric(c) -> bool:
    return isinstance(c, np.ndarray)


def text(strings, check: bool = True) -> TextColumn:
    """A text column from strings (a list, or an Arrow array of strings); missing words become null."""
    arr = strings if isinstance(strings, (pa.Array, pa.ChunkedArray)) else pa.array(strings, type=pa.string())
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks() if arr.num_chunks != 1 else arr.chunk(0)
    if arr.type != pa.string():
        arr = arr.cast(pa.string())
    if check and len(arr):
        gone = pc.is_in(arr, value_set=_MISSING)
        if pc.any(gone).as_py():
            arr = pc.if_else(gone, pa.scalar(None, pa.string()), arr)
    return TextColumn(arr)


def missing(c) -> np.ndarray:
    """Which cells of a column (or of a list of strings) are missing, as a bool vector."""
    if is_numeric(c):
        return np.isnan(c)
    if isinstance(c, list):
        return np.array([s in _WORDS for s in c], dtype=bool)
    return c.arrow.is_null().to_numpy(zero_copy_only=False)


def take(c, rows):
    """The cells at rows (a slice or an integer vector) as a new column."""
    if is_numeric(c):
        return c[rows].copy()
    if isinstance(rows, slice) and rows.step in (None, 1):
        return TextColumn(c.arrow[rows])
    idx = np.arange(len(c))[rows] if isinstance(rows, slice) else np.asarray(rows, dtype=np.int64)
    return TextColumn(c.arrow.take(pa.array(idx, type=pa.int64())))


def value(c):
    """The column as a Lamina value: the vector itself, or a list of strings."""
    return c if is_numeric(c) else c.cells()


def to_arrow(c) -> pa.Array:
    """The column as an Arrow array, NaN a null (a numeric column's values are not copied)."""
    if is_numeric(c):
        return pa.array(c, from_pandas=True)
    return c.arrow


def from_arrow(arr, name: str):
    """A column from an Arrow array (or chunked array) of any type Lamina reads: numbers (integers
    beyond 2^53 stay exact as text), booleans as 0/1, strings; other types as their text."""
    t = arr.type
    if pa.types.is_dictionary(t):
        return from_arrow(_chunks_of(arr, lambda a: a.dictionary_decode()), name)
    if pa.types.is_integer(t):
        lo, hi = pc.min_max(arr).values()
        if lo.is_valid and (abs(lo.as_py()) > EXACT or abs(hi.as_py()) > EXACT):
            return text(pc.cast(arr, pa.string()), check=False)
        return _floats(arr, pa.float64())
    if pa.types.is_floating(t):
        return _floats(arr, t if t in (pa.float32(), pa.float64()) else pa.float64())
    if pa.types.is_boolean(t) or pa.types.is_decimal(t):
        return _floats(arr, pa.float64())
    if pa.types.is_null(t):
        return np.full(len(arr), np.nan)
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return text(arr, check=False)
    return text(pc.cast(arr, pa.string()), check=False)


def _chunks_of(arr, f):
    if isinstance(arr, pa.ChunkedArray):
        return pa.chunked_array([f(c) for c in arr.chunks], type=None if arr.num_chunks else pa.string())
    return f(arr)


def _floats(arr, dtype: pa.DataType) -> np.ndarray:
    """Numbers as a NumPy vector of dtype, null as NaN: a view of Arrow's memory when it is one
    chunk without nulls (read-only, as a literal's array is: a store copies it first), else one copy."""
    chunks = arr.chunks if isinstance(arr, pa.ChunkedArray) else [arr]
    parts = []
    for c in chunks:
        if c.type != dtype:
            c = c.cast(dtype)
        if c.null_count:
            c = pc.fill_null(c, np.nan)
        parts.append(c.to_numpy(zero_copy_only=False))
    if not parts:
        return np.zeros(0, dtype=dtype.to_pandas_dtype())
    return parts[0] if len(parts) == 1 else np.concatenate(parts)
