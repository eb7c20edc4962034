"""read_csv on Arrow's multi-threaded reader, with the careful reader (csvfile.py) as the judge.

Arrow reads an ordinary file in parallel. Where a file is not ordinary (a row with the wrong number
of fields, bytes that are not UTF-8, a quote never closed, a line longer than LINE_LIMIT, a NUL, an
over-long field, text with spaces around it, which Lamina trims when unquoted, a number spelled in
a way Lamina reads as text, a whole number beyond 2^53), the file is read again by the careful
reader, which gives the error naming the line and column, or the table that Lamina's rules make.
Both readers follow one rule: a column is numeric when every cell that is not missing is a number
(dates when every one is an ISO date, date-times when some have a time of day), text when at most
half of them are, and otherwise an error naming the first cell that is not (a typo in a column of
numbers must not turn it into text).
"""
from __future__ import annotations

import mmap
import re
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from ..errors import LaminaError
from . import categories as CATEGORIES
from . import columns as C
from . import dates as DATES
from .csvfile import FIELD_LIMIT, LINE_LIMIT

# A number in a CSV file: ASCII digits with an optional sign, point and exponent, or Inf.
NUMBER = r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|Inf|inf)"
PROGRESS_AFTER = 2.0          # seconds: a longer read shows a progress bar
JEMALLOC_FROM = 64 << 20      # bytes of a file from which the reader allocates from jemalloc
# A large file's columns are converted two at a time: most of a numeric column's conversion is
# the fresh pages of its NumPy vector, which the kernel hands out to two threads side by side.
CONVERT_SIDE_BY_SIDE_FROM = 64 << 20
CONVERT_THREADS = 2


def _reader_pool(size: int) -> pa.MemoryPool:
    """The memory pool Arrow's reader allocates from for a file of size bytes: jemalloc from
    JEMALLOC_FROM where this pyarrow has it, else Arrow's default (mimalloc on Linux). Reading
    10^7 rows (277 MB) here with mimalloc spent 0.9 - 1.4 s of system time in the reader's threads,
    with jemalloc 0.4 - 0.5 s; at 10^6 rows (28 MB) mimalloc spent 14 ms and jemalloc 50 (fresh
    pages at every block: it gives every block of 8 MB or more back at once); at 83 MB they were
    about even. The numeric columns made from its chunks come from the same pool (_floats)."""
    if size >= JEMALLOC_FROM:
        try:
            return pa.jemalloc_memory_pool()
        except (NotImplementedError, pa.ArrowException):      # a build without jemalloc
            pass
    return pa.default_memory_pool()


class NotOrdinary(Exception):
    """The file needs the careful reader (which explains what is wrong with it, or reads it)."""


def read_fast(f, size: int, delimiter: str, na: tuple, forced: set, wanted) -> dict:
    """The columns of an ordinary CSV file (f an open regular file of size bytes), or NotOrdinary.
    A file without a quote is cut into blocks for the threads at any line end, one with quotes only
    where a line end is outside quotes (which costs Arrow half its speed). Arrow reads the open file
    itself, through /dev/fd, without Python's reads in between."""
    if size == 0:
        raise NotOrdinary
    with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as pages:      # unmapped before the read
        quoted = pages.find(b'"') >= 0
    try:
        source = pa.OSFile(f"/dev/fd/{f.fileno()}")
    except OSError:                  # no /dev/fd here: Arrow reads through the Python file
        source = None
    progress = _Progress(source, size) if size > 32 << 20 and source is not None else None
    pool = _reader_pool(size)
    try:
        table = pacsv.read_csv(
            source if source is not None else f, memory_pool=pool,
            read_options=pacsv.ReadOptions(block_size=LINE_LIMIT, use_threads=True),
            parse_options=pacsv.ParseOptions(delimiter=delimiter, quote_char='"', double_quote=True,
                                             escape_char=False, newlines_in_values=quoted,
                                             ignore_empty_lines=True),
            convert_options=pacsv.ConvertOptions(
                check_utf8=True, null_values=list(na), strings_can_be_null=True,
                quoted_strings_can_be_null=True, true_values=[], false_values=[],
                timestamp_parsers=[], column_types={k: pa.string() for k in forced},
                include_columns=wanted))
    except (pa.ArrowInvalid, pa.ArrowKeyError, pa.ArrowNotImplementedError, KeyError, ValueError):
        raise NotOrdinary from None
    finally:
        if progress is not None:
            progress.stop()
        if source is not None:
            source.close()
    names = table.column_names
    if len(names) < 2 or len(set(names)) < len(names) or any(n != n.strip() or not n for n in names):
        raise NotOrdinary            # a one-column file's blank lines; a name with spaces around it
    arrays = {name: table.column(name) for name in names}
    del table                                      # each column's Arrow memory freed once converted

    def convert(name):
        return _column(arrays.pop(name), name in forced, pool)
    if size < CONVERT_SIDE_BY_SIDE_FROM:
        return {name: convert(name) for name in names}
    with ThreadPoolExecutor(CONVERT_THREADS) as threads:
        return dict(zip(names, threads.map(convert, names)))


