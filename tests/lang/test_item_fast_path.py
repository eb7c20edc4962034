"""The in-line paths for `v[i]` and `v[i] = x` (runtime.item, stores.set_item_var,
stores.set_index_var) give what the general indexing path gives, value or error, for every
index: whole, negative, out of range at both ends, fractional, NaN, Inf, -0.0 and past any machine integer."""
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from lamina.errors import LaminaError
from lamina.interpreter import Interpreter
from lamina.lang import indexing, runtime, stores

pytestmark = pytest.mark.ownership      # .ci/run runs these on every Python

INDICES = st.one_of(st.integers(-7, 7).map(float), st.sampled_from(
    [0.5, -0.5, 2.25, math.nan, math.inf, -math.inf, -0.0, 1e300, -1e300, 2.0 ** 63, 2.0 ** 64]))


def outcome(fn):
    try:
        return "value", fn()
    except LaminaError as e:
        return "error", e.kind, e.message


@given(n=st.integers(0, 5), i=INDICES)
def test_reading_one_element_matches_the_general_path(n, i):
    v = np.arange(n, dtype=float) * 1.5
    fast, general = outcome(lambda: runtime.item(v, i)), outcome(lambda: indexing.get(v, (i,)))
    assert fast == general
    if fast[0] == "value":
        assert type(fast[1]) is float


@given(n=st.integers(0, 5), i=INDICES)
def test_storing_one_element_matches_the_general_path(n, i):
    expected = outcome(lambda: indexing.put(np.arange(n, dtype=float), (i,), 9.5, owned=False))
    for store in (lambda v: stores.set_item_var(v, i, 9.5), lambda v: stores.set_index_var(v, (i,), 9.5)):
        got = outcome(lambda: store(np.arange(n, dtype=float)))
        assert got[0] == expected[0]
        if got[0] == "value":
            np.testing.assert_array_equal(got[1], expected[1])
        else:
            assert got == expected


@given(i=INDICES, j=INDICES)
def test_storing_into_a_matrix_matches_the_general_path(i, j):
    expected = outcome(lambda: indexing.put(np.zeros((3, 2)), (i, j), 9.5, owned=False))
    got = outcome(lambda: stores.set_index_var(np.zeros((3, 2)), (i, j), 9.5))
    assert got[0] == expected[0]
    if got[0] == "value":
        np.testing.assert_array_equal(got[1], expected[1])
    else:
        assert got == expected


def test_a_loop_reads_and_writes_by_index_with_the_documented_errors():
    interp = Interpreter()
    interp.run("v = zeros(4)\nfor i = 0 to 3\n    v[i] = i * 0.5\nend for\n"
               "s = 0\nfor i = 0 to 3\n    s = s + v[i] + v[-1 - i]\nend for", "<test>")
    np.testing.assert_array_equal(interp.get("v"), [0.0, 0.5, 1.0, 1.5])
    assert interp.get("s") == 6.0
    for code, kind, said in [("v = zeros(3)\nv[3] = 1", "IndexError", "Index 3 is out of range"),
                             ("v = zeros(3)\nx = v[-4]", "IndexError", "Index -4 is out of range"),
                             ("v = zeros(3)\nx = v[0.5]", "TypeError", "must be a whole number, not 0.5.")]:
        with pytest.raises(LaminaError) as e:
            Interpreter().run(code, "<test>")
        assert said in e.value.message and e.value.kind == kind
