"""Reductions on arrays of rank 3 and 4 (issue 39), run as Lamina programs: every axis, negative
axes and axis lists against NumPy (keepdims, as a matrix keeps its orientation), skipnan, the
quantiles of several qs, cumsum along any axis, and the errors for an axis out of range, a
repeated axis and an empty list. The arrays are made in the program with reshape, from numbers
written out exactly; the expected values are NumPy's."""
from __future__ import annotations

import contextlib
import io
import warnings

import numpy as np
import pytest

from lamina.autodiff.tape import TAPE
from lamina.errors import LaminaError
from lamina.interpreter import Interpreter

RNG = np.random.default_rng(39)
R3 = RNG.standard_normal((2, 3, 4))             # distinct values: no ties for max, min and median
R4 = RNG.standard_normal((2, 3, 2, 3))


def literal(a: np.ndarray) -> str:
    """Lamina code that makes the array `a` (row-major, as reshape reads a vector), float32 too."""
    numbers = ", ".join("NaN" if np.isnan(x) else repr(float(x)) for x in a.reshape(-1))
    vector = f"float32([{numbers}])" if a.dtype == np.float32 else f"[{numbers}]"
    return f"reshape({vector}, {', '.join(str(n) for n in a.shape)})"


def run(source: str, **arrays) -> tuple[Interpreter, list[str]]:
    """Run `source` after `name = <array>` for each array; (the interpreter, the printed lines)."""
    interp = Interpreter()
    setup = "".join(f"{name} = {literal(a)}\n" for name, a in arrays.items())
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        interp.run(setup + source, "<test>")
    TAPE.reset()
    return interp, out.getvalue().splitlines()


def error(source: str, **arrays) -> LaminaError:
    with pytest.raises(LaminaError) as caught:
        run(source, **arrays)
    return caught.value


def axes_of(a: np.ndarray) -> list:
    """Every single axis, positive and negative, and axis lists (in any order, negative too)."""
    n = a.ndim
    lists = [[0, 2], [2, 0], [-1, 0], list(range(n))] + ([[1, 3], [0, 1, 3]] if n == 4 else [[1, -1]])
    return list(range(-n, n)) + lists


def numpy_axes(axis, n: int) -> tuple:
    return tuple(sorted(k % n for k in (axis if isinstance(axis, list) else [axis])))


REDUCTIONS = [      # (Lamina call of x along `{axis}`, NumPy of (x, axes) keeping them)
    ("sum(x, axis = {axis})", lambda x, k: np.sum(x, axis=k, keepdims=True)),
    ("mean(x, axis = {axis})", lambda x, k: np.mean(x, axis=k, keepdims=True)),
    ("prod(x, axis = {axis})", lambda x, k: np.prod(x, axis=k, keepdims=True)),
    ("max(x, axis = {axis})", lambda x, k: np.max(x, axis=k, keepdims=True)),
    ("min(x, axis = {axis})", lambda x, k: np.min(x, axis=k, keepdims=True)),
    # the median is quantile(x, 0.5) (lo + f (hi - lo), not np.median's (lo + hi) / 2): to the bit
    ("median(x, axis = {axis})", lambda x, k: np.quantile(x, 0.5, axis=k, keepdims=True)),
    ("quantile(x, 0.3, axis = {axis})", lambda x, k: np.quantile(x, 0.3, axis=k, keepdims=True)),
    ("var(x, axis = {axis})", lambda x, k: np.var(x, axis=k, ddof=1, keepdims=True)),
    ("var(x, axis = {axis}, ddof = 0)", lambda x, k: np.var(x, axis=k, keepdims=True)),
    ("std(x, axis = {axis})", lambda x, k: np.std(x, axis=k, ddof=1, keepdims=True)),
    ("zscore(x, axis = {axis})",
     lambda x, k: (x - x.mean(axis=k, keepdims=True)) / x.std(axis=k, ddof=1, keepdims=True)),
    ("any(x > 1, axis = {axis})", lambda x, k: np.any(x > 1, axis=k, keepdims=True)),
    ("all(x > -1, axis = {axis})", lambda x, k: np.all(x > -1, axis=k, keepdims=True)),
]
EXACT = ("sum", "prod", "max", "min", "median", "quantile", "any", "all")     # the same NumPy operations


