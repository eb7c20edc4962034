"""Operator semantics: values against NumPy computed by hand, broadcasting, errors, IEEE."""
import math

import numpy as np
import pytest

from lamina.autodiff import ops
from lamina.autodiff.grad import grad
from lamina.autodiff.tape import TAPE
from lamina.errors import LaminaError
from lamina.values import Tracked


def leaf(x):
    return TAPE.leaf(x, True)


def value(x):
    return x.value if type(x) is Tracked else x


def shape_error(fn, *args) -> str:
    with pytest.raises(LaminaError) as info:
        fn(*args)
    assert info.value.kind == "ShapeError"
    return info.value.message


# -- broadcasting --------------------------------------------------------------
def test_vector_meets_matrix_as_a_column():
    m = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    v = np.array([10.0, 20.0])
    np.testing.assert_array_equal(ops.add(m, v), m + v[:, None])
    np.testing.assert_array_equal(ops.sub(v, m), v[:, None] - m)
    np.testing.assert_array_equal(ops.emul(m, v), m * v[:, None])
    np.testing.assert_array_equal(ops.ediv(m, v), m / v[:, None])
    np.testing.assert_array_equal(ops.epow(v, m), v[:, None] ** m)


def test_matrices_broadcast_rows_columns_and_1x1():
    m = np.arange(6.0).reshape(2, 3)
    row, col, one = np.array([[1.0, 2.0, 3.0]]), np.array([[1.0], [2.0]]), np.array([[5.0]])
    np.testing.assert_array_equal(ops.add(m, row), m + row)
    np.testing.assert_array_equal(ops.add(col, m), col + m)
    np.testing.assert_array_equal(ops.emul(row, col), row * col)
    np.testing.assert_array_equal(ops.sub(m, one), m - one)


def test_scalars_broadcast_with_anything():
    v = np.array([1.0, 2.0])
    np.testing.assert_array_equal(ops.add(1.5, v), v + 1.5)
    np.testing.assert_array_equal(ops.ediv(v, 4.0), v / 4.0)
    assert ops.add(1.0, 2.0) == 3.0 and type(ops.add(1.0, 2.0)) is float


def test_vector_of_wrong_length_against_a_matrix_explains_the_column_rule():
    msg = shape_error(ops.add, np.zeros((2, 3)), np.zeros(3))
    assert "2x3" in msg and "vector of length 3" in msg
    assert "column" in msg and "v'" in msg


@pytest.mark.parametrize("a, b", [
    (np.zeros(3), np.zeros(4)),
    (np.zeros(1), np.zeros(3)),            # a length-1 vector is not a scalar
    (np.zeros((2, 3)), np.zeros((3, 2))),
    (np.zeros((2, 3)), np.zeros((2, 2))),
    (np.zeros(4), np.zeros((2, 4))),
])
@pytest.mark.parametrize("op", [ops.add, ops.sub, ops.emul, ops.ediv, ops.epow])
def test_every_elementwise_op_rejects_shapes_that_do_not_broadcast(op, a, b):
    from lamina.errors import shape_str
    msg = shape_error(op, a, b)
    assert shape_str(a.shape) in msg and shape_str(b.shape) in msg


def test_compare_broadcasts_and_gives_masks_or_bools():
    m = np.array([[1.0, 5.0], [3.0, 2.0]])
    np.testing.assert_array_equal(ops.compare(">", m, np.array([2.0, 2.5])), [[0, 1], [1, 0]])
    assert ops.compare("<=", 1.0, 2.0) is True
    assert ops.compare("!=", leaf(1.0), 1.0) is False
    out = ops.compare("==", leaf(np.array([1.0, 2.0])), 2.0)
    assert type(out) is np.ndarray and out.dtype == bool       # a mask (logical tensor)
    shape_error(ops.compare, "<", np.zeros(2), np.zeros(3))


# -- products, division, powers ------------------------------------------------
def test_matrix_products():
    a, b = np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(ops.mul(a, b), a @ b)
    v = np.array([1.0, -1.0, 2.0])
    np.testing.assert_array_equal(ops.mul(a, v), a @ v)
    assert ops.mul(a, v).shape == (2,)
    row = np.array([[2.0, 3.0]])
    np.testing.assert_array_equal(ops.mul(v, row), np.outer(v, row[0]))
    np.testing.assert_array_equal(ops.mul(2.0, a), 2 * a)
    np.testing.assert_array_equal(ops.mul(v, 0.5), v * 0.5)


