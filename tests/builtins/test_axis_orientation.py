"""Every builtin with an axis keeps the orientation of its result (axis 0: a 1 x n row, axis 1:
an m x 1 column, as MATLAB and Julia), and skipnan works on every reduction where it makes
sense; values and shapes against NumPy."""
from __future__ import annotations

import contextlib
import io

import numpy as np
import pytest

from lamina.errors import LaminaError
from lamina.interpreter import Interpreter

M = np.array([[1.0, 2.0, 7.0, 4.0], [3.0, 4.0, 9.0, -1.0], [5.0, 0.0, 1.0, 2.0]])   # 3 x 4: no square luck
WITH_NAN = np.array([[1.0, np.nan, 7.0, 4.0], [3.0, 4.0, np.nan, -1.0], [np.nan, 0.0, 1.0, 2.0]])


def value(expr: str, m: np.ndarray = M):
    interp = Interpreter()
    literal = "[" + "; ".join(", ".join("NaN" if np.isnan(x) else repr(float(x)) for x in row) for row in m) + "]"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        interp.run(f"m = {literal}\nprint_options(width = Inf)\nprint(size({expr}), {expr})\n", "<test>")
    return out.getvalue().strip()


def as_lamina_text(a) -> str:
    """How Lamina prints a NumPy result (the shape, then the value), written independently."""
    def num(x):
        x = float(x) + 0.0
        if np.isnan(x):
            return "NaN"
        if np.isinf(x):
            return "Inf" if x > 0 else "-Inf"
        return str(int(x)) if x == int(x) and abs(x) < 1e15 else repr(x)
    a = np.asarray(a, dtype=float)
    if a.ndim == 0:
        return "[] " + num(a)
    rows = "; ".join(", ".join(num(x) for x in row) for row in a)
    size = f"[{a.shape[0]}, {a.shape[1]}]"
    return size + " [" + rows + (";" if a.shape[0] == 1 else "") + "]"


REDUCTIONS = [      # Lamina call with axis k, NumPy with axis k (keepdims)
    ("sum(m, axis = {k})", lambda m, k: m.sum(k, keepdims=True)),
    ("mean(m, axis = {k})", lambda m, k: m.mean(k, keepdims=True)),
    ("prod(m, axis = {k})", lambda m, k: m.prod(k, keepdims=True)),
    ("min(m, axis = {k})", lambda m, k: m.min(k, keepdims=True)),
    ("max(m, axis = {k})", lambda m, k: m.max(k, keepdims=True)),
    ("median(m, axis = {k})", lambda m, k: np.median(m, k, keepdims=True)),
    ("var(m, axis = {k})", lambda m, k: m.var(k, ddof=1, keepdims=True)),
    ("std(m, axis = {k})", lambda m, k: m.std(k, ddof=1, keepdims=True)),
    ("var(m, axis = {k}, ddof = 0)", lambda m, k: m.var(k, keepdims=True)),
    ("quantile(m, 0.3, axis = {k})", lambda m, k: np.quantile(m, 0.3, k, keepdims=True)),
    ("argmax(m, axis = {k})", lambda m, k: np.expand_dims(m.argmax(k), k)),
    ("argmin(m, axis = {k})", lambda m, k: np.expand_dims(m.argmin(k), k)),
    ("any(m > 6, axis = {k})", lambda m, k: (m > 6).any(k, keepdims=True)),
    ("all(m > 0, axis = {k})", lambda m, k: (m > 0).all(k, keepdims=True)),
]
SAME_SHAPE = [      # along an axis, the result has the matrix's shape
    ("cumsum(m, axis = {k})", lambda m, k: m.cumsum(k)),
    ("cumprod(m, axis = {k})", lambda m, k: m.cumprod(k)),
    ("sort(m, axis = {k})", lambda m, k: np.sort(m, k)),
    ("argsort(m, axis = {k})", lambda m, k: np.argsort(m, k, kind="stable")),
    ("reverse(m, axis = {k})", lambda m, k: np.flip(m, k)),
    ("diff(m, axis = {k})", lambda m, k: np.diff(m, axis=k)),
    ("zscore(m, axis = {k})", lambda m, k: (m - m.mean(k, keepdims=True)) / m.std(k, ddof=1, keepdims=True)),
]


@pytest.mark.parametrize("k", [0, 1])
@pytest.mark.parametrize("call, numpy", REDUCTIONS + SAME_SHAPE, ids=[c for c, _ in REDUCTIONS + SAME_SHAPE])
def test_along_an_axis_the_result_keeps_its_orientation(call, numpy, k):
    got = value(call.format(k=k))
    want = numpy(M, k)
    assert got == as_lamina_text(want)
    if (call, numpy) in REDUCTIONS:
        assert want.shape == ((1, 4) if k == 0 else (3, 1))


