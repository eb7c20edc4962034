"""categories.py: levels and codes as pandas' Categorical makes them; the level order in tables."""
import numpy as np
import pandas as pd
import pyarrow as pa

from lamina.stats import categories as CT
from lamina.stats.columns import from_arrow
from lamina.stats.table import Table


def test_codes_and_levels_are_pandas():
    values = ["mid", "low", "", "high", "low"]
    c = CT.make(values, ["low", "mid", "high"])
    want = pd.Categorical([v or None for v in values], categories=["low", "mid", "high"])
    assert c.levels == tuple(want.categories) and c.codes.tolist() == want.codes.tolist()
    default = CT.make(values)
    assert default.levels == tuple(pd.Categorical([v for v in values if v]).categories)


def test_a_pandas_categorical_keeps_its_level_order_through_arrow():
    df = pd.DataFrame({"g": pd.Categorical(["b", "a", "c", None], categories=["c", "b", "a"])})
    t = Table.from_arrow(pa.Table.from_pandas(df, preserve_index=False))
    assert t.columns["g"].levels == ("c", "b", "a")
    assert t.columns["g"].texts() == ["b", "a", "c", None]
    back = t.to_arrow().to_pandas()["g"]
    assert list(back.cat.categories) == ["c", "b", "a"] and back.isna().tolist() == [False, False, False, True]


def test_groups_follow_the_level_order():
    from lamina.stats.groups import Grouped
    t = Table({"g": CT.make(["lo", "hi", "mid", "hi"], ["lo", "mid", "hi"]), "y": np.arange(4.0)})
    g = Grouped(t, ["g"])
    assert g.keys().columns["g"].texts() == ["lo", "mid", "hi"]
    assert g.sizes.tolist() == [1, 1, 2]
    assert from_arrow(t.columns["g"].to_arrow()).levels == ("lo", "mid", "hi")


def test_categories_of_different_lengths_do_not_compare():
    import pytest
    from lamina.errors import LaminaError
    with pytest.raises(LaminaError, match="Cannot compare a category of 2 cells with a category of 3 cells"):
        CT.make(["a", "b"]).operator("==", CT.make(["a", "b", "a"]), False)
