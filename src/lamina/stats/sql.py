"""SQL on DuckDB: `sql(query, t = t, ...)` over Lamina tables and over the files a query names.

Each call runs on a cursor of its own (a DuckDB connection), so what one call registers no other
sees. A query that only reads (SELECT) runs on the in-memory database the process keeps for its
settings and permissions (KEPT: warmed by earlier queries, as a DuckDB connection held open is);
a query with any other statement (CREATE, SET, ATTACH: a run without permissions) runs on a new
database, closed at the end, so nothing a query makes outlives the call. The tables passed by name
are registered through Arrow (`register`: DuckDB scans a numeric column's NumPy memory, no copy);
the files the query names (`from 'big.parquet'`, `read_csv('x.csv')`) DuckDB reads itself, out of
core: `memory_limit` bounds what it holds, and what does not fit spills to the database's folder
under the system's temporary folder (its temp_directory), removed when the database is closed (a
new one at the call's end, the kept one at exit). DuckDB's progress bar is off (the library writes
nothing of its own), and so are its scans of Python variables.

Permissions. A run with permissions (lamina --sandbox, --allow-read, --allow-write; files.current())
may only read, and only what read_csv could, checked three times before the query runs:
  1. every statement is a SELECT (DuckDB's parser, extract_statements): COPY, ATTACH, INSTALL and
     LOAD, SET and PRAGMA, CREATE, EXPORT and the rest write files, load code or change the guards;
  2. every file the query names (json_serialize_sql's tree: a table name that looks like a file,
     the string arguments of table functions, the query inside query()) is checked with
     files.check_read, each match of a glob included, so a link inside an allowed folder that
     leads out is refused as read_csv refuses it; a network address (http://, s3://) is refused,
     and so is a path computed in the query, which cannot be checked before it runs;
  3. DuckDB's own guard: external access off but for the allowed folders and files
     (allowed_directories, allowed_paths, which DuckDB checks after resolving links), extensions
     neither installed nor loaded on demand, the configuration locked.
DuckDB opens files by name after these checks, so a link swapped while the query runs meets only
DuckDB's own guard. A denial is a PermissionError worded as read_csv's.
"""
from __future__ import annotations

import atexit
import contextlib
import contextvars
import json
import os
import re
import shutil
import tempfile
import threading
from collections.abc import Iterator

import duckdb
import pyarrow as pa

from ..errors import LaminaError
from ..files import Permissions, check_read, current, expand_home, process_running
from ..values import as_int, as_str, describe
from . import columns as C
from .table import Table

# Statement types a run with permissions may run (the rest write, load or change settings).
READING = ("SELECT",)
NETWORK = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
GLOB = re.compile(r"[*?\[]")
# A table name DuckDB may read as a file has an extension, a folder or a wildcard in it.
FILE_LIKE = re.compile(r"[./\\*?\[~]")
TEXT_TYPES = ("VARCHAR", "TEXT", "STRING", "CHAR", "BPCHAR", "JSON")
MAX_THREADS = 1024
SPILL_PREFIX = "lamina-duckdb-"


def sql(query, tables: dict, memory_limit=None, threads=None) -> Table:
    """The result of the query's last statement as a table (an empty table when it has none)."""
    text = as_str(query, "sql's query")
    for name, t in tables.items():
        if not isinstance(t, Table):
            hint = (" The query is sql's first argument, given without a name." if name == "query"
                    else " sql takes tables by name (t = t), memory_limit and threads.")
            raise LaminaError("TypeError", f"sql's argument {name} must be a table, not {describe(t)}.{hint}")
        if not t.columns:
            raise LaminaError("ValueError", f"sql's table {name} has no columns; DuckDB's tables have at least one.")
    settings = {}
    if memory_limit is not None:
        settings["memory_limit"] = as_str(memory_limit, "sql's memory_limit")
    if threads is not None:
        settings["threads"] = as_int(threads, "sql's threads", minimum=1)
        if settings["threads"] > MAX_THREADS:
            raise LaminaError("ValueError", f"sql's threads must be at most {MAX_THREADS}, not {settings['threads']}.")
    perms = current()
    if restricted(perms) and int(duckdb.__version__.split(".")[0]) < 2:
        # DuckDB 1's allowed_directories compares the path as written: a relative path is refused
        raise LaminaError("PermissionError", f"sql under {_flags(perms)} needs DuckDB 2.0 or later, whose "
                          f"guard resolves relative paths and links; this is DuckDB {duckdb.__version__}.")
    with connection(settings, perms) as con:
        statements = run_duckdb(lambda: con.extract_statements(text), "sql", tables)
        if not statements:
            raise LaminaError("ValueError", "sql's query holds no statement; write one such as "
                              "\"select * from t\".")
        if restricted(perms):
            check_query(con, text, statements, perms, "sql")
        if all(_kind(s) in READING for s in statements):
            return _run(con, text, tables)
    # CREATE, SET, ATTACH ... (a run without permissions) change a database: one of their own
    with connection(settings, perms, fresh=True) as con:
        return _run(con, text, tables)


