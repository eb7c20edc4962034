"""merge: joining two tables on key columns, as SQL's join, pandas' merge and R's merge.

Every row of the left table is paired with every row of the right one whose keys are equal, in
the left table's row order and then the right's; a missing key matches nothing. The pairs are
found without a loop over rows: both tables' keys get one code per distinct combination
(groups.combined_codes over the two tables' keys stacked), the right rows are sorted by code once,
and each left row's partners are a run of that order.
"""
from __future__ import annotations

import numpy as np

import pyarrow.compute as pc

from ..errors import LaminaError
from ..values import as_str
from . import columns as C
from .groups import combined_codes
from .table import Table, as_table, column_names

HOW = ("inner", "left", "outer")


def merge(t1, t2, on, how="inner") -> Table:
    left, right = as_table(t1, "merge's first table"), as_table(t2, "merge's second table")
    keys = column_names(on, "merge's on", left)
    column_names(on, "merge's on", right)
    mode = as_str(how, "merge's how")
    if mode not in HOW:
        raise LaminaError("ValueError", f"merge's how must be \"inner\", \"left\" or \"outer\", not \"{mode}\".")
    for k in keys:
        kinds = [_key_kind(left.columns[k]), _key_kind(right.columns[k])]
        if kinds[0] != kinds[1]:
            raise LaminaError("TypeError", f"merge: key column '{k}' holds {_PLURAL[kinds[0]]} in one table "
                              f"and {_PLURAL[kinds[1]]} in the other; make them the same kind.")
    li, ri = _pairs(left, right, keys, mode)
    return _joined(left, right, keys, li, ri)


_PLURAL = {"number": "numbers", "text": "text", "date": "dates", "datetime": "datetimes"}


def _key_kind(c) -> str:
    """What a key holds, for matching: a category's cells match as their text."""
    kind = C.kind(c)
    return "text" if kind == "category" else kind


def _key(c):
    return C.as_text(c) if C.kind(c) == "category" else c


def _one_key_codes(left, right) -> tuple[np.ndarray, np.ndarray, int]:
    """Codes of one key column on both sides, from a hash of the right side's keys alone: the right
    rows' codes (k + 1 where missing), the left rows' (k where no right row has the key), and k.
    Whole-number keys in a range not much longer than the tables (ids) are their own codes."""
    if C.is_numeric(left) and C.is_numeric(right):
        codes = _whole_number_codes(left, right)
        if codes is not None:
            return codes
    encoded = pc.dictionary_encode(C.to_arrow(right))
    k = len(encoded.dictionary)
    rcode = pc.fill_null(encoded.indices, k + 1).to_numpy(zero_copy_only=False).astype(np.int64)
    found = pc.index_in(C.to_arrow(left), value_set=encoded.dictionary)
    lcode = pc.fill_null(found, k).to_numpy(zero_copy_only=False).astype(np.int64)
    return lcode, rcode, k


def _whole_number_codes(left: np.ndarray, right: np.ndarray):
    kept = right[~np.isnan(right)]
    if not len(kept) or np.any(kept != np.round(kept)):
        return None
    lo, hi = kept.min(), kept.max()
    if not hi - lo < 4 * (len(left) + len(right)) + 1024:
        return None
    k = int(hi - lo) + 1
    rcode = np.where(np.isnan(right), k + 1, right - lo).astype(np.int64)
    lcode = _inside_codes(left, lo, hi)
    if lcode is None:
        with np.errstate(invalid="ignore"):
            inside = (left >= lo) & (left <= hi) & (left == np.round(left))
        lcode = np.where(inside, left - lo, k).astype(np.int64)
    return lcode, rcode, k


def _inside_codes(left: np.ndarray, lo: float, hi: float):
    """left - lo as whole numbers when every left key is a whole number from lo to hi (ids that all
    occur on the right side's range), in a few passes; None otherwise."""
    if not (len(left) and -C.EXACT < lo and hi < C.EXACT and lo <= left.min() and left.max() <= hi):
        return None                  # (also for a NaN, which makes min and max NaN)
    codes = left.astype(np.int64)
    if not np.array_equal(codes, left):
        return None
    if lo:
        codes -= int(lo)
    return codes


