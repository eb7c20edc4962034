"""A table's columns: numbers as NumPy vectors, text as Apache Arrow strings, dates and categories.

A numeric column is a float64 (or float32) NumPy vector, NaN where a cell is missing: it is what
`t.x` hands to arithmetic and the tape, without a copy. A text column is a `TextColumn`: an Arrow
string array, null where a cell is missing, with the reading side of a list of strings (`len`,
`c[i]`, iteration: a missing cell reads as ""), so that code reading cells one at a time needs no
second form; whole-column work (sorting, grouping, joins, files, SQL) uses its `arrow` array.
Date columns are dates.Dates, category columns categories.Categorical: each answers the same
protocol as TextColumn (len, c[i], take, missing, to_arrow, texts, replaced), so the functions
below tell only numbers from the rest.

Which text is missing: a cell that is empty or one of MISSING_WORDS (the words read_csv reads as
NaN in a numeric column); such a cell becomes null when the column is made, prints as NA and reads
back as "".
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from . import categories, dates
from .categories import Categorical

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

    def take(self, rows) -> "TextColumn":
        if isinstance(rows, slice) and rows.step in (None, 1):
            return TextColumn(self.arrow[rows])
        idx = np.arange(len(self))[rows] if isinstance(rows, slice) else np.asarray(rows, dtype=np.int64)
        return TextColumn(self.arrow.take(pa.array(idx, type=pa.int64())))

    def missing(self) -> np.ndarray:
        return self.arrow.is_null().to_numpy(zero_copy_only=False)

    def to_arrow(self) -> pa.Array:
        return self.arrow

    def texts(self) -> list:
        return self.arrow.to_pylist()

    def replaced(self, rows, texts: list) -> "TextColumn":
        cells = list(self.cells())
        for i, t in zip(rows, texts):
            cells[i] = t
        return text(cells)

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


def kind(c) -> str:
    """number, text, date, datetime or category."""
    if is_numeric(c):
        return "number"
    if isinstance(c, TextColumn):
        return "text"
    if isinstance(c, Categorical):
        return "category"
    return "datetime" if c.is_datetime else "date"


def missing(c) -> np.ndarray:
    """Which cells of a column (or of a list of strings) are missing, as a bool vector."""
    if is_numeric(c):
        return np.isnan(c)
    if isinstance(c, list):
        return np.array([s in _WORDS for s in c], dtype=bool)
    return c.missing()


def has_missing(c) -> bool:
    """Whether any cell of a column is missing (missing(c).any() without its vector of flags)."""
    if is_numeric(c):
        return bool(len(c)) and bool(np.isnan(c.min()))      # min is NaN when a cell is
    if isinstance(c, TextColumn):
        return c.arrow.null_count > 0
    return bool(missing(c).any())


def take(c, rows):
    """The cells at rows (a slice or a vector of positions from 0) as a new column; numbers are
    gathered by Arrow's take, into a read-only vector (a sort's four columns of 10^6 rows took
    13 ms so, 19 ms by NumPy's)."""
    if not is_numeric(c):
        return c.take(rows)
    if isinstance(rows, slice):
        return c[rows].copy()
    rows = np.asarray(rows)
    if rows.dtype.kind not in "iu":
        return c[rows]
    return pc.take(pa.array(c), pa.array(rows)).to_numpy()


def value(c):
    """The column as a Lamina value: the vector, a list of strings, or the dates or category
    (values that never change, so the table and the program may share them)."""
    if is_numeric(c):
        return c
    return c.cells() if isinstance(c, TextColumn) else c


def to_arrow(c) -> pa.Array:
    """The column as an Arrow array, NaN a null (a numeric column's values are not copied)."""
    if is_numeric(c):
        return pa.array(c, from_pandas=True)
    return c.to_arrow()


def sort_key(c) -> pa.Array:
    """An Arrow array that sorts as the column does (a category by its levels' order)."""
    return c.sort_key() if isinstance(c, Categorical) else to_arrow(c)


def arrow_order(keys: list, down: bool) -> np.ndarray:
    """Arrow's stable order of rows by the columns `keys`: missing cells last in either direction,
    text by code point, a category by its levels' order."""
    direction = "descending" if down else "ascending"
    columns = pa.table({f"k{i}": sort_key(c) for i, c in enumerate(keys)})
    return pc.sort_indices(columns, sort_keys=[(k, direction, "at_end") for k in columns.column_names]).to_numpy()


def as_text(c) -> TextColumn:
    """A column's cells as text (dates as ISO text), missing cells null."""
    return c if isinstance(c, TextColumn) else text(pa.array(c.texts(), type=pa.string()), check=False)


