"""The math builtins autodiff/functions.py computes: round with many digits, the axis of a
number's reduction, masks beside float32 tensors in max, min, mod and clamp."""
import numpy as np
import pytest
from builtin_checks import error, fresh_tape  # noqa: F401  (fresh_tape: autouse)

import lamina.builtins.mathfns as M
from lamina.autodiff.tape import TAPE

INF, NAN = np.inf, np.nan


@pytest.mark.parametrize("x, digits, want", [
    (1e300, 300, 1e300), (1.5, 400, 1.5), (0.125, 309, 0.125), (-2.5, 330, -2.5),
    (1e300, -400, 0.0), (-1e300, -310, -0.0), (123.0, -309, 0.0), (INF, 400, INF), (-INF, -400, -INF),
])
def test_round_with_more_digits_than_the_scale_can_hold_matches_python(x, digits, want):
    out = M.round_(x, digits)
    assert out == round(x, digits) == want
    assert np.copysign(1.0, out) == np.copysign(1.0, want)


def test_round_of_tensors_with_many_digits_keeps_the_numbers_and_the_dtype():
    v = np.array([1e300, 0.125, -2.5, INF, -INF, NAN, 0.0])
    np.testing.assert_array_equal(M.round_(v, 310), v)
    np.testing.assert_array_equal(M.round_(v, -310), [0.0, 0.0, -0.0, INF, -INF, NAN, 0.0])
    f = np.array([3e38, 0.125, -2.5], dtype=np.float32)
    out = M.round_(f, 39)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, f)
    np.testing.assert_array_equal(M.round_(f, -39), [0.0, 0.0, 0.0])
    # NumPy's rounding is kept where it works: halves to even, a tracked value becomes plain
    np.testing.assert_array_equal(M.round_(np.array([0.5, 1.5, 2.5])), [0.0, 2.0, 2.0])
    assert M.round_(TAPE.leaf(1234.5, True), -2) == 1200.0


@pytest.mark.parametrize("fn, name", [(M.sum_, "sum"), (M.mean, "mean"), (M.prod, "prod"),
                                      (M.max_, "max"), (M.min_, "min")])
def test_a_number_takes_axis_0_only_as_a_vector_does(fn, name):
    assert error("ValueError", fn, 3.0, axis=1) == f"{name} of a number takes axis 0, not 1."
    assert error("ValueError", fn, TAPE.leaf(3.0, True), axis=-1) == f"{name} of a number takes axis 0, not -1."
    assert fn(3.0, axis=0) == 3.0


def test_a_mask_beside_a_float32_tensor_stays_float32_as_in_the_operators():
    f = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    m = np.array([True, False, True])
    for out, want in [(M.max_(f, m), [1.0, 2.0, 3.0]), (M.min_(m, f), [1.0, 0.0, 1.0]),
                      (M.mod(f, m), [0.0, NAN, 0.0]), (M.clamp(f, m, 2.5), [1.0, 2.0, 2.5]),
                      (M.clamp(m, 0.5, f), [1.0, 0.5, 1.0])]:
        assert out.dtype == np.float32
        np.testing.assert_array_equal(out, want)
    # beside float64 (or a number) a mask is float64, as before
    assert M.max_(m, 0.5).dtype == np.float64 and M.mod(m, np.array([2.0, 2.0, 2.0])).dtype == np.float64
