"""Tables at real size (issue 38): read_csv, a group mean, a merge, a sort and a SQL group-by
over a Parquet file, Lamina against pandas (default engine) and DuckDB's own Python API.

Lamina runs each program through the `lamina` command, in a process of its own, as a user does.
Every timed case is self-timed (bench/run.py's "self_timed"): the time of the operation alone,
taken inside the process that does it; the runner interleaves the peers' runs as usual.

- read_csv: every peer a fresh process per run (`lamina FILE`, `python -c`) that reads a
  three-row file first (its reader and libraries loaded) and then times the read of the file.
- group mean, merge, sort, sql: Lamina one process per run that reads its data, runs the
  operation once untimed, then times one run with clock() and prints the seconds; pandas and
  DuckDB in the bench's worker process (one per peer), which reads the data once, runs the
  operation once untimed (the runner's warm-up) and times each further run.
- "read_csv, the whole program" times whole processes, start-up and imports included:
  `lamina FILE` against `python -c` with the same work, what a user waits for.
- Peak memory: the peak resident set (ru_maxrss, from os.wait4) of a whole process that reads
  the file (or runs the query) and prints its number of rows, one process per peer.

Every run checks its result's number of rows. The data files are made on first use and kept
(bench/cases/_table_data.py, in bench/cache/tables). `bench/run.py --only tables` runs these
cases alone (writes bench/out/RESULTS.md).
"""
from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).parent))   # bench/cases, for _table_data.py
import _table_data as data  # noqa: E402

from peers import needs  # noqa: E402  (bench/peers.py)

M, M10 = 1_000_000, 10_000_000
GROUPS = 100
MEMORY_LIMIT = "500MB"
SQL = "select g, avg(y) as y from '{path}' group by g"


# -- running a whole program -----------------------------------------------------------------
def lamina_command() -> list[str]:
    script = pathlib.Path(sys.executable).with_name("lamina")
    return [str(script)] if script.exists() else [sys.executable, "-m", "lamina"]


def run_process(argv: list[str]) -> tuple[str, float, float]:
    """Run a program to its end: (its output, wall seconds, peak resident set in MB)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=err, text=True)
        _, status, usage = os.wait4(proc.pid, 0)     # the child's own rusage, not its siblings'
        seconds = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if proc.returncode != 0:
            lines = [line for line in err.read().splitlines() if line.strip()]
            said = next((line for line in lines if re.match(r"\w*(Error|Exception)\b", line)),
                        lines[-1] if lines else f"exit status {proc.returncode}")
            raise RuntimeError(f"{pathlib.Path(argv[0]).name} stopped: {said}")
        return out.read(), seconds, usage.ru_maxrss / 1024


def printed(output: str, label: str) -> float:
    found = re.findall(rf"^{label} (\S+)$", output, re.M)
    if not found:
        raise RuntimeError(f"the program printed no {label} line: {output[-300:]!r}")
    return float(found[-1])


def check_rows(rows: float, expected: int) -> None:
    if rows != expected:
        raise RuntimeError(f"the result has {rows:,.0f} rows, not {expected:,}")


def lam(path: pathlib.Path) -> str:
    """A path as a Lamina string literal."""
    return json.dumps(str(path))


def program_file(name: str, text: str) -> pathlib.Path:
    folder = data.CACHE / "programs"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    if not path.exists() or path.read_text() != text:
        path.write_text(text)
    return path


# -- the kinds of peer ----------------------------------------------------------------------------
def program_timed(argv_of, expected: int):
    """A program in a process of its own that times its operation and prints "BENCH-SECONDS s"
    and "BENCH-ROWS n". `argv_of()` makes the data and the program and gives its command line;
    it runs on the runner's warm-up call, which runs nothing else."""
    argv = None

    def call():
        nonlocal argv
        if argv is None:
            argv = argv_of()
            return None
        output, _, _ = run_process(argv)
        check_rows(printed(output, "BENCH-ROWS"), expected)
        return printed(output, "BENCH-SECONDS")
    return call