def test_matrix_product_shape_errors():
    assert shape_error(ops.mul, np.zeros((3, 2)), np.zeros((3, 1))) == \
        "Matrix product needs inner sizes to agree: 3x2 * 3x1."
    assert "column count" in shape_error(ops.mul, np.zeros((2, 3)), np.zeros(2))
    assert "v' * M" in shape_error(ops.mul, np.zeros(3), np.zeros((3, 3)))
    msg = shape_error(ops.mul, np.zeros(3), np.zeros(3))
    assert "dot" in msg and ".*" in msg


def test_division_needs_a_number_divisor():
    np.testing.assert_array_equal(ops.div(np.array([1.0, 2.0]), 4.0), [0.25, 0.5])
    with pytest.raises(LaminaError) as info:
        ops.div(np.zeros((2, 2)), np.ones((2, 2)))
    assert info.value.kind == "TypeError" and "./" in info.value.message and "solve" in info.value.message
    with pytest.raises(LaminaError) as info:
        ops.div(1.0, np.ones(2))
    assert info.value.kind == "TypeError" and "./" in info.value.message


def test_power_on_tensors_points_at_elementwise_power():
    assert ops.pow(2.0, 10.0) == 1024.0
    with pytest.raises(LaminaError) as info:
        ops.pow(np.ones(2), 2.0)
    assert info.value.kind == "TypeError" and ".^" in info.value.message


@pytest.mark.parametrize("fn, args, expected", [
    (ops.div, (1.0, 0.0), math.inf),
    (ops.div, (-1.0, 0.0), -math.inf),
    (ops.div, (1.0, -0.0), -math.inf),
    (ops.ediv, (0.0, 0.0), math.nan),
    (ops.pow, (-8.0, 1 / 3), math.nan),
    (ops.pow, (2.0, 10000.0), math.inf),
    (ops.pow, (0.0, -1.0), math.inf),
    (ops.epow, (10.0, 400.0), math.inf),
    (ops.mul, (1e308, 10.0), math.inf),
])
def test_ieee_results_never_raise(fn, args, expected):
    out = fn(*args)
    assert type(out) is float
    assert (math.isnan(out) and math.isnan(expected)) or out == expected
    tracked = fn(*(leaf(a) for a in args))          # the tracked path is IEEE too
    assert type(tracked.value) is float


def test_ieee_on_tensors_gives_inf_and_nan_without_warnings(recwarn):
    out = ops.ediv(np.array([1.0, 0.0, -1.0]), 0.0)
    assert np.isposinf(out[0]) and np.isnan(out[1]) and np.isneginf(out[2])
    assert len(recwarn) == 0


def test_transpose():
    v = np.array([1.0, 2.0, 3.0])
    t = ops.transpose(v)
    assert t.shape == (1, 3) and not np.shares_memory(t, v)
    m = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(ops.transpose(m), m.T)
    assert ops.transpose(2.5) == 2.5


# -- results are fresh float64 arrays, scalars are Python floats ---------------
@pytest.mark.parametrize("fn, args", [
    (ops.add, (np.ones(3), 0.0)), (ops.sub, (np.ones(3), 0.0)), (ops.emul, (np.ones(3), 1.0)),
    (ops.ediv, (np.ones(3), 1.0)), (ops.epow, (np.ones(3), 1.0)), (ops.neg, (np.ones(3),)),
    (ops.mul, (np.ones(3), 1.0)), (ops.div, (np.ones(3), 1.0)), (ops.transpose, (np.ones((2, 2)),)),
    (ops.index, (np.ones((2, 2)), (0, slice(None)))),
])
def test_array_results_are_fresh(fn, args):
    out = fn(*args)
    assert out.dtype == np.float64
    assert not np.shares_memory(out, args[0])


def test_scalar_results_are_python_floats():
    m = np.arange(6.0).reshape(2, 3)
    assert type(ops.index(m, (1, 2))) is float
    assert type(ops.index(leaf(m), (1, 2)).value) is float
    assert type(ops.neg(2.0)) is float
    assert type(ops.mul(leaf(2.0), np.ones(2)).value) is np.ndarray
    assert type(ops.epow(2.0, 0.5)) is float


# -- indexing and literals -----------------------------------------------------
def test_index_and_its_gradient_scatter_back():
    m = leaf(np.arange(6.0).reshape(2, 3))
    part = ops.index(m, (slice(0, 2), slice(1, 3)))
    np.testing.assert_array_equal(part.value, [[1, 2], [4, 5]])
    g = grad(ops.add(ops.index(m, (0, 1)), ops.index(m, (1, 1))), m)
    np.testing.assert_array_equal(g, [[0, 1, 0], [0, 1, 0]])
    g = grad(_weighted(part, np.array([[1.0, 2.0], [3.0, 4.0]])), m)
    np.testing.assert_array_equal(g, [[0, 1, 2], [0, 3, 4]])


