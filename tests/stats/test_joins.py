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