@pytest.mark.parametrize("call", ["mean", "sum", "median", "max", "min", "std"])
def test_a_reduction_along_an_axis_subtracts_and_divides_on_every_shape(call):
    """m - mean(m, axis = 0) and m ./ sum(m, axis = 1): the issue's silently wrong line."""
    for m in (M, M[:2, :2], M.T):
        np_fn = {"mean": np.mean, "sum": np.sum, "median": np.median, "max": np.max, "min": np.min,
                 "std": lambda a, axis, keepdims: np.std(a, axis=axis, ddof=1, keepdims=keepdims)}[call]
        got = value(f"m - {call}(m, axis = 0)", m)
        assert got == as_lamina_text(m - np_fn(m, axis=0, keepdims=True))
        got = value(f"m ./ {call}(m, axis = 1)", m)
        assert got == as_lamina_text(m / np_fn(m, axis=1, keepdims=True))


SKIPNAN = [         # Lamina call (k: the axis, or none), NumPy's nan-function
    ("sum(m{axis}, skipnan = true)", lambda m, k: np.nansum(m, k, keepdims=k is not None)),
    ("mean(m{axis}, skipnan = true)", lambda m, k: np.nanmean(m, k, keepdims=k is not None)),
    ("prod(m{axis}, skipnan = true)", lambda m, k: np.nanprod(m, k, keepdims=k is not None)),
    ("min(m{axis}, skipnan = true)", lambda m, k: np.nanmin(m, k, keepdims=k is not None)),
    ("max(m{axis}, skipnan = true)", lambda m, k: np.nanmax(m, k, keepdims=k is not None)),
    ("median(m{axis}, skipnan = true)", lambda m, k: np.nanmedian(m, k, keepdims=k is not None)),
    ("var(m{axis}, skipnan = true)", lambda m, k: np.nanvar(m, k, ddof=1, keepdims=k is not None)),
    ("std(m{axis}, skipnan = true)", lambda m, k: np.nanstd(m, k, ddof=1, keepdims=k is not None)),
    ("quantile(m, 0.7{axis}, skipnan = true)", lambda m, k: np.nanquantile(m, 0.7, k, keepdims=k is not None)),
    ("argmax(m{axis}, skipnan = true)",
     lambda m, k: np.nanargmax(m) if k is None else np.expand_dims(np.nanargmax(m, k), k)),
    ("argmin(m{axis}, skipnan = true)",
     lambda m, k: np.nanargmin(m) if k is None else np.expand_dims(np.nanargmin(m, k), k)),
    ("cumsum(m{axis}, skipnan = true)", lambda m, k: np.nancumsum(m, k)),
    ("cumprod(m{axis}, skipnan = true)", lambda m, k: np.nancumprod(m, k)),
]


@pytest.mark.parametrize("k", [None, 0, 1])
@pytest.mark.parametrize("call, numpy", SKIPNAN, ids=[c for c, _ in SKIPNAN])
def test_skipnan_on_every_reduction_matches_numpys_nan_functions(call, numpy, k):
    if k is None and call.startswith("cum"):
        pytest.skip("cumsum/cumprod without an axis run over the elements row by row: checked below")
    got = value(call.format(axis="" if k is None else f", axis = {k}"), WITH_NAN)
    want = numpy(WITH_NAN, k)
    text = as_lamina_text(want)
    if k is None:
        text = text.replace("[] ", "")
        assert got.split(" ", 1)[1] == text
    else:
        assert got == text


def test_skipnan_on_a_vector_and_the_cumulative_ones_without_an_axis():
    v = np.array([2.0, np.nan, 3.0, -1.0, np.nan])
    literal = "[2, NaN, 3, -1, NaN]"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        Interpreter().run(f"v = {literal}\nprint(cumsum(v, skipnan = true), cumprod(v, skipnan = true), "
                          f"median(v, skipnan = true), var(v, skipnan = true), argmin(v, skipnan = true))",
                          "<test>")
    want = [np.nancumsum(v), np.nancumprod(v)]
    text = " ".join("[" + ", ".join(str(int(x)) for x in w) + "]" for w in want)
    text += f" {np.nanmedian(v):g} {float(np.nanvar(v, ddof=1))!r} {int(np.nanargmin(v))}"
    assert out.getvalue().strip() == text


@pytest.mark.parametrize("code, message", [
    ("argmax([NaN, 1; NaN, 2], axis = 0, skipnan = true)", "a column holds only NaN"),
    ("argmin([NaN, NaN], skipnan = true)", "holds only NaN"),
    ("median([1, 2], skipnan = 1)", "skipnan must be true or false"),
    ("argmax([1, 2], skipnan = \"yes\")", "skipnan must be true or false"),
    ("sum([1, 2; 3, 4], axis = 2)", "axis"),
])
def test_bad_skipnan_and_axis_are_clear_errors(code, message):
    with pytest.raises(LaminaError) as err:
        Interpreter().run(code, "<test>")
    assert err.value.kind in ("ValueError", "TypeError", "IndexError") and message in err.value.message
