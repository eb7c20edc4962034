"""Working with tables: missing rows, columns added and dropped, rows kept, sorted, grouped and
joined. Every operation returns a new table; a table never changes.

A cell is missing when it is NaN (a numeric column) or null (a text column, columns.py).
Grouping is in groups.py, joins in joins.py.
"""
from __future__ import annotations

import numpy as np

import pyarrow as pa
import pyarrow.compute as pc

from ..errors import LaminaError, shape_str
from ..values import Record, as_int, describe, float_array, value_of
from . import columns as C
from .args import flag, matrix
from .groups import dense_codes
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
        one = x.columns[keys[0]]
        if len(keys) == 1 and C.is_numeric(one):
            return x.take(_stable_order(-one if down else one))
        direction = "descending" if down else "ascending"
        # Arrow's sort is stable, NaN and null last either way, text by code point (UTF-8 bytes)
        order = pc.sort_indices(pa.table({str(i): C.sort_key(x.columns[k]) for i, k in enumerate(keys)}),
                                sort_keys=[(str(i), direction, "at_end") for i in range(len(keys))])
        return x.take(order.to_numpy())
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


def _stable_order(v: np.ndarray) -> np.ndarray:
    """The stable order of a vector, NaN last: NumPy's quicksort, which is a third faster than its
    stable sort on floats, when no two values are equal (then the order is the stable one)."""
    order = np.argsort(v)
    s = v[order]
    if len(s) > 1 and (np.any(s[1:] == s[:-1]) or np.isnan(s[-2:]).all()):
        order = np.argsort(v, kind="stable")          # ties: their rows must keep the table's order
    return order


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