def _kind(statement) -> str:
    return str(statement.type).rsplit(".", 1)[-1]


def _run(con, text: str, tables: dict) -> Table:
    """The query's last result as a table, the tables registered on con (a cursor's own views)."""
    for name, t in tables.items():
        con.register(name, t.to_arrow())
    result = run_duckdb(lambda: interruptible(con, lambda: _last_result(con, text)), "sql", tables)
    return table_of(result, "sql's result")


def _last_result(con, text: str) -> pa.Table:
    rel = con.sql(text)
    return pa.table({}) if rel is None else rel.to_arrow_table()


def interruptible(con, f):
    """f() (DuckDB's work on con) in a thread of its own, while this thread waits: Ctrl-C, which
    Python sees only between bytecodes of the main thread, then interrupts DuckDB (con.interrupt)
    and is raised as soon as the query stops, instead of after the query has run to its end."""
    outcome, done = {}, threading.Event()
    context = contextvars.copy_context()        # the run's permissions, for DuckDB's refusals

    def work():
        try:
            outcome["value"] = context.run(f)
        except BaseException as exc:             # handed to the waiting thread
            outcome["error"] = exc
        finally:
            done.set()
    threading.Thread(target=work, name="lamina-duckdb", daemon=True).start()
    try:
        # an Event, not Thread.join: a join that Ctrl-C interrupts may report a running thread ended
        while not done.wait(0.25):
            pass
    except KeyboardInterrupt:
        con.interrupt()             # con is a cursor: the one call DuckDB takes while it is busy
        done.wait()
        outcome.clear()             # DuckDB's error, whose frames hold the query's relation open
        raise
    if "error" in outcome:
        raise outcome.pop("error")
    return outcome.pop("value")


def restricted(perms: Permissions) -> bool:
    return perms.read is not None or perms.write is not None


@contextlib.contextmanager
def connection(settings: dict, perms: Permissions, files: bool = True, fresh: bool = False) -> Iterator:
    """A cursor of an in-memory DuckDB database with the settings, spilling to a folder of its own
    under the system's temporary folder; with permissions (or files = False: no file at all)
    behind DuckDB's own guard. The database is the one the process keeps for these settings and
    permissions (KEPT), or with fresh (or files = False) a new one, closed and its folder removed
    at the end. The work runs on a cursor, which another thread may interrupt (interruptible)."""
    if fresh or not files:
        con, temp = _open(settings, perms, files)
    else:
        con, temp = _kept(settings, perms), None
    cursor = None
    try:
        cursor = con.cursor()
        cursor.execute("SET enable_progress_bar = false")
        yield cursor
    finally:
        if cursor is not None:
            cursor.close()
        if temp is not None:
            con.close()
            shutil.rmtree(temp, ignore_errors=True)


# The database kept for queries that only read: (settings, permissions), the connection, its
# spill folder. One at a time: another key closes it. A database warmed by earlier queries (its
# memory pool, its threads) runs a query as DuckDB alone does on a connection it keeps open.
KEPT: dict = {}
_KEPT_LOCK = threading.Lock()


