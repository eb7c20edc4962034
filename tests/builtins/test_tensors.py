"""The tensor builtins builtins/tensors.py computes: range never reaches its stop, though
NumPy's arange can (its count is a rounded quotient); contains, skipnan extremes, joining pieces
and the dtype of construction calls."""
import subprocess
import sys

import numpy as np
import pytest

from lamina.interpreter import Interpreter


def _range(*args):
    interp = Interpreter()
    interp.run(f"r = range({', '.join(map(repr, args))})", "<test>")
    return interp.get("r")


@pytest.mark.parametrize("start, stop, step", [(1, 1.3, 0.1), (1.3, 1, -0.1), (0, 0.3, 0.1), (0, 1, 0.1),
                                               (0.1, 0.7, 0.2), (-1, 1, 0.2), (5, 0, -0.7)])
def test_range_stays_below_its_stop(start, stop, step):
    out = _range(start, stop, step)
    expected = np.array([x for i in range(100) if (x := start + i * step) < stop - 1e-9 * step] if step > 0
                        else [x for i in range(100) if (x := start + i * step) > stop - 1e-9 * step])
    assert np.all(out < stop) if step > 0 else np.all(out > stop)
    np.testing.assert_allclose(out, expected, rtol=0, atol=1e-12)
    assert len(out) == len(expected)


def test_arange_itself_overshoots_so_the_test_above_can_fail():
    assert np.arange(1, 1.3, 0.1)[-1] > 1.3


@pytest.mark.parametrize("code, expected", [
    ("contains([1, 2], 2)", True), ("contains([1, 2; 3, 4], 4)", True), ("contains([1, 2], 5)", False),
    ("contains([1, 0 / 0], 0 / 0)", False), ('contains([1, 2], "a")', False), ("contains([1, 2] > 1, true)", True),
    ("contains(param([1, 2]), 1)", True), ("contains([1, 2], param(2))", True), ("contains(zeros(0), 0)", False),
    ("contains(float32([0.1, 0.2]), 0.2)", True)])
def test_contains_looks_for_an_element_of_a_tensor(code, expected):
    interp = Interpreter()
    interp.run(f"r = {code}", "<test>")
    assert interp.get("r") is expected


@pytest.mark.parametrize("code, expected", [
    ("argmax([0 / 0, -Inf, -Inf], skipnan = true)", 1.0), ("argmin([0 / 0, Inf], skipnan = true)", 1.0),
    ("argmax([4, 0 / 0, 8, 8], skipnan = true)", 2.0), ("argmin([0 / 0, 3, 1, 1], skipnan = true)", 2.0),
    ('best(table({a = [0 / 0, Inf, 2]}), "a", largest = true).a', np.inf),
    ('best(table({a = [0 / 0, -Inf]}), "a").a', -np.inf)])
def test_skipnan_never_picks_a_nan_before_an_infinity(code, expected):
    # NumPy's nanargmax reads a NaN as -Inf, so it picks index 0 in the first case
    assert np.nanargmax([np.nan, -np.inf, -np.inf]) == 0
    interp = Interpreter()
    interp.run(f"r = {code}", "<test>")
    assert interp.get("r") == expected


def test_skipnan_argmax_along_an_axis():
    interp = Interpreter()
    interp.run("r = argmax([1, 5, 0 / 0; 0 / 0, 2, -Inf], axis = 0, skipnan = true)", "<test>")
    np.testing.assert_array_equal(interp.get("r"), [[0, 0, 1]])


def test_a_mask_joined_to_a_float32_tensor_stays_float32():
    # masks adapt to the tensor they meet (docs/language.md), as in f + m
    interp = Interpreter()
    interp.run("m = [1, 0] > 0\nf = float32([1, 2])\na = hcat(f, m)\nb = vcat(m, f)\nc = vcat(m, m)\n"
               "d = hcat([1, 2], m)\ne = f + m", "<test>")
    assert [interp.get(k).dtype for k in "abcde"] == [np.float32, np.float32, np.float64, np.float64, np.float32]
    np.testing.assert_array_equal(interp.get("b"), [1, 0, 1, 2])


