"""Working with tables: missing rows, columns added and dropped, rows kept, sorted, grouped and
joined. Every operation returns a new table; a table never changes.

A cell is missing when it is NaN (a numeric column) or null (a text column, columns.py).
Grouping is in groups.py, joins in joins.py.
"""
from __future__ import annotations

import sys

import numpy as np

import pyarrow as pa

from ..errors import LaminaError, shape_str
from ..values import Record, as_int, describe, float_array, value_of
from . import columns as C
from .args import flag, matrix
from .groups import combined_codes, dense_codes
from .table import Table, as_table, column_names


def missing(c) -> np.ndarray:
    """Which cells of a column are missing."""
    return C.missing(c)


# -- rows with missing values -------------------------------------------------------------
def drop_missing(x, columns=None):
    if isinstance(x, Table):
        names = x.names if columns is None else column_names(columns, "drop_missing's columns", x)
        bad = np.zeros(x.nrows, dtype=bool)
        for n in names:
            bad |= missing(x.columns[n])
        return x.take(np.flatnonzero(~bad))
    if columns is not None:
        raise LaminaError("TypeError", "drop_missing's columns name columns of a table; a matrix "
                          "loses every row that holds a NaN.")
    v = value_of(x)
    if not isinstance(v, np.ndarray) or v.ndim > 2:
        raise LaminaError("TypeError", f"drop_missing takes a table, a vector or a matrix, not {describe(x)}.")
    v = float_array(v)                 # float32 stays float32
    if v.ndim == 1:
        return v[~np.isnan(v)]
    return v[~np.isnan(v).any(axis=1)].copy()


# -- columns -------------------------------------------------------------------------
def drop_columns(t, names) -> Table:
    table = as_table(t, "drop_columns's first argument")
    gone = set(column_names(names, "drop_columns's columns", table))
    return Table({k: c for k, c in table.columns.items() if k not in gone}, table.swept, table.nrows)


def distinct_rows(t: Table, counts: bool = False):
    """unique of a table: the first row of each distinct combination of cells, in the table's
    order (pandas' drop_duplicates); missing cells equal each other. With counts, a column n of
    how many rows each stands for."""
    if not t.columns or not t.nrows:
        return t.take(slice(0, 0 if not t.columns else t.nrows)) if not counts else \
            _with_counts(t.take(slice(0, t.nrows)), np.ones(t.nrows))
    codes, k = combined_codes(list(t.columns.values()))
    firsts = np.unique(codes, return_index=True)[1]
    order = np.argsort(firsts, kind="stable")
    kept = t.take(firsts[order])
    if not counts:
        return kept
    return _with_counts(kept, np.bincount(codes, minlength=k)[order].astype(np.float64))


def _with_counts(t: Table, n: np.ndarray) -> Table:
    name = "n"
    while name in t.columns:
        name += "_"
    return Table({**t.columns, name: n}, t.swept, t.nrows)


# -- rows: filter and sort -----------------------------------------------------------------
def row_record(table: Table, i: int) -> Record:
    return Record({k: float(c[i]) if C.is_numeric(c) else c[i] for k, c in table.columns.items()})


def filter_rows(x: Table, keep, call, truth) -> Table:
    """The rows of a table (each passed to keep as a record) for which keep returns true."""
    kept = [i for i in range(x.nrows) if truth(call(keep, (row_record(x, i),)))]
    return x.take(np.array(kept, dtype=int))


def sort_rows(x, by, descending=False):
    down = flag(descending, "sort_rows's descending")
    if isinstance(x, Table):
        keys = column_names(by, "sort_rows's columns", x)
        return x.take(table_order([x.columns[k] for k in keys], down))
    else:
        m = matrix(x, "sort_rows's data")
        b = value_of(by)
        cols = b.tolist() if isinstance(b, np.ndarray) and b.ndim == 1 else by if isinstance(by, list) else [by]
        if not cols:
            raise LaminaError("ValueError", "sort_rows needs at least one column to sort by.")
        picked = []
        for c in cols:
            j = as_int(c, "sort_rows's column index", minimum=0)
            if j >= m.shape[1]:
                raise LaminaError("IndexError", f"sort_rows: column {j} is out of range for a "
                                  f"{shape_str(m.shape)} matrix (columns 0 to {m.shape[1] - 1}).")
            picked.append(m[:, j])
        keys = picked
    order = np.lexsort([_rank(k, down) for k in reversed(keys)])   # stable: ties keep their order
    return m[order].reshape(-1) if np.ndim(value_of(x)) == 1 else m[order].copy()   # a vector stays one


BIG = 1 << 17          # rows from which DuckDB's parallel sort beats a sort on one core
_SORTER = []


def _sorter():
    """The DuckDB database large sorts run in, opened once (opening one costs 10 - 20 ms); only
    for a large table, since importing DuckDB costs a tenth of a second."""
    if not _SORTER:
        import duckdb
        _SORTER.append(duckdb.connect(config={"enable_external_access": False}))
    return _SORTER[0]


def table_order(keys: list, down: bool) -> np.ndarray:
    """The stable order of a table's rows by some columns: ties keep the table's order, missing
    values (NaN, null) come last in either direction, text by code point (UTF-8 bytes), a
    category by its levels' order."""
    if all(C.is_numeric(c) for c in keys):
        return _numeric_order(keys, down)
    if len(keys[0]) >= BIG:
        columns = {f"k{i}": C.sort_key(c) for i, c in enumerate(keys)}
        rows = pa.table({**columns, "row": pa.array(np.arange(len(keys[0])))})
        by = ", ".join(f"k{i} {'desc' if down else 'asc'} nulls last" for i in range(len(keys)))
        db = _sorter().cursor()
        try:
            db.register("sorted_rows", rows)
            return db.sql(f"select row from sorted_rows order by {by}, row").fetchnumpy()["row"]
        finally:
            db.close()
    return C.arrow_order(keys, down)


