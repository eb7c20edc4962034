"""Math and Tensors builtins: values against NumPy, argument errors, tracked vs plain results."""
import contextlib
import io
import math

import numpy as np
import pytest
from builtin_checks import error, fresh_tape  # noqa: F401  (fresh_tape: autouse)

import lamina.builtins.linalg as L
import lamina.builtins.logic as Lg
import lamina.builtins.mathfns as M
import lamina.builtins.tensors as T
from lamina.autodiff import ops
from lamina.autodiff.grad import grad
from lamina.autodiff.tape import TAPE
from lamina.builtins.registry import load_all
from lamina.values import Tracked

A = np.array([[1.0, -2.0, 3.0], [4.0, 0.5, -6.0]])
V = np.array([3.0, -1.0, 2.0, 0.25])


def leaf(x):
    return TAPE.leaf(x, True)


# -- elementwise math ----------------------------------------------------------
@pytest.mark.parametrize("fn, ref, x", [
    (M.exp, np.exp, A), (M.log, np.log, np.abs(A)), (M.sqrt, np.sqrt, np.abs(V)), (M.abs_, np.abs, A),
    (M.floor, np.floor, A), (M.ceil, np.ceil, V), (M.sign, np.sign, A),
])
def test_elementwise_functions_match_numpy(fn, ref, x):
    np.testing.assert_array_equal(fn(x), ref(x))
    for s in (x.flat[0], x.flat[1]):
        out = fn(float(s))
        assert type(out) is float and out == ref(s)


def test_ieee_edge_values():
    assert M.log(0.0) == -math.inf and math.isnan(M.log(-1.0))
    assert math.isnan(M.sqrt(-4.0)) and M.exp(1000.0) == math.inf
    assert M.abs_(-0.0) == 0.0 and math.copysign(1.0, M.abs_(-0.0)) == 1.0


def test_integers_are_accepted_as_numbers():
    assert M.exp(0) == 1.0 and type(M.sqrt(4)) is float


def test_bad_arguments_are_lamina_type_errors():
    assert error("TypeError", M.exp, "x") == "exp's argument must be a number or tensor, not a string."
    error("TypeError", M.sum_, [1.0, 2.0])
    error("TypeError", M.log, True)
    error("TypeError", T.zeros, "3")
    error("TypeError", T.zeros, 2.5)
    error("ValueError", T.ones, -1)
    error("TypeError", M.round_, 1.5, 0.5)


# -- reductions ----------------------------------------------------------------
@pytest.mark.parametrize("fn, ref", [(M.sum_, np.sum), (M.mean, np.mean), (M.prod, np.prod),
                                     (M.max_, np.max), (M.min_, np.min)])
def test_reductions_over_everything_and_along_axes(fn, ref):
    full = fn(A)
    assert type(full) is float and full == pytest.approx(ref(A), rel=1e-15)
    assert fn(V) == pytest.approx(ref(V), rel=1e-15)
    # along an axis the result keeps its orientation: a 1 x n row, an m x 1 column
    assert fn(A, axis=0).shape == (1, 3) and fn(A, axis=1).shape == (2, 1)
    np.testing.assert_allclose(fn(A, axis=0), ref(A, axis=0, keepdims=True), rtol=1e-15)
    np.testing.assert_allclose(fn(A, axis=1), ref(A, axis=1, keepdims=True), rtol=1e-15)
    assert fn(V, axis=0) == pytest.approx(ref(V))
    assert fn(2.5) == 2.5
    assert "axis 0 (down the rows) or 1" in error("ValueError", fn, A, axis=2)
    error("ValueError", fn, V, axis=1)


def test_sum_and_mean_take_the_axis_positionally_too():
    np.testing.assert_array_equal(M.sum_(A, 0), A.sum(axis=0, keepdims=True))
    np.testing.assert_array_equal(M.mean(A, 1.0), A.mean(axis=1, keepdims=True))


def test_sum_gradient_by_axis():
    x = leaf(A.copy())
    w = np.array([[1.0], [10.0]])
    g = grad(M.sum_(ops.emul(M.sum_(x, axis=1), w)), x)
    np.testing.assert_array_equal(g, [[1, 1, 1], [10, 10, 10]])
    w = np.array([[1.0, 10.0, 100.0]])
    g = grad(M.sum_(ops.emul(M.mean(x, 0), w)), x)
    np.testing.assert_array_equal(g, [[0.5, 5, 50], [0.5, 5, 50]])