def lamina_timed(name: str, parts, expected: int):
    """Lamina timing one operation with clock(): `parts()` gives the program's setup lines, the
    expression run once untimed and the one timed. The untimed result is let go before the timed
    run (`r = 0`), as the Python peers' worker drops each result before the next call: held, it
    made the timed run take fresh memory, which costs about 2.5 ms a MB on this VM (a sort of
    10^6 rows took 39 - 170 ms so, 37 - 77 ms without)."""
    def argv():
        setup, warm, op = parts()
        text = ((f"{setup}\n" if setup else "") + f"r = {warm}\nr = 0\nt0 = clock()\nr = {op}\nseconds = clock() - t0\n"
                'print("BENCH-SECONDS", seconds)\nprint("BENCH-ROWS", nrows(r))\n')
        return [*lamina_command(), str(program_file(f"{name}.lam", text))]
    return program_timed(argv, expected)


def in_process(setup, rows, expected: int):
    """A Python peer timed in the worker: `setup()` (on the warm-up call) returns the operation;
    `rows(result)` counts its result's rows, outside the time."""
    op = None

    def call():
        nonlocal op
        if op is None:
            op = setup()
        t0 = time.perf_counter()
        result = op()
        seconds = time.perf_counter() - t0
        check_rows(rows(result), expected)
        return seconds
    return call


def whole_process(argv_of, expected: int, measure: str):
    """A whole program, one process a run, that prints its result's number of rows last.
    `argv_of()` makes the data and gives the command line. measure "time": wall seconds (the
    warm-up call only prepares); "memory": {"peak RSS": MB}."""
    argv = None

    def call():
        nonlocal argv
        if argv is None:
            argv = argv_of()
            if measure == "time":
                return None
        output, seconds, peak = run_process(argv)
        check_rows(float(output.split()[-1]), expected)
        return seconds if measure == "time" else {"peak RSS": peak}
    return call


# -- read_csv ----------------------------------------------------------------------------------
PANDAS_READ = "import pandas as pd\ndf = pd.read_csv({path!r})\nprint(len(df))"
DUCKDB_READ = "import duckdb\nt = duckdb.read_csv({path!r}).to_arrow_table()\nprint(t.num_rows)"


def read_peers(rows: int, measure: str) -> dict:
    """Whole programs that read the file and print its number of rows."""
    def lamina_argv():
        path = data.numeric_csv(rows)
        text = f"t = read_csv({lam(path)})\nprint(nrows(t))\n"
        return [*lamina_command(), str(program_file(f"read_{rows}.lam", text))]

    def python_argv(code: str):
        return lambda: [sys.executable, "-c", code.format(path=str(data.numeric_csv(rows)))]
    return {"lamina": whole_process(lamina_argv, rows, measure),
            "pandas": needs("pandas") or whole_process(python_argv(PANDAS_READ), rows, measure),
            "duckdb": needs("duckdb") or whole_process(python_argv(DUCKDB_READ), rows, measure)}


PANDAS_TIMED_READ = """import time
import pandas as pd
pd.read_csv({tiny!r})
t0 = time.perf_counter()
df = pd.read_csv({path!r})
seconds = time.perf_counter() - t0
print("BENCH-SECONDS", seconds)
print("BENCH-ROWS", len(df))"""
DUCKDB_TIMED_READ = """import time
import duckdb
duckdb.read_csv({tiny!r}).to_arrow_table()
t0 = time.perf_counter()
t = duckdb.read_csv({path!r}).to_arrow_table()
seconds = time.perf_counter() - t0
print("BENCH-SECONDS", seconds)
print("BENCH-ROWS", t.num_rows)"""


def timed_read_peers(rows: int) -> dict:
    """Every peer reads the three-row file first (its reader loaded), then the file, timed."""
    def lamina_parts():
        return "", f"read_csv({lam(data.tiny_csv())})", f"read_csv({lam(data.numeric_csv(rows))})"

    def python_argv(code: str):
        return lambda: [sys.executable, "-c", code.format(tiny=str(data.tiny_csv()),
                                                          path=str(data.numeric_csv(rows)))]
    return {"lamina": lamina_timed(f"timed_read_{rows}", lamina_parts, rows),
            "pandas": needs("pandas") or program_timed(python_argv(PANDAS_TIMED_READ), rows),
            "duckdb": needs("duckdb") or program_timed(python_argv(DUCKDB_TIMED_READ), rows)}


