"""The any-rank tensor builtins of builtins/arrays.py (fill, ndims, permute, squeeze, unsqueeze,
cat, stack) run as Lamina programs on arrays of rank 3 and 4, against NumPy, and their errors.
Their gradients are checked by their GradCases (tests/autodiff/test_gradcheck.py)."""
import subprocess
import sys

import numpy as np
import pytest

from lamina.interpreter import Interpreter

RNG = np.random.default_rng(39)
A3 = RNG.standard_normal((2, 3, 4))
A4 = RNG.standard_normal((2, 3, 4, 5))


def _run(code: str, **arrays):
    """Run `code` with the arrays bound to their names; the value of `r`."""
    interp = Interpreter()
    for name, value in arrays.items():
        interp.namespace[f"L_{name}"] = value
    interp.run(code, "<test>")
    return interp.get("r")


def _error(code: str) -> str:
    p = subprocess.run([sys.executable, "-m", "lamina", "-e", code], capture_output=True, text=True)
    return p.stderr.splitlines()[0] if p.stderr else p.stdout


def _same(got, want):
    want = np.asarray(want)
    assert np.shape(got) == want.shape and np.asarray(got).dtype == want.dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("sizes", [(2, 3, 4), (2, 1, 3, 2)])
def test_fill_holds_its_value_everywhere(sizes):
    dims = ", ".join(map(str, sizes))
    _same(_run(f"r = fill(-2.5, {dims})"), np.full(sizes, -2.5))
    _same(_run(f"r = fill(7, [{dims}])"), np.full(sizes, 7.0))
    _same(_run(f'r = fill(0.1, {dims}, dtype = "float32")'), np.full(sizes, 0.1, dtype=np.float32))
    assert _run("r = fill(3)") == 3.0


def test_fill_takes_a_number_first():
    assert _error("print(fill([1, 2], 3))") == ("TypeError: fill's value must be a number, not a vector of length 2; "
                                                 "the sizes come after it, as in fill(0.5, 2, 3).")


def test_the_gradient_of_fill_is_the_sum_of_the_result_s():
    w = np.arange(24.0).reshape(2, 3, 4)
    assert _run("v = param(1.5)\nr = grad(sum(reshape(fill(v, 2, 3, 4) .* w, -1)), wrt = v)", w=w) == w.sum()


@pytest.mark.parametrize("value, rank", [(5.0, 0), (np.zeros(3), 1), (np.zeros((2, 3)), 2), (A3, 3), (A4, 4),
                                         (np.zeros((2, 0, 3)), 3)])
def test_ndims_is_numpy_s_ndim(value, rank):
    assert _run("r = ndims(x)", x=value) == np.ndim(value) == rank


@pytest.mark.parametrize("array, order", [(A3, [2, 0, 1]), (A3, [1, 2, 0]), (A3, [0, 1, 2]), (A3, [-1, 0, 1]),
                                          (A4, [3, 1, 0, 2]), (A4, [0, 2, 1, -1])])
def test_permute_is_numpy_s_transpose(array, order):
    got = _run(f"r = permute(x, {order})", x=array)
    _same(got, np.transpose(array, order))
    assert got.flags.c_contiguous and not np.shares_memory(got, array)


def test_permute_of_a_matrix_is_its_transpose_and_float32_stays():
    m = np.arange(6.0).reshape(2, 3)
    _same(_run("r = permute(m, [1, 0])", m=m), m.T)
    _same(_run("r = permute(x, [2, 0, 1])", x=A3.astype(np.float32)), np.transpose(A3.astype(np.float32), (2, 0, 1)))


@pytest.mark.parametrize("order, message", [
    ("[0, 0, 1]", "ShapeError: permute needs each axis of a 2x3x4 array exactly once, but [0, 0, 1] names "
                  "axis 0 twice and leaves out axis 2."),
    ("[1, 0]", "ShapeError: permute of a 2x3x4 array needs 3 axes, one for each, but [1, 0] has 2."),
    ("[0, 1, 3]", "ValueError: permute of a 2x3x4 array: axis 3 is out of range for a tensor of rank 3 (the "
                  "axes are axes 0 to 2, or -3 to -1)."),
    ("[0, 1.5, 2]", "TypeError: permute's order must be a whole number, not 1.5.")])
def test_a_wrong_permutation_is_a_clear_error(order, message):
    assert _error(f"print(permute(zeros(2, 3, 4), {order}))") == message


@pytest.mark.parametrize("shape, axis", [((2, 1, 4), None), ((1, 3, 1, 2), None), ((1, 3, 1, 2), 2),
                                         ((1, 3, 1, 2), -2), ((2, 1, 3, 1), [1, 3]), ((1, 1, 1), None)])
def test_squeeze_is_numpy_s(shape, axis):
    x = RNG.standard_normal(shape)
    keyword = "" if axis is None else f", axis = {axis}"
    got = _run(f"r = squeeze(x{keyword})", x=x)
    want = np.squeeze(x, axis=None if axis is None else tuple(np.atleast_1d(axis)))
    if want.ndim == 0:
        assert got == float(want) and type(got) is float      # all axes of length 1: a number
    else:
        _same(got, want)


