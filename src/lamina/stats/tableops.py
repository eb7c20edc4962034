"""Working with tables: missing rows, columns added and dropped, rows kept, sorted, grouped and
joined. Every operation returns a new table; a table never changes.

A cell is missing when it is NaN (a numeric column) or, in a text column, empty or one of the
words read_csv reads as NaN in a numeric column (NA, N/A, NaN, nan).
"""
from __future__ import annotations

import numpy as np

from ..autodiff.tape import is_live
from ..errors import LaminaError, shape_str
from ..printing import html_table
from ..values import (
    LibObject,
    Record,
    as_int,
    as_str,
    describe,
    float_array,
    is_function,
    value_of,
)
from .args import flag, matrix
from .csvfile import MISSING
from .summary import layout
from .table import SHOWN_ROWS, Table, as_table, cell, column


def _names(x, what: str, table: Table) -> list[str]:
    """One column name or a list of them, each checked against the table; a name given twice
    counts once (as in pandas: sorting, grouping or joining by a column twice is by it once)."""
    if isinstance(x, str):
        names = [x]
    elif isinstance(x, list) and x and all(isinstance(s, str) for s in x):
        names = list(dict.fromkeys(x))
    else:
        raise LaminaError("TypeError", f"{what} must be a column name or a list of column names, "
                          f"not {describe(x)}.")
    for n in names:
        table.get(n)
    return names


def missing(c) -> np.ndarray:
    """Which cells of a column are missing."""
    if isinstance(c, np.ndarray):
        return np.isnan(c)
    return np.array([s.strip() in MISSING for s in c], dtype=bool)


# -- rows with missing values -------------------------------------------------------------
def drop_missing(x, columns=None):
    if isinstance(x, Table):
        names = x.names if columns is None else _names(columns, "drop_missing's columns", x)
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
    gone = set(_names(names, "drop_columns's columns", table))
    return Table({k: c for k, c in table.columns.items() if k not in gone}, table.swept, table.nrows)


# -- rows: filter and sort -----------------------------------------------------------------
def row_record(table: Table, i: int) -> Record:
    return Record({k: float(c[i]) if isinstance(c, np.ndarray) else c[i] for k, c in table.columns.items()})


def filter_rows(x: Table, keep, call, truth) -> Table:
    """The rows of a table (each passed to keep as a record) for which keep returns true."""
    kept = [i for i in range(x.nrows) if truth(call(keep, (row_record(x, i),)))]
    return x.take(np.array(kept, dtype=int))


def sort_rows(x, by, descending=False):
    down = flag(descending, "sort_rows's descending")
    if isinstance(x, Table):
        keys = [x.columns[n] for n in _names(by, "sort_rows's columns", x)]
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
    if isinstance(x, Table):
        return x.take(order)
    return m[order].reshape(-1) if np.ndim(value_of(x)) == 1 else m[order].copy()   # a vector stays one


def _rank(col, down: bool) -> np.ndarray:
    """Codes that sort like the column (reversed when down), missing values last either way."""
    gone = missing(col)
    codes = np.zeros(len(col), dtype=np.int64)
    if (~gone).any():
        if isinstance(col, np.ndarray):
            inverse = np.unique(col[~gone], return_inverse=True)[1].reshape(-1)
        else:
            # text ranked in Python: as a NumPy string array every cell would take the room of the
            # longest (one cell of 10,000 characters in 100,000 rows: 4 GB)
            kept = [s for s, g in zip(col, gone.tolist()) if not g]
            code = {s: i for i, s in enumerate(sorted(set(kept)))}
            inverse = np.array([code[s] for s in kept], dtype=np.int64)
        codes[~gone] = -inverse if down else inverse
    codes[gone] = codes.max() + 1 if len(codes) else 0
    return codes


