"""The bytes of a CSV file -> records of fields, without trusting the file.

The file is read in binary, one line at a time and never more than LINE_LIMIT bytes of
a line (so /dev/zero or a file without newlines is an error, not an endless read), each
line decoded as UTF-8 on its own (so an error names the line, the column and the byte)
and handed to Python's csv module. A line ends at \\n, \\r\\n or a lone \\r. A field longer
than the csv module's limit (131,072 characters) is an error naming its line and column.
An unquoted field is trimmed of spaces; a quoted one keeps its text exactly.
"""
from __future__ import annotations

import csv
import re
from typing import BinaryIO

from ..errors import LaminaError

MISSING = {"", "NA", "NaN", "nan", "N/A"}     # read as NaN in a numeric column
LINE_LIMIT = 1 << 20                      # bytes in one line, its end not counted
FIELD_LIMIT = csv.field_size_limit()      # characters in one field: the csv module's (not changed)
CHUNK = 1 << 20
BOM = b"\xef\xbb\xbf"                      # the byte order mark some programs write first
_SPECIAL = re.compile(r'[,"\r\n]')        # text that write_csv quotes (and text with edge spaces)
_LINE_END = re.compile(r"\r\n|\r|\n")


class _Bad:
    """A line that cannot be handed to the csv module: why, and its bytes or text."""

    def __init__(self, why: str, data):
        self.why, self.data = why, data


class _Lines:
    """The file's lines as text, read a block of whole lines at a time; `pending` holds the
    lines of the record being read (for the column of an error)."""

    def __init__(self, f, name: str, delimiter: str):
        self.f, self.name, self.delimiter = f, name, delimiter
        self.buf, self.eof, self.first = b"", False, True
        self.batch, self.index = [], 0
        self.number, self.pending, self.start = 0, [], 1

    def __iter__(self):
        return self

    def __next__(self) -> str:
        if self.index == len(self.batch):
            self.batch, self.index = self._fill(), 0
            if not self.batch:
                raise StopIteration
        line = self.batch[self.index]
        self.index += 1
        self.number += 1
        if not self.pending:
            self.start = self.number
        if type(line) is not str:
            self._bad(line)
        self.pending.append(line)
        return line

    def _fill(self) -> list:
        """The next block of whole lines, never holding more than LINE_LIMIT bytes of a line
        whose end has not been seen."""
        while True:
            cut = self._whole()
            if cut or self.eof:
                break
            if len(self.buf) > LINE_LIMIT + 1:
                self._too_long(self.number + 1)
            chunk = self.f.read(CHUNK)
            self.eof = not chunk
            self.buf += chunk
        block, self.buf = self.buf[:cut], self.buf[cut:]
        if self.first and block.startswith(BOM):
            block = block[len(BOM):]
        self.first = False
        raws = block.splitlines(keepends=True)      # at \n, \r\n and \r only (bytes)
        try:
            lines = [r.decode("utf-8") for r in raws]
        except UnicodeDecodeError:
            lines = [_decoded(r) for r in raws]
        if b"\0" in block:
            lines = [_Bad("nul", t) if type(t) is str and "\0" in t else t for t in lines]
        if len(block) > LINE_LIMIT:
            lines = [_Bad("long", r) if len(r) > LINE_LIMIT and len(r.rstrip(b"\r\n")) > LINE_LIMIT else t
                     for r, t in zip(raws, lines)]
        return lines

    def _whole(self) -> int:
        """How many bytes at the start of the buffer are whole lines."""
        if self.eof:
            return len(self.buf)
        end = max(self.buf.rfind(b"\n"), self.buf.rfind(b"\r"))
        if end == len(self.buf) - 1 and self.buf.endswith(b"\r"):      # maybe half of \r\n
            end = max(self.buf.rfind(b"\n", 0, end), self.buf.rfind(b"\r", 0, end))
        return end + 1

    def _too_long(self, line: int):
        self.fail(f"line {line} is longer than {LINE_LIMIT:,} bytes, the limit for one line; is it a "
                  f"CSV file?")

    def _bad(self, bad: _Bad):
        if bad.why == "long":
            self._too_long(self.number)
        if bad.why == "nul":
            before = bad.data[:bad.data.index("\0")]
            self.fail(f"line {self.number}, column {self.column(before)} holds a NUL character (byte 0), "
                      f"which text never does; is it a CSV file?")
        e = bad.data                                       # the UnicodeDecodeError
        before = e.object[:e.start].decode("utf-8")        # the valid text before the bad byte
        self.fail(f"line {self.number}, column {self.column(before)} (byte {e.start + 1} of the line) "
                  f"is not UTF-8 text; save the file as UTF-8")

    def column(self, text: str) -> int:
        """The field column (from 1) where `text`, the start of the current line, ends, counting
        the record's earlier lines and quotes."""
        return _scan("".join(self.pending) + text, self.delimiter)[0]

    def record_done(self) -> None:
        self.pending = []

    def fail(self, what: str):
        end = "" if what.endswith("?") else "."
        raise LaminaError("ValueError", f"read_csv: \"{self.name}\" {what}{end}")


