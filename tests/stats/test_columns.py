"""columns.py: numeric columns from Arrow arrays (chunks joined, cast and filled in one pass),
whole numbers beyond 2^53 kept as text, has_missing and take."""
import numpy as np
import pyarrow as pa
import pytest

from lamina.stats import columns as C


def chunked(*parts, type=None):
    return pa.chunked_array([pa.array(p, type=type) for p in parts], type=type)


@pytest.mark.parametrize("arr, want", [
    (chunked([1, 2], [None, -4], [], [5], type=pa.int64()), [1, 2, np.nan, -4, 5]),
    (chunked([1, 2], [3], type=pa.uint8()), [1, 2, 3]),
    (chunked([0.5, None], [np.nan, -2.25], type=pa.float64()), [0.5, np.nan, np.nan, -2.25]),
    (chunked([1.5], [None], type=pa.float16()), [1.5, np.nan]),
    (chunked([2 ** 53, -(2 ** 53)], [None], type=pa.int64()), [2.0 ** 53, -2.0 ** 53, np.nan]),
    (chunked([], type=pa.int64()), []),
    (chunked([None, None], type=pa.int32()), [np.nan, np.nan]),
    (pa.array([True, None, False]), [1, np.nan, 0]),
])
def test_numbers_from_arrow_are_a_read_only_float64_vector_with_nan_for_null(arr, want):
    got = C.from_arrow(arr)
    assert got.dtype == np.float64 and not got.flags.writeable
    np.testing.assert_array_equal(got, np.array(want, dtype=np.float64))


def test_float32_stays_float32():
    got = C.from_arrow(chunked([1.5, None], [2.5], type=pa.float32()))
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, np.array([1.5, np.nan, 2.5], dtype=np.float32))


@pytest.mark.parametrize("values", [[2 ** 53 + 1, 1], [1, -(2 ** 53) - 1], [2 ** 63 - 1, None]])
def test_whole_numbers_a_float64_cannot_hold_stay_exact_as_text(values):
    got = C.from_arrow(chunked(values[:1], values[1:], type=pa.int64()))
    assert isinstance(got, C.TextColumn)
    assert got.texts() == [None if v is None else str(v) for v in values]


@pytest.mark.parametrize("column, want", [
    (np.array([1.0, 2.0]), False), (np.array([1.0, np.nan]), True), (np.zeros(0), False),
    (np.array([np.inf, -np.inf]), False), (C.text(["a", ""]), True), (C.text(["a", "b"]), False),
])
def test_has_missing_is_missing_any(column, want):
    assert C.has_missing(column) is want
    assert bool(C.missing(column).any()) is want


def test_take_of_a_numeric_column_is_a_new_array():
    c = np.arange(5.0)
    for rows, want in [(slice(1, 3), [1, 2]), (np.array([4, 0, 4]), [4, 0, 4]),
                       (np.array([True, False, True, False, False]), [0, 2]), ([3, 1], [3, 1])]:
        got = C.take(c, rows)
        assert got.tolist() == want and not np.shares_memory(got, c)