def _kept(settings: dict, perms: Permissions):
    key = (tuple(sorted(settings.items())), perms if restricted(perms) else None)
    with _KEPT_LOCK:
        if KEPT.get("key") != key:
            close_kept()
            con, temp = _open(settings, perms, True)
            KEPT.update(key=key, con=con, temp=temp)
        return KEPT["con"]


@atexit.register
def close_kept() -> None:
    """Close the kept database and remove its spill folder (at exit, or for another key)."""
    if KEPT:
        KEPT.pop("con").close()
        shutil.rmtree(KEPT.pop("temp"), ignore_errors=True)
        KEPT.clear()


def _open(settings: dict, perms: Permissions, files: bool) -> tuple:
    """A new database (the connection, its spill folder), its guard set when it has one."""
    temp = spill_folder()
    config = {**settings, "temp_directory": temp, "python_enable_replacements": False}
    guarded = restricted(perms) or not files
    if guarded:
        config.update(autoinstall_known_extensions=False, autoload_known_extensions=False)
    try:
        con = duckdb.connect(config=config)
    except duckdb.Error as exc:
        shutil.rmtree(temp, ignore_errors=True)
        shown = ", ".join(f"{k} = {v!r}" for k, v in settings.items()).replace("'", '"')
        raise LaminaError("ValueError", f"sql: DuckDB refuses the settings {shown}: "
                          f"{duckdb_message(exc)}") from None
    if guarded:
        roots = (perms.read or ()) if files else ()
        if files and perms.read is None:
            roots = (os.sep,)
        con.execute("SET allowed_directories = ?", [[_folder(r) for r in roots if os.path.isdir(r)]])
        con.execute("SET allowed_paths = ?", [[r for r in roots if not os.path.isdir(r)]])
        con.execute("SET enable_external_access = false")
        con.execute("SET allowed_configs = ['enable_progress_bar']")   # a cursor's, set on each
        con.execute("SET lock_configuration = true")
    return con, temp


def spill_folder() -> str:
    """A fresh folder under the system's temporary folder for DuckDB to spill to, named after this
    process; the folders of processes that no longer run (killed in a query) are removed first."""
    root = tempfile.gettempdir()
    with contextlib.suppress(OSError):
        for entry in os.listdir(root):
            pid = entry[len(SPILL_PREFIX):].partition("-")[0] if entry.startswith(SPILL_PREFIX) else ""
            if pid.isdigit() and int(pid) != os.getpid() and not process_running(int(pid)):
                path = os.path.join(root, entry)
                with contextlib.suppress(OSError):
                    if os.lstat(path).st_uid == os.geteuid():
                        shutil.rmtree(path, ignore_errors=True)
    return tempfile.mkdtemp(prefix=f"{SPILL_PREFIX}{os.getpid()}-", dir=root)


def _folder(root: str) -> str:
    return root if root.endswith(os.sep) else root + os.sep


def run_duckdb(f, who: str, tables: dict):
    """f() with DuckDB's errors as Lamina errors: its refusal of a file a PermissionError worded
    as files.check_read words it, anything else a ValueError with DuckDB's message."""
    try:
        return f()
    except duckdb.PermissionException as exc:
        raise _denied(str(exc), who) from None
    except duckdb.CatalogException as exc:
        missing = re.match(r"Catalog Error: Table with name (.+?) does not exist", str(exc))
        if missing:
            given = ", ".join(tables) or "none"
            raise LaminaError("ValueError", f"{who}: the query names table {missing.group(1)}, which is "
                              f"neither a table given by name ({who}(query, {missing.group(1)} = t)) nor "
                              f"a file DuckDB reads (a name such as 'data.csv' in quotes); the tables "
                              f"given are {given}.") from None
        raise LaminaError("ValueError", f"{who}: {duckdb_message(exc)}") from None
    except duckdb.Error as exc:
        raise LaminaError("ValueError", f"{who}: {duckdb_message(exc)}") from None


