"""The elementwise math builtins on arrays of rank 3 and 4 (issue 39), in Lamina programs: each
one's values to the bit against NumPy's, its shape kept, float32 kept float32 (a mask for the
tests of NaN and Inf), mod, clamp and two-operand max and min under broadcasting of one rank,
and gradients against PyTorch."""
from __future__ import annotations

import contextlib
import io

import numpy as np
import pytest

from lamina.autodiff.tape import TAPE
from lamina.errors import LaminaError
from lamina.interpreter import Interpreter
from lamina.lang.scope import mangle

RNG = np.random.default_rng(3939)
R3 = RNG.uniform(-3.0, 3.0, (2, 3, 4))
R3[0, 0, :] = [np.nan, np.inf, -np.inf, 0.0]
R4 = RNG.uniform(-3.0, 3.0, (2, 1, 3, 2))
POS4 = np.abs(R4) + 0.25


def run(source: str, **values) -> Interpreter:
    interp = Interpreter()
    for name, value in values.items():
        interp.namespace[mangle(name)] = value
    with contextlib.redirect_stdout(io.StringIO()), np.errstate(all="ignore"):
        interp.run(source, "<test>")
    TAPE.reset()
    return interp


UNARY = [("exp", np.exp), ("log", np.log), ("log10", np.log10), ("log2", np.log2), ("log1p", np.log1p),
         ("expm1", np.expm1), ("sqrt", np.sqrt), ("sin", np.sin), ("cos", np.cos), ("abs", np.abs),
         ("round", np.round), ("floor", np.floor), ("ceil", np.ceil), ("sign", np.sign), ("isnan", np.isnan),
         ("isinf", np.isinf), ("isfinite", np.isfinite)]


@pytest.mark.parametrize("x", [R3, POS4, R3.astype(np.float32)], ids=["rank3", "rank4", "rank3-float32"])
@pytest.mark.parametrize("name, ref", UNARY, ids=[n for n, _ in UNARY])
def test_an_elementwise_function_of_an_array_is_numpys_to_the_bit(x, name, ref):
    y = run(f"y = {name}(x)", x=x).get("y")
    with np.errstate(all="ignore"):
        want = ref(x)
    assert y.shape == x.shape and y.dtype == want.dtype
    np.testing.assert_array_equal(y, want)


def test_round_to_digits_mod_and_clamp_of_arrays():
    interp = run("a = round(x, 2)\nb = mod(x, 1.5)\nc = mod(x, d)\ne = clamp(x, -1, 1)\nf = clamp(x, lo, 2)",
                 x=R4, d=POS4[:1], lo=-POS4[:, :, :1])
    np.testing.assert_array_equal(interp.get("a"), [[[[round(v, 2) for v in row] for row in m] for m in s] for s in R4])
    np.testing.assert_array_equal(interp.get("b"), np.mod(R4, 1.5))
    np.testing.assert_array_equal(interp.get("c"), np.mod(R4, POS4[:1]))
    np.testing.assert_array_equal(interp.get("e"), np.clip(R4, -1, 1))
    np.testing.assert_array_equal(interp.get("f"), np.minimum(np.maximum(R4, -POS4[:, :, :1]), 2))


def test_two_operand_max_and_min_broadcast_arrays_of_one_rank():
    other = RNG.uniform(-3.0, 3.0, (1, 3, 1))
    interp = run("a = max(x, o)\nb = min(o, x)\nc = max(x, 0)", x=R3[1:], o=other)
    np.testing.assert_array_equal(interp.get("a"), np.maximum(R3[1:], other))
    np.testing.assert_array_equal(interp.get("b"), np.minimum(other, R3[1:]))
    np.testing.assert_array_equal(interp.get("c"), np.maximum(R3[1:], 0))


def test_an_operand_of_another_rank_is_a_shape_error_naming_both_shapes():
    with pytest.raises(LaminaError) as caught:
        run("max(x, v)", x=R3, v=np.zeros(4))
    assert caught.value.kind == "ShapeError"
    assert "got 2x3x4 and vector of length 4" in caught.value.message


@pytest.mark.parametrize("call, theirs", [
    ("exp(w)", lambda t: t.exp()), ("log(w)", lambda t: t.log()), ("sqrt(w)", lambda t: t.sqrt()),
    ("sin(w) .* cos(w)", lambda t: t.sin() * t.cos()), ("abs(w)", lambda t: t.abs()),
    ("log1p(w) + expm1(w)", lambda t: t.log1p() + t.expm1()), ("log2(w) + log10(w)", lambda t: t.log2() + t.log10()),
    ("mod(w, 0.7)", lambda t: t.remainder(0.7)),
    ("clamp(w, 0.5, 1.5)", lambda t: t.clamp(0.5, 1.5)),
])
def test_gradients_through_elementwise_functions_of_an_array_match_torch(call, theirs):
    torch = pytest.importorskip("torch")
    c = RNG.standard_normal(POS4.shape)
    g = run(f"w = param(x)\ng = grad(sum(({call}) .* c), wrt = w)", x=POS4, c=c).get("g")
    t = torch.tensor(POS4, requires_grad=True)
    (theirs(t) * torch.tensor(c)).sum().backward()
    np.testing.assert_allclose(g, t.grad.numpy(), rtol=1e-13, atol=1e-15)
