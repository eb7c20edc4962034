"""read_parquet and write_parquet (stats/parquet.py): files written by pandas and by DuckDB read
cell by cell, tables written and read back by pandas, columns and where, and their errors."""
import datetime
import math
import os

import duckdb
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from lamina.errors import LaminaError
from lamina.files import Permissions, using
from lamina.stats import parquet as PQ
from lamina.stats.table import Table, shown_cell

BIG = 2 ** 53 + 1           # a whole number a float64 cannot hold


def cells(t: Table, name: str) -> list:
    """A column's cells as Python values: numbers as floats (NaN for missing), text as str, a
    missing text cell as None, any other column as each cell prints."""
    c = t.columns[name]
    if isinstance(c, np.ndarray):
        return [float(v) for v in c]
    return [None if shown_cell(c, i) == "NA" else shown_cell(c, i) for i in range(len(c))]


def same(got: list, want: list) -> bool:
    return len(got) == len(want) and all(
        (isinstance(w, float) and math.isnan(w) and isinstance(g, float) and math.isnan(g)) or g == w
        for g, w in zip(got, want))


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_file_written_by_pandas_is_read_cell_by_cell(here):
    df = pd.DataFrame({
        "x": [1.5, np.nan, -2.25, 1e300],
        "n": pd.array([1, 2, None, 4], dtype="Int64"),
        "big": [1, BIG, 3, -BIG],
        "flag": [True, False, True, False],
        "name": ["ana", None, "", "b\u00e9la"],
        "day": pd.to_datetime(["2024-01-31", "2023-12-01", None, "2000-02-29"]).date,
        "f32": np.array([0.5, 1.25, -3.0, np.nan], dtype=np.float32),
    })
    df.to_parquet("pandas.parquet")
    t = PQ.read_parquet("pandas.parquet")
    assert t.names == list(df.columns)
    assert same(cells(t, "x"), [1.5, math.nan, -2.25, 1e300])
    assert same(cells(t, "n"), [1.0, 2.0, math.nan, 4.0])
    # beyond 2^53 the column is text, each number written out exactly
    assert cells(t, "big") == ["1", str(BIG), "3", str(-BIG)]
    assert same(cells(t, "flag"), [1.0, 0.0, 1.0, 0.0])
    # pandas' None is a null (NA); an empty string is a string, as the file says
    assert cells(t, "name") == ["ana", None, "", "b\u00e9la"]
    assert cells(t, "day") == ["2024-01-31", "2023-12-01", None, "2000-02-29"]
    assert t.columns["f32"].dtype == np.float32
    assert same(cells(t, "f32"), [0.5, 1.25, -3.0, math.nan])


def test_a_file_written_by_duckdb_is_read_cell_by_cell(here):
    query = ("select range as i, range * 0.5 - 1 as y, case when range % 3 = 0 then null else 'g' || "
             "(range % 4) end as g, range % 2 = 0 as even, (range * 1000000007)::hugeint * 10000000000 as huge, "
             "date '2024-01-01' + range::int as d, case when range = 5 then null else range / 7 end as q "
             "from range(40)")
    duckdb.sql(f"copy ({query}) to 'duck.parquet' (format parquet)")
    rows = duckdb.sql(f"select * from ({query})").fetchall()
    t = PQ.read_parquet("duck.parquet")
    assert t.names == ["i", "y", "g", "even", "huge", "d", "q"] and t.nrows == 40
    want = list(zip(*rows))
    assert cells(t, "i") == [float(v) for v in want[0]]
    assert cells(t, "y") == [float(v) for v in want[1]]
    assert cells(t, "g") == list(want[2])
    assert cells(t, "even") == [float(v) for v in want[3]]
    assert same(cells(t, "q"), [math.nan if v is None else v for v in want[6]])
    assert cells(t, "d") == [v.isoformat() for v in want[5]]
    # a 128-bit integer (a decimal in Parquet) becomes a number, rounded as a float64 rounds it
    assert cells(t, "huge") == [float(v) for v in want[4]]


def test_write_parquet_is_read_back_by_pandas(here):
    t = Table({"x": np.array([1.0, np.nan, 3.5]), "g": ["a", "", "c"],
               "h": np.array([1, 2, 3], dtype=np.float32)})
    PQ.write_parquet(t, "out.parquet")
    df = pd.read_parquet("out.parquet")
    assert list(df.columns) == ["x", "g", "h"]
    assert df["x"].iloc[0] == 1.0 and pd.isna(df["x"].iloc[1]) and df["x"].iloc[2] == 3.5
    assert [None if pd.isna(v) else v for v in df["g"]] == ["a", None, "c"]
    assert df["h"].dtype == np.float32 and list(df["h"]) == [1.0, 2.0, 3.0]
    # and by read_parquet, the same table
    back = PQ.read_parquet("out.parquet")
    assert same(cells(back, "x"), [1.0, math.nan, 3.5]) and cells(back, "g") == ["a", None, "c"]
    assert [n for n in os.listdir(here) if n != "out.parquet"] == []      # no temporary file left