def test_joining_n_pieces_reads_their_dtypes_once(monkeypatch):
    # tensor_dtype(*values) per piece made hcat(list) and vcat(list) quadratic (80,000 pieces: minutes)
    from lamina.autodiff import shaping
    calls = []
    real = shaping.tensor_dtype
    monkeypatch.setattr(shaping, "tensor_dtype", lambda *v: calls.append(len(v)) or real(*v))
    pieces = [np.array([float(i), i + 1.0]) for i in range(100)]
    assert shaping.hcat(pieces).shape == (2, 100) and calls == [100]
    calls.clear()
    assert shaping.vcat([p.reshape(1, 2) for p in pieces]).shape == (100, 2) and calls == [100]


def run(code: str) -> str:
    p = subprocess.run([sys.executable, "-m", "lamina", "-e", code], capture_output=True, text=True)
    return p.stdout + p.stderr


def test_extra_positional_size_is_not_read_as_a_dtype():
    # eye(2, 3) used to say "eye's dtype must be ... not a float": the 3 was taken as the dtype
    out = run("print(eye(2, 3))")
    assert out.startswith("TypeError: 'eye' takes ")
    assert "dtype must be" not in out


@pytest.mark.parametrize("name", ["zeros", "ones"])
def test_a_dtype_written_as_a_size_is_a_size(name):
    # zeros and ones take any number of sizes (issue 39): a third is a size, never the dtype
    out = run(f'print(size({name}(3, 2, 1)))\nprint({name}(2, 2, "float32"))')
    assert out.startswith("[3, 2, 1]\nTypeError: The size of axis 2 given to "
                          f"{name} must be a number, not a string.")


def test_dtype_keyword_still_works():
    assert run('print(dtype(eye(2, dtype = "float32")), dtype(zeros(2, 2, dtype = "float32")), '
               'dtype(ones(2, dtype = "float32")))').strip() == "float32 float32 float32"


@pytest.mark.parametrize("call, shape", [("max(zeros(0, 3), axis = 1)", "[0, 1]"),
                                         ("min(zeros(3, 0), axis = 0)", "[1, 0]"),
                                         ("argmax(zeros(0, 3), axis = 1)", "[0, 1]"),
                                         ("argmin(zeros(3, 0), axis = 0)", "[1, 0]")])
def test_extreme_along_a_nonempty_axis_of_an_empty_matrix_is_empty(call, shape):
    # NumPy: np.max(np.zeros((0, 3)), axis=1, keepdims=True).shape == (0, 1); Lamina used to raise
    assert run(f"print(size({call}))").strip() == shape


@pytest.mark.parametrize("call, msg", [("max(zeros(0, 3), axis = 0)", "max of an empty 0x3 is undefined."),
                                       ("argmin(zeros(3, 0), axis = 1)", "argmin of an empty 3x0 is undefined.")])
def test_extreme_along_an_empty_axis_is_still_an_error(call, msg):
    assert run(f"print({call})").startswith(f"ValueError: {msg}")


# -- any rank (issue 39): constructors, size and reshape against NumPy ----------------------------
def _get(code: str, *names):
    interp = Interpreter()
    interp.run(code, "<test>")
    values = [interp.get(n) for n in names]
    return values[0] if len(values) == 1 else values


@pytest.mark.parametrize("shape", [(2, 3, 4), (2, 1, 3, 2), (0, 2, 3)])
def test_zeros_ones_and_fill_of_any_rank(shape):
    dims = ", ".join(map(str, shape))
    z, o, zv, f32 = _get(f"z = zeros({dims})\no = ones({dims})\nzv = zeros([{dims}])\n"
                         f'f = ones({dims}, dtype = "float32")', "z", "o", "zv", "f")
    for got, want in [(z, np.zeros(shape)), (o, np.ones(shape)), (zv, np.zeros(shape))]:
        assert got.dtype == np.float64 and got.shape == shape
        np.testing.assert_array_equal(got, want)
    assert f32.dtype == np.float32 and f32.shape == shape


def test_a_constructor_takes_the_shape_size_gives():
    a, b, c, n = _get("a = zeros(size(ones(2, 3, 4, 5)))\nb = rand(size(a))\nc = randn(size(b))\n"
                      "n = zeros(size(5))", "a", "b", "c", "n")
    assert a.shape == b.shape == c.shape == (2, 3, 4, 5)
    assert n == 0.0 and type(n) is float             # the shape of a number is []: a number