def _numeric_order(keys: list, down: bool) -> np.ndarray:
    """table_order of numeric columns: a radix sort, least significant part first, of each number's
    bits made an unsigned integer that sorts as the number does (_sort_bits), 16 bits at a time by
    NumPy's stable sort of 16-bit integers (itself a radix sort), the last column first. Each step
    is stable, so ties keep the table's order; parts where every row holds the same bits (the low
    bits of whole numbers) are skipped. 10^6 floats took 40 - 60 ms so on one core, DuckDB's sort
    on two 90 ms and NumPy's stable argsort 120 ms. One column whose numbers vary in more than two
    parts is ordered by NumPy's quicksort instead (_quick_stable_order)."""
    order = None
    for c in reversed(keys):
        bits = _sort_bits(c, down)
        if order is not None:
            bits = np.take(bits, order)
        varying = int(np.bitwise_or.reduce(bits) ^ np.bitwise_and.reduce(bits)) if len(bits) else 0
        parts = [j for j in range(4) if (varying >> (16 * j)) & 0xFFFF]
        if len(keys) == 1 and len(parts) > 2 and len(bits) <= QUICK_MOST:
            return _quick_stable_order(bits)
        for i, j in enumerate(parts):
            step = np.argsort(_part(bits, j), kind="stable")
            order = step if order is None else np.take(order, step)
            if i + 1 < len(parts):              # the next part reads the bits in this order
                bits = np.take(bits, step)
    return np.arange(len(keys[0])) if order is None else order


QUICK_MOST = 1 << 31          # rows whose run * n + row keys fit in an int64


def _quick_stable_order(bits: np.ndarray) -> np.ndarray:
    """The stable order of unsigned integers from NumPy's quicksort, which is not stable but is
    vectorised (AVX-512 or AVX2): each run of equal numbers in its order has its row numbers
    sorted, by one more sort of run * n + row. 10^6 floats of 5 decimals (127,000 ties) took 24 ms,
    with no ties 18 ms, against 34 and 38 ms for the radix sort's four parts."""
    order = np.argsort(bits)
    ordered = bits[order]
    tie = ordered[1:] == ordered[:-1]
    if not tie.any():
        return order
    runs = np.empty(len(bits), dtype=np.int64)
    runs[0] = 0
    np.cumsum(~tie, out=runs[1:])
    runs *= len(bits)
    keyed = runs + order
    keyed.sort()
    keyed -= runs
    return keyed


_SIGN = np.int64(-1 << 63)
_LAST = np.int64(-1)          # as an unsigned integer, the largest


def _sort_bits(c: np.ndarray, down: bool) -> np.ndarray:
    """Unsigned 64-bit integers that sort as the column's numbers (reversed when down), -0 as 0,
    NaN after every number in either direction. A float64's bits sort as its value once a negative
    number's bits are all flipped and a positive one's sign bit is set."""
    s = np.add(c, 0.0, dtype=np.float64).view(np.int64)      # + 0.0 makes -0 a 0 (a tie)
    flip = s >> 63                                             # -1 (every bit) for a negative number
    flip |= _SIGN
    if down:
        np.invert(flip, out=flip)
    s ^= flip
    if len(c) and np.isnan(c.min()):
        s[np.isnan(c)] = _LAST
    return s.view(np.uint64)


def _part(bits: np.ndarray, j: int) -> np.ndarray:
    """Bits 16 j to 16 j + 15 of each integer, as 16-bit integers."""
    if sys.byteorder == "little":
        return bits.view(np.uint16)[j::4]
    return (bits >> np.uint64(16 * j)).astype(np.uint16)


def _rank(col, down: bool) -> np.ndarray:
    """Codes that sort like a matrix's column (reversed when down), NaN last either way."""
    gone = np.isnan(col)
    codes = np.zeros(len(col), dtype=np.int64)
    if (~gone).any():
        inverse = np.unique(col[~gone], return_inverse=True)[1].reshape(-1)
        codes[~gone] = -inverse if down else inverse
    codes[gone] = codes.max() + 1 if len(codes) else 0
    return codes


# -- predictors for a model ----------------------------------------------------------------
def design(table: Table, names: list[str]) -> tuple[np.ndarray, list[str]]:
    """The predictor matrix of some columns and its term names: a numeric column as it is, a
    text column as indicator (0/1) columns, one per value but the first in sorted order (the
    reference), named column + value as R names them (arm, drug/placebo -> armplacebo)."""
    columns, terms = [], []
    for n in names:
        table.get(n)
        c = table.columns[n]
        if C.is_numeric(c):
            columns.append(c)
            terms.append(n)
            continue
        if C.kind(c) in ("date", "datetime"):
            raise LaminaError("TypeError", f"Column '{n}' holds dates; a model takes numbers or text: use "
                              f"year(t.{n}), or days since a date (t.{n} - date(\"2000-01-01\")).")
        if missing(c).any():
            raise LaminaError("ValueError", f"Column '{n}' has missing values; drop those rows first with "
                              f"drop_missing(t).")
        codes, k = dense_codes(c)
        levels = C.as_text(C.take(c, np.unique(codes, return_index=True)[1]))
        if k < 2:
            raise LaminaError("ValueError", f"Column '{n}' holds one value, \"{levels[0] if k else ''}\", "
                              f"so it cannot tell rows apart as a predictor; leave it out.")
        for j in range(1, k):
            columns.append((codes == j).astype(np.float64))
            terms.append(n + levels[j])
    X = np.column_stack(columns) if columns else np.zeros((table.nrows, 0))
    return X, terms