def check(got, want, call: str) -> None:
    assert np.shape(got) == np.shape(want), (call, np.shape(got), np.shape(want))
    if call.startswith(EXACT):
        np.testing.assert_array_equal(got, want, err_msg=call)
    else:       # var and std scale by a power of 2 first (exact); mean divides its sum
        np.testing.assert_allclose(got, want, rtol=1e-14, atol=1e-15, err_msg=call)


@pytest.mark.parametrize("x", [R3, R4], ids=["rank3", "rank4"])
@pytest.mark.parametrize("call, ref", REDUCTIONS, ids=[c.split("(")[0] + ("0" if "ddof" in c else "") for c, _ in REDUCTIONS])
def test_a_reduction_along_every_axis_and_axis_list_matches_numpy(x, call, ref):
    axes = axes_of(x)
    source = "".join(f"r{i} = {call.format(axis=a)}\n" for i, a in enumerate(axes))
    interp, _ = run(source, x=x)
    for i, a in enumerate(axes):
        got = interp.get(f"r{i}")
        check(got, ref(x, numpy_axes(a, x.ndim)), call.format(axis=a))
        if call.startswith(("any", "all")):
            assert got.dtype == bool      # a mask, as along a matrix's axis


@pytest.mark.parametrize("name, ref", [("sum", np.sum), ("mean", np.mean), ("prod", np.prod), ("max", np.max),
                                       ("min", np.min), ("median", np.median), ("var", lambda x: np.var(x, ddof=1)),
                                       ("std", lambda x: np.std(x, ddof=1))])
def test_without_an_axis_every_element_reduces_to_a_number(name, ref):
    interp, out = run(f"r = {name}(x)\nprint(type(r))", x=R4)
    assert out == ["number"]
    assert interp.get("r") == pytest.approx(float(ref(R4)), rel=1e-14)


def test_the_result_keeps_each_reduced_axis_with_length_1_as_a_matrix_does():
    _, out = run("print(size(sum(x, axis = 1)), size(max(x, axis = [0, 2])), size(mean(y, axis = [-1, 1])))\n"
                 "print(size(sum(m, axis = 0)), size(sum(m, axis = -1)), size(sum(m, axis = [0, 1])), sum(v, axis = -1))",
                 x=R3, y=R4, m=R3[0], v=R3[0, 0])
    assert out == ["[2, 1, 4] [1, 3, 1] [2, 1, 2, 1]", f"[1, 4] [3, 1] [1, 1] {float(R3[0, 0].sum())!r}"]


NAN3 = R3.copy()
NAN3[0, 1, :] = np.nan          # a whole slice along the last axis
NAN3[1, 0, 2] = NAN3[0, 2, 0] = np.nan