def test_write_parquet_replaces_a_file_and_takes_records_and_matrices(here):
    PQ.write_parquet(Table({"a": np.array([1.0])}), "f.parquet")
    from lamina.values import Record
    PQ.write_parquet(Record({"b": np.array([2.0, 3.0])}), "f.parquet")
    assert pq.read_table("f.parquet").to_pydict() == {"b": [2.0, 3.0]}
    PQ.write_parquet(np.array([[1.0, 2.0], [3.0, 4.0]]), "m.parquet", names=["p", "q"])
    assert pq.read_table("m.parquet").to_pydict() == {"p": [1.0, 3.0], "q": [2.0, 4.0]}


def write_people(path="people.parquet", rows=1000):
    rng = np.random.default_rng(3)
    df = pd.DataFrame({"id": np.arange(rows), "age": rng.integers(18, 90, rows).astype(float),
                       "city": rng.choice(["Oslo", "Rome", "Lima"], rows),
                       "score": rng.normal(size=rows)})
    df.loc[::7, "score"] = np.nan
    pq.write_table(pa.Table.from_pandas(df, preserve_index=False), path, row_group_size=128)
    return df


def test_columns_and_where_against_pandas(here):
    df = write_people()
    t = PQ.read_parquet("people.parquet", columns=["score", "id"])
    assert t.names == ["score", "id"]
    assert same(cells(t, "score"), [float(v) for v in df["score"]])
    t = PQ.read_parquet("people.parquet", columns=["id", "city"], where="age >= 60 and city <> 'Rome'")
    want = df[(df.age >= 60) & (df.city != "Rome")]
    assert t.names == ["id", "city"]
    assert cells(t, "id") == [float(v) for v in want["id"]] and cells(t, "city") == list(want["city"])
    # a missing score is NULL to the condition: neither above nor below 0
    t = PQ.read_parquet("people.parquet", where="score > 0 or score <= 0")
    assert t.names == list(df.columns) and t.nrows == int(df["score"].notna().sum())
    t = PQ.read_parquet("people.parquet", columns="id", where="score is null")
    assert cells(t, "id") == [float(v) for v in df["id"][df["score"].isna()]]


def test_where_reads_only_the_columns_it_needs(here, monkeypatch):
    write_people()
    asked = []
    iter_batches = pq.ParquetFile.iter_batches

    def spy(self, *args, **kwargs):
        asked.append(kwargs.get("columns"))
        return iter_batches(self, *args, **kwargs)
    monkeypatch.setattr(pq.ParquetFile, "iter_batches", spy)
    t = PQ.read_parquet("people.parquet", columns=["id"], where="AGE > 80")
    assert asked == [["id", "age"]] and t.names == ["id"]


@pytest.mark.parametrize("call, message", [
    (lambda: PQ.read_parquet("people.parquet", columns=["id", "zip"]),
     "read_parquet: column 'zip' is not in \"people.parquet\"; its columns are id, age, city, score."),
    (lambda: PQ.read_parquet("people.parquet", where="age >"),
     "read_parquet: the where condition on \"people.parquet\" fails: Parser Error: syntax error at or near \">\""),
    (lambda: PQ.read_parquet("people.parquet", where="zip = 1"),
     "read_parquet: the where condition on \"people.parquet\" fails: Binder Error: Referenced column \"zip\" not found"),
    (lambda: PQ.read_parquet("people.parquet", where="age > 1) union all (select 1"),
     "read_parquet: the where condition on \"people.parquet\" fails: Parser Error"),
    (lambda: PQ.read_parquet("notes.txt"),
     "read_parquet: \"notes.txt\" is not a Parquet file (Parquet magic bytes not found in footer"),
    (lambda: PQ.read_parquet("empty.parquet"), "read_parquet: \"empty.parquet\" is not a Parquet file ("),
    (lambda: PQ.read_parquet("no/such.parquet"), "read_parquet cannot read \"no/such.parquet\": No such file"),
    (lambda: PQ.read_parquet("people.parquet", columns=[]), "read_parquet's columns must be a column name or a list"),
    (lambda: PQ.write_parquet(Table({}, nrows=3), "t.parquet"), "write_parquet: the table has no columns"),
    (lambda: PQ.write_parquet(Table({"a": np.zeros(1)}), "no/such/t.parquet"),
     "write_parquet cannot write \"no/such/t.parquet\": No such file"),
])
def test_bad_input_is_a_clear_error_naming_the_file(here, call, message):
    write_people()
    (here / "notes.txt").write_text("a,b\n1,2\n")
    (here / "empty.parquet").write_bytes(b"")
    with pytest.raises(LaminaError) as info:
        call()
    assert info.value.message.startswith(message), info.value.message


