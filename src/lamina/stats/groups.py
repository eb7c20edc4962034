"""Groups of a table's rows (group_by) and what is computed per group (aggregate, count).

Each key column is hashed by Arrow (dictionary_encode) and its distinct values ranked, so a row's
group number is its keys' rank among the distinct combinations: groups come in sorted order of the
keys, as they always have, without a sort of every row. The rows of each group, in table order,
come from one stable sort of the group numbers, made when first needed.
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..autodiff.tape import is_live
from ..errors import LaminaError
from ..printing import html_table
from ..values import LibObject, describe, is_function, value_of
from . import columns as C
from .categories import Categorical
from .dates import Dates
from .summary import layout
from .table import SHOWN_ROWS, Table, as_table, cell, column_names, shown_cell


def dense_codes(c) -> tuple[np.ndarray, int]:
    """(each cell's rank among the column's distinct values, how many there are); a missing cell
    ranks after every value, and a category's values rank in the order of its levels."""
    codes, k, _ = _ranked(c)
    return codes.astype(np.int64, copy=False), k


def _ranked(c) -> tuple[np.ndarray, int, np.ndarray | None]:
    """dense_codes, and how many cells have each rank where that came for free (else None)."""
    if isinstance(c, Categorical):
        present = np.unique(c.codes)
        rank = np.full(len(c.levels) + 1, len(present) - 1 if present[:1].tolist() == [-1] else len(present))
        kept = present[present >= 0]
        rank[kept] = np.arange(len(kept))
        return rank[c.codes].astype(np.int64), len(present), None
    if C.is_numeric(c):
        small = _small_whole_numbers(c)
        if small is not None:
            return small
    encoded = pc.dictionary_encode(C.to_arrow(c), null_encoding="encode")
    values = encoded.dictionary
    if len(values) == 0:
        return np.zeros(len(c), dtype=np.int64), 0, None
    order = pc.sort_indices(pa.table({"v": values}), sort_keys=[("v", "ascending", "at_end")])
    rank = np.empty(len(values), dtype=np.int64)
    rank[order.to_numpy()] = np.arange(len(values))
    return rank[encoded.indices.to_numpy(zero_copy_only=False)], len(values), None


def _small_whole_numbers(c: np.ndarray):
    """Ranks of whole numbers in a range not much longer than the column (group numbers, years)
    from a count of each value, and those counts: no hash, no sort, and when every number of the
    range occurs (group numbers 0 .. k-1), no lookup of the ranks either. The ranks come in the
    smallest unsigned type that holds them where that is 8 or 16 bits (less memory to sort by).
    None for other columns."""
    if not len(c):
        return None
    lo, hi = c.min(), c.max()                        # NaN when a cell is NaN
    if not (-C.EXACT < lo and hi < C.EXACT and hi - lo < 2 * len(c) + 1024):   # false for NaN, inf
        return None
    if 0 <= lo and hi < 1 << 16:                     # the numbers themselves are the offsets
        offsets = c.astype(np.uint8 if hi < 1 << 8 else np.uint16)
        if not np.array_equal(offsets, c):           # a fraction
            return None
    else:
        offsets = c.astype(np.int64)
        if c.dtype.kind == "f" and not np.array_equal(offsets, c):
            return None
        offsets -= int(lo)
        offsets = offsets.astype(_unsigned(hi - lo), copy=False)
    counts = np.bincount(offsets)
    if counts.all():
        return offsets, len(counts), counts
    present = counts > 0
    rank = (np.cumsum(present) - 1).astype(_unsigned(len(counts)), copy=False)
    return rank[offsets], int(rank[-1]) + 1, counts[present]


def _unsigned(most) -> type:
    """The smallest of uint8, uint16 and int64 that holds whole numbers from 0 to most."""
    return np.uint8 if most < 1 << 8 else np.uint16 if most < 1 << 16 else np.int64


def combined_codes(columns: list) -> tuple[np.ndarray, int]:
    """Group numbers (0 .. k-1, in sorted order of the keys, the first column first) and k."""
    codes, k, _ = _combined(columns)
    return codes.astype(np.int64, copy=False), k


