"""mod, clamp, the log family, the NaN/Inf tests, diff, cumprod, reverse, argsort and sort by a
key: values against NumPy and Python's sorted, and argument errors."""
import math

import numpy as np
import pytest
from builtin_checks import error, fresh_tape  # noqa: F401  (fresh_tape: autouse)

import lamina.builtins.logic as Lg
import lamina.builtins.mathfns as M
import lamina.builtins.sequences as Q
import lamina.builtins.stats as St
from lamina.autodiff import ops
from lamina.autodiff.grad import grad
from lamina.autodiff.tape import TAPE
from lamina.values import Record, Tracked


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


# -- elementwise ---------------------------------------------------------------
def test_mod_is_floored_like_numpy_with_the_language_broadcasting(rng):
    a, b = rng.uniform(-10, 10, (4, 3)), rng.uniform(-3, 3, (4, 3))
    np.testing.assert_array_equal(M.mod(a, b), np.mod(a, b))
    np.testing.assert_array_equal(M.mod(a, 2.5), np.mod(a, 2.5))
    col = rng.uniform(0.5, 3, 4)                     # a vector acts as a column of the matrix
    np.testing.assert_array_equal(M.mod(a, col), np.mod(a, col[:, None]))
    for x, y in [(7.0, 3.0), (-7.0, 3.0), (7.0, -3.0), (-7.5, -2.0), (5.3, 2.0), (-0.1, 1.0), (5.0, math.inf),
                 (-5.0, math.inf), (0.0, 3.0)]:
        out = M.mod(x, y)
        assert type(out) is float and out == np.mod(x, y) == x % y
    assert math.isnan(M.mod(5.0, 0.0)) and math.isnan(M.mod(math.inf, 2.0)) and math.isnan(M.mod(math.nan, 2.0))
    assert np.isnan(M.mod(np.array([1.0, 2.0]), 0.0)).all()


def test_mod_gradients_are_one_and_minus_the_floored_quotient(rng):
    a, b = TAPE.leaf(rng.uniform(-9, 9, 5), True), TAPE.leaf(2.5, True)
    ga, gb = grad(M.sum_(M.mod(a, b)), [a, b])
    np.testing.assert_array_equal(ga, np.ones(5))
    assert gb == -np.floor(a.value / 2.5).sum()


@pytest.mark.parametrize("fn, ref", [(M.log10, np.log10), (M.log2, np.log2), (M.log1p, np.log1p),
                                     (M.expm1, np.expm1)])
def test_log_family_matches_numpy_including_edges(fn, ref, rng):
    x = np.concatenate([rng.uniform(-0.9, 5, 20), [0.0, -1.0, -2.0, 1e-300, 1e308, math.inf, -math.inf, math.nan]])
    np.testing.assert_array_equal(fn(x), ref(x))
    for s in x:
        out = fn(float(s))
        assert type(out) is float and (out == ref(s) or (math.isnan(out) and math.isnan(ref(s))))


def test_log1p_and_expm1_keep_the_digits_of_tiny_arguments():
    assert M.log1p(1e-15) == pytest.approx(1e-15, rel=1e-15)
    assert M.expm1(1e-15) == pytest.approx(1e-15, rel=1e-15)


def test_clamp_matches_numpy_clip_and_broadcasts(rng):
    x = rng.standard_normal((3, 4))
    np.testing.assert_array_equal(M.clamp(x, -0.5, 0.5), np.clip(x, -0.5, 0.5))
    lo, hi = np.array([-1.0, 0.0, 0.5]), np.array([[0.6, 0.7, 2.0, 3.0]])
    np.testing.assert_array_equal(M.clamp(x, lo, hi), np.clip(x, lo[:, None], hi))
    assert math.isnan(M.clamp(math.nan, 0.0, 1.0)) and M.clamp(5.0, -math.inf, math.inf) == 5.0
    assert "lo = 3 and hi = 1" in error("ValueError", M.clamp, x, 3.0, 1.0)
    assert "clamp" in error("ShapeError", M.clamp, np.ones(2), np.ones(3), 4.0)


