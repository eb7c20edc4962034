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
    ('aggregate(group_by(t, "g"), m = ["g", mean])', "aggregate works on numeric columns, but 'g' holds text."),
    ('aggregate(group_by(t, "g"), mean, m = ["y", mean])',
     "aggregate takes a function (and columns), or named results such as mean_y = [\"y\", mean], not both."),
    ('count(t)', "count takes the groups of a table, group_by(t, \"col\"), not a table."),
])
def test_named_aggregate_errors(lam, source, message):
    err = lam.error('t = table({g = ["a", "b"], y = [1, 2]})\nr = ' + source)
    assert err.message == message
