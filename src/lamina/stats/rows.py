"""The winning row of a table by the values of one column: `best` (sort_rows is in tableops.py)."""
from __future__ import annotations

import numpy as np

from ..errors import LaminaError
from ..values import Record, as_str, describe
from .ordering import nan_arg_extreme
from .table import Table, as_table


def _column(t: Table, name, who: str):
    key = as_str(name, f"{who}'s column")
    return key, t.get(key)


def row_record(t: Table, i: int) -> Record:
    """Row i as a record: numeric cells as numbers, text cells as strings."""
    return Record({k: float(c[i]) if isinstance(c, np.ndarray) else c[i] for k, c in t.columns.items()})


def best(t, name, largest=False) -> Record:
    """The row with the smallest (or largest) number in a column; NaN cells never win, and a
    tie goes to the first such row."""
    t = as_table(t, "best's first argument")
    key, col = _column(t, name, "best")
    if not isinstance(col, np.ndarray):
        raise LaminaError("TypeError", f"best needs a numeric column to compare, but '{key}' holds text.")
    if not isinstance(largest, bool):
        raise LaminaError("TypeError", f"best's largest must be true or false, not {describe(largest)}.")
    if t.nrows == 0 or np.all(np.isnan(col)):
        why = "the table has no rows" if t.nrows == 0 else f"every row's {key} is NaN"
        raise LaminaError("ValueError", f"best has no row to pick: {why} (a failed sweep "
                          f"configuration's numbers are NaN; its error column says why).")
    i = int(nan_arg_extreme(col, largest))
    return row_record(t, i)