@pytest.mark.parametrize("call, ref", [
    ("sum(x, axis = {axis}, skipnan = true)", lambda x, k: np.nansum(x, axis=k, keepdims=True)),
    ("mean(x, axis = {axis}, skipnan = true)", lambda x, k: np.nanmean(x, axis=k, keepdims=True)),
    ("prod(x, axis = {axis}, skipnan = true)", lambda x, k: np.nanprod(x, axis=k, keepdims=True)),
    ("max(x, axis = {axis}, skipnan = true)", lambda x, k: np.nanmax(x, axis=k, keepdims=True)),
    ("min(x, axis = {axis}, skipnan = true)", lambda x, k: np.nanmin(x, axis=k, keepdims=True)),
    ("median(x, axis = {axis}, skipnan = true)", lambda x, k: np.nanmedian(x, axis=k, keepdims=True)),
    ("quantile(x, 0.7, axis = {axis}, skipnan = true)", lambda x, k: np.nanquantile(x, 0.7, axis=k, keepdims=True)),
    ("var(x, axis = {axis}, skipnan = true)", lambda x, k: np.nanvar(x, axis=k, ddof=1, keepdims=True)),
    ("std(x, axis = {axis}, skipnan = true, ddof = 0)", lambda x, k: np.nanstd(x, axis=k, keepdims=True)),
    ("sum(x, axis = {axis})", lambda x, k: np.sum(x, axis=k, keepdims=True)),
    ("max(x, axis = {axis})", lambda x, k: np.max(x, axis=k, keepdims=True)),
    ("median(x, axis = {axis})", lambda x, k: np.median(x, axis=k, keepdims=True)),
])
def test_skipnan_leaves_nans_out_along_axes_and_without_it_a_nan_gives_nan(call, ref):
    axes = [2, -1, 0, [0, 2], [1, 2]]
    source = "".join(f"r{i} = {call.format(axis=a)}\n" for i, a in enumerate(axes))
    interp, _ = run(source, x=NAN3)
    with warnings.catch_warnings():        # NumPy warns of the all-NaN slice (its result says NaN)
        warnings.simplefilter("ignore", RuntimeWarning)
        wants = [ref(NAN3, numpy_axes(a, 3)) for a in axes]
    for i, (a, want) in enumerate(zip(axes, wants)):
        got = interp.get(f"r{i}")
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-14, atol=1e-15, err_msg=call.format(axis=a))


def test_several_quantiles_lie_along_the_reduced_axis_as_a_matrix_has_them():
    qs = np.array([0.1, 0.5, 0.9])
    interp, out = run("a = quantile(x, [0.1, 0.5, 0.9], axis = 1)\nb = quantile(x, [0.1, 0.5, 0.9], axis = [2, 0])\n"
                      "c = quantile(m, [0.1, 0.5, 0.9], axis = 1)\nprint(size(a), size(b), size(c))", x=R3, m=R3[0])
    assert out == ["[2, 3, 4] [3, 3, 1] [3, 3]"]
    # NumPy puts the qs first; Lamina puts them where the (first) reduced axis was
    np.testing.assert_array_equal(interp.get("a"), np.moveaxis(np.quantile(R3, qs, axis=1), 0, 1))
    np.testing.assert_array_equal(interp.get("b")[..., 0], np.quantile(R3, qs, axis=(0, 2)))
    np.testing.assert_array_equal(interp.get("c"), np.quantile(R3[0], qs, axis=1).T)


@pytest.mark.parametrize("x", [R3, R4], ids=["rank3", "rank4"])
def test_cumsum_runs_along_any_axis_and_reads_an_array_row_major_without_one(x):
    axes = list(range(-x.ndim, x.ndim))
    interp, _ = run("".join(f"r{i} = cumsum(x, axis = {a})\n" for i, a in enumerate(axes)) + "flat = cumsum(x)", x=x)
    for i, a in enumerate(axes):
        np.testing.assert_array_equal(interp.get(f"r{i}"), np.cumsum(x, axis=a))
    np.testing.assert_array_equal(interp.get("flat"), np.cumsum(x))


@pytest.mark.parametrize("x", [R3, R4], ids=["rank3", "rank4"])
@pytest.mark.parametrize("name, ref", [("argmax", np.argmax), ("argmin", np.argmin)])
def test_argmax_and_argmin_along_any_axis_keep_it_with_length_1(x, name, ref):
    axes = list(range(-x.ndim, x.ndim))
    y = x.copy()
    y[1, 0, 0] = np.nan
    interp, _ = run("".join(f"r{i} = {name}(x, axis = {a})\n" for i, a in enumerate(axes)) +
                    f"flat = {name}(x)\nskip = {name}(y, axis = 0, skipnan = true)", x=x, y=y)
    for i, a in enumerate(axes):
        np.testing.assert_array_equal(interp.get(f"r{i}"), np.expand_dims(ref(x, axis=a), a))
    assert interp.get("flat") == ref(x)             # row-major, the last axis fastest
    np.testing.assert_array_equal(interp.get("skip"), np.expand_dims(ref(np.where(np.isnan(y), (
        -np.inf if name == "argmax" else np.inf), y), axis=0), 0))


