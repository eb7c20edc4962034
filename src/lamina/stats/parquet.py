"""Parquet files as tables: `read_parquet(path, columns = [...], where = "...")` and
`write_parquet(t, path)`.

read_parquet opens the file through files.open_read (what the run's permissions allow, opened as
it was checked) and reads it with pyarrow.parquet from that open file. `where` is a DuckDB SQL
condition run over the file's record batches as they are read (ParquetFile.iter_batches, a
RecordBatchReader, DuckDB's filter): only the rows it keeps are held, so a filtered read of a big
file never holds the file whole, and only the columns asked for and those the condition names are
read. That DuckDB may touch no file at all (sql.connection with files = False). Columns become a
table's as columns.from_arrow makes them (sql.table_of).

write_parquet writes through files.write_file: a temporary file in the target's folder, renamed
over it, so a crash leaves the old file or the new one.
"""
from __future__ import annotations

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from ..errors import LaminaError
from ..files import EVERYTHING, expand_home, open_read, write_file
from ..values import as_str, describe
from .data import table_to_write
from .sql import connection, duckdb_message, interruptible, serialized, table_of
from .table import Table

# A filtered read reads (and DuckDB tests) about BATCH_BYTES of the file's columns at a time, as
# 2^16 to 2^20 rows: each batch is one DuckDB query (10^7 rows of 4 columns in batches of 2^17 rows
# read in 1.1 - 1.2 s, in batches of 2^20 in 0.9 s).
BATCH_BYTES = 64 << 20


def read_parquet(path, columns=None, where=None) -> Table:
    name = expand_home(as_str(path, "read_parquet's path"))
    wanted = _names(columns)
    condition = None if where is None else as_str(where, "read_parquet's where")
    try:
        with open_read(name, "read_parquet") as f:
            try:
                file = pq.ParquetFile(f)
            except (pa.ArrowException, OSError) as exc:
                raise LaminaError("ValueError", f"read_parquet: \"{name}\" is not a Parquet file ({_first_line(exc)}).") from None
            picked = _checked_columns(wanted, file.schema_arrow.names, name)
            if condition is None:
                arrow = file.read(columns=picked)
                arrow = arrow if picked is None else arrow.select(picked)
            else:
                arrow = _filtered(file, picked, condition, name)
    except pa.ArrowException as exc:
        raise LaminaError("ValueError", f"read_parquet cannot read \"{name}\": {_first_line(exc)}.") from None
    except OSError as exc:
        raise LaminaError("ValueError", f"read_parquet cannot read \"{name}\": {exc.strerror or exc}.") from None
    return table_of(arrow, f"read_parquet of \"{name}\"")


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0].rstrip(".") if str(exc).strip() else type(exc).__name__


def _names(x) -> list[str] | None:
    if x is None:
        return None
    if isinstance(x, str):
        return [x]
    if isinstance(x, list) and x and all(isinstance(s, str) for s in x):
        return list(dict.fromkeys(x))
    raise LaminaError("TypeError", f"read_parquet's columns must be a column name or a list of them, "
                      f"not {describe(x)}.")


def _checked_columns(wanted: list[str] | None, names: list[str], path: str) -> list[str] | None:
    for k in wanted or ():
        if k not in names:
            raise LaminaError("ValueError", f"read_parquet: column '{k}' is not in \"{path}\"; its columns "
                              f"are {', '.join(names)}.")
    return wanted


def _filtered(file: pq.ParquetFile, picked: list[str] | None, condition: str, path: str) -> pa.Table:
    """The rows of the file where the condition holds, batch by batch: DuckDB computes the
    condition of each batch's rows and Arrow keeps those rows, so every column keeps the type the
    file gives it (a category its levels, as without where)."""
    names = file.schema_arrow.names
    keep = names if picked is None else picked
    with connection({}, EVERYTHING, files=False) as con:
        try:
            named = _named_columns(con, condition)
            if named <= {n.lower() for n in names}:     # else DuckDB names the missing column among all
                read = [n for n in names if n in keep or n.lower() in named]
            else:
                read = names
            schema = pa.schema([file.schema_arrow.field(n) for n in read])

            def rows_kept(batch: pa.RecordBatch) -> pa.RecordBatch:
                tested = con.from_arrow(batch).project(condition).to_arrow_table()
                if tested.num_columns != 1 or tested.schema.types[0] != pa.bool_():
                    gives = ", ".join(map(str, tested.schema.types))
                    raise LaminaError("ValueError", f"read_parquet's where must be one condition, true or "
                                      f"false for each row (such as \"y > 2 and g = 'a'\"), but \"{condition}\" "
                                      f"gives {gives}.")
                mask = tested.column(0).combine_chunks()
                return batch.select(keep).filter(mask, null_selection_behavior="drop")   # NULL: left out, as in SQL
            # a bad condition fails on a file of no rows too
            rows_kept(pa.RecordBatch.from_arrays([pa.array([], type=f.type) for f in schema], schema=schema))
            kept = interruptible(con, lambda: [rows_kept(b.select(read))
                                               for b in file.iter_batches(batch_size=_batch_rows(len(read)), columns=read)])
            return pa.Table.from_batches(kept, schema=pa.schema([schema.field(n) for n in keep]))
        except duckdb.PermissionException:
            raise LaminaError("PermissionError", f"read_parquet's where may not read files: it is a "
                              f"condition on the rows of \"{path}\", such as \"y > 2 and g = 'a'\".") from None
        except duckdb.Error as exc:
            raise LaminaError("ValueError", f"read_parquet: the where condition on \"{path}\" fails: "
                              f"{duckdb_message(exc, excerpt=False)}") from None


def _batch_rows(columns: int) -> int:
    return min(1 << 20, max(1 << 16, BATCH_BYTES // (8 * max(columns, 1))))


def _named_columns(con, condition: str) -> set[str]:
    """The column names (lower case) a condition reads, from DuckDB's parse of it; None of them
    when it does not parse as one condition (the filter then says why)."""
    tree = serialized(con, "SELECT 1 WHERE " + condition)
    if tree.get("error") or len(tree.get("statements", ())) != 1:
        return set()
    out = set()
    stack = [tree["statements"][0]["node"].get("where_clause")]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, dict):
            if node.get("class") == "COLUMN_REF" and node.get("column_names"):
                out.add(node["column_names"][-1].lower())
            stack.extend(v for v in node.values() if isinstance(v, (dict, list)))
    return out


def write_parquet(x, path, names=None) -> None:
    t, target = table_to_write(x, path, names, "write_parquet", "would hold no data")
    arrow = t.to_arrow()
    try:
        write_file(target, "write_parquet", lambda f: pq.write_table(arrow, f))
    except OSError as exc:
        raise LaminaError("ValueError", f"write_parquet cannot write \"{target}\": {exc.strerror or exc}.") from None
