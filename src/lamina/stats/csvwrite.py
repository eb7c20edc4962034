"""A table as CSV text, a column at a time through Arrow (no Python string per cell).

Numbers are written as the shortest text that reads back to the same value (Arrow's formatting:
2, 0.1, 1e+20, 1.5e-7, -0), NaN as NaN and infinities as Inf and -Inf, which read_csv reads back.
Text is quoted by csvfile.py's rule (a comma, a quote or a line break, a space at either end, a
byte order mark at the start), a missing text cell is an empty field, and a one-column row whose
field is empty is written "" (an empty line would be skipped). A field or line beyond read_csv's
limits goes to csvfile.csv_bytes, which names it in its error.
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from . import columns as C
from .csvfile import FIELD_LIMIT, LINE_LIMIT, csv_bytes

# what Python's str.strip() removes, as RE2 spells it: a field with one at an end is quoted
_SPACE = r"[\s\x0b\x1c-\x1f\x85\xa0\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}]"
_NEEDS_QUOTES = rf'[,"\r\n]|^{_SPACE}|{_SPACE}$|^\x{{feff}}'


def number_strings(values: np.ndarray) -> pa.Array:
    """Each number as the shortest text read_csv reads back to it."""
    s = pc.cast(pa.array(values), pa.string())
    s = pc.replace_substring_regex(s, "^(-?)inf$", r"\1Inf")
    return pc.replace_substring_regex(s, "^-?nan$", "NaN")


def _text_fields(c) -> pa.Array:
    s = pc.fill_null(C.as_text(c).arrow, "")
    quoted = pc.binary_join_element_wise('"', pc.replace_substring(s, '"', '""'), '"', "")
    return pc.if_else(pc.match_substring_regex(s, _NEEDS_QUOTES), quoted, s)


ROWS_AT_ONCE = 1 << 18


def table_csv(names: list[str], columns: list, nrows: int):
    """The header and the rows of the columns as UTF-8 CSV text, each line ended by \\n, in pieces
    of ROWS_AT_ONCE rows (the text of a large table is never held whole)."""
    yield csv_bytes([names])
    for start in range(0, nrows, ROWS_AT_ONCE):
        yield _rows_csv(names, [C.take(c, slice(start, start + ROWS_AT_ONCE)) for c in columns])


def _rows_csv(names: list[str], columns: list) -> bytes:
    fields = [number_strings(c) if C.is_numeric(c) else _text_fields(c) for c in columns]
    if len(fields) == 1:
        fields[0] = pc.if_else(pc.equal(fields[0], ""), '""', fields[0])
    lines = pc.binary_join_element_wise(*fields, ",") if len(fields) > 1 else fields[0]
    longest_field = max((pc.max(pc.utf8_length(f)).as_py() or 0 for f in fields), default=0)
    longest_line = pc.max(pc.binary_length(lines)).as_py() or 0
    if longest_field > FIELD_LIMIT or longest_line > LINE_LIMIT:
        texts = [number_strings(c).to_pylist() if C.is_numeric(c) else C.as_text(c).cells() for c in columns]
        rows = [list(row) for row in zip(*texts)]
        return csv_bytes([names] + rows)[len(csv_bytes([names])):]   # names what is beyond the limits
    return _bytes_of(pc.binary_join_element_wise(lines, "", "\n"))


def _bytes_of(strings: pa.Array) -> bytes:
    """The text of a string array's cells, one after another."""
    if not len(strings):
        return b""
    offsets = np.frombuffer(strings.buffers()[1], dtype=np.int32)[strings.offset:strings.offset + len(strings) + 1]
    return strings.buffers()[2].to_pybytes()[offsets[0]:offsets[-1]]
