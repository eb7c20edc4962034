"""Table operations on random tables against plain NumPy and Python: drop_missing, filter,
sort_rows (stable, NaN last), group_by + aggregate, merge (inner, left, outer), columns."""
import numpy as np
import pytest

from lamina.builtins.registry import REGISTRY
from lamina.errors import LaminaError
from lamina.stats import groups as GR
from lamina.stats import joins as JN
from lamina.stats import tableops as TO
from lamina.stats.table import Table

LEVELS = ["ash", "birch", "cedar", "elm"]


def random_table(rng, n=60) -> Table:
    x = np.round(rng.normal(size=n), 1)
    x[rng.random(n) < 0.15] = np.nan
    return Table({"kind": list(rng.choice(LEVELS, size=n)), "x": x,
                  "y": rng.integers(0, 5, size=n).astype(float)})


def test_drop_missing_and_filter(rng):
    t = random_table(rng)
    kept = TO.drop_missing(t)
    mask = ~np.isnan(t.columns["x"])
    np.testing.assert_array_equal(kept.columns["x"], t.columns["x"][mask])
    assert kept.columns["kind"] == [k for k, m in zip(t.columns["kind"], mask) if m]
    truth = lambda b: bool(b)   # noqa: E731
    big = TO.filter_rows(kept, lambda row: row.get("x") > 0 and row.get("kind") != "elm", lambda f, a: f(*a), truth)
    want = (kept.columns["x"] > 0) & (np.array(kept.columns["kind"]) != "elm")
    np.testing.assert_array_equal(big.columns["y"], kept.columns["y"][want])


@pytest.mark.parametrize("descending", [False, True])
def test_sort_rows_is_stable_with_nan_last(rng, descending):
    t = random_table(rng)
    x = t.columns["x"]
    order = sorted(range(len(x)), key=lambda i: (np.isnan(x[i]), -x[i] if descending else x[i]))
    got = TO.sort_rows(t, "x", descending=descending)
    np.testing.assert_array_equal(got.columns["y"], t.columns["y"][order])
    # by two columns: kind, then y; Python's sort is stable too
    kinds, y = t.columns["kind"], t.columns["y"]
    sign = -1 if descending else 1
    order = sorted(range(len(y)), key=lambda i: (sign * LEVELS.index(kinds[i]), sign * y[i]))
    got = TO.sort_rows(t, ["kind", "y"], descending=descending)
    np.testing.assert_array_equal(got.columns["x"], t.columns["x"][order])


def test_group_by_and_aggregate_against_numpy(rng, lam):
    t = TO.drop_missing(random_table(rng))
    g = GR.group_by(t, "kind")
    out = lam.eval("aggregate(g, mean)", g=g)
    kinds = np.array(t.columns["kind"])
    present = sorted(set(t.columns["kind"]))
    assert out.columns["kind"] == present
    np.testing.assert_allclose(out.columns["x"], [t.columns["x"][kinds == k].mean() for k in present])
    np.testing.assert_array_equal(g.get("sizes"), [np.sum(kinds == k) for k in present])
    two = GR.group_by(t, ["kind", "y"])
    pairs = sorted({(k, v) for k, v in zip(kinds, t.columns["y"])})
    keys = two.keys()
    assert list(zip(keys.columns["kind"], keys.columns["y"])) == pairs
    sums = lam.eval("aggregate(g, sum)", g=two).columns["x"]
    np.testing.assert_allclose(sums, [t.columns["x"][(kinds == k) & (t.columns["y"] == v)].sum() for k, v in pairs])


@pytest.mark.parametrize("how", ["inner", "left", "outer"])
def test_merge_against_nested_loops(rng, how):
    a = Table({"k": rng.integers(0, 6, size=15).astype(float), "u": np.arange(15.0)})
    b = Table({"k": rng.integers(3, 9, size=10).astype(float), "v": np.arange(10.0) * 10})
    pairs = [(i, j) for i in range(15) for j in range(10) if a.columns["k"][i] == b.columns["k"][j]]
    if how != "inner":
        pairs = [p for i in range(15) for p in ([q for q in pairs if q[0] == i] or [(i, None)])]
    if how == "outer":
        pairs += [(None, j) for j in range(10) if not any(q[1] == j for q in pairs)]
    got = JN.merge(a, b, on="k", how=how)
    np.testing.assert_array_equal(got.columns["u"], [np.nan if i is None else a.columns["u"][i] for i, _ in pairs])
    np.testing.assert_array_equal(got.columns["v"], [np.nan if j is None else b.columns["v"][j] for _, j in pairs])
    np.testing.assert_array_equal(got.columns["k"], [a.columns["k"][i] if i is not None else b.columns["k"][j]
                                                     for i, j in pairs])


