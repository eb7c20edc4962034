"""sql on DuckDB (stats/sql.py): queries over tables against NumPy, files named in a query, the
result's columns, errors with DuckDB's message at the program's line, out-of-core settings,
Ctrl-C, and permissions inside SQL (each way out of a sandbox a query could take)."""
import os
import signal
import subprocess
import sys
import tempfile
import time

import duckdb
import numpy as np
import pandas as pd
import pytest

from lamina.errors import LaminaError
from lamina.files import Permissions, using
from lamina.stats import data as DT
from lamina.stats import sql as SQ
from lamina.stats.table import Table


def group_means(g: list, y: np.ndarray) -> dict:
    """The mean of y in each group, NaN left out, by hand."""
    out = {}
    for k in sorted(set(g)):
        vals = [v for gk, v in zip(g, y) if gk == k and not np.isnan(v)]
        out[k] = sum(vals) / len(vals)
    return out


def test_a_group_by_over_a_table_against_numpy(rng):
    g = list(rng.choice(["a", "b", "c", "d"], size=500))
    y = rng.normal(size=500)
    y[rng.random(500) < 0.1] = np.nan
    t = Table({"g": g, "y": y})
    r = SQ.sql("select g, avg(y) as m, count(y) as n, count(*) as rows from t group by g order by g", {"t": t})
    want = group_means(g, y)
    assert r.columns["g"] == list(want)
    np.testing.assert_allclose(r.columns["m"], list(want.values()), rtol=1e-12)
    assert list(r.columns["n"]) == [sum(1 for gk, v in zip(g, y) if gk == k and not np.isnan(v)) for k in want]
    assert list(r.columns["rows"]) == [g.count(k) for k in want]


def test_two_tables_joined_and_missing_cells_are_null():
    sales = Table({"shop": ["north", "south", "north", "east"], "units": np.array([12.0, 7.0, np.nan, 4.0])})
    shops = Table({"shop": ["north", "south"], "manager": ["Ines", ""]})
    r = SQ.sql("select shop, manager, sum(units) as units, count(units) as n from sales join shops "
               "using (shop) group by all order by shop", {"sales": sales, "shops": shops})
    assert r.names == ["shop", "manager", "units", "n"]
    assert r.columns["shop"] == ["north", "south"] and list(r.columns["units"]) == [12.0, 7.0]
    assert list(r.columns["n"]) == [1.0, 1.0]
    # the empty manager is a missing text cell: NULL to DuckDB, and missing again in the result
    assert SQ.sql("select count(manager) as k from shops", {"shops": shops}).columns["k"][0] == 1.0
    assert r.columns["manager"].arrow.to_pylist() == ["Ines", None]