# -- groups --------------------------------------------------------------------------
class Grouped(LibObject):
    """A table with its rows divided into groups by the values of some columns (group_by)."""
    type_name = "grouped table"

    def __init__(self, table: Table, by: list[str]):
        self.table, self.by = table, by
        codes = []
        for n in by:
            c = table.columns[n]
            if missing(c).any():
                raise LaminaError("ValueError", f"group_by: column '{n}' has missing values; drop those "
                                  f"rows first with drop_missing(t, \"{n}\").")
            codes.append(_rank(c, False))
        # one code per distinct combination of keys, in sorted order of the keys
        combos, self.group_of = np.unique(np.stack(codes, axis=1), axis=0, return_inverse=True)
        self.group_of = self.group_of.reshape(-1)
        # each group's rows in table order: one stable sort, cut at the group sizes (not a scan
        # of every row per group, which is quadratic when most keys are distinct)
        order = np.argsort(self.group_of, kind="stable")
        ends = np.cumsum(np.bincount(self.group_of, minlength=len(combos)))
        self.rows = np.split(order, ends[:-1]) if len(combos) else []

    def field_names(self) -> list[str]:
        return ["by", "keys", "sizes", "table"]

    def get(self, name: str):
        if name == "by":
            return list(self.by)
        if name == "keys":
            return self.keys()
        if name == "sizes":
            return np.array([len(r) for r in self.rows], dtype=np.float64)
        if name == "table":
            return self.table
        return super().get(name)

    def keys(self) -> Table:
        first = np.array([r[0] for r in self.rows], dtype=int)
        return self.table.select(self.by).take(first)

    def describe(self) -> str:
        head, rows, right, more = self._report()
        lines = layout([cell(k) for k in self.by] + ["rows"], rows, right=right)
        return "\n".join([head] + ["  " + s for s in lines] + ([more] if more else []))

    def html(self) -> str:
        head, rows, right, more = self._report()
        return html_table([cell(k) for k in self.by] + ["rows"], rows, right, caption=head, footer=[more])

    def _report(self) -> tuple:
        """(heading, a row per group shown: its keys and size, which columns are flush right,
        the line about groups not shown)."""
        n = len(self.rows)
        head = (f"grouped table: {self.table.nrows} rows in {n} group{'s' * (n != 1)} by "
                f"{', '.join(cell(k) for k in self.by)}")
        keys = self.keys()
        shown = n if n <= SHOWN_ROWS + 2 else SHOWN_ROWS
        rows = [[cell(keys.columns[k][g]) for k in self.by] + [str(len(self.rows[g]))] for g in range(shown)]
        right = [isinstance(keys.columns[k], np.ndarray) for k in self.by] + [True]
        return head, rows, right, f"... {n - shown} more groups" if shown < n else ""


def group_by(t, by) -> Grouped:
    table = as_table(t, "group_by's first argument")
    return Grouped(table, _names(by, "group_by's columns", table))


def aggregate(g, f, columns, call) -> Table:
    """One row per group: the key columns, then f of each other numeric column's values in the group."""
    if not isinstance(g, Grouped):
        raise LaminaError("TypeError", f"aggregate takes the groups of a table, group_by(t, \"col\"), "
                          f"not {describe(g)}.")
    if not is_function(f):
        raise LaminaError("TypeError", f"aggregate's second argument must be a function of a vector "
                          f"such as mean or x -> max(x) - min(x), not {describe(f)}.")
    table = g.table
    if columns is None:
        names = [k for k in table.numeric_names() if k not in g.by]
    else:
        names = _names(columns, "aggregate's columns", table)
        text = [k for k in names if not isinstance(table.columns[k], np.ndarray)]
        if text:
            raise LaminaError("TypeError", f"aggregate works on numeric columns, but '{text[0]}' holds text.")
    out = dict(g.keys().columns)
    for k in names:
        if k in g.by:
            raise LaminaError("ValueError", f"aggregate: '{k}' is a column the table is grouped by.")
        values = []
        for rows in g.rows:
            result = call(f, (table.columns[k][rows].copy(),))
            if is_live(result):
                raise LaminaError("TypeError", "aggregate's function returned a tracked value, but "
                                  "aggregate passes no gradient; detach it inside the function.")
            v = value_of(result)
            if isinstance(v, np.ndarray) and v.size == 1:
                v = float(v.reshape(-1)[0])
            if not isinstance(v, (float, int)) or isinstance(v, bool):
                raise LaminaError("TypeError", f"aggregate's function must return one number per group, "
                                  f"but for column '{k}' it returned {describe(v)}.")
            values.append(float(v))
        out[k] = np.array(values, dtype=np.float64)
    return Table(out)