def _combined(columns: list) -> tuple[np.ndarray, int, np.ndarray | None]:
    """combined_codes, and the size of each group where that came for free (else None)."""
    codes, k, sizes = _ranked(columns[0])
    for c in columns[1:]:
        codes = codes.astype(np.int64, copy=False)
        more, m = dense_codes(c)
        if k * m < 2 ** 62:
            codes = codes * m + more            # still ordered as the pair of keys
        else:
            codes = np.unique(np.stack([codes, more], axis=1), axis=0, return_inverse=True)[1].reshape(-1)
        codes, k, sizes = _ranked(codes)
    return codes, k, sizes


class Grouped(LibObject):
    """A table with its rows divided into groups by the values of some columns (group_by)."""
    type_name = "grouped table"

    def __init__(self, table: Table, by: list[str]):
        self.table, self.by = table, by
        for n in by:
            if C.has_missing(table.columns[n]):
                raise LaminaError("ValueError", f"group_by: column '{n}' has missing values; drop those "
                                  f"rows first with drop_missing(t, \"{n}\").")
        sizes = None
        if table.nrows:
            self.group_of, self.count, sizes = _combined([table.columns[n] for n in by])
        else:
            self.group_of, self.count = np.zeros(0, dtype=np.int64), 0
        self.sizes = np.bincount(self.group_of, minlength=self.count) if sizes is None else sizes
        self._order = None

    def order(self) -> np.ndarray:
        """The rows sorted by group, table order within a group."""
        return self._sorted().to_numpy().view(np.int64)

    def _sorted(self) -> pa.Array:
        """order() as Arrow's indices: its stable sort of the group numbers (a counting sort for
        8- and 16-bit codes), and its take by them, together took 6 - 7 ms for 10^6 rows where
        NumPy's argsort and take took 13 - 14 (cold caches)."""
        if self._order is None:
            small = self.group_of.astype(_unsigned(self.count - 1), copy=False)
            self._order = pc.array_sort_indices(pa.array(small))
        return self._order

    def bounds(self) -> np.ndarray:
        """Where each group's rows start in order(), and the end of the last."""
        return np.concatenate([[0], np.cumsum(self.sizes)])

    def numeric(self, column: str):
        """A column aggregate takes (numbers, or dates); a column of another kind is its TypeError."""
        values = self.table.columns[column]
        if not (C.is_numeric(values) or isinstance(values, Dates)):
            kind = C.kind(values)
            raise LaminaError("TypeError", f"aggregate works on columns of numbers or dates, but '{column}' "
                              f"holds {kind if kind == 'text' else kind + 's'}.")
        return values

    def per_group(self, column: str, f, call):
        """f of each group's values of a column of numbers (or dates), one number (or one date) a
        group. Each call gets a view of its group in a private copy of the column sorted by group
        (read-only: a store copies it first)."""
        values = self.numeric(column)
        bounds = self.bounds().tolist()
        spans = zip(bounds[:-1], bounds[1:])
        if isinstance(values, Dates):
            ordered = values.take(self.order())
            return _one_value_each([call(f, (ordered.take(slice(a, b)),)) for a, b in spans], column)
        grouped = pc.take(pa.array(values), self._sorted(), boundscheck=False).to_numpy()
        return np.array([_one_number(call(f, (grouped[a:b],)), column) for a, b in spans], dtype=np.float64)

    def field_names(self) -> list[str]:
        return ["by", "keys", "sizes", "table"]

    def get(self, name: str):
        if name == "by":
            return list(self.by)
        if name == "keys":
            return self.keys()
        if name == "sizes":
            return self.sizes.astype(np.float64)
        if name == "table":
            return self.table
        return super().get(name)

    def keys(self) -> Table:
        first = self.order()[self.bounds()[:-1]]
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
        n = self.count
        head = (f"grouped table: {self.table.nrows} rows in {n} group{'s' * (n != 1)} by "
                f"{', '.join(cell(k) for k in self.by)}")
        keys = self.keys()
        shown = n if n <= SHOWN_ROWS + 2 else SHOWN_ROWS
        rows = [[shown_cell(keys.columns[k], g) for k in self.by] + [str(self.sizes[g])] for g in range(shown)]
        right = [C.is_numeric(keys.columns[k]) for k in self.by] + [True]
        return head, rows, right, f"... {n - shown} more groups" if shown < n else ""