def test_files_named_in_the_query_are_read_by_duckdb(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    df = pd.DataFrame({"k": np.arange(10) % 3, "v": np.arange(10.0)})
    df.to_parquet("d.parquet")
    df.to_csv("d.csv", index=False)
    os.mkdir("parts")
    df[:4].to_parquet("parts/a.parquet")
    df[4:].to_parquet("parts/b.parquet")
    want = df.groupby("k")["v"].sum()
    for source in ("'d.parquet'", "read_parquet('d.parquet')", "read_csv('d.csv')", "'d.csv'", "'parts/*.parquet'",
                   "read_parquet(['parts/a.parquet', 'parts/b.parquet'])"):
        r = SQ.sql(f"select k, sum(v) as v from {source} group by k order by k", {})
        assert list(r.columns["k"]) == list(want.index) and list(r.columns["v"]) == list(want.values), source


def test_result_columns(tmp_path):
    r = SQ.sql("select 1 as i, 2.5::float as f, true as b, 'x' as s, null as n, date '2024-01-31' as d, "
               "9007199254740993 as big, 3::hugeint as h", {})
    assert r.names == ["i", "f", "b", "s", "n", "d", "big", "h"]
    assert r.columns["i"][0] == 1.0 and r.columns["f"].dtype == np.float32 and r.columns["b"][0] == 1.0
    assert r.columns["s"] == ["x"] and np.isnan(r.columns["n"][0]) and r.columns["big"] == ["9007199254740993"]
    assert r.columns["h"][0] == 3.0
    assert SQ.sql("select * from range(0)", {}).nrows == 0
    # a statement without rows (a plain run may create a table): the last statement's result
    r = SQ.sql("create table z as select 4 as a; insert into z values (5); select sum(a) as s from z", {})
    assert list(r.columns["s"]) == [9.0]


@pytest.mark.parametrize("query, tables, kind, message", [
    ("select zz from t", "t", "ValueError",
     'sql: Binder Error: Referenced column "zz" not found in FROM clause! Candidate bindings: "a"'),
    ("selec a from t", "t", "ValueError", 'sql: Parser Error: syntax error at or near "selec" (query line 1: selec a from t)'),
    ("select * from u", "t", "ValueError", "sql: the query names table u, which is neither a table given by "
     "name (sql(query, u = t)) nor a file DuckDB reads (a name such as 'data.csv' in quotes); the tables given are t."),
    ("select a, a from t", "t", "ValueError", "sql's result has two columns named 'a'"),
    ("select [a] as l from t", "t", "ValueError", "sql's result: column 'l' holds list<l: double>, which a table cannot hold"),
    ("select 'x'::int as a", "", "ValueError", "sql: Conversion Error: Could not convert string 'x' to INT32"),
    ("select * from 'no_such_file.parquet'", "", "ValueError", 'sql: IO Error: No files found that match the pattern "no_such_file.parquet"'),
    ("  ;  ", "", "ValueError", "sql's query holds no statement"),
])
def test_a_bad_query_is_a_lamina_error_with_duckdbs_message(tmp_path, monkeypatch, query, tables, kind, message):
    monkeypatch.chdir(tmp_path)
    given = {"t": Table({"a": np.array([1.0, 2.0])})} if tables else {}
    with pytest.raises(LaminaError) as info:
        SQ.sql(query, given)
    assert info.value.kind == kind and info.value.message.startswith(message), info.value.message


def test_the_error_points_at_the_programs_line(lam):
    err = lam.error('t = table({a = [1, 2]})\n\nr = sql("select a, b from t",\n        t = t)\n')
    assert (err.kind, err.span.line) == ("ValueError", 3)
    assert err.message == 'sql: Binder Error: Referenced column "b" not found in FROM clause! Candidate bindings: "a"'


def test_arguments_that_are_not_tables_or_settings(lam):
    assert lam.error('sql("select 1", t = 3)').message == (
        "sql's argument t must be a table, not a number. sql takes tables by name (t = t), memory_limit and threads.")
    assert lam.error('sql("select 1", t = drop_columns(table({a = [1]}), "a"))').message == (
        "sql's table t has no columns; DuckDB's tables have at least one.")
    assert lam.error('sql("select 1", threads = 0)').message == "sql's threads must be at least 1, not 0."
    assert lam.error('sql("select 1", memory_limit = "lots")').message.startswith(
        'sql: DuckDB refuses the settings memory_limit = "lots": Parser Error: Memory must have a number')
    err = lam.error('p = param([1, 2])\nsql("select 1", x = p)')
    assert err.kind == "TypeError" and "tracked" in err.message and "detach" in err.message


def test_a_query_out_of_core_gives_the_same_result_and_leaves_no_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    query = ("copy (select (range * 7919) % 400000 as g, (range % 1000) / 10 as y from range(1200000)) "
             "to 'big.parquet'")
    duckdb.sql(query)
    q = "select g, sum(y) as s, count(*) as n from 'big.parquet' group by g order by g"
    small = SQ.sql(q, {}, memory_limit="20MB", threads=1)
    whole = duckdb.sql(q).fetchnumpy()
    assert small.nrows == 400000
    np.testing.assert_array_equal(small.columns["g"], whole["g"].astype(float))
    np.testing.assert_allclose(small.columns["s"], whole["s"].astype(float), rtol=1e-12)
    # what DuckDB spilled is gone; the folder is the kept database's, removed when it is closed
    mine = [e for e in os.listdir(tempfile.gettempdir()) if e.startswith(f"{SQ.SPILL_PREFIX}{os.getpid()}-")]
    assert [os.path.join(tempfile.gettempdir(), e) for e in mine] == [SQ.KEPT["temp"]]
    assert all(e.endswith("_owner") for e in os.listdir(SQ.KEPT["temp"]))    # DuckDB's mark, no blocks
    SQ.close_kept()
    assert not spilling(os.getpid())


def test_reading_queries_share_a_kept_database_and_nothing_a_query_creates_lasts():
    t = Table({"a": np.array([1.0, 2.0])})
    SQ.sql("select sum(a) as s from t", {"t": t})
    kept = SQ.KEPT["con"]
    assert SQ.sql("select count(*) as n from t", {"t": t}).columns["n"][0] == 2.0 and SQ.KEPT["con"] is kept
    # a table registered by one call is not seen by the next (each runs on a cursor of its own)
    with pytest.raises(LaminaError, match="the query names table t, which is neither"):
        SQ.sql("select * from t", {})
    # CREATE runs on a database of its own: the next call does not see what it made
    assert list(SQ.sql("create table z as select 4 as a; select a from z", {}).columns["a"]) == [4.0]
    with pytest.raises(LaminaError, match="the query names table z"):
        SQ.sql("select * from z", {})
    # SET on a database of its own: the kept one keeps its settings
    SQ.sql("set threads = 1; select 1 as one", {}, threads=2)
    assert SQ.sql("select current_setting('threads') as n", {}, threads=2).columns["n"][0] == 2.0
    # other settings: another database, the first closed
    SQ.sql("select 1 as one", {}, memory_limit="100MB")
    assert SQ.KEPT["con"] is not kept and SQ.KEPT["key"] == ((("memory_limit", "100MB"),), None)
    SQ.close_kept()
    assert SQ.KEPT == {}


def test_a_spill_folder_of_a_process_that_was_killed_is_removed():
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True).stdout.strip()
    stale = os.path.join(tempfile.gettempdir(), f"{SQ.SPILL_PREFIX}{gone}-xyz")
    os.makedirs(os.path.join(stale, "inner"))
    mine = SQ.spill_folder()
    try:
        assert not os.path.exists(stale) and os.path.basename(mine).startswith(f"{SQ.SPILL_PREFIX}{os.getpid()}-")
    finally:
        os.rmdir(mine)