def _pairs(left: Table, right: Table, keys: list[str], mode: str) -> tuple[np.ndarray | None, np.ndarray]:
    """The left and right row of each pair, -1 where a side has no row; the left rows are None when
    they are every left row in order (each has one partner, or none in a left join)."""
    n, m = left.nrows, right.nrows
    if len(keys) == 1 and n and m:
        lcode, rcode_kept, k = _one_key_codes(_key(left.columns[keys[0]]), _key(right.columns[keys[0]]))
    else:
        if n == 0 or m == 0:
            codes, k = np.zeros(n + m, dtype=np.int64), 1
        else:
            codes, k = combined_codes([C.stacked(_key(left.columns[c]), _key(right.columns[c])) for c in keys])
        gone = np.zeros(n + m, dtype=bool)
        for c in keys:
            gone |= np.concatenate([C.missing(left.columns[c]), C.missing(right.columns[c])])
        codes = np.where(gone, k, codes)            # a missing key: a code no row of the other side has
        lcode, rcode_kept = codes[:n], np.where(gone[n:], k + 1, codes[n:])
    counts = np.bincount(rcode_kept, minlength=k + 2)
    if counts[:k].max(initial=0) <= 1:     # each key at most once on the right: one row or none
        row_of = np.full(k + 2, -1, dtype=np.int64)
        row_of[rcode_kept] = np.arange(m)
        ri = row_of[lcode]                 # code k (no partner) has no row
        li = None
        if mode == "inner":
            li = np.flatnonzero(ri >= 0)
            li, ri = (None, ri) if len(li) == n else (li, ri[li])
    else:
        li, ri = _runs(lcode, rcode_kept, counts, counts[lcode], mode, m)
    if mode == "outer":
        matched = np.zeros(m, dtype=bool)
        matched[ri[ri >= 0]] = True
        extra = np.flatnonzero(~matched)
        li = np.concatenate([np.arange(n) if li is None else li, np.full(len(extra), -1)])
        ri = np.concatenate([ri, extra])
    return None if li is None else li.astype(np.int64, copy=False), ri.astype(np.int64, copy=False)


def _runs(lcode, rcode_kept, counts, per_left, mode: str, m: int) -> tuple[np.ndarray, np.ndarray]:
    """The pairs when a key may occur several times on the right: each left row's partners are a
    run of the right rows sorted by code."""
    r_order = np.argsort(rcode_kept, kind="stable")
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    if mode == "inner":
        rows = np.flatnonzero(per_left)
        per_row = per_left[rows]
    else:
        rows = np.arange(len(lcode))
        per_row = np.maximum(per_left, 1)
    li = np.repeat(rows, per_row)
    # the position of each pair within its left row's run: 0, 1, ... per left row
    first = np.repeat(np.cumsum(per_row) - per_row, per_row)
    within = np.arange(len(li)) - first
    ri = r_order[np.minimum(starts[lcode[li]] + within, max(m - 1, 0))] if m else np.full(len(li), -1)
    if mode != "inner":
        ri = np.where(per_left[li] > 0, ri, -1)
    return li, ri


def _joined(left: Table, right: Table, keys: list[str], li: np.ndarray | None, ri: np.ndarray) -> Table:
    """The joined table; li None: every left row in order, whose columns are shared, not copied
    (a table never changes a column another value holds)."""
    both = (set(left.names) & set(right.names)) - set(keys)
    taken = set(left.names) | set(right.names)
    for name in both:
        for new in (name + "_x", name + "_y"):
            if new in taken:
                raise LaminaError("ValueError", f"merge: both tables have a column '{name}', which would "
                                  f"become '{new}', but that name is taken; rename a column first.")
    every_left = li is None or bool(np.all(li >= 0))
    every_right = bool(np.all(ri >= 0))

    def from_left(c):
        return c if li is None else C.gather(c, li, every_left)
    out = {}
    for k in keys:          # from the left row, or the right one where there is no left row
        out[k] = from_left(left.columns[k]) if every_left else \
            C.either(li >= 0, C.gather(left.columns[k], li), C.gather(right.columns[k], ri))
    for name in left.names:
        if name not in keys:
            out[name + "_x" if name in both else name] = from_left(left.columns[name])
    for name in right.names:
        if name not in keys:
            out[name + "_y" if name in both else name] = C.gather(right.columns[name], ri, every_right)
    return Table(out)