def _decoded(raw: bytes):
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        return _Bad("utf8", e)


def _scan(text: str, delimiter: str, limit: int | None = None) -> tuple[int, bool]:
    """(field column at the end of text, or where a field first exceeds limit; whether one did),
    reading quotes as the csv module does."""
    column, length, quoted, i = 1, 0, False, 0
    while i < len(text):
        c = text[i]
        if quoted:
            if c == '"' and text[i + 1:i + 2] == '"':
                i += 1
                length += 1
            elif c == '"':
                quoted = False
            else:
                length += 1
        elif c == '"' and length == 0:
            quoted = True
        elif c == delimiter:
            column, length = column + 1, 0
        elif c not in "\r\n":
            length += 1
        if limit is not None and length > limit:
            return column, True
        i += 1
    return column, False


def _field_pattern(delimiter: str) -> re.Pattern:
    """A separator and the field after it, as the csv module reads it: a quoted part ("" inside
    is a quote; group 1 the opening quote, group 2 the closing one) and the text up to the next
    separator, or text that does not begin with a quote."""
    d = re.escape(delimiter)
    return re.compile(rf'{d}(?:(")[^"]*(?:""[^"]*)*("?)[^{d}\r\n]*|[^{d}\r\n]*)')


def read_records(f: BinaryIO, name: str, delimiter: str) -> list[tuple[int, list[str]]]:
    """(line number, fields) of each record that is not blank; line numbers count from 1, a
    record that spans lines (a quoted field holding a newline) gets its last line's. A blank
    line is empty or holds only spaces; a line holding "" is a record of one empty field.
    f is the open file (binary); name is the path the program gave, for messages."""
    lines = _Lines(f, name, delimiter)
    reader = csv.reader(lines, delimiter=delimiter)
    field, records = _field_pattern(delimiter), []
    try:
        for row in reader:
            text = "".join(lines.pending)
            lines.record_done()
            if '"' not in text:
                row = [cell.strip() for cell in row]
                if row and (len(row) > 1 or row[0]):          # not blank
                    records.append((lines.number, row))
                continue
            found = field.findall(delimiter + text)        # (opening quote, closing quote) of each field
            if found[-1] == ('"', ""):
                _never_closed(lines, text, field)
            records.append((lines.number, [c if q else c.strip() for c, (q, _) in zip(row, found)]))
    except csv.Error as exc:
        column, long = _scan("".join(lines.pending), delimiter, FIELD_LIMIT)
        if long:
            lines.fail(f"line {lines.start}, column {column} has a field longer than "
                       f"{FIELD_LIMIT:,} characters, the limit for one field")
        lines.fail(f"line {lines.number} is not valid CSV ({exc})")
    return records


def _never_closed(lines: _Lines, text: str, field: re.Pattern):
    # the csv module ends such a field at the end of the file instead of failing
    at = list(field.finditer(lines.delimiter + text))[-1].start()     # where its quote is in text
    line = lines.start + len(_LINE_END.findall(text, 0, at))
    column = _scan(text[:at], lines.delimiter)[0]
    lines.fail(f"has a quote opened on line {line}, column {column} that is never closed (the file "
               f"ends inside the quoted field)")


def csv_bytes(rows: list[list[str]]) -> bytes:
    """The rows (the first the header) as UTF-8 CSV text, each line ended by \\n. A field is
    quoted when it holds a comma, a quote or a line break, begins or ends with a space (read_csv
    trims unquoted fields) or begins with a byte order mark; a row of one empty field is written
    "" (an empty line would be blank). A field or line longer than read_csv's limits is a
    ValueError: the file could not be read back."""
    lines = []
    for i, row in enumerate(rows):
        line = ",".join(_quoted(f) for f in row) if row != [""] else '""'
        if len(line) > FIELD_LIMIT:          # else every field and line is short enough
            _check_limits(i, row, rows[0], line)
        lines.append(line + "\n")
    return "".join(lines).encode("utf-8")


def _check_limits(i: int, row: list[str], header: list[str], line: str) -> None:
    where = "the header" if i == 0 else f"row {i - 1}"
    for name, f in zip(header, row):
        if len(f) > FIELD_LIMIT:
            raise LaminaError("ValueError", f"write_csv: {where}, column '{name}' holds {len(f):,} "
                              f"characters, more than the {FIELD_LIMIT:,} read_csv reads in one field.")
    if any(len(part.encode("utf-8")) > LINE_LIMIT for part in _LINE_END.split(line)):
        raise LaminaError("ValueError", f"write_csv: {where} would make a line longer than "
                          f"{LINE_LIMIT:,} bytes, the most read_csv reads in one line.")


def _quoted(field: str) -> str:
    if field != field.strip() or field.startswith("\ufeff") or _SPECIAL.search(field):
        return '"' + field.replace('"', '""') + '"'
    return field