def test_a_column_of_lists_is_named_in_the_error(here):
    pq.write_table(pa.table({"a": [1, 2], "l": [[1], [2, 3]]}), "lists.parquet")
    with pytest.raises(LaminaError) as info:
        PQ.read_parquet("lists.parquet")
    assert info.value.message.startswith("read_parquet of \"lists.parquet\": column 'l' holds list<element: int64>")
    assert cells(PQ.read_parquet("lists.parquet", columns=["a"]), "a") == [1.0, 2.0]


def test_a_where_condition_may_not_read_files(here):
    write_people()
    (here / "other.csv").write_text("k\n1\n")
    with pytest.raises(LaminaError) as info:
        PQ.read_parquet("people.parquet", where="id in (select k from read_csv('other.csv'))")
    assert info.value.kind == "PermissionError"
    assert info.value.message.startswith("read_parquet's where may not read files")


def test_permissions_hold_for_reads_and_writes(tmp_path, monkeypatch):
    work, secret = tmp_path / "work", tmp_path / "secret"
    work.mkdir()
    secret.mkdir()
    monkeypatch.chdir(work)
    write_people(str(secret / "p.parquet"))
    (work / "link.parquet").symlink_to(secret / "p.parquet")
    sandbox = Permissions.of(sandbox=True)
    with using(sandbox):
        for path in (str(secret / "p.parquet"), "link.parquet", "../secret/p.parquet"):
            with pytest.raises(LaminaError) as info:
                PQ.read_parquet(path)
            assert info.value.kind == "PermissionError"
            assert info.value.message.startswith(f'read_parquet may not read "{path}"'), info.value.message
        with pytest.raises(LaminaError) as info:
            PQ.write_parquet(Table({"a": np.zeros(2)}), "../secret/w.parquet")
        assert info.value.message.startswith('write_parquet may not write "../secret/w.parquet"')
        PQ.write_parquet(Table({"a": np.array([4.0, 5.0])}), "inside.parquet")
        assert cells(PQ.read_parquet("inside.parquet"), "a") == [4.0, 5.0]
    assert not (secret / "w.parquet").exists()


def test_dates_and_times_read_as_their_iso_text(here):
    pq.write_table(pa.table({"d": pa.array([datetime.date(2024, 1, 31), None], pa.date32()),
                             "ts": pa.array([datetime.datetime(2024, 1, 31, 12, 30), None], pa.timestamp("s"))}),
                   "when.parquet")
    t = PQ.read_parquet("when.parquet")
    assert cells(t, "d") == ["2024-01-31", None]
    assert cells(t, "ts")[0].startswith("2024-01-31") and "12:30" in cells(t, "ts")[0]
    assert cells(t, "ts")[1] is None


def test_where_keeps_every_column_as_the_file_gives_it(here):
    """A filtered read gives the columns the unfiltered read gives (DuckDB only decides the rows):
    a category keeps its levels, in their order, a level no kept row has included; dates stay dates."""
    codes = pa.array([2, 0, 1, 0, None], pa.int32())
    kind = pa.DictionaryArray.from_arrays(codes, pa.array(["low", "mid", "high"]))
    when = pa.array([datetime.date(2024, 1, d) for d in (5, 6, 7, 8, 9)], pa.date32())
    pq.write_table(pa.table({"dose": kind, "day": when, "y": [1.0, 2.0, 3.0, 4.0, 5.0]}), "trial.parquet")
    whole = PQ.read_parquet("trial.parquet")
    t = PQ.read_parquet("trial.parquet", where="y >= 2 and dose = 'low'")
    assert type(t.columns["dose"]) is type(whole.columns["dose"])
    assert t.columns["dose"].levels == whole.columns["dose"].levels == ("low", "mid", "high")
    assert cells(t, "dose") == ["low", "low"] and cells(t, "day") == ["2024-01-06", "2024-01-08"]
    assert type(t.columns["day"]) is type(whole.columns["day"])
    none = PQ.read_parquet("trial.parquet", columns="dose", where="y > 10")
    assert none.nrows == 0 and none.columns["dose"].levels == ("low", "mid", "high")


@pytest.mark.parametrize("where, gives", [("age + 1", "gives double."), ("age > 1, age", "gives bool, double.")])
def test_where_must_be_one_condition(here, where, gives):
    write_people()
    with pytest.raises(LaminaError) as info:
        PQ.read_parquet("people.parquet", where=where)
    assert info.value.message == (f"read_parquet's where must be one condition, true or false for each row "
                                  f"(such as \"y > 2 and g = 'a'\"), but \"{where}\" {gives}")