def read_case(rows: int, size: str, **extra) -> dict:
    return {"name": f"tables: read_csv, {rows:,} rows", "sizes": f"{rows:,} x 4, {size}",
            "dtype": "float64, whole-number key", "self_timed": True, "goal": {"peer": "pandas", "within": 1.0},
            **extra, "impls": timed_read_peers(rows),
            "notes": ["a fresh process per run for every peer, which reads a three-row file first (its "
                      "reader loaded) and then times the read of the file: Lamina `t = read_csv(path)` "
                      "(`lamina FILE`), pandas `pd.read_csv(path)` (default engine), DuckDB "
                      "`duckdb.read_csv(path).to_arrow_table()`."]}


def read_memory_case(rows: int, size: str) -> dict:
    return {"name": f"tables: read_csv, {rows:,} rows, peak memory", "sizes": f"{rows:,} x 4, {size}",
            "dtype": "float64, whole-number key", "kind": "memory", "impls": read_peers(rows, "memory"),
            "notes": ["peak resident set (ru_maxrss, MB) of a whole process that reads the file and "
                      "prints its number of rows: `lamina FILE`, `python -c` with pandas or DuckDB; goal "
                      "at 10^7 rows: Lamina's within 1.5x of pandas'."]}


# -- group mean, merge, sort: the read not timed -------------------------------------------------
def numeric_lines() -> str:
    return f"t = read_csv({lam(data.numeric_csv(M))})"


def merge_lines() -> str:
    left, right = data.merge_csvs()
    return f"a = read_csv({lam(left)})\nb = read_csv({lam(right)})"


def pandas_op(op, merge: bool):
    def setup():
        import pandas as pd
        paths = data.merge_csvs() if merge else (data.numeric_csv(M),)
        frames = [pd.read_csv(path) for path in paths]
        return lambda: op(*frames)
    return setup


def duckdb_op(query: str, merge: bool):
    def setup():
        import duckdb
        con = duckdb.connect()
        tables = zip("ab", data.merge_csvs()) if merge else [("t", data.numeric_csv(M))]
        for name, path in tables:       # DuckDB's own storage, as its users load data
            con.sql(f"create table {name} as select * from read_csv('{path}')")
        return lambda: con.sql(query).to_arrow_table()
    return setup


def operation_case(name: str, sizes: str, lamina_op: str, pandas_text: str, pandas_fn, query: str,
                   expected: int) -> dict:
    merge = name == "merge"
    lines = merge_lines if merge else numeric_lines
    return {"name": f"tables: {name}", "sizes": sizes, "dtype": "float64, whole-number key", "repeat": 12,
            "rounds": 6, "self_timed": True, "goal": {"peer": "pandas", "within": 1.0},
            "impls": {"lamina": lamina_timed(name.replace(" ", "_"), lambda: (lines(), lamina_op, lamina_op),
                                             expected),
                      "pandas": needs("pandas") or in_process(pandas_op(pandas_fn, merge), len, expected),
                      "duckdb": needs("duckdb") or in_process(duckdb_op(query, merge),
                                                              lambda t: t.num_rows, expected)},
            "notes": [f"Lamina `{lamina_op}`, pandas `{pandas_text}`, DuckDB `{query}` (its own tables, "
                      f"to an Arrow table); the read is not timed, one untimed run first."]}


# -- SQL over a Parquet file of more than 2 GB ------------------------------------------------------
SQL = "select g, avg(y) as y from '{path}' group by g"
MEMORY_LIMIT = "500MB"
DUCKDB_SQL = ("import duckdb\ncon = duckdb.connect(config={{'memory_limit': '" + MEMORY_LIMIT + "'}})\n"
              "print(con.sql({query!r}).to_arrow_table().num_rows)")


def lamina_has(name: str) -> bool:
    from lamina.builtins.index import BY_MODULE
    return any(name in names for names in BY_MODULE.values())


