"""The table value: named columns of equal length, numeric (NumPy vectors) or text (Arrow strings,
columns.py).

`t.price` and `t[:, "price"]` read a column; `t[i, "price"]` one cell; `t[a:b, :]`,
`t[i]`, `t[:, ["a", "b"]]` and the rows an index list or a mask picks (`t[t.price > 3, :]`)
smaller tables. Tables are immutable like every value:
`t.total = v` makes a new table with the column added and binds it to t (tableops.py holds
the operations on tables).

A table made by `sweep` knows which of its columns are the swept parameters (`swept`), so that
`plot(t, "loss")` can draw the metric against them; its rows taken in another order or number
(`sort_rows`, `t[a:b, :]`) and its columns added, changed or dropped (`t.x = v`, `drop_columns`)
keep that knowledge.
"""
from __future__ import annotations

import sys

import numpy as np

from .. import ownership
from . import columns as C
from .categories import Categorical
from .dates import Dates
from ..autodiff.tape import is_live
from ..errors import LaminaError, describe_shape
from ..lang.selection import bounds, is_list, position, positions
from ..printing import html_table
from ..values import LibObject, as_str, describe, format_number, value_of
from .summary import layout, short

# Who holds what a cell store may write into (lamina/ownership.py): the column table is held by
# the table alone, a column by the column table and index_put's `old`.
_COLUMN_TABLE_REFS = ownership.refs_limit(holders=1)
_COLUMN_REFS = ownership.refs_limit(holders=2)

SHOWN_ROWS = 10     # a longer table prints its first rows and a count of the rest