def test_setindex_makes_a_new_value_and_splits_the_gradient():
    x = leaf(np.zeros((2, 3)))
    v = leaf(np.array([1.0, 2.0, 3.0]))
    y = ops.setindex(x, (1, slice(None)), v)
    np.testing.assert_array_equal(y.value, [[0, 0, 0], [1, 2, 3]])
    np.testing.assert_array_equal(x.value, 0)                      # x is unchanged
    w = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    gx, gv = grad(_weighted(y, w), [x, v])
    np.testing.assert_array_equal(gx, [[1, 2, 3], [0, 0, 0]])
    np.testing.assert_array_equal(gv, [4, 5, 6])


def _weighted(y, w):
    from lamina.autodiff import reductions
    return reductions.sum(ops.emul(y, w))


def test_setindex_fits_a_vector_into_a_row_or_column_region_and_rejects_others():
    x = np.zeros((2, 3))
    y = ops.setindex(x, (slice(0, 1), slice(None)), leaf(np.array([1.0, 2.0, 3.0])))
    np.testing.assert_array_equal(y.value, [[1, 2, 3], [0, 0, 0]])
    y = ops.setindex(x, (slice(None), slice(2, 3)), leaf(np.array([7.0, 8.0])))
    np.testing.assert_array_equal(y.value, [[0, 0, 7], [0, 0, 8]])
    assert "Cannot store" in shape_error(ops.setindex, x, (0, slice(None)), leaf(np.ones(2)))
    sgv = grad(_weighted(ops.setindex(x, (slice(None), slice(0, 2)), s := leaf(2.0)), np.ones((2, 3))), s)
    assert sgv == 4.0 and type(sgv) is float


def test_bracket_literals():
    a, b = leaf(1.0), leaf(2.0)
    v = ops.build_vector([a, 3.0, b])
    np.testing.assert_array_equal(v.value, [1, 3, 2])
    m = ops.build_matrix([[a, b], [3.0, 4.0]])
    np.testing.assert_array_equal(m.value, [[1, 2], [3, 4]])
    col = ops.build_matrix([[a], [b], [5.0]])
    assert col.value.shape == (3, 1)
    rows = ops.build_matrix([[leaf(np.array([1.0, 2.0])), a], [3.0, np.array([4.0, 5.0])]])
    np.testing.assert_array_equal(rows.value, [[1, 2, 1], [3, 4, 5]])
    ga, gb = grad(_weighted(m, np.array([[1.0, 2.0], [3.0, 4.0]])), [a, b])
    assert (ga, gb) == (1.0, 2.0)
    assert ops.build_vector([]).shape == (0,)


def test_matrix_literal_rows_of_different_lengths_name_the_rows():
    msg = shape_error(ops.build_matrix, [[1.0, 2.0], [3.0, 4.0, 5.0]])
    assert "row 0 has 2" in msg and "row 1 has 3" in msg


def test_untracked_inputs_record_nothing():
    before = TAPE.size()
    ops.add(np.ones(3), np.ones(3))
    ops.mul(np.ones((2, 2)), np.ones((2, 2)))
    ops.build_vector([1.0, 2.0])
    assert TAPE.size() == before


def test_stale_inputs_act_as_constants():
    w = leaf(np.array([1.0, 2.0]))
    TAPE.reset()
    out = ops.emul(w, np.array([3.0, 4.0]))
    assert type(out) is np.ndarray
    np.testing.assert_array_equal(out, [3, 8])


def test_the_seed_dense_example_adds_a_vector_bias_per_row():
    x = np.array([[1.0, 2.0], [-0.5, 1.5]])
    w, b = leaf(np.array([[0.5, -0.3], [0.2, 0.8]])), leaf(np.array([0.1, -0.1]))
    from lamina.autodiff import functions, reductions
    a = functions.maximum(ops.add(ops.mul(x, w), b), 0.0)
    np.testing.assert_allclose(a.value, [[1, 1.4], [0, 1.25]], atol=1e-12)
    p = ops.ediv(1.0, ops.add(1.0, functions.exp(ops.neg(a))))
    np.testing.assert_array_equal(np.round(p.value, 4), [[0.7311, 0.8022], [0.5, 0.7773]])
    g = grad(reductions.sum(ops.epow(p, 2.0)), w)
    np.testing.assert_array_equal(np.round(g, 4), [[0.2875, 0.12], [0.5749, 0.9128]])