def group_by(t, by) -> Grouped:
    table = as_table(t, "group_by's first argument")
    return Grouped(table, column_names(by, "group_by's columns", table))


def _grouped(g, who: str) -> Grouped:
    if not isinstance(g, Grouped):
        raise LaminaError("TypeError", f"{who} takes the groups of a table, group_by(t, \"col\"), "
                          f"not {describe(g)}.")
    return g


def aggregate(g, f, columns, call) -> Table:
    """One row per group: the key columns, then f of each other numeric column's values in the group."""
    g = _grouped(g, "aggregate")
    if not is_function(f):
        raise LaminaError("TypeError", f"aggregate's second argument must be a function of a vector "
                          f"such as mean or x -> max(x) - min(x), not {describe(f)}.")
    table = g.table
    if columns is None:
        picked = [k for k in table.numeric_names() if k not in g.by]
    else:
        picked = column_names(columns, "aggregate's columns", table)
        for k in picked:
            g.numeric(k)
    out = dict(g.keys().columns)
    for k in picked:
        if k in g.by:
            raise LaminaError("ValueError", f"aggregate: '{k}' is a column the table is grouped by.")
        out[k] = g.per_group(k, f, call)
    return Table(out)


ROWS = object()        # in aggregate's named form, the number of rows of each group (count)


def aggregate_named(g, specs: dict, call) -> Table:
    """One row per group: the key columns, then a column per spec, name = ["column", f] (f of that
    column's values in the group) or name = ROWS (the group's size)."""
    g = _grouped(g, "aggregate")
    out = dict(g.keys().columns)
    for name, spec in specs.items():
        if name in out:
            raise LaminaError("ValueError", f"aggregate: '{name}' is a column the table is grouped by; "
                              f"name the result otherwise.")
        if spec is ROWS:
            out[name] = g.sizes.astype(np.float64)
            continue
        if not (isinstance(spec, list) and len(spec) == 2 and isinstance(spec[0], str) and is_function(spec[1])):
            raise LaminaError("TypeError", f"aggregate's {name} must be [\"column\", function] (such as "
                              f"[\"y\", mean]) or count, not {describe(spec)}.")
        g.table.get(spec[0])
        out[name] = g.per_group(spec[0], spec[1], call)
    return Table(out)


def count(g) -> Table:
    """The key columns and n, the number of rows in each group."""
    g = _grouped(g, "count")
    name = "n"
    while name in g.by:
        name += "_"
    return Table({**g.keys().columns, name: g.sizes.astype(np.float64)})


def _one_value_each(results: list, column: str):
    """The results of a function of each group's dates: one date each (a column of dates, such as
    the latest) or one number each (such as the days between the first and the last)."""
    if not any(isinstance(value_of(r), Dates) for r in results):
        return np.array([_one_number(r, column) for r in results], dtype=np.float64)
    joined = Dates.bracketed(tuple(results)) if isinstance(results[0], Dates) else None
    if joined is None:
        first = _result_kind(results[0])
        odd = next((r for r in results if _result_kind(r) != first or first is None), results[0])
        raise LaminaError("TypeError", f"aggregate's function must return one date or one number per group, "
                          f"the same kind for every group, but for column '{column}' it returned "
                          f"{describe(odd)}.")
    return joined


def _result_kind(r):
    """What a group's result is: a date (of its unit), a number, or None (neither)."""
    v = value_of(r)
    if isinstance(v, Dates):
        return v.values.dtype if v.scalar else None
    if isinstance(v, np.ndarray) and v.size == 1:
        return "number"
    return "number" if isinstance(v, (float, int)) and not isinstance(v, bool) else None


def _one_number(result, column: str) -> float:
    if is_live(result):
        raise LaminaError("TypeError", "aggregate's function returned a tracked value, but "
                          "aggregate passes no gradient; detach it inside the function.")
    v = value_of(result)
    if isinstance(v, np.ndarray) and v.size == 1:
        v = float(v.reshape(-1)[0])
    if not isinstance(v, (float, int)) or isinstance(v, bool):
        raise LaminaError("TypeError", f"aggregate's function must return one number per group, "
                          f"but for column '{column}' it returned {describe(v)}.")
    return float(v)
