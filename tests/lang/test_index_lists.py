"""Index lists (lang/selection.py, lang/indexing.py): the positions of any list of numbers
against NumPy's own reading of them, the same error for every bad list whichever way it is
checked, and gathered rows that are new arrays, never views of the matrix."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lamina.errors import LaminaError
from lamina.lang import indexing
from lamina.lang.selection import ALL, positions
from lamina.values import format_number

N = 7
M = np.arange(N * 3, dtype=np.float64).reshape(N, 3)
numbers = st.one_of(st.integers(-N - 2, N + 1).map(float),
                    st.sampled_from([0.5, -1.25, np.nan, np.inf, -np.inf, 1e300]))


def reference(v: np.ndarray, n: int):
    """What the positions of `v` must be, or the error (kind, message) it must raise."""
    bad = [x for x in v if not (np.isfinite(x) and x == round(x))]
    if bad:
        return ("TypeError", f"An index list holds whole numbers (positions), but this one holds "
                             f"{format_number(bad[0])}.")
    outside = [x for x in v if not -n <= x < n]
    if outside:
        return ("IndexError", f"Index {format_number(outside[0])} in the index list is out of range for "
                              f"rows of {n} (valid: 0 to {n - 1}, or -{n} to -1).")
    return [int(x) + n if x < 0 else int(x) for x in v]


@settings(max_examples=300)
@given(st.lists(numbers, max_size=6))
def test_positions_agree_with_the_rule_for_any_list(items):
    v = np.array(items, dtype=np.float64)
    want = reference(v, N)
    try:
        got = positions(v, N, "rows", lambda: f"rows of {N}")
    except LaminaError as e:
        assert isinstance(want, tuple) and (e.kind, e.message) == want, items
        return
    assert not isinstance(want, tuple), items
    assert got.dtype == np.int64 and got.tolist() == want


@settings(max_examples=200)
@given(st.lists(st.integers(-N, N - 1), min_size=1, max_size=8), st.sampled_from(["rows", "rows, :", "elements"]))
def test_gathering_by_a_list_is_numpys_gather_into_a_new_array(picks, form):
    idx = np.array(picks, dtype=np.float64)
    target = M[:, 0].copy() if form == "elements" else M
    items = (idx, ALL) if form == "rows, :" else (idx,)
    got = indexing.get(target, items)
    want = target[np.array(picks)]
    assert got.dtype == want.dtype and np.array_equal(got, want)
    assert got.base is None and not np.shares_memory(got, target)


def test_columns_and_submatrices_by_lists_are_new_arrays():
    cols = indexing.get(M, (ALL, np.array([2.0, 0.0])))
    assert np.array_equal(cols, M[:, [2, 0]]) and not np.shares_memory(cols, M)
    assert cols.flags.c_contiguous
    sub = indexing.get(M, (np.array([1.0, -1.0]), np.array([0.0])))
    assert np.array_equal(sub, M[np.ix_([1, 6], [0])]) and not np.shares_memory(sub, M)


@pytest.mark.parametrize("bad, message", [
    ([0.0, 2.5], "TypeError: An index list holds whole numbers (positions), but this one holds 2.5."),
    ([np.inf, 9.0], "TypeError: An index list holds whole numbers (positions), but this one holds Inf."),
    ([1.0, -8.0, 7.0], "IndexError: Index -8 in the index list is out of range for a 7x3 matrix (valid: 0 to 6, "
                       "or -7 to -1)."),
])
def test_a_bad_row_list_names_the_first_bad_position(bad, message):
    with pytest.raises(LaminaError) as e:
        indexing.get(M, (np.array(bad), ALL))
    assert f"{e.value.kind}: {e.value.message}" == message