def test_clamp_gradient_goes_to_x_inside_and_to_the_bound_outside():
    x, lo, hi = (TAPE.leaf(v, True) for v in (np.array([-2.0, 0.0, 0.5, 1.0, 3.0]), -0.0, 1.0))
    gx, glo, ghi = grad(M.sum_(M.clamp(x, lo, hi)), [x, lo, hi])
    np.testing.assert_array_equal(gx, [0, 1, 1, 1, 0])            # both ends included
    assert (glo, ghi) == (1.0, 1.0)
    x, lo = TAPE.leaf(-3.0, True), TAPE.leaf(-1.0, True)          # all numbers, bounds tracked
    assert grad(M.clamp(x, lo, 2.0), [x, lo]) == [0.0, 1.0]
    assert "lo = -1 and hi = -2" in error("ValueError", M.clamp, 0.0, lo, -2.0)


@pytest.mark.parametrize("fn, ref", [(Lg.isnan, np.isnan), (Lg.isinf, np.isinf), (Lg.isfinite, np.isfinite)])
def test_nan_and_inf_tests(fn, ref):
    x = np.array([[1.0, math.nan, math.inf], [-math.inf, 0.0, -1e308]])
    out = fn(x)
    assert out.dtype == bool          # a mask, as a comparison gives
    np.testing.assert_array_equal(out, ref(x))
    for s in x.flat:
        assert fn(float(s)) is bool(ref(s))
    tracked = TAPE.leaf(x, True)
    assert type(fn(tracked)) is np.ndarray
    error("TypeError", fn, "x")
    error("TypeError", fn, True)


# -- along a sequence ----------------------------------------------------------
def test_diff_matches_numpy(rng):
    v, m = rng.standard_normal(7), rng.standard_normal((4, 5))
    np.testing.assert_array_equal(Q.diff(v), np.diff(v))
    np.testing.assert_array_equal(Q.diff(m, 0), np.diff(m, axis=0))
    np.testing.assert_array_equal(Q.diff(m, axis=1), np.diff(m, axis=1))
    np.testing.assert_array_equal(Q.diff(v, 0), np.diff(v))
    assert Q.diff(np.array([3.0])).shape == (0,) and Q.diff(np.zeros(0)).shape == (0,)
    assert Q.diff(np.zeros((1, 3)), 0).shape == (0, 3)
    assert "needs an axis" in error("ValueError", Q.diff, m)
    error("TypeError", Q.diff, 3.0)
    error("ValueError", Q.diff, m, 2)


def test_cumprod_matches_numpy(rng):
    v, m = rng.standard_normal(6), rng.standard_normal((3, 4))
    np.testing.assert_array_equal(Q.cumprod(v), np.cumprod(v))
    np.testing.assert_array_equal(Q.cumprod(m), np.cumprod(m.reshape(-1)))
    np.testing.assert_array_equal(Q.cumprod(m, 0), np.cumprod(m, axis=0))
    np.testing.assert_array_equal(Q.cumprod(m, axis=1), np.cumprod(m, axis=1))
    w = np.array([2.0, math.nan, 3.0])
    np.testing.assert_array_equal(Q.cumprod(w, skipnan=True), np.nancumprod(w))
    np.testing.assert_array_equal(Q.cumprod(w), np.cumprod(w))
    np.testing.assert_array_equal(Q.cumprod(4.0), [4.0])
    assert Q.cumprod(np.zeros(0)).shape == (0,)
    error("TypeError", Q.cumprod, v, skipnan=1.0)


def test_cumprod_gradient_is_exact_where_elements_are_zero():
    x = np.array([2.0, 0.0, 3.0, 0.0, 5.0])
    w = TAPE.leaf(x, True)
    g = grad(M.sum_(Q.cumprod(w)), w)
    want = [sum(np.prod(np.delete(x[:i + 1], j)) for i in range(j, len(x))) for j in range(len(x))]
    np.testing.assert_array_equal(g, want)
    w = TAPE.leaf(np.array([1.0, math.nan, 2.0]), True)
    np.testing.assert_array_equal(grad(M.sum_(Q.cumprod(w, skipnan=True)), w), [4.0, 0.0, 1.0])   # 1 + 1 + 2 x0 x2


