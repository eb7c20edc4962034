"""Data in and out: CSV files as tables, splits for training and testing, scaling, summaries."""
from __future__ import annotations

import math
import os
import stat

import numpy as np

from ..autodiff.tape import record
from ..errors import LaminaError
from ..files import check_write, expand_home, open_read, write_file
from ..printing import as_written, format_number
from ..values import Record, as_float, as_int, as_str, describe, value_of
from .args import data, flag, matrix, shaped_like
from .columns import MISSING_WORDS
from .csvfile import read_records
from . import columns as C
from .csvread import NotOrdinary, careful_columns, forced_kind, read_fast
from .csvwrite import number_strings, table_csv
from .descriptive import order_quantiles
from .moments import constant, power_scale
from .table import Table, as_table, column

def read_csv(path, sep=",", text=None, na=None, types=None, columns=None) -> Table:
    """Every row is read and checked before a table is made: nothing is half-read."""
    name = expand_home(as_str(path, "read_csv's path"))
    delimiter = as_str(sep, "read_csv's sep")
    if len(delimiter) != 1:
        raise LaminaError("ValueError", f"read_csv's sep must be one character, not \"{delimiter}\".")
    if delimiter in '"\r\n':
        raise LaminaError("ValueError", "read_csv's sep cannot be a quote or a line break; those have "
                          "their own meaning in a CSV file.")
    forced = set(_names(text, "read_csv's text columns"))
    numeric, made = set(), {}
    for k, kind in _types(types).items():
        if kind == "number":
            numeric.add(k)
        else:
            forced.add(k)                  # read as text, then made the kind asked for
            if kind != "text":
                made[k] = kind
    missing_words = _missing_words(na)
    wanted = _names(columns, "read_csv's columns") if columns is not None else None
    try:
        with open_read(name, "read_csv") as f:
            info = os.fstat(f.fileno())
            try:
                if not stat.S_ISREG(info.st_mode):
                    raise NotOrdinary          # a pipe or a device is read once, by the careful reader
                cols = read_fast(f, info.st_size, delimiter, missing_words, forced, wanted)
            except NotOrdinary:
                if stat.S_ISREG(info.st_mode):
                    f.seek(0)
                cols = _read_careful(f, name, delimiter, frozenset(missing_words), forced, wanted)
    except OSError as exc:
        raise LaminaError("ValueError", f"read_csv cannot read \"{name}\": {exc.strerror or exc}.") from None
    for k in sorted(forced | numeric):
        if k not in cols:
            raise LaminaError("ValueError", f"read_csv: column '{k}' named in types is not in "
                              f"\"{name}\"; its columns are {', '.join(cols)}.")
        if k in numeric and not isinstance(cols[k], np.ndarray):
            raise LaminaError("ValueError", f"read_csv: column '{k}' of \"{name}\" is not numeric: "
                              f"\"{next(c for c in C.as_text(cols[k]) if c)}\" is not a number.")
    for k, kind in made.items():
        cols[k] = forced_kind(cols[k], kind, name, k, missing_words)
    return Table(cols)


def _read_careful(f, name, delimiter, missing_words, forced, wanted) -> dict:
    records = read_records(f, name, delimiter)
    if not records:
        raise LaminaError("ValueError", f"read_csv: \"{name}\" is empty; it needs a header line of column names.")
    header = records[0][1]
    _check_header(header, name)
    for k in sorted(forced) + (wanted or []):
        if k not in header:
            raise LaminaError("ValueError", f"read_csv: column '{k}' is not in \"{name}\"; its "
                              f"columns are {', '.join(header)}.")
    cols = careful_columns(records, name, missing_words, forced)
    return cols if wanted is None else {k: cols[k] for k in wanted}


def _check_header(header: list[str], name: str) -> None:
    for j, h in enumerate(header):
        if not h.strip():
            raise LaminaError("ValueError", f"read_csv: \"{name}\" line 1, column {j + 1} has an empty column name.")
    twice = _repeated(header)
    if twice is not None:
        raise LaminaError("ValueError", f"read_csv: \"{name}\" names column '{twice}' twice.")


def _repeated(names: list[str]):
    """The first name that occurs a second time, or None."""
    seen = set()
    for k in names:
        if k in seen:
            return k
        seen.add(k)
    return None


TYPES = ("text", "number", "date", "datetime", "category")


def _types(types) -> dict:
    if types is None:
        return {}
    if not isinstance(types, Record):
        raise LaminaError("TypeError", f"read_csv's types must be a record such as {{id = \"text\"}}, "
                          f"not {describe(types)}.")
    out = {}
    for k, v in types.fields.items():
        if v not in TYPES:
            given = f'"{v}"' if isinstance(v, str) else describe(v)
            raise LaminaError("ValueError", f"read_csv's types: column '{k}' has type {given}; "
                              f"a type is one of {', '.join(repr(t).replace(chr(39), chr(34)) for t in TYPES)}.")
        out[k] = v
    return out


