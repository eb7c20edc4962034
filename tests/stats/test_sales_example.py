"""examples/sales.lam and its data (examples/data/make_sales.py): the generator is seeded and
leaves files that are there alone; the program, run on a smaller draw of the same data (`make demo`
draws a million rows), prints what pandas and NumPy compute from that CSV; docs/tables.md shows
the program."""
from __future__ import annotations

import pathlib
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

pd = pytest.importorskip("pandas")

ROOT = pathlib.Path(__file__).resolve().parents[2]
GENERATOR = ROOT / "examples" / "data" / "make_sales.py"
PROGRAM = ROOT / "examples" / "sales.lam"
ROWS = 20_000
CHANNELS = ["shop", "online", "phone"]


def generate(out: pathlib.Path, rows: int = ROWS) -> str:
    r = subprocess.run([sys.executable, str(GENERATOR), "--rows", str(rows), "--out", str(out)],
                       capture_output=True, text=True, timeout=120)
    assert (r.returncode, r.stderr) == (0, "")
    return r.stdout


def test_the_generator_is_seeded_and_leaves_a_file_that_is_there(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    assert generate(a, 3000) == f"wrote {a / 'stores.csv'}\nwrote {a / 'sales.csv'}\n"
    generate(b, 3000)
    for name in ("sales.csv", "stores.csv"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    (a / "sales.csv").write_text("kept\n")
    assert generate(a, 3000) == (f"{a / 'stores.csv'} is already there\n"
                                 f"{a / 'sales.csv'} is already there\n")
    assert (a / "sales.csv").read_text() == "kept\n"
    # each file has its own generator: one made again matches, whatever was left beside it
    made = (b / "sales.csv").read_bytes()
    (b / "sales.csv").unlink()
    assert generate(b, 3000) == f"{b / 'stores.csv'} is already there\nwrote {b / 'sales.csv'}\n"
    assert (b / "sales.csv").read_bytes() == made
    sales = pd.read_csv(b / "sales.csv")
    assert list(sales.columns) == ["day", "store", "channel", "price", "discount", "quantity"]
    assert len(sales) == 3000 and sales.day.is_monotonic_increasing
    assert "2022-01-01" <= sales.day.min() and sales.day.max() <= "2024-12-31"
    assert set(sales.channel) == set(CHANNELS) and set(sales.discount) <= {0, 0.05, 0.1, 0.2}
    assert sales.quantity.min() >= 1 and (sales.price.between(2, 60)).all()
    assert '"' not in (b / "sales.csv").read_text()     # no quotes: read_csv's fast path
    stores = pd.read_csv(b / "stores.csv")
    assert list(stores.store) == [f"S{i:02d}" for i in range(1, 41)]
    assert set(sales.store) <= set(stores.store)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """sales.lam run from a copy of the repository's examples folder, on ROWS generated rows:
    (what it printed, the data as pandas reads it)."""
    root = tmp_path_factory.mktemp("sales")
    (root / "examples").mkdir()
    shutil.copy(PROGRAM, root / "examples" / "sales.lam")
    data = root / "examples" / "data" / "generated"
    generate(data)
    r = subprocess.run([sys.executable, "-m", "lamina", "examples/sales.lam"], cwd=root,
                       capture_output=True, text=True, timeout=120)
    assert (r.returncode, r.stderr) == (0, "")
    sales = pd.read_csv(data / "sales.csv")
    sales["revenue"] = sales.quantity * sales.price * (1 - sales.discount)
    day = pd.to_datetime(sales.day)
    sales["year"], sales["month"], sales["weekend"] = day.dt.year, day.dt.month, (day.dt.day_of_week >= 5) * 1
    assert (data / "sales.parquet").exists()
    return r.stdout, sales, pd.read_csv(data / "stores.csv")


def printed_tables(out: str) -> list[list[list[str]]]:
    """Each printed table as its rows of cells (the header line first, without the row numbers)."""
    tables = []
    for m in re.finditer(r"^table: (\d+) rows? x (\d+) columns?\n", out, re.M):
        lines = out[m.end():].splitlines()[:int(m.group(1)) + 1]
        rows = [lines[0].split()] + [line.split()[1:] for line in lines[1:]]
        assert all(len(row) == int(m.group(2)) for row in rows), rows
        tables.append(rows)
    return tables


def numbers(rows: list[list[str]], column: str) -> list[float]:
    k = rows[0].index(column)
    return [float(row[k]) for row in rows[1:]]


def test_the_first_rows_with_the_derived_columns(run):
    out, sales, _ = run
    first = printed_tables(out)[0]
    assert first[0] == ["day", "store", "channel", "price", "discount", "quantity", "revenue", "year",
                        "month", "weekend"]
    top = sales.head(5)
    assert [row[:3] for row in first[1:]] == top[["day", "store", "channel"]].values.tolist()
    for column in first[0][3:]:
        assert numbers(first, column) == pytest.approx(list(top[column]), rel=1e-5), column


def test_the_best_months(run):
    out, sales, _ = run
    monthly = sales.groupby(["year", "month"]).agg(revenue=("revenue", "sum"), n=("revenue", "size"))
    monthly["revenue"] = np.round(monthly.revenue / 1000, 1)
    best = monthly.sort_values("revenue", ascending=False, kind="stable").head(5).reset_index()
    rows = printed_tables(out)[1]
    assert rows[0] == ["year", "month", "revenue", "n"]
    for column in rows[0]:
        assert numbers(rows, column) == list(best[column]), column


def test_regions_and_channels_through_the_stores_lookup(run):
    out, sales, stores = run
    merged = sales.merge(stores, on="store")
    merged["channel"] = pd.Categorical(merged.channel, categories=CHANNELS, ordered=True)
    groups = merged.groupby(["region", "channel"], observed=True).revenue
    rows = printed_tables(out)[2]
    assert rows[0] == ["region", "channel", "revenue_k", "basket", "n"]
    keys = [tuple(row[:2]) for row in rows[1:]]
    assert keys == [(r, c) for r in ("east", "north", "south", "west") for c in CHANNELS]
    assert numbers(rows, "revenue_k") == list(np.round(groups.sum() / 1000))
    assert numbers(rows, "basket") == list(np.round(groups.mean(), 2))
    assert numbers(rows, "n") == list(groups.size())


def test_the_sql_query_gives_each_years_growth(run):
    out, sales, _ = run
    yearly = sales.groupby("year").revenue.agg(["sum", "size"])
    growth = np.round(100 * (yearly["sum"] / yearly["sum"].shift() - 1), 1)
    rows = printed_tables(out)[3]
    assert rows[0] == ["year", "revenue_m", "n", "growth_pct"]
    assert numbers(rows, "year") == [2022, 2023, 2024]
    assert numbers(rows, "revenue_m") == list(np.round(yearly["sum"] / 1e6, 2))
    assert numbers(rows, "n") == list(yearly["size"])
    assert np.isnan(numbers(rows, "growth_pct")[0]) and numbers(rows, "growth_pct")[1:] == list(growth[1:])


def test_the_regression_with_the_channel_as_a_factor(run):
    out, sales, _ = run
    terms = ["(Intercept)", "channelonline", "channelphone", "price", "discount", "weekend"]
    assert (f"Linear regression: quantity ~ {' + '.join(terms[1:])}  (n = {ROWS})") in out
    design = np.column_stack([np.ones(len(sales)), sales.channel == "online", sales.channel == "phone",
                              sales.price, sales.discount, sales.weekend]).astype(float)
    coef, *_ = np.linalg.lstsq(design, sales.quantity.to_numpy(float), rcond=None)
    lines = out.splitlines()
    for term, value in zip(terms, coef):
        line = next(s for s in lines if s.strip().startswith(term + " "))
        assert float(line.split()[1]) == pytest.approx(value, rel=1e-3), term
    # and the generator's effects are found (within a few standard errors on these rows)
    truth = [3.0, 0.8, -0.5, -0.02, 6.0, 0.3]
    for term, value in zip(terms, truth):
        estimate, error = map(float, next(s for s in lines if s.strip().startswith(term + " ")).split()[1:3])
        assert abs(estimate - value) < 4 * error, term


def test_the_parquet_copy_read_back_with_a_condition(run):
    out, sales, _ = run
    phone = sales[(sales.channel == "phone") & (sales.discount == 0.2)]
    assert out.splitlines()[-1] == (f"{len(phone)} phone sales at 20% off, "
                                    f"{np.round(phone.quantity.mean(), 2):g} units each on average")


def test_the_tables_page_shows_the_program():
    page = (ROOT / "docs" / "tables.md").read_text()
    assert "```lamina\n" + PROGRAM.read_text() + "```" in page


def test_make_demo_runs_the_generator_then_the_program():
    makefile = (ROOT / "Makefile").read_text()
    demo = makefile[makefile.index("\ndemo:"):makefile.index("\ntest:")]
    assert demo.index("examples/data/make_sales.py") < demo.index("lamina examples/sales.lam")
    assert "examples/data/generated/" in (ROOT / ".gitignore").read_text().splitlines()