def test_reverse(rng):
    v, m = rng.standard_normal(5), rng.standard_normal((3, 4))
    np.testing.assert_array_equal(Q.reverse(v), v[::-1])
    np.testing.assert_array_equal(Q.reverse(m), np.flip(m))
    np.testing.assert_array_equal(Q.reverse(m, 0), m[::-1])
    np.testing.assert_array_equal(Q.reverse(m, axis=1), m[:, ::-1])
    assert Q.reverse(["a", 1.0]) == [1.0, "a"] and Q.reverse("abc") == "cba" and Q.reverse(2.0) == 2.0
    error("TypeError", Q.reverse, "abc", axis=0)
    error("ValueError", Q.reverse, v, axis=1)


def test_argsort_is_numpy_stable_argsort_with_nan_last(rng):
    v = rng.integers(0, 4, 30).astype(float)                     # many ties
    v[[3, 17]] = math.nan
    np.testing.assert_array_equal(Q.argsort(v), np.argsort(v, kind="stable"))
    np.testing.assert_array_equal(Q.argsort(v, descending=True), np.argsort(-v, kind="stable"))
    desc = Q.argsort(v, descending=True).astype(int)
    assert list(desc[-2:]) == [3, 17]
    keys = [(-x, i) for i, x in enumerate(v) if x == x]       # decreasing, ties in their order
    assert list(desc[:-2]) == [i for _, i in sorted(keys)]
    m = rng.integers(0, 3, (4, 5)).astype(float)
    np.testing.assert_array_equal(Q.argsort(m, axis=0), np.argsort(m, axis=0, kind="stable"))
    np.testing.assert_array_equal(Q.argsort(m, axis=1), np.argsort(m, axis=1, kind="stable"))
    np.testing.assert_array_equal(Q.argsort(m), np.argsort(m.reshape(-1), kind="stable"))
    np.testing.assert_array_equal(Q.argsort(["b", "a", "c"]), [1, 0, 2])
    error("TypeError", Q.argsort, [1.0, "a"])


def _records(rng, n=12):
    return [Record({"name": f"p{i}", "age": float(rng.integers(20, 25)), "score": float(rng.normal())})
            for i in range(n)]


def test_sort_by_a_field_is_pythons_stable_sort(rng):
    people = _records(rng)
    for down in (False, True):
        got = St.sort(people, by="age", descending=down)
        assert got == sorted(people, key=lambda r: r.fields["age"], reverse=down)
        order = Q.argsort(people, by="age", descending=down)
        assert [people[int(i)] for i in order] == got
    assert St.sort(people, by="name") == sorted(people, key=lambda r: r.fields["name"])


def test_sort_by_a_function_of_elements_rows_and_items(rng):
    v = rng.standard_normal(9)
    np.testing.assert_array_equal(St.sort(v, by=abs), np.array(sorted(v, key=abs)))
    m = rng.integers(0, 3, (6, 2)).astype(float)
    np.testing.assert_array_equal(St.sort(m, by=lambda row: row[1]), np.array(sorted(m.tolist(), key=lambda r: r[1])))
    words = ["pear", "fig", "apple", "kiwi"]
    assert St.sort(words, by=len, descending=True) == sorted(words, key=len, reverse=True)
    nan_last = St.sort(np.array([2.0, math.nan, 1.0]), by=lambda x: -x)
    np.testing.assert_array_equal(nan_last, [2.0, 1.0, math.nan])


def test_sort_by_passes_gradients_to_the_elements_and_rows_it_moved(rng):
    x = rng.standard_normal(5)
    w, c = TAPE.leaf(x, True), rng.standard_normal(5)
    out = St.sort(w, by=lambda t: -t)
    assert type(out) is Tracked
    g = grad(M.sum_(ops.emul(out, c)), w)
    order = np.argsort(-x, kind="stable")
    want = np.zeros(5)
    want[order] = c
    np.testing.assert_array_equal(g, want)


def test_sort_by_errors():
    assert "field 'age'" in error("TypeError", St.sort, np.array([1.0, 2.0]), by="age")
    assert "numbers or strings" in error("TypeError", St.sort, np.array([1.0, 2.0]),
                                         by=lambda x: np.array([x, x]))
    assert "mix" in error("TypeError", St.sort, [Record({"a": 1.0}), Record({"a": "x"})], by="a")
    assert "not both" in error("TypeError", St.sort, np.eye(2), axis=0, by=abs)
    assert "function or a field name" in error("TypeError", St.sort, np.eye(2), by=1.0)
    error("NameError", St.sort, [Record({"a": 1.0})], by="b")
    error("TypeError", St.sort, 3.0, by=abs)
