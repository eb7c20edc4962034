"""A missing text key (null: "" or NA in a table's text column) matches nothing in merge, as a NaN key does."""


def test_merge_missing_text_key_matches_nothing(lam):
    out = lam.run('a = table({k = ["x", "", "NA"], v = [1, 2, 3]})\n'
                  'b = table({k = ["x", "", " N/A"], w = [4, 5, 6]})\n'
                  'print(merge(a, b, on = "k").v)\n'
                  'm = merge(a, b, on = "k", how = "outer")\nprint(m.k)\nprint(m.v)\nprint(m.w)')
    assert out == ["[1]", '["x", "", "", "", " N/A"]', "[1, 2, 3, NaN, NaN]", "[4, NaN, NaN, 5, 6]"]


def test_a_large_tables_order_is_the_small_tables_rule():
    # from tableops.BIG rows the order comes from DuckDB: it must be Arrow's stable order exactly,
    # for numbers with NaN, text (by code point), dates with NA, categories by level, both directions
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    from lamina.stats import columns as C
    from lamina.stats import tableops as TO
    from lamina.stats.categories import make
    from lamina.stats.dates import Dates

    rng = np.random.default_rng(5)
    n = TO.BIG + 1000
    x = rng.integers(0, 50, n).astype(float)
    x[::11] = np.nan
    words = np.array(["b", "a", "é", "B", "", "zz", "a b"], dtype=object)[rng.integers(0, 7, n)]
    days = np.datetime64("2024-01-01") + rng.integers(0, 30, n).astype("timedelta64[D]")
    days[::13] = np.datetime64("NaT")
    keys = [x, C.text(list(words)), Dates(days), make(list(words), levels=["zz", "a", "b", "B", "é", "a b"])]
    for down in (False, True):
        for chosen in ([0], [1], [2], [3], [1, 0], [3, 2, 0]):
            cols = [keys[i] for i in chosen]
            direction = "descending" if down else "ascending"
            table = pa.table({f"k{i}": C.sort_key(c) for i, c in enumerate(cols)})
            want = pc.sort_indices(table, sort_keys=[(f"k{i}", direction, "at_end") for i in range(len(cols))])
            assert np.array_equal(TO.table_order(cols, down), want.to_numpy()), (chosen, down)


def test_unique_rows_are_pandas_drop_duplicates():
    import numpy as np
    import pandas as pd

    from lamina.stats.table import Table
    from lamina.stats.tableops import distinct_rows
    rng = np.random.default_rng(2)
    g = np.array(["a", "b", "c"], dtype=object)[rng.integers(0, 3, 500)]
    x = rng.integers(0, 4, 500).astype(float)
    x[::17] = np.nan
    df = pd.DataFrame({"g": g, "x": x})
    want = df.drop_duplicates()
    got = distinct_rows(Table({"g": list(g), "x": x}))
    assert list(got.columns["g"]) == list(want.g)
    np.testing.assert_array_equal(got.columns["x"], want.x.to_numpy())
    counts = distinct_rows(Table({"g": list(g), "x": x}), counts=True).columns["n"]
    assert counts.tolist() == [len(df[(df.g == r.g) & ((df.x == r.x) | (df.x.isna() & pd.isna(r.x)))])
                               for r in want.itertuples()]


def test_the_order_by_numeric_columns_is_arrows_stable_order():
    # numeric keys are radix-sorted by their bits: -0 ties with 0, infinities sort as numbers,
    # NaN comes last either way, float32 as its float64 value, ties keep the table's order
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    from lamina.stats import columns as C
    from lamina.stats import tableops as TO

    rng = np.random.default_rng(6)
    # one column with ties (rounded) or without, in more than two 16-bit parts: NumPy's quicksort
    # with its ties put back in the table's order (tableops._quick_stable_order)
    for n, digits in ((0, 1), (1, 1), (9, 1), (3000, 1), (3000, None), (100_000, 3), (100_000, None)):
        x = rng.standard_normal(n) * 10
        x = x if digits is None else np.round(x, digits)
        x[::7] = np.nan
        x[1:9] = [-0.0, 0.0, np.inf, -np.inf, 1e308, -5e-324, 5e-324, -0.0][:len(x[1:9])]
        w = rng.integers(-2, 3, n).astype(np.float32)
        for down in (False, True):
            for cols in ([x], [w], [x, w], [w, x], [w, w * 0]):
                table = pa.table({f"k{i}": C.sort_key(c) for i, c in enumerate(cols)})
                direction = "descending" if down else "ascending"
                want = pc.sort_indices(table, sort_keys=[(f"k{i}", direction, "at_end") for i in range(len(cols))])
                assert TO.table_order(cols, down).tolist() == want.to_numpy().tolist(), (n, digits, down, len(cols))