def _column(arr: pa.ChunkedArray, forced: bool, pool: pa.MemoryPool | None = None):
    t = arr.type
    if pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_null(t):
        values = C.from_arrow(arr, pool)
        if pa.types.is_floating(t) and len(values) and not (-C.EXACT < values.min() and values.max() < C.EXACT):
            # a NaN (a missing cell) or an infinity makes min or max fail the test: look closer
            if np.count_nonzero(~np.isfinite(values)) != arr.null_count:
                raise NotOrdinary        # Inf (spelled Infinity?) or NaN (-nan): the careful reader decides
            if not (-C.EXACT < np.fmin.reduce(values) and np.fmax.reduce(values) < C.EXACT):
                raise NotOrdinary        # whole numbers beyond 2^53 may be ids: the careful reader decides
        return values
    if pa.types.is_binary(t) or pa.types.is_large_binary(t):
        raise NotOrdinary            # bytes that are not UTF-8: the careful reader names them
    if (pa.types.is_date32(t) or pa.types.is_timestamp(t) and t.tz is None) and not forced:
        return C.from_arrow(arr)
    if not (pa.types.is_string(t) or pa.types.is_large_string(t)):
        raise NotOrdinary            # a time of day, a time zone: the careful reader reads it as text
    arr = arr.combine_chunks() if isinstance(arr, pa.ChunkedArray) else arr
    trimmed = pc.utf8_trim_whitespace(arr)
    if len(arr) and pc.any(pc.not_equal(trimmed, arr)).as_py():
        raise NotOrdinary            # spaces around a cell: trimmed when unquoted, kept when quoted
    if pc.any(pc.match_substring(arr, "\0")).as_py():
        raise NotOrdinary
    longest = pc.max(pc.utf8_length(arr)).as_py()
    if longest is not None and longest > FIELD_LIMIT:
        raise NotOrdinary
    if not forced and len(arr) and arr.null_count < len(arr):
        numbers = pc.sum(pc.match_substring_regex(arr, "^" + NUMBER + "$")).as_py() or 0
        days = pc.sum(pc.match_substring_regex(arr, "^" + DATES.DATE_TEXT.pattern)).as_py() or 0
        if 2 * max(numbers, days) > len(arr) - arr.null_count:
            raise NotOrdinary        # numbers Arrow did not read (1.), or a column of numbers with a
                                     # few words: the careful reader reads or names them
    return C.text(arr, check=False)          # Arrow made the missing words null


class _Progress:
    """A progress bar of a read in Arrow's threads, shown once the read has taken PROGRESS_AFTER
    seconds: a thread waits that long, then reads the source's position every tenth of a second.
    tqdm is imported only then (25 ms to import and 7 ms to make a bar, which every read of a file
    over 32 MB paid before)."""

    def __init__(self, source, size: int):
        self.source, self.size, self.done, self.bar = source, size, threading.Event(), None
        self.thread = threading.Thread(target=self._follow, daemon=True)
        self.thread.start()

    def _follow(self):
        if self.done.wait(PROGRESS_AFTER):
            return
        from tqdm import tqdm
        self.bar = tqdm(total=self.size, unit="B", unit_scale=True, desc="read_csv", leave=False)
        while not self.done.wait(0.1):
            self.bar.update(self.source.tell() - self.bar.n)

    def stop(self):
        self.done.set()
        self.thread.join()
        if self.bar is not None:
            self.bar.close()


# -- the careful reader's columns --------------------------------------------------------
_NUMBER = re.compile(NUMBER)
_WHOLE = re.compile(r"[+-]?[0-9]+")
_ODD = re.compile(r"[^0-9.eE+-]")