def test_a_missing_key_matches_nothing():
    a = Table({"k": np.array([1.0, np.nan]), "u": np.array([1.0, 2.0])})
    b = Table({"k": np.array([np.nan, 1.0]), "v": np.array([3.0, 4.0])})
    got = JN.merge(a, b, on="k")
    np.testing.assert_array_equal(got.columns["u"], [1.0])
    np.testing.assert_array_equal(got.columns["v"], [4.0])


def test_columns_through_assignment_keep_other_variables_unchanged(lam):
    out = lam.run('t = table({a = [1, 2, 3]})\nu = t\nt.b = t.a .* 2\nt.a = ["x", "y", "z"]\n'
                  "print(columns(t), t.a, t.b, columns(u), u.a)")
    assert out == ['["a", "b"] ["x", "y", "z"] [2, 4, 6] ["a"] [1, 2, 3]']
    err = lam.error("t = table({a = [1, 2, 3]})\nt.b = [1, 2]")
    assert err.kind == "ShapeError" and err.span.line == 2


def test_a_column_name_that_merge_would_make_twice_is_an_error():
    a = Table({"k": np.array([1.0]), "v": np.array([1.0]), "v_y": np.array([2.0])})
    b = Table({"k": np.array([1.0]), "v": np.array([3.0])})
    with pytest.raises(LaminaError) as info:
        JN.merge(a, b, on="k")
    assert info.value.message.startswith("merge: both tables have a column 'v', which would become 'v_y'")


def test_wide_characters_and_tabs_keep_the_columns_aligned():
    # 日本 takes four terminal columns, not two; a tab in a cell pushed the next column right
    t = Table({"name": ["日本", "ab", "tab\there", "e\u0301x"], "v": np.array([1.0, 2.0, 3.0, 4.0])})
    assert t.describe().splitlines() == [
        "table: 4 rows x 2 columns",
        "   name       v",
        "0  日本       1",
        "1  ab         2",
        "2  tab\\there  3",
        "3  e\u0301x         4",
    ]


def test_a_rounded_large_number_is_not_shown_as_exact(lam):
    # 2^53 to 6 digits is 9.0072e+15; format_number of that float wrote 9007200000000000.0
    out = lam.run("print(table({x = [2^53, 1.5e15, 123456789012]}))\nprint(describe([123456789012, 2.5]))")
    assert out[:5] == ["table: 3 rows x 1 column", "              x", "0    9.0072e+15",
                       "1       1.5e+15", "2  123456789012"]
    assert out[8] == "1  mean    6.17284e+10"   # was 61728400000


T = 't = table({x = [1, 2, 3], y = [4, 5, 6]})\nu = drop_columns(t, columns(t))\n'


def test_dropping_every_column_keeps_the_rows(lam):
    assert lam.run(T + 'print(u)\nprint(nrows(u), nrows(u[[0, 2], :]), nrows(u[1:, :]), nrows(u[1, :]))\n'
                   'print(nrows(u[[1, 0, 1] > 0, :]), nrows(head(u, 2)), nrows(filter(u, r -> true)))') == \
        ["table: 3 rows x 0 columns", "3 2 2 1", "2 2 3"]


def test_a_new_column_fills_the_kept_rows(lam):
    assert lam.run(T + 'u.z = 7\nprint(u.z)') == ["[7, 7, 7]"]
    assert "needs one value per row: the table has 3 rows, but the column has 2 values" in \
        str(lam.error(T + 'u.w = [1, 2]'))


TABLE_ABV = 't = table({a = [2, 1, 2], b = ["x", "y", "z"], v = [1, 2, 3]})\n'


def test_a_column_named_twice_counts_once(lam):
    out = lam.run(TABLE_ABV + 'g = group_by(t, ["a", "a"])\nprint(g)\nprint(g.by)\n'
                  'print(columns(aggregate(g, sum)))\n'
                  'print(sort_rows(t, ["a", "a"]).b)\nprint(columns(drop_columns(t, ["a", "a"])))\n'
                  'print(columns(merge(t, t, on = ["a", "a"])), nrows(merge(t, t, on = ["a", "a"])))')
    assert out == ["grouped table: 3 rows in 2 groups by a", "  a  rows", "  1     1", "  2     2",
                   '["a"]', '["a", "v"]', '["y", "x", "z"]', '["b", "v"]', '["a", "b_x", "v_x", "b_y", "v_y"] 5']
    for name in ("group_by", "sort_rows", "drop_columns", "merge"):
        assert "A column named twice counts once" in REGISTRY[name].notes


def test_sort_rows_of_a_matrix_by_several_columns(lam):
    X = np.array([[3, 1], [1, 2], [2, 0], [0, 2]], dtype=float)
    out = lam.eval("sort_rows(X, [1, 0])", X=X)
    np.testing.assert_array_equal(out, X[np.lexsort((X[:, 0], X[:, 1]))])
    np.testing.assert_array_equal(lam.eval("sort_rows(X, [1, 0], descending = true)", X=X),
                                  [[1, 2], [0, 2], [3, 1], [2, 0]])