def _missing_words(na) -> tuple:
    """The cells read as missing: na's words (an empty cell always is)."""
    if na is None:
        return MISSING_WORDS
    words = _names(na, "read_csv's na")
    return tuple(dict.fromkeys([""] + words))


def _names(x, what: str) -> list[str]:
    if x is None:
        return []
    if isinstance(x, str):
        return [x]
    if isinstance(x, list) and all(isinstance(s, str) for s in x):
        return list(x)
    raise LaminaError("TypeError", f"{what} must be a list of column names, not {describe(x)}.")


def make_table(x, names=None) -> Table:
    """A table from a record of columns, or from a matrix (and column names)."""
    if isinstance(x, Table):
        if names is not None:
            raise LaminaError("TypeError", "Column names are for a matrix's columns; a table's columns "
                              "have their names already.")
        return x
    if isinstance(x, Record):
        if names is not None:
            raise LaminaError("TypeError", "table(record) takes its column names from the record's fields.")
        return Table({k: column(v, k) for k, v in x.fields.items()})
    m = matrix(x, "table's data") if isinstance(value_of(x), np.ndarray) else None
    if m is None:
        raise LaminaError("TypeError", f"table needs a record of columns or a matrix, not {describe(x)}.")
    given = _names(names, "table's column names") or [f"x{j}" for j in range(m.shape[1])]
    if len(given) != m.shape[1]:
        raise LaminaError("ValueError", f"table got {len(given)} column names for {m.shape[1]} columns.")
    twice = _repeated(given)
    if twice is not None:
        raise LaminaError("ValueError", f"table's column names name column '{twice}' twice.")
    return Table({k: m[:, j].copy() for j, k in enumerate(given)})


def table_to_write(x, path, names, who: str, why_columns: str) -> tuple[Table, str]:
    """What a write of x to path (write_csv, write_parquet) writes and where, the path checked."""
    t = make_table(x, names)
    target = expand_home(as_str(path, f"{who}'s path"))
    check_write(target, who)
    if not t.columns:
        raise LaminaError("ValueError", f"{who}: the table has no columns, so the file {why_columns}.")
    return t, target


def write_csv(x, path, names=None) -> None:
    v = value_of(x)
    if isinstance(v, np.ndarray) and v.dtype == np.float32:
        x = as_written(v)              # 0.1 in the file, not 0.10000000149011612
    t, target = table_to_write(x, path, names, "write_csv", "would have no header line and read_csv "
                               "could not read it back")
    def write(f):
        for piece in table_csv(t.names, list(t.columns.values()), t.nrows):
            f.write(piece)
    try:
        write_file(target, "write_csv", write)
    except OSError as exc:
        raise LaminaError("ValueError", f"write_csv cannot write \"{target}\": {exc.strerror or exc}.") from None


def _field(x) -> str:
    """One cell as write_csv writes it."""
    if not isinstance(x, (float, np.floating)):
        return x
    return number_strings(np.array([x]))[0].as_py()


def as_matrix(t, names=None, dtype=np.float64, who: str = "") -> np.ndarray:
    """Numeric columns as the columns of a new matrix of dtype: one copy, written in place."""
    table = as_table(t, "as_matrix's argument")
    wanted = _names(names, "as_matrix's column names") or table.names
    for k in wanted:
        table.get(k)
    text = [k for k in wanted if not C.is_numeric(table.columns[k])]
    if text:
        pick = "pick the numeric columns: t[:, [\"a\", \"b\"]]" if who else \
            "name the numeric columns to use: as_matrix(t, [\"a\", \"b\"])"
        raise LaminaError("TypeError", f"{who or 'as_matrix'} needs numeric columns, but {', '.join(text)} "
                          f"hold{'s' * (len(text) == 1)} {_kinds(table, text)}; {pick}.")
    out = np.empty((table.nrows, len(wanted)), dtype=dtype)
    for j, k in enumerate(wanted):
        out[:, j] = table.columns[k]
    return out


def _kinds(table: Table, names: list[str]) -> str:
    kinds = sorted({C.kind(table.columns[k]) for k in names})
    return " and ".join("text" if k == "text" else k + "s" for k in kinds)


def _rows(x) -> int:
    if isinstance(x, Table):
        return x.nrows
    if isinstance(x, list):
        return len(x)
    v = data(x, "train_test_split's data")
    return v.shape[0]


def _take(x, idx: np.ndarray):
    if isinstance(x, Table):
        return x.take(idx)
    if isinstance(x, list):
        return [x[i] for i in idx]
    v = value_of(x)
    return v[idx].copy() if isinstance(v, np.ndarray) else float(v)


