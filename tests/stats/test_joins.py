"""joins.py: merge against pandas' merge (which keeps the left table's order for inner and left
joins since pandas 2.2), on keys with duplicates on both sides."""
import numpy as np
import pandas as pd
import pytest

from lamina.stats import joins as JN
from lamina.stats.table import Table


@pytest.mark.parametrize("how", ["inner", "left"])
@pytest.mark.parametrize("text", [False, True])
def test_merge_is_pandas_merge(how, text):
    rng = np.random.default_rng(7)
    lk, rk = rng.integers(0, 300, 5000), rng.integers(0, 300, 700)
    key = (lambda k: [f"k{v}" for v in k]) if text else (lambda k: k.astype(float))
    a = pd.DataFrame({"k": key(lk), "v": rng.random(5000)})
    b = pd.DataFrame({"k": key(rk), "w": rng.random(700)})
    want = a.merge(b, on="k", how=how)
    got = JN.merge(Table({"k": list(a.k) if text else a.k.to_numpy(), "v": a.v.to_numpy()}),
                   Table({"k": list(b.k) if text else b.k.to_numpy(), "w": b.w.to_numpy()}), on="k", how=how)
    assert got.nrows == len(want)
    assert (list(got.columns["k"]) if text else got.columns["k"].tolist()) == list(want.k)
    np.testing.assert_array_equal(got.columns["v"], want.v.to_numpy())
    np.testing.assert_array_equal(got.columns["w"], want.w.to_numpy())


@pytest.mark.parametrize("how", ["inner", "left"])
@pytest.mark.parametrize("right_keys", [
    np.arange(-5.0, 295.0),                       # every left key occurs once on the right
    np.arange(-5.0, 295.0)[::2],                  # some left keys occur nowhere on the right
    np.array([0.5, 1.5, 2.0, 3.0, 250.0]),        # fractions: the keys are no codes of their own
])
def test_merge_with_each_key_once_on_the_right_is_pandas_merge(how, right_keys):
    rng = np.random.default_rng(8)
    a = pd.DataFrame({"k": rng.integers(-5, 295, 4000).astype(float), "v": rng.random(4000)})
    a.loc[[3, 70], "k"] = [1.5, 10**6]             # a fraction and a key far outside the right's range
    b = pd.DataFrame({"k": rng.permutation(right_keys), "w": rng.random(len(right_keys))})
    want = a.merge(b, on="k", how=how)
    got = JN.merge(Table({"k": a.k.to_numpy(), "v": a.v.to_numpy()}),
                   Table({"k": b.k.to_numpy(), "w": b.w.to_numpy()}), on="k", how=how)
    assert got.names == ["k", "v", "w"]
    np.testing.assert_array_equal(got.columns["k"], want.k.to_numpy())
    np.testing.assert_array_equal(got.columns["v"], want.v.to_numpy())
    np.testing.assert_array_equal(got.columns["w"], want.w.to_numpy())


@pytest.mark.parametrize("how, rows", [("inner", [[1, 10, 100], [3, 30, 300]]),
                                       ("left", [[1, 10, 100], [np.nan, 20, np.nan], [3, 30, 300]]),
                                       ("outer", [[1, 10, 100], [np.nan, 20, np.nan], [3, 30, 300],
                                                  [2, np.nan, 200], [np.nan, np.nan, 400]])])
def test_a_missing_key_matches_nothing_when_keys_are_whole_numbers(how, rows):
    got = JN.merge(Table({"k": np.array([1, np.nan, 3]), "v": np.array([10.0, 20, 30])}),
                   Table({"k": np.array([3, 2, 1, np.nan]), "w": np.array([300.0, 200, 100, 400])}),
                   on="k", how=how)
    np.testing.assert_array_equal(np.column_stack([got.columns[c] for c in "kvw"]), np.array(rows))


def test_a_merged_tables_shared_column_is_not_changed_by_a_store_into_either(lam):
    # every left row has one partner: the result holds the left table's columns themselves
    assert lam.run('a = table({k = [1, 2, 3], v = [10, 20, 30]})\nb = table({k = [3, 1, 2], w = [7, 8, 9]})\n'
                   'm = merge(a, b, on = "k")\nm[0, "v"] = 99\na[1, "v"] = -1\n'
                   'print(a.v)\nprint(m.v)\nprint(m.w)') == ["[10, -1, 30]", "[99, 20, 30]", "[8, 9, 7]"]