def sql_query() -> str:
    return SQL.format(path=data.big_parquet())


def lamina_sql() -> str:
    return f"sql({json.dumps(sql_query())}, memory_limit = {json.dumps(MEMORY_LIMIT)})"


def sql_peers(measure: str) -> dict:
    if not lamina_has("sql"):
        lamina = "Lamina has no sql builtin yet"
    elif measure == "time":
        lamina = lamina_timed("timed_sql", lambda: ("", lamina_sql(), lamina_sql()), GROUPS)
    else:
        lamina = whole_process(lambda: [*lamina_command(), str(program_file(
            "sql.lam", f"r = {lamina_sql()}\nprint(nrows(r))\n"))], GROUPS, measure)

    def duckdb_setup():
        import duckdb
        con, query = duckdb.connect(config={"memory_limit": MEMORY_LIMIT}), sql_query()
        return lambda: con.sql(query).to_arrow_table()
    if needs("duckdb"):
        duck = needs("duckdb")
    elif measure == "time":
        duck = in_process(duckdb_setup, lambda t: t.num_rows, GROUPS)
    else:
        duck = whole_process(lambda: [sys.executable, "-c", DUCKDB_SQL.format(query=sql_query())],
                             GROUPS, measure)
    return {"lamina": lamina, "duckdb": duck}


def sql_cases() -> list[dict]:
    sizes = f"{data.PARQUET_ROWS:,} rows x 4, Parquet, over 2 GB"
    what = (f"`sql(\"{SQL.format(path='big.parquet')}\", memory_limit = \"{MEMORY_LIMIT}\")` against "
            f"`duckdb.connect(config={{\"memory_limit\": \"{MEMORY_LIMIT}\"}}).sql(...).to_arrow_table()`")
    return [{"name": "tables: sql group-by over Parquet, memory limit 500 MB", "sizes": sizes,
             "dtype": "float64, whole-number key", "repeat": 4, "max_rounds": 2, "self_timed": True,
             "goal": {"peer": "duckdb", "within": 1.2}, "impls": sql_peers("time"),
             "notes": [what + "; Lamina in its own process after one untimed query, DuckDB repeated in "
                       "its worker after one."]},
            {"name": "tables: sql group-by over Parquet, peak memory", "sizes": sizes,
             "dtype": "float64, whole-number key", "kind": "memory", "impls": sql_peers("memory"),
             "notes": ["peak resident set (ru_maxrss, MB) of a whole process running the query once; "
                       "goal: under 1.5 GB."]}]


def cases() -> list[dict]:
    return [
        read_case(M, "28 MB of CSV", repeat=12, rounds=6),
        {"name": "tables: read_csv, 1,000,000 rows, the whole program", "sizes": "1,000,000 x 4, 28 MB of CSV",
         "dtype": "float64, whole-number key", "repeat": 4, "self_timed": True,
         "impls": read_peers(M, "time"),
         "notes": ["wall time of a whole process, start-up and imports included: `lamina FILE` of "
                   "`t = read_csv(path)` and `print(nrows(t))`, `python -c` with pandas or DuckDB."]},
        read_memory_case(M, "28 MB of CSV"),
        operation_case("group mean", "1,000,000 rows, 100 groups",
                       'aggregate(group_by(t, "g"), mean, columns = ["y"])', 'df.groupby("g")["y"].mean()',
                       lambda df: df.groupby("g")["y"].mean(), "select g, avg(y) as y from t group by g",
                       GROUPS),
        operation_case("merge", "1,000,000 x 100,000 rows, one key", 'merge(a, b, on = "k")',
                       'a.merge(b, on="k")', lambda a, b: a.merge(b, on="k"),
                       "select * from a join b using (k)", M),
        operation_case("sort", "1,000,000 rows, by one column", 'sort_rows(t, "x")', 'df.sort_values("x")',
                       lambda df: df.sort_values("x"), "select * from t order by x", M),
        read_case(M10, "277 MB of CSV", repeat=6, rounds=6),
        read_memory_case(M10, "277 MB of CSV"),
        *sql_cases(),
    ]