def test_min_max_of_two_operands_are_elementwise_with_broadcasting():
    np.testing.assert_array_equal(M.max_(V, 0.0), np.maximum(V, 0))
    np.testing.assert_array_equal(M.min_(A, np.array([0.0, 1.0])), np.minimum(A, [[0.0], [1.0]]))
    assert M.max_(2.0, 3.0) == 3.0 and math.isnan(M.max_(math.nan, 1.0))
    error("ShapeError", M.max_, A, np.zeros(3))
    assert "no axis" in error("TypeError", M.max_, A, A, axis=0)
    a, b = leaf(np.array([1.0, 5.0])), leaf(np.array([3.0, 2.0]))
    ga, gb = grad(M.sum_(M.max_(a, b)), [a, b])
    np.testing.assert_array_equal(ga, [0, 1])
    np.testing.assert_array_equal(gb, [1, 0])


def test_max_gradient_goes_to_the_first_largest_element():
    x = leaf(np.array([[1.0, 7.0], [7.0, 2.0]]))
    np.testing.assert_array_equal(grad(M.max_(x), x), [[0, 1], [0, 0]])
    np.testing.assert_array_equal(grad(M.sum_(M.max_(x, axis=0)), x), [[0, 1], [1, 0]])
    assert "empty" in error("ValueError", M.max_, np.zeros(0))


def test_prod_gradient_with_zeros_is_exact():
    x = leaf(np.array([2.0, 0.0, 3.0, 4.0]))
    np.testing.assert_array_equal(grad(M.prod(x), x), [0.0, 24.0, 0.0, 0.0])


def test_any_all():
    assert Lg.any_(np.array([0.0, 0.0, 1.0])) is True and Lg.any_(np.zeros(3)) is False
    assert Lg.all_(np.ones(2)) is True and Lg.all_(np.array([1.0, 0.0])) is False
    assert Lg.all_(np.zeros(0)) is True and Lg.any_(True) is True


# -- not differentiable: plain results -----------------------------------------
def test_round_uses_numpy_rounding_and_passes_no_gradient():
    assert M.round_(2.5) == 2.0 and M.round_(3.5) == 4.0 and M.round_(-0.5) == 0.0
    assert M.round_(3.14159, 2) == 3.14 and M.round_(1234.5, -2) == 1200.0
    np.testing.assert_array_equal(M.round_(np.array([0.123456, 9.87654]), digits=3), [0.123, 9.877])
    tracked = leaf(np.array([1.26, 2.0]))
    out = M.round_(tracked, 1)
    assert type(out) is np.ndarray and TAPE.size() == 1
    for fn in (M.floor, M.ceil, M.sign):
        assert type(fn(tracked)) is np.ndarray
    assert type(T.argmax(tracked)) is float


# -- constructors and shape ----------------------------------------------------
def test_constructors():
    np.testing.assert_array_equal(T.zeros(3), np.zeros(3))
    np.testing.assert_array_equal(T.ones(2, 3), np.ones((2, 3)))
    np.testing.assert_array_equal(T.eye(3), np.eye(3))
    assert T.zeros(0).shape == (0,)
    np.testing.assert_array_equal(T.range_(4), [0, 1, 2, 3])
    np.testing.assert_array_equal(T.range_(2, 5), [2, 3, 4])
    np.testing.assert_array_equal(T.range_(1, 0, -0.25), [1, 0.75, 0.5, 0.25])
    assert T.range_(3, 1).shape == (0,)
    assert "nonzero step" in error("ValueError", T.range_, 0, 5, 0)
    np.testing.assert_array_equal(T.linspace(0, 1, 5), np.linspace(0, 1, 5))
    for out in (T.zeros(2, 2), T.range_(3), T.linspace(0, 1, 3), T.eye(2)):
        assert out.dtype == np.float64


def test_size():
    np.testing.assert_array_equal(T.size(A), [2, 3])
    np.testing.assert_array_equal(T.size(V), [4])
    assert T.size(A, 1) == 3.0 and type(T.size(A, 0)) is float
    assert T.size(5.0).shape == (0,)
    error("ValueError", T.size, V, 1)


