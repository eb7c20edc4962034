"""The data files of bench/cases/tables.py, made on first use into bench/cache/tables (ignored by
git) and kept there: a later run finds them by name and does not make them again.

Each file is a fixed function of its name (a seeded NumPy generator, or DuckDB's hash of the
row number), written to a temporary name and renamed, so a run stopped half-way leaves no file
that looks finished. Delete the folder to make them again.

- numeric_csv(rows): columns g (a whole number 0..99, the group key), x, y, z (numbers written
  with 2 or 5 decimals, as measured data is): about 28 bytes a row, 28 MB for 10^6 rows.
- merge_csvs(): k (a whole number 0..99,999) and x, 10^6 rows; k (each of 0..99,999 once, in
  random order) and w, 10^5 rows.
- big_parquet(): g (0..99) and x, y, z (doubles that do not compress), written by DuckDB itself,
  at least 2 GB.
"""
from __future__ import annotations

import os
import pathlib

CACHE = pathlib.Path(__file__).resolve().parents[1] / "cache" / "tables"
SEED = 38                     # issue 38
PARQUET_ROWS = 90_000_000     # about 25 bytes a row once written: 2.2 GB
PARQUET_MIN_BYTES = 2 * 10**9


def _fresh(name: str) -> tuple[pathlib.Path, pathlib.Path]:
    """(final path, temporary path) of a cache file."""
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / name
    return path, path.with_name(f".{name}.{os.getpid()}.part")


def _write_csv(columns: dict, name: str) -> pathlib.Path:
    import pyarrow as pa
    import pyarrow.csv as pacsv
    path, part = _fresh(name)
    if not path.exists():
        options = pacsv.WriteOptions(quoting_style="none", quoting_header="none")
        pacsv.write_csv(pa.table(columns), part, write_options=options)
        os.replace(part, path)
    return path


def numeric_csv(rows: int) -> pathlib.Path:
    name = f"numeric_{rows}_seed{SEED}.csv"
    if (CACHE / name).exists():
        return CACHE / name
    import numpy as np
    rng = np.random.default_rng(SEED)
    g = rng.integers(0, 100, rows)
    x = np.round(rng.standard_normal(rows) * 10, 5)
    y = np.round(0.5 * x + 0.1 * g + rng.standard_normal(rows), 5)
    z = np.round(rng.uniform(0, 10000, rows), 2)
    return _write_csv({"g": g, "x": x, "y": y, "z": z}, name)


def merge_csvs(left_rows: int = 1_000_000, right_rows: int = 100_000) -> tuple[pathlib.Path, pathlib.Path]:
    left, right = f"merge_left_{left_rows}_seed{SEED}.csv", f"merge_right_{right_rows}_seed{SEED}.csv"
    if not ((CACHE / left).exists() and (CACHE / right).exists()):
        import numpy as np
        rng = np.random.default_rng(SEED + 1)
        _write_csv({"k": rng.integers(0, right_rows, left_rows),
                    "x": np.round(rng.standard_normal(left_rows), 3)}, left)
        _write_csv({"k": rng.permutation(right_rows),
                    "w": np.round(rng.uniform(0, 100, right_rows), 2)}, right)
    return CACHE / left, CACHE / right


def tiny_csv() -> pathlib.Path:
    """Three rows of the numeric file's columns: a reader's first use (its imports) on it."""
    return _write_csv({"g": [1, 2, 3], "x": [0.5, 1.5, 2.5], "y": [1.0, 2.0, 3.0], "z": [3.25, 4.5, 5.75]},
                      "tiny.csv")


def big_parquet(rows: int = PARQUET_ROWS) -> pathlib.Path:
    path, part = _fresh(f"big_{rows}.parquet")
    if path.exists():
        return path
    import duckdb
    # hash() of the row number: the same file on every machine, independent of DuckDB's threads
    # (random() is not, even after setseed). The doubles use all 53 bits, so they do not compress.
    unit = "(hash(i + {offset}) >> 11)::DOUBLE / 9007199254740992.0"
    query = (f"COPY (SELECT (hash(i) % 100)::INTEGER AS g, {unit.format(offset=10**10)} AS x, "
             f"(hash(i) % 100)::DOUBLE / 10 + {unit.format(offset=2 * 10**10)} AS y, "
             f"{unit.format(offset=3 * 10**10)} AS z FROM range({rows}) t(i)) "
             f"TO '{part}' (FORMAT parquet)")
    with duckdb.connect() as con:
        con.sql(query)
    size = part.stat().st_size
    if size < PARQUET_MIN_BYTES:
        part.unlink()
        raise RuntimeError(f"the Parquet file of {rows:,} rows came out {size / 1e9:.2f} GB, under 2 GB")
    os.replace(part, path)
    return path
