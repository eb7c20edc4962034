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


@pytest.mark.parametrize("code, name", [("print(eye(2, 3))", "eye"), ("print(zeros(3, 2, 1))", "zeros"),
                                        ("print(ones(3, 2, 1))", "ones")])
def test_extra_positional_size_is_not_read_as_a_dtype(code, name):
    # eye(2, 3) used to say "eye's dtype must be ... not a float": the 3 was taken as the dtype
    out = run(code)
    assert out.startswith(f"TypeError: '{name}' takes ")
    assert "dtype must be" not in out


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
