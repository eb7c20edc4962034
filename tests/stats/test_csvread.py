"""csvread.py: Arrow's fast reader and the careful reader make the same table of every file the fast
one accepts (the fast one hands anything unusual to the careful one, so a file is never read two ways)."""
import io

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lamina.errors import LaminaError
from lamina.stats import columns as C
from lamina.stats.csvfile import read_records
from lamina.stats.csvread import NotOrdinary, careful_columns, read_fast

CELLS = st.one_of(
    st.integers(-10**6, 10**6).map(str),
    st.floats(allow_nan=False, allow_infinity=False, width=32).map(repr),
    st.sampled_from(["", "NA", "n/a", "null", "NaN", "Inf", "-inf", "1e5", ".5", "1.", "+3", "007",
                     "9007199254740993", "1_000", "x", "a b", " pad ", "\"q,uoted\"", "\"two\"\"q\"",
                     "2024-01-31", "2024-02-30", "2024-01-31T10:30", "2024-01-31 10:30:00", "é", "Infinity"]))


@st.composite
def csv_texts(draw):
    ncol = draw(st.integers(2, 4))
    nrow = draw(st.integers(0, 6))
    kinds = [draw(st.sampled_from(["int", "any", "date"])) for _ in range(ncol)]
    rows = []
    for _ in range(nrow):
        row = []
        for k in kinds:
            if k == "int":
                row.append(draw(st.one_of(st.integers(-99, 99).map(str), st.just(""))))
            elif k == "date":
                row.append(draw(st.sampled_from(["2024-01-31", "2023-12-01", "", "2024-02-29"])))
            else:
                row.append(draw(CELLS))
        rows.append(",".join(row))
    return "\n".join([",".join(f"c{j}" for j in range(ncol))] + rows) + "\n"


def careful(text: str):
    try:
        records = read_records(io.BytesIO(text.encode()), "t.csv", ",")
        return careful_columns(records, "t.csv", frozenset(C.MISSING_WORDS), set())
    except LaminaError as e:
        return e.message


def cells(column):
    if C.is_numeric(column):
        return ["nan" if v != v else repr(float(v)) for v in column]
    return [repr(x) for x in C.as_text(column).texts()] + [C.kind(column)]


def agree(path, text):
    with open(path, "rb") as f:
        try:
            fast = read_fast(f, path.stat().st_size, ",", C.MISSING_WORDS, set(), None)
        except NotOrdinary:
            return None                         # read by the careful reader alone
    slow = careful(text)
    assert not isinstance(slow, str), (text, slow)
    assert list(fast) == list(slow)
    for name in fast:
        assert cells(fast[name]) == cells(slow[name]), (text, name)
    return fast


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(csv_texts())
def test_the_fast_reader_agrees_with_the_careful_one(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("csv") / "t.csv"
    path.write_text(text)
    agree(path, text)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(csv_texts())
def test_columns_converted_side_by_side_agree_too(tmp_path_factory, text):
    # a large file's columns are converted on two threads (CONVERT_SIDE_BY_SIDE_FROM): the same
    # table, and a column that needs the careful reader still hands the file to it
    from lamina.stats import csvread
    path = tmp_path_factory.mktemp("csv") / "t.csv"
    path.write_text(text)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(csvread, "CONVERT_SIDE_BY_SIDE_FROM", 0)
        agree(path, text)


@pytest.mark.parametrize("text, fast", [
    ("a,b\n1,Infinity\n2,3\n", False),          # Infinity is text to Lamina, a number to Arrow
    ("a,b\n1, x \n2,y\n", False),               # an unquoted cell is trimmed, a quoted one not
    ("a,b\n1,-nan\n2,3\n", False),
    ("a,b\n9007199254740993,1\n2,2\n", True),    # beyond 2^53: the digits as text, both ways
    ("a,b\n1,\"x\ny\"\n", True),                  # a quoted line break
    ("a,b\n1,1.\n2,2\n", True)])
def test_unusual_files(tmp_path, text, fast):
    path = tmp_path / "t.csv"
    path.write_text(text)
    assert (agree(path, text) is not None) == fast


def test_without_dev_fd_arrow_reads_through_the_python_file(tmp_path, monkeypatch):
    from lamina.stats import csvread
    from lamina.stats.data import read_csv

    def no_dev_fd(path, *args, **kwargs):
        raise FileNotFoundError(path)
    monkeypatch.setattr(csvread.pa, "OSFile", no_dev_fd)
    for text, b in [("a,b\n1,x\n2,y\n", ["x", "y"]), ("a,b\n1, x \n2,y\n", ["x", "y"])]:
        path = tmp_path / "t.csv"
        path.write_text(text)
        t = read_csv(str(path))         # the second goes on to the careful reader: f is still open
        assert t.columns["a"].tolist() == [1, 2] and list(t.columns["b"]) == b


class _Position:
    """A source whose position moves on at every look."""

    def __init__(self):
        self.at = 0

    def tell(self):
        self.at += 10
        return self.at


def test_a_read_shows_a_progress_bar_only_once_it_has_taken_progress_after(monkeypatch):
    import time

    from lamina.stats import csvread as CR
    monkeypatch.setattr(CR, "PROGRESS_AFTER", 3600.0)
    quick = CR._Progress(_Position(), 1000)
    quick.stop()
    assert quick.bar is None                   # no bar made (and tqdm not needed)
    monkeypatch.setattr(CR, "PROGRESS_AFTER", 0.0)
    slow = CR._Progress(_Position(), 1000)
    for _ in range(600):                       # the follower makes the bar and moves it on
        if slow.bar is not None and slow.bar.n > 0:
            break
        time.sleep(0.05)
    slow.stop()
    assert slow.bar is not None and slow.bar.n > 0