def train_test_split(X, Y=None, test=0.2, seed=None, shuffle=True, rng=None) -> Record:
    n = _rows(X)
    if Y is not None and _rows(Y) != n:
        raise LaminaError("ShapeError", f"train_test_split needs X and Y with the same number of rows, "
                          f"but got {n} and {_rows(Y)}.")
    share = as_float(test, "train_test_split's test")
    if not share > 0:
        raise LaminaError("ValueError", "train_test_split's test must be a fraction between 0 and 1, or a row count.")
    n_test = math.ceil(share * n) if share < 1 else as_int(share, "train_test_split's test row count")
    if not 1 <= n_test <= n - 1:
        raise LaminaError("ValueError", f"train_test_split with test = {format_number(share)} would put "
                          f"{n_test} of {n} rows in the test set; both sets need at least one row.")
    if flag(shuffle, "train_test_split's shuffle"):
        order = (np.random.default_rng(as_int(seed, "train_test_split's seed", minimum=0))
                 if seed is not None else rng).permutation(n)
    else:
        order = np.arange(n)[::-1]
    test_idx, train_idx = np.sort(order[:n_test]), np.sort(order[n_test:])
    fields = {"X_train": _take(X, train_idx), "X_test": _take(X, test_idx)}
    if Y is not None:
        fields.update({"Y_train": _take(Y, train_idx), "Y_test": _take(Y, test_idx)})
    return Record(fields)


def standardize(X, like=None, ddof=1.0):
    """(X - c) / s with each column's mean c and standard deviation s (NaNs left out) taken from
    `like` (X itself by default); a zero or undefined s is taken as 1. Differentiable in X and
    in like, through c and s."""
    a = data(X, "standardize's data")
    ref = a if like is None else data(like, "standardize's like")
    d = as_int(ddof, "standardize's ddof", minimum=0)
    if a.ndim != ref.ndim or (a.ndim == 2 and a.shape[1] != ref.shape[1]):
        raise LaminaError("ShapeError", f"standardize's like must have the data's columns: "
                          f"{describe(ref)} does not fit {describe(X)}.")
    flat = constant(ref, 0, skip=True)              # (essentially) constant columns
    center = np.nanmean(ref, axis=0) if ref.size else np.zeros(ref.shape[1:])
    with np.errstate(all="ignore"):
        # a constant column's own value, which its rounded mean may miss by an ulp: its 0s exact
        center = np.where(flat, np.fmax.reduce(ref, axis=0, initial=-np.inf), center)
    # in units of a power of 2 per column (exact), so that no square under- or overflows:
    # 1e-200s had s = 0 (taken as 1), 1e200s s = Inf
    unit = np.reshape(power_scale(np.where(np.isnan(ref), 0.0, ref), axis=0), ref.shape[1:]).astype(ref.dtype)
    spread = np.nanstd(ref / unit, axis=0, ddof=d) * unit if ref.shape[0] > d else np.zeros(ref.shape[1:])
    # the columns whose s is not replaced by 1 (in a constant one, s is rounding noise)
    scaled = (spread > 0) & np.isfinite(spread) & ~flat
    spread = np.where(scaled, spread, 1.0)
    out = (a - center) / spread

    def through_ref(g):
        # dL/dc = -sum(g) / s and dL/ds = -sum(g (x - c)) / s^2, per column; then c and s
        # pass them on to the values of like they were computed from
        keep = ~np.isnan(ref)
        n = keep.sum(axis=0)
        dev = np.where(keep, ref - center, 0.0)
        with np.errstate(all="ignore"):
            g_center = -np.nansum(g, axis=0) / spread
            g_spread = np.where(scaled, -(np.nansum(g * (a - center), axis=0) / spread) / spread, 0.0)
            return np.where(keep, g_center / n + g_spread * dev / ((n - d) * spread), 0.0)

    def vjp_x(g):
        return shaped_like(g / spread + (through_ref(g) if like is None else 0.0), X)
    return record(out, (X, like), (vjp_x, lambda g: shaped_like(through_ref(g), like)))


STATS = ["count", "mean", "std", "min", "25%", "50%", "75%", "max"]


def summarize(x) -> Table:
    """count, mean, std (ddof 1), min, quartiles and max of each numeric column, NaNs left out."""
    if isinstance(x, Table):
        cols = {k: x.columns[k] for k in x.numeric_names()}
    else:
        m = data(x, "describe's argument")
        cols = {"x": m} if m.ndim == 1 else {f"x{j}": m[:, j] for j in range(m.shape[1])}
    label = "stat"
    while label in cols:            # a column of the table named stat keeps its name and numbers
        label += "_"
    out = {label: list(STATS)}
    for k, c in cols.items():
        ok = c[~np.isnan(c)]
        if ok.size:
            q = order_quantiles(ok, np.array([0, 0.25, 0.5, 0.75, 1]))
            sd = float(np.std(ok, ddof=1)) if ok.size > 1 else math.nan
            out[k] = np.array([ok.size, ok.mean(), sd, q[0], q[1], q[2], q[3], q[4]], dtype=np.float64)
        else:
            out[k] = np.array([0.0] + [math.nan] * 7)
    return Table(out)