class Table(LibObject):
    type_name = "table"

    def __init__(self, columns: dict, swept: tuple = (), nrows: int = 0):
        """nrows counts the rows of a table with no columns (what is left after dropping them all,
        as in pandas and R); a table with columns counts its columns' length."""
        lengths = {len(c) for c in columns.values()}
        if len(lengths) > 1:
            raise LaminaError("ShapeError", "A table's columns must all have the same length, but got "
                              + ", ".join(f"{k}: {len(c)}" for k, c in columns.items()) + ".")
        columns = {k: C.text(c) if isinstance(c, list) else c for k, c in columns.items()}
        if any(not k.strip() for k in columns):
            raise LaminaError("ValueError", "A column name cannot be empty or only spaces (read_csv "
                              "could not read such a name back).")
        self.columns = columns
        self.swept = tuple(n for n in swept if n in columns)
        self._nrows = lengths.pop() if lengths else nrows

    @property
    def names(self) -> list[str]:
        return list(self.columns)

    @property
    def nrows(self) -> int:
        return self._nrows

    def numeric_names(self) -> list[str]:
        return [k for k, c in self.columns.items() if C.is_numeric(c)]

    def field_names(self) -> list[str]:
        return self.names

    def get(self, name: str):
        if name not in self.columns:
            raise LaminaError("NameError", f"The table has no column '{name}'; its columns are "
                              f"{', '.join(self.columns) or '(none)'}.")
        # The column itself, not a copy (a loop reading t.x[i] would copy the column at every
        # step): a value is never changed where another holds it, as `v[i] = x` and the
        # optimizers count its holders first, and the table holds its columns (a text column its
        # list of cells).
        return C.value(self.columns[name])

    def with_field(self, name: str, value) -> "Table":
        """`t.name = v`: the table with column name added or replaced (see with_column)."""
        return with_column(self, name, value)

    def take(self, rows) -> "Table":
        """The rows picked by a slice or an integer index array, as a new table."""
        return Table({k: C.take(c, rows) for k, c in self.columns.items()}, self.swept,
                     len(range(self.nrows)[rows]) if isinstance(rows, slice) else len(rows))

    def to_arrow(self):
        """The table as an Arrow table (numeric columns without a copy, NaN as null)."""
        import pyarrow as pa
        if not self.columns:         # rows without columns: a record batch keeps its row count
            return pa.Table.from_batches([pa.RecordBatch.from_pydict({"_": pa.nulls(self.nrows)}).drop_columns(["_"])])
        return pa.table({k: C.to_arrow(c) for k, c in self.columns.items()})

    @staticmethod
    def from_arrow(arrow) -> "Table":
        """A table from an Arrow table (or record batch): each column by columns.from_arrow."""
        return Table({name: C.from_arrow(arrow.column(i)) for i, name in enumerate(arrow.column_names)},
                     nrows=arrow.num_rows)

    def select(self, names: list[str]) -> "Table":
        for n in names:
            self.get(n)
        return Table({n: self.columns[n] for n in names}, self.swept, self.nrows)

    # -- indexing: t[rows, cols] -------------------------------------------------
    def index_get(self, items: tuple):
        if len(items) == 1 and isinstance(items[0], str):
            return self.get(items[0])
        if isinstance(items[0], list) and items[0] and all(isinstance(c, str) for c in items[0]):
            raise LaminaError("TypeError", "A table's first index picks rows, by number or mask; pick "
                              "columns by name with t[:, [\"a\", \"b\"]].")
        if len(items) > 2:
            raise LaminaError("IndexError", f"A table takes at most two indices (rows, columns); got {len(items)}.")
        rows, cols = items[0], (items[1] if len(items) == 2 else slice(None, None))
        n = self.nrows
        single = None
        if isinstance(rows, slice):
            picked = bounds(rows, n)
        elif is_list(rows):             # an index list or a mask: t[t.price > 3, :]
            picked = positions(rows, n, "rows", lambda: f"a table of {n} rows")
        else:
            single = position(rows, n, "A row index", lambda: f"a table of {n} rows")
            picked = slice(single, single + 1)
        if isinstance(cols, str):
            column = self.columns.get(cols)
            if column is None:
                self.get(cols)
            if single is not None:
                return float(column[single]) if C.is_numeric(column) else column[single]
            return C.value(C.take(column, picked))
        if isinstance(cols, list) and all(isinstance(c, str) for c in cols):
            return self.select(cols).take(picked)
        if isinstance(cols, slice) and cols.start is None and cols.stop is None:
            return self.take(picked)
        raise LaminaError("TypeError", f"A table's column index must be a column name, a list of names "
                          f"or ':', not {describe(cols)}.")

    def index_put(self, items: tuple, value, owned: bool = False) -> "Table":
        """`t[rows, "name"] = value` (or `t["name"] = value`, which may add a column): a new table
        with those cells of one column replaced. `owned`: no other value holds this table, so
        a column that only it holds is changed in place (a loop setting cells is not quadratic)."""
        if len(items) == 1 and isinstance(items[0], str):
            items = (slice(None, None), items[0])
        if len(items) != 2 or not isinstance(items[1], str):
            raise LaminaError("TypeError", 'A table is changed one column at a time: t[rows, "name"] = value.')
        rows, name = items
        n = self.nrows
        if name not in self.columns:
            if not (isinstance(rows, slice) and rows == slice(None, None)):
                self.get(name)
            return self.with_field(name, value)
        if isinstance(rows, slice):
            picked = np.arange(n)[bounds(rows, n)]
        elif is_list(rows):
            picked = positions(rows, n, "rows", lambda: f"a table of {n} rows")
        else:                   # one row: a plain position, stored as one element (no fancy index)
            picked = position(rows, n, "A row index", lambda: f"a table of {n} rows")
        count = 1 if type(picked) is int else len(picked)
        old = self.columns[name]
        in_place = owned and sys.getrefcount(self.columns) <= _COLUMN_TABLE_REFS \
            and sys.getrefcount(old) <= _COLUMN_REFS
        if C.is_numeric(old):
            new = old if in_place and old.base is None and old.flags.writeable else old.copy()
            v = value_of(value)
            if isinstance(v, np.ndarray):
                values = column(v, name)
                if values.size != count:
                    raise LaminaError("ShapeError", f"Cannot store {values.size} values into the "
                                      f"{count} row{'s' * (count != 1)} picked.")
                new[picked] = values[0] if type(picked) is int else values
            elif isinstance(v, (float, int)) and not isinstance(v, bool):
                new[picked] = float(v)
            else:
                raise LaminaError("TypeError", f"Column '{name}' holds numbers, not {describe(value)}.")
        else:
            cells = value.texts() if isinstance(value, (Dates, Categorical)) and not getattr(value, "scalar", False) \
                else value if isinstance(value, list) else [value] * count
            if isinstance(old, C.TextColumn) and not all(isinstance(t, str) for t in cells):
                raise LaminaError("TypeError", f"Column '{name}' holds text: store a string, or a list of "
                                  f"{count} strings.")
            if len(cells) != count:
                raise LaminaError("ShapeError", f"Cannot store {len(cells)} values into the "
                                  f"{count} row{'s' * (count != 1)} picked.")
            new = old.replaced([picked] if type(picked) is int else picked, ["" if t is None else t for t in cells])
        if new is old:
            return self
        return Table({**self.columns, name: new}, self.swept)

    # -- printing -------------------------------------------------------------------
    def describe(self) -> str:
        head, rows, right, more = self._report()
        if not self.columns:
            return head
        lines = layout([""] + [cell(n) for n in self.names], rows, right=right)
        return "\n".join([head] + lines + ([more] if more else []))

    def html(self) -> str:
        head, rows, right, more = self._report()
        return html_table([""] + [cell(n) for n in self.names], rows, right, caption=head, footer=[more])

    def _report(self) -> tuple:
        """(heading, the rows shown, which columns are flush right, the line about rows not shown)."""
        n = self.nrows
        head = f"table: {n} row{'s' * (n != 1)} x {len(self.columns)} column{'s' * (len(self.columns) != 1)}"
        shown = n if n <= SHOWN_ROWS + 2 else SHOWN_ROWS
        rows = [[str(i)] + [shown_cell(c, i) for c in self.columns.values()] for i in range(shown)]
        right = [False] + [C.is_numeric(c) for c in self.columns.values()]
        return head, rows, right, f"... {n - shown} more rows" if shown < n else ""