def gather(c, rows: np.ndarray, complete: bool = False):
    """The cells at rows, a missing cell where a row is -1 (complete: no row is)."""
    if is_numeric(c):
        if complete:
            return c[rows]
        out = c[np.maximum(rows, 0)] if len(c) else np.full(len(rows), np.nan, dtype=c.dtype)
        out[rows < 0] = np.nan
        return out
    return from_arrow(to_arrow(c).take(pa.array(rows, mask=rows < 0, type=pa.int64())))


def stacked(a, b):
    """The cells of a, then those of b (two columns of one kind)."""
    if is_numeric(a):
        return np.concatenate([a, b])
    if isinstance(a, Categorical) and a.levels != b.levels:
        a, b = as_text(a), as_text(b)
    return from_arrow(pa.concat_arrays([to_arrow(a), to_arrow(b)]))


def either(use_a: np.ndarray, a, b):
    """Cell by cell, a's where use_a, else b's."""
    if is_numeric(a):
        return np.where(use_a, a, b)
    if isinstance(a, Categorical) and a.levels != b.levels:
        a, b = as_text(a), as_text(b)
    return from_arrow(pc.if_else(pa.array(use_a), to_arrow(a), to_arrow(b)))


def from_arrow(arr, pool: pa.MemoryPool | None = None):
    """A column from an Arrow array (or chunked array) of any type Lamina reads: numbers (integers
    beyond 2^53 stay exact as text), booleans as 0/1, strings; other types as their text. A numeric
    column's memory comes from pool (Arrow's default when None)."""
    t = arr.type
    if pa.types.is_dictionary(t):
        return categories.from_arrow(arr)
    if pa.types.is_date(t) or pa.types.is_timestamp(t):
        return dates.from_arrow(arr)
    if pa.types.is_integer(t):
        values = _floats(arr, pa.float64(), pool)
        if len(values) and -EXACT < np.fmin.reduce(values) and np.fmax.reduce(values) < EXACT:
            return values                 # (0.2 ms for 10^6 numbers; Arrow's min_max 4 ms)
        lo, hi = pc.min_max(arr).values()     # on the integers: 2^53 + 1 is 2^53 as a float
        if lo.is_valid and (abs(lo.as_py()) > EXACT or abs(hi.as_py()) > EXACT):
            return text(pc.cast(arr, pa.string()), check=False)
        return values
    if pa.types.is_floating(t):
        return _floats(arr, t if t in (pa.float32(), pa.float64()) else pa.float64(), pool)
    if pa.types.is_boolean(t) or pa.types.is_decimal(t):
        return _floats(arr, pa.float64())
    if pa.types.is_null(t):
        return np.full(len(arr), np.nan)
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return text(arr, check=False)
    return text(pc.cast(arr, pa.string()), check=False)


def _floats(arr, dtype: pa.DataType, pool: pa.MemoryPool | None = None) -> np.ndarray:
    """Numbers as a NumPy vector of dtype, null as NaN: a read-only view of Arrow's memory (as a
    literal's array is read-only: a store copies it first). One chunk without nulls is Arrow's
    memory itself; more are copied, cast and filled in one pass into one buffer from pool (a column
    of 10^7 integers took 0.1 s as Arrow's join of the chunks and then its cast, 0.05 s so). The
    fresh pages are most of the cost: 10^7 floats took 45 - 50 ms from jemalloc (19,500 faults)
    every time, from a NumPy vector or mimalloc (huge pages) 15 ms in some processes and 130 -
    750 ms in others."""
    chunks = arr.chunks if isinstance(arr, pa.ChunkedArray) else [arr]
    if not all(pa.types.is_integer(c.type) or pa.types.is_floating(c.type) for c in chunks):
        return _floats_by_arrow(arr, dtype)          # booleans, decimals
    if len(chunks) == 1 and chunks[0].type == dtype and not chunks[0].null_count:
        return chunks[0].to_numpy()                  # the reader's own memory, read-only
    kind = np.dtype(dtype.to_pandas_dtype())
    out = np.frombuffer(pa.allocate_buffer(len(arr) * kind.itemsize, memory_pool=pool), dtype=kind)
    at = 0
    for c in chunks:              # a chunk with nulls comes as floats with NaN, else without a copy
        out[at:at + len(c)] = c.to_numpy(zero_copy_only=False)
        at += len(c)
    out.flags.writeable = False
    return out


def _floats_by_arrow(arr, dtype: pa.DataType) -> np.ndarray:
    if isinstance(arr, pa.ChunkedArray):
        arr = pa.concat_arrays(arr.chunks) if arr.num_chunks else pa.array(np.zeros(0), type=dtype)
    if arr.type != dtype:
        arr = pc.cast(arr, dtype)
    if arr.null_count:
        arr = pc.fill_null(arr, np.nan)
    return arr.to_numpy(zero_copy_only=False)
