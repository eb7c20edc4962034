"""Table operations on random tables against plain NumPy and Python: drop_missing, filter,
sort_rows (stable, NaN last), group_by + aggregate, merge (inner, left, outer), columns."""
import numpy as np
import pytest

from lamina.errors import LaminaError
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
    g = TO.group_by(t, "kind")
    out = lam.eval("aggregate(g, mean)", g=g)
    kinds = np.array(t.columns["kind"])
    present = sorted(set(t.columns["kind"]))
    assert out.columns["kind"] == present
    np.testing.assert_allclose(out.columns["x"], [t.columns["x"][kinds == k].mean() for k in present])
    np.testing.assert_array_equal(g.get("sizes"), [np.sum(kinds == k) for k in present])
    two = TO.group_by(t, ["kind", "y"])
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
    got = TO.merge(a, b, on="k", how=how)
    np.testing.assert_array_equal(got.columns["u"], [np.nan if i is None else a.columns["u"][i] for i, _ in pairs])
    np.testing.assert_array_equal(got.columns["v"], [np.nan if j is None else b.columns["v"][j] for _, j in pairs])
    np.testing.assert_array_equal(got.columns["k"], [a.columns["k"][i] if i is not None else b.columns["k"][j]
                                                     for i, j in pairs])


def test_a_missing_key_matches_nothing():
    a = Table({"k": np.array([1.0, np.nan]), "u": np.array([1.0, 2.0])})
    b = Table({"k": np.array([np.nan, 1.0]), "v": np.array([3.0, 4.0])})
    got = TO.merge(a, b, on="k")
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
        TO.merge(a, b, on="k")
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