def test_sort_rows_of_a_vector_gives_a_vector(lam):
    assert lam.run("print(sort_rows([3, 1, 2], 0), sort_rows([3, 1, 2], 0, descending = true))") == \
        ["[1, 2, 3] [3, 2, 1]"]


def test_missing_text_sorts_last_in_both_directions(lam):
    # pandas' sort_values and R's order put NA last whichever the direction
    src = 't = table({s = ["b", "", "a", "NA", "N/A"], v = [1, 2, 3, 4, 5]})\n'
    assert lam.run(src + 'print(sort_rows(t, "s").v)\nprint(sort_rows(t, "s", descending = true).v)\n'
                   'print(sort_rows(table({k = [1, 1, 1], s = ["", "b", "a"]}), ["k", "s"]).s)') == \
        ["[3, 1, 2, 4, 5]", "[1, 3, 2, 4, 5]", '["a", "b", ""]']


def test_a_column_name_cannot_be_blank(lam):
    for source in ('table([1, 2; 3, 4], ["a", ""])', 'table([1, 2; 3, 4], ["a", "  "])',
                   'with_column(table({}), "", [1, 2])', 'with_column(table({a = [1]}), " ", 1)',
                   'write_csv([1, 2], path, names = [""])'):
        err = lam.error(source, path="never.csv")
        assert err.kind == "ValueError" and err.message.startswith("A column name cannot be empty or only spaces")


def test_a_new_column_by_index_is_a_new_column_as_by_field(lam):
    out = lam.run(TABLE_ABV + 't["n"] = 5\nt[:, "s"] = "q"\nt[:, "w"] = [7, 8, 9]\nprint(t.n, t.s, t.w)')
    assert out == ['[5, 5, 5] ["q", "q", "q"] [7, 8, 9]']
    err = lam.error(TABLE_ABV + 't[:, "w"] = [7, 8]')
    assert err.kind == "ShapeError" and "Column 'w' needs one value per row: the table has 3 rows" in err.message


def test_table_of_a_table_refuses_names(lam):
    err = lam.error('table(table({a = [1]}), ["z"])')
    assert (err.kind, err.message) == ("TypeError", "Column names are for a matrix's columns; a table's "
                                                    "columns have their names already.")


def test_a_grouped_table_prints_its_keys_as_a_table_does(lam):
    # ids in full (they printed as 1234570 twice), text with a line break escaped
    out = lam.run('t = table({id = [1234567, 1234568, 1234567], s = ["a\\nb", "c", "a\\nb"]})\n'
                  'print(group_by(t, "id"))\nprint(group_by(t, "s"))')
    assert out == ["grouped table: 3 rows in 2 groups by id", "       id  rows", "  1234567     2",
                   "  1234568     1", "grouped table: 3 rows in 2 groups by s", "  s     rows",
                   "  a\\nb     2", "  c        1"]


def test_a_list_of_names_as_the_row_index_says_how_to_pick_columns(lam):
    # was "A row index must be ... an index list or a mask, not a list", for a list of names
    err = lam.error(TABLE_ABV + 'print(t[["a", "b"]])')
    assert (err.kind, err.message) == ("TypeError", "A table's first index picks rows, by number or mask; "
                                                    "pick columns by name with t[:, [\"a\", \"b\"]].")


def test_a_sweeps_table_keeps_its_swept_columns_when_columns_change(lam):
    # plot(t, "l2") draws l2 against lr (a line per b) only while t knows its swept columns
    lam.run('t = sweep(c -> {loss = c.lr * c.b}, {lr = [0.01, 0.1], b = [1, 2]}, seed = 1)\n'
            't.l2 = t.loss * 2\nu = with_column(t, "q", 1)\nt[0, "loss"] = 5\nd = drop_columns(t, "b")')
    assert (lam.interp.get("t").swept, lam.interp.get("u").swept, lam.interp.get("d").swept) == \
        (("lr", "b"), ("lr", "b"), ("lr",))


def test_describe_of_a_column_named_stat_keeps_both(lam):
    # the column's numbers used to overwrite the names of the statistics
    out = lam.run('d = describe(table({stat = [1, 2, 3], x = [4, 5, 6]}))\nprint(columns(d))\n'
                  'print(d.stat_)\nprint(d.stat)')
    assert out == ['["stat_", "stat", "x"]', '["count", "mean", "std", "min", "25%", "50%", "75%", "max"]',
                   "[3, 2, 1, 1, 1.5, 2, 2.5, 3]"]


def test_a_column_name_with_a_line_break_prints_escaped(lam):
    out = lam.run('t = table([1, 2; 3, 4], ["a\\nb", "c\\td"])\nprint(t)\nprint(group_by(t, "a\\nb"))')
    assert out == ["table: 2 rows x 2 columns", "   a\\nb  c\\td", "0     1     2", "1     3     4",
                   "grouped table: 2 rows in 2 groups by a\\nb", "  a\\nb  rows", "     1     1", "     3     1"]