def test_ctrl_c_interrupts_a_long_query():
    """A query of 9 * 10^10 rows, which would run for minutes, ends at Ctrl-C as a program does."""
    code = ('print(sql("select sum(a.range * b.range) as s from range(300000) a, range(300000) b", '
            't = table({a = [1]})))')
    p = subprocess.Popen([sys.executable, "-m", "lamina", "-e", code], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(600):        # until sql has begun: its spill folder exists
            if p.poll() is not None or spilling(p.pid):
                break
            time.sleep(0.1)
        time.sleep(1.0)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
    assert (p.returncode, out, err) == (130, "", "Interrupted.\n")
    assert not spilling(p.pid)


def spilling(pid: int) -> bool:
    return any(e.startswith(f"{SQ.SPILL_PREFIX}{pid}-") for e in os.listdir(tempfile.gettempdir()))


# -- permissions inside SQL ----------------------------------------------------------------------
@pytest.fixture
def tree(tmp_path, monkeypatch):
    """work/ (the current folder) with data/ (a file, a link out, a folder link out); secret/ beside."""
    work, secret = tmp_path / "work", tmp_path / "secret"
    (work / "data").mkdir(parents=True)
    secret.mkdir()
    (secret / "s.csv").write_text("k\n42\n")
    (work / "data" / "d.csv").write_text("k\n1\n2\n")
    (work / "here.csv").write_text("k\n7\n")
    (work / "data" / "link.csv").symlink_to(secret / "s.csv")
    (work / "data" / "out").symlink_to(secret)
    monkeypatch.chdir(work)
    return work, secret


def denial(query: str, perms: Permissions) -> LaminaError:
    with using(perms), pytest.raises(LaminaError) as info:
        SQ.sql(query, {})
    assert info.value.kind == "PermissionError", info.value.message
    return info.value


def read_csv_denial(path: str, perms: Permissions) -> str:
    with using(perms), pytest.raises(LaminaError) as info:
        DT.read_csv(path)
    return info.value.message.replace("read_csv", "sql", 1)


def sandbox() -> Permissions:
    """--sandbox in the current folder."""
    return Permissions.of(sandbox=True)


@pytest.mark.parametrize("query, path", [
    ("select * from '{secret}/s.csv'", "{secret}/s.csv"),                       # a file outside
    ("select * from '../secret/s.csv'", "../secret/s.csv"),
    ("select * from read_csv('data/link.csv')", "data/link.csv"),               # a link inside leading out
    ("select * from 'data/out/s.csv'", "data/out/s.csv"),                       # through a folder link
    ("select * from 'data/*.csv'", "data/link.csv"),                            # a glob: each match
    ("select * from read_csv('data/*/s.csv')", "data/out/s.csv"),
    ("select * from glob('../secret/*')", "../secret"),                         # a glob's folder
    ("select * from read_csv(['data/d.csv', '../secret/s.csv'])", "../secret/s.csv"),
    ("select * from query('select * from ''../secret/s.csv''')", "../secret/s.csv"),
    ("select * from 'data/d.csv' where k in (select k from '../secret/s.csv')", "../secret/s.csv"),
    ("with x as (from read_text('../secret/s.csv')) select * from x", "../secret/s.csv"),
])
def test_a_file_outside_is_refused_as_read_csv_refuses_it(tree, query, path):
    work, secret = tree
    query, path = query.format(secret=secret), path.format(secret=secret)
    assert denial(query, sandbox()).message == read_csv_denial(path, sandbox())


@pytest.mark.parametrize("query, start", [
    ("select * from 'https://example.com/d.csv'",
     'sql may not read "https://example.com/d.csv": it is a network address, and under --sandbox a query reads only files'),
    ("select * from read_parquet('s3://bucket/d.parquet')", 'sql may not read "s3://bucket/d.parquet": it is a network address'),
    ("attach 'x.db'", "sql may not run ATTACH in this run: under --sandbox a query may only read (SELECT)"),
    ("copy (select 1) to 'out.csv'", "sql may not run COPY in this run"),
    ("install httpfs", "sql may not run INSTALL in this run"),
    ("load httpfs", "sql may not run LOAD in this run"),
    ("set threads = 1", "sql may not run SET in this run"),
    ("pragma version", "sql may not run PRAGMA in this run"),
    ("create table z as select 1", "sql may not run CREATE in this run"),
    ("export database 'dump'", "sql may not run EXPORT in this run"),
    ("select 1; copy (select 1) to 'out.csv'", "sql may not run COPY in this run"),
    ("select * from read_csv('data/' || 'd.csv')",
     "sql may not run read_csv(...) with an argument computed in the query in this run"),
])
def test_statements_and_addresses_that_leave_the_sandbox_are_refused(tree, query, start):
    work, _ = tree
    assert denial(query, sandbox()).message.startswith(start)
    assert sorted(os.listdir(work)) == ["data", "here.csv"]          # nothing written


def test_duckdbs_own_guard_refuses_what_the_check_cannot_see(tree):
    """A computed path is refused before the query runs; should one pass, DuckDB's guard (external
    access off but for the allowed folders) refuses it, in read_csv's words."""
    work, secret = tree
    with using(sandbox()), SQ.connection({}, sandbox()) as con, pytest.raises(LaminaError) as info:
        SQ.run_duckdb(lambda: con.sql("select * from read_csv('../secret/' || 's.csv')").fetchall(), "sql", {})
    assert info.value.message == read_csv_denial("../secret/s.csv", sandbox())
    with SQ.connection({}, sandbox()) as con, pytest.raises(duckdb.Error, match="locked"):
        con.execute("SET enable_external_access = true")


def test_allowed_files_still_work(tree):
    work, _ = tree
    with using(sandbox()):
        r = SQ.sql("select sum(k) as s from read_csv(['data/d.csv', 'here.csv'])", {})
        assert list(r.columns["s"]) == [10.0]
        assert SQ.sql("select count(*) as n from 'data/d*.csv'", {}).columns["n"][0] == 2.0
        r = SQ.sql("select * from t, generate_series(timestamp '2024-01-01', timestamp '2024-01-02', interval 1 day)",
                   {"t": Table({"a": np.array([1.0])})})
        assert r.nrows == 2
    data_only = Permissions.of(read=["data"])
    with using(data_only):
        assert list(SQ.sql("select k from 'data/d.csv'", {}).columns["k"]) == [1.0, 2.0]
    assert denial("select * from 'here.csv'", data_only).message == read_csv_denial("here.csv", data_only)


def test_without_permissions_a_query_does_what_duckdb_does(tree):
    work, secret = tree
    r = SQ.sql(f"copy (select * from '{secret}/s.csv') to 'copied.csv'", {})
    assert (work / "copied.csv").read_text() == "k\n42\n" and list(r.columns["Count"]) == [1.0]
    assert list(SQ.sql("select k from 'data/link.csv'", {}).columns["k"]) == [42.0]