# A tab or line break in a text cell (or a column name) would break the columns: shown escaped,
# as R does.
CELL_ESCAPES = str.maketrans({"\t": "\\t", "\n": "\\n", "\r": "\\r"})


def cell(x) -> str:
    """A cell as a table prints it (a group key too)."""
    if not isinstance(x, (float, np.floating)):
        return str(x).translate(CELL_ESCAPES)
    if x == x and abs(x) < 1e15 and x == int(x):
        return format_number(float(x))      # whole numbers in full: counts, seeds, ids
    return short(x)


def shown_cell(c, i: int) -> str:
    """Cell i of a column as a table prints it: a missing text cell is NA."""
    if C.is_numeric(c):
        return cell(c[i])
    if isinstance(c, C.TextColumn):
        return "NA" if c.arrow[i].is_valid is False else cell(c[i])
    return c.shown(i)


def as_table(t, what: str) -> Table:
    if isinstance(t, Table):
        return t
    raise LaminaError("TypeError", f"{what} must be a table (from read_csv or table), not {describe(t)}.")


def column_names(x, what: str, table: Table) -> list[str]:
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


def column(x, name: str):
    """A record field or list as a table column: a vector (float32 stays float32, as a matrix's
    columns do in table(X, names); anything else is float64), or text from a list of strings."""
    v = value_of(x)
    if isinstance(v, (Dates, Categorical)) and not getattr(v, "scalar", False):
        return v
    if isinstance(v, np.ndarray):
        if v.ndim == 2 and 1 in v.shape:
            v = v.reshape(-1)
        if v.ndim != 1:
            raise LaminaError("ShapeError", f"Column '{name}' must be a vector, not {describe_shape(v.shape)}.")
        return v.astype(np.float32 if v.dtype == np.float32 else np.float64, copy=True)
    if isinstance(v, list) and all(isinstance(s, str) for s in v):
        return C.text(v)
    if isinstance(v, list) and all(isinstance(s, (float, int)) and not isinstance(s, bool) for s in v):
        return np.array(v, dtype=np.float64)
    dates = Dates.bracketed(tuple(v)) if isinstance(v, list) and v and isinstance(v[0], Dates) else None
    if dates is not None:
        return dates
    raise LaminaError("TypeError", f"Column '{name}' must be a vector, a list of strings or a vector of "
                      f"dates, not {describe(x)}.")


def with_column(t, name, values) -> Table:
    table = as_table(t, "with_column's first argument")
    key = as_str(name, "with_column's column name")
    if is_live(values):
        raise LaminaError("TypeError", f"A table's column cannot be tracked (made by param() or track()): "
                          f"a table passes no gradient, so the gradient for column '{key}' would be lost. "
                          f"Pass detach(v) to store its numbers.")
    if not table.columns and not table.nrows:
        return Table({key: column(values, key)})
    v = value_of(values)
    if isinstance(v, (float, int)) and not isinstance(v, bool):
        col = np.full(table.nrows, float(v))
    elif isinstance(v, str):
        col = C.text([v] * table.nrows)
    elif isinstance(v, Dates) and v.scalar:
        col = Dates(np.repeat(v.values, table.nrows))
    else:
        col = column(values, key)
        if len(col) != table.nrows:
            raise LaminaError("ShapeError", f"Column '{key}' needs one value per row: the table has "
                              f"{table.nrows} rows, but the column has {len(col)} values.")
    columns = dict(table.columns)
    columns[key] = col
    return Table(columns, table.swept)