@pytest.mark.parametrize("name, draw", [("rand", "random"), ("randn", "standard_normal")])
def test_draws_of_any_rank_are_the_generator_s_draws_in_row_major_order(name, draw):
    r, r32 = _get(f"seed(7)\nr = {name}(2, 3, 4)\nseed(7)\ns = {name}(2, 3, 4, dtype = \"float32\")",
                  "r", "s")
    want = getattr(np.random.default_rng(7), draw)((2, 3, 4))
    np.testing.assert_array_equal(r, want)
    assert r32.dtype == np.float32
    np.testing.assert_array_equal(r32, want.astype(np.float32) if name == "randn"
                                  else np.minimum(want.astype(np.float32), np.nextafter(np.float32(1), 0)))


@pytest.mark.parametrize("code, message", [
    ("zeros(2, 3, -1)", "ValueError: The size of axis 2 given to zeros must be at least 0, not -1."),
    ("ones(2, 3, 1.5)", "TypeError: The size of axis 2 given to ones must be a whole number, not 1.5."),
    ("zeros([2, 1.5])", "TypeError: The column count given to zeros must be a whole number, not 1.5."),
    ("zeros([2, 3; 4, 5])", "TypeError: The sizes given to zeros must be numbers or one vector of them, not a 2x2 matrix."),
    ('rand(2, 3, 4, dtype = "int8")', 'ValueError: rand\'s dtype must be "float64" or "float32", not "int8".'),
    ("randn(2, -3, 4)", "ValueError: randn's size of axis 1 must be at least 0, not -3.")])
def test_a_bad_size_names_its_axis(code, message):
    assert run(f"print({code})").startswith(message)


@pytest.mark.parametrize("shape", [(2, 3, 4), (2, 3, 4, 5), (7,), (3, 2)])
def test_size_and_ndims_of_any_rank(shape):
    a = np.arange(float(np.prod(shape))).reshape(shape)
    interp = Interpreter()
    interp.namespace["L_a"] = a
    interp.run("s = size(a)\nlast = size(a, -1)\nfirst = size(a, 0)\nn = ndims(a)", "<test>")
    np.testing.assert_array_equal(interp.get("s"), np.array(a.shape, dtype=float))
    assert interp.get("last") == a.shape[-1] and interp.get("first") == a.shape[0]
    assert interp.get("n") == a.ndim


def test_size_of_an_axis_that_does_not_exist():
    assert run("print(size(zeros(2, 3, 4), 3))").startswith(
        "ValueError: size: axis 3 does not exist for a 2x3x4 array (its axes are 0 to 2, or -3 to -1).")
    assert run("print(size(zeros(2, 3, 4), -4))").startswith("ValueError: size: axis -4 does not exist")


@pytest.mark.parametrize("sizes, shape", [("2, 3, 4", (2, 3, 4)), ("[2, 3, 4]", (2, 3, 4)),
                                          ("2, -1, 4", (2, 3, 4)), ("-1, 2, 2, 3", (2, 2, 2, 3)),
                                          ("4, 6", (4, 6)), ("-1", (24,)), ("[3, -1]", (3, 8))])
def test_reshape_to_any_rank_is_numpy_s_row_major_reshape(sizes, shape):
    got = _get(f"r = reshape(reshape(range(24), 2, 12), {sizes})", "r")
    np.testing.assert_array_equal(got, np.arange(24.0).reshape(shape))
    assert got.shape == shape


@pytest.mark.parametrize("code, message", [
    ("reshape(zeros(2, 3, 4), 5, 5)",
     "ShapeError: reshape keeps every element: a 2x3x4 array has 24, but a 5x5 matrix holds 25."),
    ("reshape(zeros(2, 3, 4), 2, 2, 2, 2)",
     "ShapeError: reshape keeps every element: a 2x3x4 array has 24, but a 2x2x2x2 array holds 16."),
    ("reshape(zeros(2, 3, 4), 5, -1)",
     "ShapeError: reshape keeps every element: a 2x3x4 array has 24, which no shape (5, -1) holds "
     "(24 is not a multiple of 5)."),
    ("reshape(zeros(2, 3, 4), -1, 2, -1)",
     "ShapeError: reshape of a 2x3x4 array to (-1, 2, -1): only one size may be -1 (the one inferred "
     "from the element count)."),
    ("reshape(zeros(2, 3, 4), 2, -2, 4)",
     "ValueError: The size of axis 1 given to reshape must be at least -1, not -2."),
    ("reshape(zeros(2, 3))", "TypeError: reshape needs the new shape")])
def test_a_wrong_reshape_names_both_shapes(code, message):
    assert run(f"print({code})").startswith(message)


def test_reshape_to_the_empty_shape_is_a_number():
    r = _get("r = reshape([5], size(1))", "r")
    assert r == 5.0 and type(r) is float