def test_reshape_is_row_major_and_keeps_the_count():
    np.testing.assert_array_equal(T.reshape(np.arange(6.0), 2, 3), np.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(T.reshape(A, 6), A.reshape(-1))
    assert "has 6, but a 4x2 matrix holds 8" in error("ShapeError", T.reshape, A, 4, 2)


def test_hcat_vcat():
    u, v = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    np.testing.assert_array_equal(T.hcat(u, v), [[1, 3], [2, 4]])
    np.testing.assert_array_equal(T.hcat([u, v]), [[1, 3], [2, 4]])          # a list of pieces
    np.testing.assert_array_equal(T.vcat(u, v), [1, 2, 3, 4])
    np.testing.assert_array_equal(T.vcat(u, 5.0), [1, 2, 5])
    m = np.array([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(T.vcat(m, u[None, :]), [[1, 2], [3, 4], [1, 2]])
    np.testing.assert_array_equal(T.hcat(m, u), [[1, 2, 1], [3, 4, 2]])
    assert "a vector counts as a column" in error("ShapeError", T.hcat, m, np.ones(3))
    assert "v'" in error("ShapeError", T.vcat, m, np.ones(3))
    error("ValueError", T.hcat)


def test_dot():
    assert L.dot(V, V) == float(V @ V) and type(L.dot(V, V)) is float
    assert L.dot(A, A) == float((A * A).sum())
    assert "vector of length 4 and a vector of length 3" in error("ShapeError", L.dot, V, V[:3])


def test_solve():
    a = np.array([[4.0, 1.0], [2.0, 3.0]])
    np.testing.assert_allclose(L.solve(a, np.array([11.0, 13.0])), [2.0, 3.0])
    rhs = np.array([[1.0, 0.0], [0.0, 1.0]])
    np.testing.assert_allclose(L.solve(a, rhs), np.linalg.inv(a))
    assert "singular" in error("ValueError", L.solve, np.ones((2, 2)), np.ones(2))
    error("ShapeError", L.solve, np.ones((2, 3)), np.ones(3))     # b needs A's row count
    error("ShapeError", L.solve, np.ones(3), np.ones(3))          # (a non-square A is least squares)
    error("ShapeError", L.solve, a, np.ones(3))


def test_argmax_argmin():
    assert T.argmax(V) == 0.0 and T.argmin(V) == 1.0
    assert T.argmax(A) == 3.0 and T.argmin(A) == 5.0             # row-major flat index
    np.testing.assert_array_equal(T.argmax(A, axis=0), [[1, 1, 0]])
    np.testing.assert_array_equal(T.argmin(A, axis=1), [[1], [2]])
    assert T.argmax(A, axis=1).dtype == np.float64
    assert T.argmax(np.array([2.0, 2.0])) == 0.0
    error("ValueError", T.argmax, np.zeros(0))


def test_tracked_inputs_give_tracked_results_with_the_same_value():
    x = leaf(A.copy())
    for fn in (M.exp, M.abs_, M.sum_, M.mean, M.max_, T.transpose):
        out = fn(x)
        assert type(out) is Tracked
        np.testing.assert_array_equal(out.value, fn(A))


# -- every example of these builtins runs -------------------------------------
OURS = sorted(name for name, spec in load_all().items()
              if spec.fn.__module__ in (M.__name__, T.__name__) or name in
              ("param", "track", "grad", "tape_size", "tape_limit"))


@pytest.mark.parametrize("name", OURS)
def test_examples_run_and_print(name):
    from lamina.interpreter import Interpreter
    for example in load_all()[name].examples:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            Interpreter().run(example, f"<{name} example>")
        assert out.getvalue().strip()
        TAPE.reset()


def test_some_examples_print_exactly():
    from lamina.interpreter import Interpreter

    def run(src):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            Interpreter().run(src, "<test>")
        return out.getvalue().splitlines()
    assert run(load_all()["sum"].examples[0]) == ["8 [3, 5;] [4; 4]", "[0.25, 0.75; 0.5, 0.5] 3"]
    assert run(load_all()["grad"].examples[1]) == ["[-2, -3] -1"]
    assert run(load_all()["grad"].examples[2]) == ["[4, 0]"]
    assert run(load_all()["solve"].examples[0]) == ["[2, 3] [11, 13]"]
    assert run(load_all()["tape_size"].examples[0]) == ["3", "0"]