@pytest.mark.parametrize("call", ["sum(x, axis = {a})", "mean(x, axis = {a})", "max(x, axis = {a})",
                                  "median(x, axis = {a})", "var(x, axis = {a})", "any(x, axis = {a})",
                                  "quantile(x, 0.5, axis = {a})", "cumsum(x, axis = {a})",
                                  "softmax(x, axis = {a})", "argmin(x, axis = {a})"])
def test_an_axis_out_of_range_names_the_axis_and_the_shape(call):
    name = call.split("(")[0]
    for a in (3, -4):
        e = error(call.format(a=a), x=R3)
        assert (e.kind, e.message) == ("ValueError", f"{name} of a 2x3x4 array takes an axis from 0 to 2 (or "
                                                     f"from -3 to -1, counting from the end), not {a}.")
    e = error(call.format(a=4), x=R4)
    assert e.message.startswith(f"{name} of a 2x3x2x3 array takes an axis from 0 to 3 (or from -4 to -1")


@pytest.mark.parametrize("name", ["sum", "prod", "min", "all", "std", "median", "log_softmax"])
def test_an_axis_list_must_name_each_axis_once_and_some_axis(name):
    e = error(f"print({name}(x, axis = [0, 2, -3]))", x=R3)
    assert (e.kind, e.message) == ("ValueError", f"{name} of a 2x3x4 array reduces each axis once, but "
                                                 f"axis = [0, 2, -3] names axis 0 twice.")
    e = error(f"print({name}(x, axis = [1, 3]))", x=R3)
    assert e.message.endswith("not 3.")
    e = error(f"print({name}(x, axis = []))", x=R3)
    assert (e.kind, e.message) == ("ValueError", f"{name}'s axis = [] names no axis; leave the axis out to "
                                                 f"reduce every element.")
    e = error(f"print({name}(x, axis = [0.5]))", x=R3)
    assert (e.kind, e.message) == ("TypeError", f"{name}'s axis must be a whole number, not 0.5.")


def test_a_matrix_and_a_vector_take_negative_axes_and_keep_their_messages():
    m = R3[0]
    interp, _ = run("a = sum(m, axis = -1)\nb = max(m, axis = -2)\nc = sum(m, axis = [0, 1])\nd = mean(v, axis = -1)",
                    m=m, v=m[0])
    np.testing.assert_array_equal(interp.get("a"), m.sum(axis=1, keepdims=True))
    np.testing.assert_array_equal(interp.get("b"), m.max(axis=0, keepdims=True))
    np.testing.assert_array_equal(interp.get("c"), m.sum(keepdims=True))
    assert interp.get("d") == np.mean(m[0])
    assert error("sum(m, axis = 2)", m=m).message == (
        "sum of a 3x4 matrix takes axis 0 (down the rows) or 1 (along each row), or -2 or -1 from the "
        "end, not 2.")
    assert error("sum(v, axis = 1)", v=m[0]).message == "sum of a vector of length 4 takes axis 0 (or -1), not 1."
    assert error("sum(2.5, axis = -1)").message == "sum of a number takes axis 0, not -1."


def test_float32_stays_float32_through_every_reduction():
    x = R3.astype(np.float32)
    calls = ["sum(x, axis = [0, 2])", "max(x, axis = 1)", "median(x, axis = -1)", "std(x, axis = [1, 2])",
             "quantile(x, [0.2, 0.4], axis = 0)", "cumsum(x, axis = 2)", "zscore(x, axis = 0)", "prod(x, axis = 0)",
             "mean(x, axis = [0, 1])", "var(x, axis = 2, skipnan = true)"]
    interp, _ = run("".join(f"r{i} = {c}\n" for i, c in enumerate(calls)), x=x)
    for i, c in enumerate(calls):
        assert interp.get(f"r{i}").dtype == np.float32, c
    np.testing.assert_allclose(interp.get("r8"), x.mean(axis=(0, 1), keepdims=True), rtol=1e-6)