# -- predictors for a model ----------------------------------------------------------------
def design(table: Table, names: list[str]) -> tuple[np.ndarray, list[str]]:
    """The predictor matrix of some columns and its term names: a numeric column as it is, a
    text column as indicator (0/1) columns, one per value but the first in sorted order (the
    reference), named column + value as R names them (arm, drug/placebo -> armplacebo)."""
    columns, terms = [], []
    for n in names:
        c = table.get(n)
        if isinstance(c, np.ndarray):
            columns.append(c)
            terms.append(n)
            continue
        if missing(c).any():
            raise LaminaError("ValueError", f"Column '{n}' has missing values; drop those rows first with "
                              f"drop_missing(t).")
        levels = sorted(set(c))
        if len(levels) < 2:
            raise LaminaError("ValueError", f"Column '{n}' holds one value, \"{levels[0] if levels else ''}\", "
                              f"so it cannot tell rows apart as a predictor; leave it out.")
        for level in levels[1:]:
            columns.append(np.array([s == level for s in c], dtype=np.float64))
            terms.append(n + level)
    X = np.column_stack(columns) if columns else np.zeros((table.nrows, 0))
    return X, terms


# -- joins -------------------------------------------------------------------------
HOW = ("inner", "left", "outer")


def merge(t1, t2, on, how="inner") -> Table:
    left, right = as_table(t1, "merge's first table"), as_table(t2, "merge's second table")
    keys = _names(on, "merge's on", left)
    _names(on, "merge's on", right)
    mode = as_str(how, "merge's how")
    if mode not in HOW:
        raise LaminaError("ValueError", f"merge's how must be \"inner\", \"left\" or \"outer\", not \"{mode}\".")
    for k in keys:
        if isinstance(left.columns[k], np.ndarray) != isinstance(right.columns[k], np.ndarray):
            raise LaminaError("TypeError", f"merge: key column '{k}' holds numbers in one table and text "
                              f"in the other; make them the same kind.")
    index: dict = {}
    for j, key in enumerate(_row_keys(right, keys)):
        if key is not None:
            index.setdefault(key, []).append(j)
    pairs, matched = [], set()
    for i, key in enumerate(_row_keys(left, keys)):
        found = index.get(key, []) if key is not None else []
        pairs += [(i, j) for j in found]
        matched.update(found)
        if not found and mode != "inner":
            pairs.append((i, None))
    if mode == "outer":
        pairs += [(None, j) for j in range(right.nrows) if j not in matched]
    return _joined(left, right, keys, pairs)


def _row_keys(table: Table, keys: list[str]) -> list:
    """Each row's key, or None where a part of it is missing (NaN, or "", NA, N/A text): a
    missing key matches nothing."""
    gone = np.zeros(table.nrows, dtype=bool)
    for k in keys:
        gone |= missing(table.columns[k])
    columns = [table.columns[k] for k in keys]
    return [None if gone[i] else tuple(c[i] if isinstance(c, list) else float(c[i]) for c in columns)
            for i in range(table.nrows)]


def _joined(left: Table, right: Table, keys: list[str], pairs: list) -> Table:
    both = (set(left.names) & set(right.names)) - set(keys)
    taken = set(left.names) | set(right.names)
    for name in both:
        for new in (name + "_x", name + "_y"):
            if new in taken:
                raise LaminaError("ValueError", f"merge: both tables have a column '{name}', which would "
                                  f"become '{new}', but that name is taken; rename a column first.")
    out = {}
    for k in keys:
        lc, rc = left.columns[k], right.columns[k]
        out[k] = _gather([(lc, i) if i is not None else (rc, j) for i, j in pairs], lc)
    for name in left.names:
        if name not in keys:
            out[name + "_x" if name in both else name] = _gather([(left.columns[name], i) for i, _ in pairs],
                                                                  left.columns[name])
    for name in right.names:
        if name not in keys:
            out[name + "_y" if name in both else name] = _gather([(right.columns[name], j) for _, j in pairs],
                                                                  right.columns[name])
    return Table(out)


def _gather(cells: list, like):
    """A column from (column, row) pairs; a row of None is a missing cell (NaN, or "" for text)."""
    if isinstance(like, np.ndarray):
        return np.array([c[i] if i is not None else np.nan for c, i in cells], dtype=np.float64)
    return [c[i] if i is not None else "" for c, i in cells]
