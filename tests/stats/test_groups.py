"""groups.py: group_by, aggregate and count, against pandas' groupby on the same data."""
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lamina.stats import columns as C
from lamina.stats import groups as GR
from lamina.stats.table import Table

WORDS = st.sampled_from(["a", "b", "B", "é", "zz", "a b"])


@st.composite
def frames(draw):
    n = draw(st.integers(1, 40))
    return pd.DataFrame({"k": draw(st.lists(WORDS, min_size=n, max_size=n)),
                         "j": draw(st.lists(st.integers(-2, 2), min_size=n, max_size=n)),
                         "y": draw(st.lists(st.floats(-1e6, 1e6), min_size=n, max_size=n))})


def table_of(df: pd.DataFrame) -> Table:
    return Table({"k": list(df.k), "j": df.j.to_numpy(dtype=float), "y": df.y.to_numpy(dtype=float)})


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frames(), st.sampled_from([["k"], ["j"], ["k", "j"], ["j", "k"]]))
def test_groups_keys_sizes_and_means_are_pandas(df, by):
    g = GR.Grouped(table_of(df), by)
    want = df.groupby(by, sort=True)["y"]
    keys = g.keys()
    for k in by:
        got = keys.columns[k]
        expect = want.size().reset_index()[k]
        assert (list(got) if not C.is_numeric(got) else got.tolist()) == \
            (list(expect) if k == "k" else expect.astype(float).tolist())
    np.testing.assert_array_equal(g.sizes, want.size().to_numpy())
    means = GR.aggregate_named(g, {"m": ["y", lambda v: float(np.mean(v))], "n": GR.ROWS}, call=lambda f, a: f(*a))
    np.testing.assert_array_equal(means.columns["m"], [np.mean(v) for _, v in want])
    np.testing.assert_array_equal(means.columns["n"], want.size().to_numpy(dtype=float))


def test_each_groups_rows_keep_table_order():
    t = Table({"k": ["b", "a", "b", "a", "b"], "y": np.arange(5.0)})
    g = GR.Grouped(t, ["k"])
    order, bounds = g.order(), g.bounds()
    assert [order[a:b].tolist() for a, b in zip(bounds[:-1], bounds[1:])] == [[1, 3], [0, 2, 4]]


def test_count_names_its_column_n_unless_a_key_is_n(lam):
    assert lam.run('t = table({n = ["x", "y", "x"]})\nprint(columns(count(group_by(t, "n"))))') == \
        ['["n", "n_"]']


@pytest.mark.parametrize("source, message", [
    ('aggregate(group_by(t, "g"), m = ["y", mean], g = count)',
     "aggregate: 'g' is a column the table is grouped by; name the result otherwise."),
    ('aggregate(group_by(t, "g"), m = ["w", mean])', "The table has no column 'w'; its columns are g, y."),
    ('aggregate(group_by(t, "g"), m = ["g", mean])', "aggregate works on columns of numbers or dates, but 'g' holds text."),
    ('aggregate(group_by(t, "g"), mean, m = ["y", mean])',
     "aggregate takes a function (and columns), or named results such as mean_y = [\"y\", mean], not both."),
    ('count(t)', "count takes the groups of a table, group_by(t, \"col\"), not a table."),
])
def test_named_aggregate_errors(lam, source, message):
    err = lam.error('t = table({g = ["a", "b"], y = [1, 2]})\nr = ' + source)
    assert err.message == message


@pytest.mark.parametrize("values", [
    [0, 1, 2, 1, 0, 2],                    # every number of the range: the numbers are the codes
    [7, -3, 7, 12, -3, 40],                # gaps and a negative start: ranked
    [2.5, 0.5, 2.5, 1.5],                  # fractions: hashed
    [2.0 ** 60, 3.0, 2.0 ** 60, -2.0 ** 60],   # beyond 2^53: hashed
    [1e300, -1e300, 1e300],
])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_group_numbers_and_sizes_of_a_numeric_key_are_its_ranks_and_counts(values, dtype):
    key = np.array(values, dtype=dtype)
    distinct, ranks, counts = np.unique(key, return_inverse=True, return_counts=True)
    g = GR.Grouped(Table({"k": key}), ["k"])
    assert g.group_of.tolist() == ranks.tolist() and g.count == len(distinct)
    assert g.sizes.tolist() == counts.tolist()
    assert GR.dense_codes(key)[0].tolist() == ranks.tolist()


def test_group_by_a_key_with_a_missing_cell_is_an_error(lam):
    err = lam.error('t = table({g = [1, 0 / 0, 2], y = [1, 2, 3]})\ng = group_by(t, "g")')
    assert err.message == "group_by: column 'g' has missing values; drop those rows first with drop_missing(t, \"g\")."