def duckdb_message(exc: Exception, excerpt: bool = True) -> str:
    """DuckDB's message on one line: its excerpt of the query (`LINE 1: ...` and a caret line
    under it) becomes the line it quotes (or is left out)."""
    lines = [s for s in str(exc).splitlines() if s.strip()]
    out, where = [], None
    for i, s in enumerate(lines):
        if s.startswith("LINE "):
            where = s
        elif where is None or i == 0 or s.strip().strip("^"):
            out.append(s.strip())
    text = " ".join(out)
    if where is not None and excerpt:
        text += f" (query {where.replace('LINE ', 'line ', 1)})"
    return text


def _denied(message: str, who: str) -> LaminaError:
    """DuckDB's refusal of a file: check_read's PermissionError for it where check_read refuses
    it too (the usual case), else DuckDB's own words."""
    named = re.search(r'Cannot access (?:file|directory) "(.*)"', message)
    if named:
        _check_file(named.group(1), who, current())
    return LaminaError("PermissionError", f"{who} may not read what the query names: DuckDB refuses it "
                       f"({message.splitlines()[0]}).")


# -- what a query names --------------------------------------------------------------------------
def check_query(con, text: str, statements, perms: Permissions, who: str) -> None:
    """PermissionError unless every statement only reads, and only files the run may read."""
    trees = []
    for statement in statements:
        tree = serialized(con, statement.query)
        if _kind(statement) not in READING or tree.get("error"):
            if tree.get("error") and "SELECT" not in str(tree.get("error_message")):
                raise LaminaError("ValueError", f"{who}: {tree.get('error_message', 'the query cannot be read')}")
            word = (statement.query.split() or ["?"])[0].upper()
            raise LaminaError("PermissionError", f"{who} may not run {word} in this run: under {_flags(perms)} "
                              f"a query may only read (SELECT), since COPY, ATTACH, INSTALL, LOAD, SET, "
                              f"PRAGMA, CREATE, EXPORT and the other statements write files, load code or "
                              f"change what DuckDB may reach.")
        trees.append(tree)
    for kind, text in named_files(trees, who):
        if kind == "query":         # query('select ...'): the query inside, checked as this one
            check_query(con, text, run_duckdb(lambda: con.extract_statements(text), who, {}), perms, who)
        else:
            _check_file(text, who, perms, con)


def serialized(con, text: str) -> dict:
    """DuckDB's parse of a query as JSON (json_serialize_sql): its statements' trees, or an error."""
    return json.loads(con.execute("SELECT json_serialize_sql(?)", [text]).fetchall()[0][0])


def _flags(perms: Permissions) -> str:
    return "--sandbox" if perms.sandbox else "--allow-read or --allow-write"


def named_files(node, who: str) -> Iterator[tuple[str, str]]:
    """("file", path) for each path a serialized query names (a table name that looks like a
    file, a string argument of a table function) and ("query", text) for query()'s query."""
    if isinstance(node, list):
        for x in node:
            yield from named_files(x, who)
        return
    if not isinstance(node, dict):
        return
    kind = node.get("type")
    if kind == "BASE_TABLE" and FILE_LIKE.search(node.get("table_name", "")):
        yield "file", node["table_name"]
    elif kind == "TABLE_FUNCTION" and isinstance(node.get("function"), dict):
        fn = node["function"]
        name = fn.get("function_name", "").lower()
        for arg in _arguments(fn):
            for path in _strings(arg, name, who):
                if name == "query":
                    yield "query", path
                elif name != "query_table" or FILE_LIKE.search(path):
                    yield "file", path
    for value in node.values():
        if isinstance(value, (dict, list)):
            yield from named_files(value, who)


def _arguments(fn: dict) -> list[dict]:
    """A function's positional arguments (named parameters such as delim = ';' left out), in
    DuckDB 1.x's layout (children) and 2.x's (arguments: name and expression)."""
    if "arguments" in fn:
        args = [a["expression"] for a in fn["arguments"] if not a.get("name")]
    else:
        args = fn.get("children", [])
    return [a for a in args if not _named_parameter(a)]


def _named_parameter(e: dict) -> bool:
    return (e.get("class") == "COMPARISON" and e.get("type") == "COMPARE_EQUAL"
            and e.get("left", {}).get("class") == "COLUMN_REF")


