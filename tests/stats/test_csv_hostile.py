"""read_csv on hostile input: endless files, non-UTF-8 bytes, over-long fields and lines,
NUL bytes, and numbers that Python's float() reads but a CSV number is not."""
from __future__ import annotations

import io
import os

import numpy as np
import pytest

from lamina.errors import LaminaError
from lamina.stats.csvfile import FIELD_LIMIT, LINE_LIMIT, _Lines


def message(lam, path) -> str:
    err = lam.error("t = read_csv(path)", path=str(path))
    assert err.kind == "ValueError", err
    return err.message


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_dev_zero_stops_at_the_line_limit(lam):
    assert message(lam, "/dev/zero") == (f'read_csv: "/dev/zero" line 1 is longer than {LINE_LIMIT:,} bytes, '
                                         f'the limit for one line; is it a CSV file?')


def test_a_line_over_the_limit(lam, tmp_path):
    path = tmp_path / "long.csv"
    path.write_bytes(b"a,b\n1,2\n" + b"3," + b"4" * LINE_LIMIT + b"\n5,6\n")
    assert message(lam, path) == (f'read_csv: "{path}" line 3 is longer than {LINE_LIMIT:,} bytes, the limit '
                                  f'for one line; is it a CSV file?')


def test_the_line_limit_is_exact():
    for end in (b"\n", b"\r\n", b"\r"):
        lines = _Lines(io.BytesIO(b"x" * LINE_LIMIT + end + b"y\n"), "f.csv", ",")
        assert [len(line) for line in lines] == [LINE_LIMIT + len(end), 2]
    assert [len(line) for line in _Lines(io.BytesIO(b"x" * LINE_LIMIT), "f.csv", ",")] == [LINE_LIMIT]
    with pytest.raises(LaminaError, match="line 1 is longer than"):
        list(_Lines(io.BytesIO(b"x" * (LINE_LIMIT + 1)), "f.csv", ","))
    with pytest.raises(LaminaError, match="line 2 is longer than"):
        list(_Lines(io.BytesIO(b"a\n" + b"x" * (LINE_LIMIT + 1) + b"\r\n"), "f.csv", ","))


def test_non_utf8_names_line_column_and_byte(lam, tmp_path):
    path = tmp_path / "latin1.csv"
    path.write_bytes("name,city\nAnna,Oslo\nJosé,Málaga\n".encode("latin-1"))
    assert message(lam, path) == (f'read_csv: "{path}" line 3, column 1 (byte 4 of the line) is not UTF-8 '
                                  f'text; save the file as UTF-8.')
    second = tmp_path / "second.csv"
    second.write_bytes(b'a,b\n1,"x\n\xff"\n')          # inside a quoted field that began a line earlier
    assert message(lam, second) == (f'read_csv: "{second}" line 3, column 2 (byte 1 of the line) is not '
                                    f'UTF-8 text; save the file as UTF-8.')


def test_an_over_long_field_names_line_and_column(lam, tmp_path):
    path = tmp_path / "field.csv"
    path.write_text('a,b,c\n1,2,3\n4,"' + "x\n" * (FIELD_LIMIT // 2 + 1) + '",6\n')
    assert message(lam, path) == (f'read_csv: "{path}" line 3, column 2 has a field longer than '
                                  f'{FIELD_LIMIT:,} characters, the limit for one field.')


def test_nul_bytes(lam, tmp_path):
    path = tmp_path / "nul.csv"
    path.write_bytes(b"a,b\n1,2\n3,\x00\n")
    assert message(lam, path) == (f'read_csv: "{path}" line 3, column 2 holds a NUL character (byte 0), '
                                  f'which text never does; is it a CSV file?')


def test_line_endings_and_bom(lam, tmp_path):
    for ending in (b"\n", b"\r\n", b"\r"):
        path = tmp_path / "end.csv"
        path.write_bytes(b"\xef\xbb\xbfx,y" + ending + b"1,p" + ending + ending + b'3,"a' + ending + b'b"' + ending)
        t = lam.eval("read_csv(path)", path=str(path))
        assert t.names == ["x", "y"]
        np.testing.assert_array_equal(t.columns["x"], [1, 3])
        assert t.columns["y"] == ["p", "a" + ending.decode() + "b"]
    bad = tmp_path / "cr.csv"
    bad.write_bytes(b"x\r1\r2\rz\r")
    assert message(lam, bad).startswith(f'read_csv: "{bad}" line 4, column 1 (\'x\'): "z" is not a number')


def test_what_a_number_is(lam, tmp_path):
    path = tmp_path / "n.csv"
    path.write_text("plain,under,exotic,inf,words\n1.5e3,1_000,١٢,Inf,infinity\n-.5,2_0,3,-inf,nan\n")
    t = lam.eval("read_csv(path)", path=str(path))
    np.testing.assert_array_equal(t.columns["plain"], [1500.0, -0.5])
    assert t.columns["under"] == ["1_000", "2_0"]          # text, not 1000
    assert t.columns["exotic"] == ["١٢", "3"]
    np.testing.assert_array_equal(t.columns["inf"], [np.inf, -np.inf])
    assert t.columns["words"] == ["infinity", ""]          # nan is a missing word: null
    mixed = tmp_path / "m.csv"
    mixed.write_text("n\n1\n2\n1_000\n")         # mostly numbers: the one word is a mistake
    assert message(lam, mixed) == (f'read_csv: "{mixed}" line 4, column 1 (\'n\'): "1_000" is not a number, '
                                   f'but the column holds numbers. Fix the cell, or read the column as text '
                                   f'with text = ["n"].')