def careful_columns(records: list, name: str, na: frozenset, forced: set) -> dict:
    """The columns of the records read_records gave (the first the header), checked cell by cell."""
    header = records[0][1]
    rows = records[1:]
    for line, row in rows:
        if len(row) != len(header):
            raise LaminaError("ValueError", f"read_csv: \"{name}\" line {line} has {len(row)} field"
                              f"{'s' * (len(row) != 1)}, but the header has {len(header)} columns.")
    columns = {}
    for j, col in enumerate(header):
        cells = [(line, row[j]) for line, row in rows]
        texts = [c for _, c in cells]
        if col in forced:
            columns[col] = _text(texts, na)
        else:
            columns[col] = _parse_column(cells, name, j, col, na)
    return columns


def _text(cells: list[str], na: frozenset):
    return C.text(pa.array([None if c in na else c for c in cells], type=pa.string()), check=False)


def _parse_column(cells, name: str, j: int, col: str, na: frozenset):
    """Numbers when every filled cell is a number; text when at most half of them are; in
    between an error naming the first cell that is not a number (a typo in a column of numbers). Unquoted cells come trimmed; a quoted
    number may have spaces around it, quoted text keeps them. Whole numbers beyond 2^53, which a
    float64 cannot hold exactly, stay text (ids)."""
    cells_text = [c for _, c in cells]
    texts = [c.strip() for c in cells_text]
    filled = [t for t in texts if t not in na]
    numbers = sum(1 for t in filled if _NUMBER.fullmatch(t))
    if filled and 2 * numbers <= len(filled):
        return _dates_or_text(cells, name, j, col, na, filled)
    if numbers < len(filled):
        line, cell = next((line, c) for line, c in cells if c.strip() not in na and not _NUMBER.fullmatch(c.strip()))
        raise LaminaError("ValueError", f"read_csv: \"{name}\" line {line}, column {j + 1} ('{col}'): "
                          f"\"{cell.strip()}\" is not a number, but the column holds numbers. Fix "
                          f"the cell, or read the column as text with text = [\"{col}\"].")
    if not _ODD.search("".join(filled)):   # only digits, points, signs, exponents: float() reads them as NUMBER does
        values = np.array(["nan" if t in na else t for t in texts], dtype=np.float64)
    else:
        values = np.array([np.nan if t in na else float(t) for t in texts], dtype=np.float64)
    if np.any(np.abs(values) >= C.EXACT) and all(_WHOLE.fullmatch(t) for t in filled) \
            and any(int(t) != int(v) for t, v in zip(filled, values[~np.isnan(values)].tolist())):
        return _text(cells_text, na)
    return values


def _dates_or_text(cells, name: str, j: int, col: str, na: frozenset, filled: list):
    """Dates when every filled cell is an ISO date (date-times when some have a time of day); text
    when at most half of them look like dates; in between an error naming the first that does not."""
    days = sum(1 for t in filled if DATES.DATE_TEXT.fullmatch(t))
    moments = sum(1 for t in filled if DATES.DATETIME_TEXT.fullmatch(t))
    if 2 * (days + moments) <= len(filled):
        return _text([c for _, c in cells], na)
    kind = "date" if moments == 0 else "datetime"
    for line, c in cells:
        t = c.strip()
        if t in na:
            continue
        try:
            if days + moments < len(filled) and not (DATES.DATE_TEXT.fullmatch(t) or DATES.DATETIME_TEXT.fullmatch(t)):
                raise LaminaError("ValueError", "")
            DATES.parse([t], kind, "read_csv")
        except LaminaError:
            raise LaminaError("ValueError", f"read_csv: \"{name}\" line {line}, column {j + 1} ('{col}'): "
                              f"\"{t}\" is not a {kind}, but the column holds {kind}s. Fix the cell, or "
                              f"read the column as text with text = [\"{col}\"].") from None
    return DATES.parse([None if c.strip() in na else c for _, c in cells], kind, "read_csv")


def forced_kind(column, kind: str, name: str, col: str, na: tuple):
    """A column read as text made the kind types asked for: date, datetime or category."""
    texts = C.as_text(column).texts() if not C.is_numeric(column) else None
    if texts is None:
        raise LaminaError("ValueError", f"read_csv: column '{col}' of \"{name}\" holds numbers, not {kind}s.")
    if kind == "category":
        return CATEGORIES.make(["" if t is None else t for t in texts], who=f"read_csv: \"{name}\" column '{col}'")
    return DATES.parse(texts, kind, f"read_csv: \"{name}\" column '{col}'")