def test_squeeze_refuses_an_axis_longer_than_1():
    assert _error("print(squeeze(zeros(2, 1, 4), axis = 2))") == (
        "ShapeError: squeeze removes axes of length 1, but axis 2 of a 2x1x4 array has length 4.")


@pytest.mark.parametrize("array, k", [(A3, 0), (A3, 1), (A3, 3), (A3, -1), (A3, -4), (np.arange(3.0), 0),
                                      (np.arange(3.0), 1), (A4, 2)])
def test_unsqueeze_is_numpy_s_expand_dims(array, k):
    _same(_run(f"r = unsqueeze(x, {k})", x=array), np.expand_dims(array, k))


def test_unsqueeze_of_a_number_is_a_vector_and_a_far_position_an_error():
    _same(_run("r = unsqueeze(2, 0)"), np.array([2.0]))
    assert _error("print(unsqueeze(zeros(2, 3, 4), 4))") == (
        "ValueError: unsqueeze: axis 4 is out of range for a tensor of rank 3 (a new axis can go axes 0 to 3, "
        "or -4 to -1).")


@pytest.mark.parametrize("shapes, axis", [([(2, 3, 4), (2, 1, 4), (2, 2, 4)], 1), ([(2, 3, 4), (5, 3, 4)], 0),
                                          ([(2, 3, 4, 2), (2, 3, 4, 3)], -1), ([(2, 3, 4, 5)] * 3, 2)])
def test_cat_is_numpy_s_concatenate(shapes, axis):
    xs = {f"x{i}": RNG.standard_normal(s) for i, s in enumerate(shapes)}
    names = ", ".join(xs)
    want = np.concatenate(list(xs.values()), axis=axis)
    _same(_run(f"r = cat({names}, axis = {axis})", **xs), want)
    _same(_run(f"r = cat([{names}], axis = {axis})", **xs), want)


def test_cat_joins_along_axis_0_by_default_and_keeps_float32():
    a, b = A3.astype(np.float32), A3[:1].astype(np.float32)
    _same(_run("r = cat(a, b)", a=a, b=b), np.concatenate([a, b]))
    _same(_run("r = cat(a, b)", a=A3, b=b), np.concatenate([A3, b]))        # float64 with float32: float64


@pytest.mark.parametrize("code, message", [
    ("cat(zeros(2, 3, 4), zeros(2, 3), axis = 0)",
     "ShapeError: cat joins tensors of one rank, but piece 0 is a 2x3x4 array and piece 1 a 2x3 matrix; give "
     "it its axes with reshape or unsqueeze."),
    ("cat(zeros(2, 3, 4), zeros(2, 5, 5), axis = 1)",
     "ShapeError: cat along axis 1 needs the other sizes to agree, but piece 0 is a 2x3x4 array and piece 1 a "
     "2x5x5 array."),
    ("cat(1, 2)", "ShapeError: cat joins tensors along an axis they have, and a number has none: "
                  "stack(a, b, ...) makes numbers a vector."),
    ("cat(zeros(2, 3, 4), zeros(2, 3, 4), axis = 3)",
     "ValueError: cat: axis 3 is out of range for a tensor of rank 3 (the axes are axes 0 to 2, or -3 to -1).")])
def test_a_wrong_cat_is_a_clear_error(code, message):
    assert _error(f"print({code})") == message


@pytest.mark.parametrize("shape, count, axis", [((2, 3, 4), 2, 0), ((2, 3, 4), 3, 3), ((2, 3, 4), 2, -1),
                                                ((2, 3, 4), 2, 2), ((3, 4), 5, 1), ((2, 2, 2, 2), 2, -3)])
def test_stack_is_numpy_s(shape, count, axis):
    xs = {f"x{i}": RNG.standard_normal(shape) for i in range(count)}
    names = ", ".join(xs)
    want = np.stack(list(xs.values()), axis=axis)
    _same(_run(f"r = stack([{names}], axis = {axis})", **xs), want)
    _same(_run(f"r = stack({names}, axis = {axis})", **xs), want)


def test_stack_of_numbers_is_a_vector_and_of_unequal_shapes_an_error():
    _same(_run("r = stack([1, 2], [3, 4], [5, 6])"), np.array([[1.0, 2], [3, 4], [5, 6]]))
    _same(_run("l = [1.5, 2.5]\nr = stack(1, 2, 3)"), np.array([1.0, 2, 3]))
    assert _error("print(stack(zeros(2, 3, 4), zeros(2, 4, 3)))") == (
        "ShapeError: stack needs pieces of one shape, but piece 0 is a 2x3x4 array and piece 1 a 2x4x3 array.")


def test_a_batch_built_by_stack_unstacks_by_indexing():
    ms = [RNG.standard_normal((3, 4)) for _ in range(2)]
    got = _run("b = stack([m0, m1])\nr = b[1, :, :]", m0=ms[0], m1=ms[1])
    _same(got, ms[1])