def _literal(e: dict):
    """(True, the text) for a string constant, (True, None) for any other constant, (False, None)
    for an expression."""
    if e.get("class") != "CONSTANT":
        return False, None
    if "literal" in e:                        # DuckDB 2.x
        lit = e["literal"]
        return True, lit.get("text") if lit.get("kind") == "STRING" else None
    value = e.get("value", {})                # DuckDB 1.x
    is_text = value.get("type", {}).get("id") == "VARCHAR" and not value.get("is_null")
    return True, value.get("value") if is_text else None


def _strings(e: dict, function: str, who: str) -> Iterator[str]:
    """The strings an argument of a table function gives: a string constant, a list of them;
    refused where the argument computes a string (a path that cannot be checked before it runs)."""
    constant, text = _literal(e)
    if constant:
        if text is not None:
            yield text
        return
    if e.get("class") == "FUNCTION" and e.get("function_name") in ("list_value", "list_pack"):
        for item in _arguments(e):
            yield from _strings(item, function, who)
        return
    if e.get("class") == "CAST" and _cast_type(e) not in TEXT_TYPES:
        return                      # timestamp '2024-01-01': a value, not a path
    if _computes_text(e):
        raise LaminaError("PermissionError", f"{who} may not run {function}(...) with an argument computed in "
                          f"the query in this run: the file it names cannot be checked before the query "
                          f"runs; write the path as a string, such as {function}('data/x.csv').")


def _cast_type(e: dict) -> str:
    if "type_expr" in e:
        return str(e["type_expr"].get("type_name", "")).upper()
    return str(e.get("cast_type", {}).get("id", "")).upper()


def _computes_text(node) -> bool:
    """Whether an expression may compute a string: it holds a string, reads a column or a query."""
    if isinstance(node, list):
        return any(_computes_text(x) for x in node)
    if not isinstance(node, dict):
        return False
    if node.get("class") in ("COLUMN_REF", "SUBQUERY", "PARAMETER") or _literal(node)[1] is not None:
        return True
    return any(_computes_text(v) for v in node.values() if isinstance(v, (dict, list)))


def _check_file(path: str, who: str, perms: Permissions, con=None) -> None:
    """check_read of a file the query names, of each match of a glob (DuckDB's own glob, whose
    fixed folder is checked first), refusing a network address."""
    if NETWORK.match(path):
        raise LaminaError("PermissionError", f'{who} may not read "{path}": it is a network address, and '
                          f"under {_flags(perms)} a query reads only files under the allowed folders.")
    name = expand_home(path)
    if con is None or not GLOB.search(name):
        check_read(name, who, perms)
        return
    parts = name.split(os.sep)
    fixed = next(i for i, p in enumerate(parts) if GLOB.search(p))
    check_read(os.sep.join(parts[:fixed]) or ("." if not name.startswith(os.sep) else os.sep), who, perms)
    matches = run_duckdb(lambda: con.execute("SELECT file FROM glob(?)", [name]).fetchall(), who, {})
    for (match,) in matches:
        check_read(match, who, perms)


# -- results -------------------------------------------------------------------------------------
def table_of(arrow: pa.Table, what: str) -> Table:
    """A Lamina table from an Arrow table: names must differ, and each column must be of a type
    a table holds (numbers, booleans, text, and what reads as text: dates, times)."""
    names = arrow.column_names
    twice = next((n for i, n in enumerate(names) if n in names[:i]), None)
    if twice is not None:
        raise LaminaError("ValueError", f"{what} has two columns named '{twice}'; a table's column names "
                          f"differ: name them apart (select a.x as x1, b.x as x2).")
    cols = {}
    for i, name in enumerate(names):
        col = arrow.column(i)
        try:
            cols[name] = C.from_arrow(col)
        except (pa.ArrowNotImplementedError, pa.ArrowInvalid, pa.ArrowTypeError):
            raise LaminaError("ValueError", f"{what}: column '{name}' holds {col.type}, which a table "
                              f"cannot hold (a table's columns are numbers or text); convert it in "
                              f"the query, such as {name}::VARCHAR.") from None
    return Table(cols, nrows=arrow.num_rows)
