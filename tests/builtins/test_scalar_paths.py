"""A number takes the same path through a builtin as a one-element vector would, to the bit:
the scalar fast paths (NumPy's function called on the float, math.sqrt, Python's operators, no
tape entry for an untracked value) must give NumPy's answer for every value, the sign of zero,
NaN and the infinities included. Python's math and NumPy's SIMD kernels (AVX-512) part in the
last bit on a few percent of ordinary numbers, so the values include a few hundred of those.

Every elementwise builtin of one argument (a call shape `name(x)` with output "same shape") is
covered without a list, and so is each operator and builtin of two numbers that has such a path."""
from __future__ import annotations

import math

import numpy as np
import pytest

from lamina.builtins.registry import load_all
from lamina.errors import LaminaError
from lamina.interpreter import Interpreter
from lamina.lang import operators

EDGES = [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 1.5, -2.5, 2.0, 2.5, 3.0, 0.3, -7.25, 1e-300, 5e-324, 1e300, -1e300, 709.8,
         -745.2, math.inf, -math.inf, math.nan]
# Ordinary numbers too: a math library and NumPy's SIMD kernels (AVX-512 on some machines) part
# in the last bit on a few percent of them, which a handful of round numbers never shows.
_spread = np.random.default_rng(7)
VALUES = EDGES + [float(v) for v in np.concatenate([_spread.uniform(-4, 4, 150), _spread.uniform(0, 60, 100),
                                                     np.exp(_spread.uniform(-30, 30, 50))])]
PAIR_VALUES = EDGES + VALUES[len(EDGES)::10]      # every pair of them: fewer ordinary ones
REGISTRY = load_all()
UNARY = sorted(n for n, s in REGISTRY.items()
               if any(sh.code == f"{n}(x)" and sh.output in ("same shape", "bool, or a logical tensor")
                      for sh in s.shapes))
NOT_ELEMENTWISE = {"zscore"}     # standardizes against the tensor's own mean and spread


def outcome(fn, *args):
    try:
        with np.errstate(all="ignore"):
            out = fn(*args)
    except LaminaError as e:
        return ("error", e.kind)
    if isinstance(out, np.ndarray):
        assert out.shape == (1,), out.shape
        out = out[0]
    value = float(out)
    return ("nan",) if value != value else ("value", value, math.copysign(1.0, value))


def test_the_unary_builtins_are_found():
    assert {"abs", "exp", "round", "sigmoid", "sqrt", "tanh", "floor", "sign", "isnan", "isfinite"} <= set(UNARY)


@pytest.mark.parametrize("name", [n for n in UNARY if n not in NOT_ELEMENTWISE])
def test_a_number_goes_through_a_unary_builtin_as_a_one_element_vector(name):
    fn = REGISTRY[name].fn
    for x in VALUES:
        scalar = outcome(fn, x)
        assert scalar == outcome(fn, np.array([x])), (name, x)
        if scalar[0] == "value":
            assert type(fn(x)) in (float, bool)


PAIRS = {
    "max": lambda a, b: REGISTRY["max"].fn(a, b),
    "min": lambda a, b: REGISTRY["min"].fn(a, b),
    "mod": lambda a, b: REGISTRY["mod"].fn(a, b),
    "round(x, digits)": lambda a, b: REGISTRY["round"].fn(a, 2.0 if b != b or abs(b) > 9 else b),
    ".^": operators.epower,
    "%": operators.mod,
    "clamp(x, lo, 5)": lambda a, b: REGISTRY["clamp"].fn(a, min(b, 5.0) if b == b else b, 5.0),
}

# x ^ y of numbers is what a vector raised to the number y gives: NumPy's power treats a
# number exponent its own way (v .^ 0.5 is sqrt(v), keeping the sign of -0; a vector of
# exponents goes through pow, which gives +0 and can differ in the last bit).
NUMBER_EXPONENT = {".^"}


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_two_numbers_go_through_a_builtin_as_one_element_vectors(name):
    fn = PAIRS[name]
    for a in PAIR_VALUES:
        for b in PAIR_VALUES:
            other = b if name in NUMBER_EXPONENT else np.array([b])
            assert outcome(fn, a, b) == outcome(fn, np.array([a]), other), (name, a, b)


def test_the_power_operator_on_numbers_is_the_elementwise_power():
    for a in PAIR_VALUES:
        for b in PAIR_VALUES:
            assert outcome(operators.power, a, b) == outcome(operators.epower, np.array([a]), b), (a, b)


def test_scalar_paths_still_record_a_tracked_value():
    interp = Interpreter()
    interp.run("x = param(0.5)\ny = param(2.0)\n"
               "g = grad(sqrt(x) + exp(x) + sigmoid(x) + tanh(x) + max(x, y) + mod(y, x) + x ^ y + relu(x), "
               "wrt = [x, y])", "<test>")
    gx, gy = interp.get("g")
    s = 1 / (1 + math.exp(-0.5))
    expected_x = (0.5 / math.sqrt(0.5) + math.exp(0.5) + s * (1 - s) + 1 - math.tanh(0.5) ** 2
                  - math.floor(2.0 / 0.5) + 2.0 * 0.5 + 1.0)
    expected_y = 1.0 + 1.0 + 0.5 ** 2 * math.log(0.5)
    assert gx == pytest.approx(expected_x, rel=1e-12) and gy == pytest.approx(expected_y, rel=1e-12)


def test_sum_and_mean_of_a_float_tensor_are_numpys_to_the_bit():
    rng = np.random.default_rng(7)
    shapes = [(n,) for n in range(1, 40)] + [(1000,), (12345,), (5, 3), (40, 7)]
    for shape in shapes:
        x = rng.normal(size=shape) * 10.0 ** rng.uniform(-5, 5, size=shape)
        for v in (x, np.asfortranarray(x), x.T, np.array([np.inf, 1.0]), np.array([np.nan, 1.0])):
            got_sum, got_mean = REGISTRY["sum"].fn(v), REGISTRY["mean"].fn(v)
            assert type(got_sum) is float and type(got_mean) is float
            assert outcome(lambda u: got_sum, v) == outcome(lambda u: float(np.sum(u)), v)
            assert outcome(lambda u: got_mean, v) == outcome(lambda u: float(np.mean(u)), v)


@pytest.mark.parametrize("code, kind", [
    ("round(2.5, [1, 2])", "TypeError"), ("round(2.5, \"2\")", "TypeError"), ("clamp(1, 5, 2)", "ValueError"),
    ("max(1, 2, axis = [0, 1])", "TypeError"), ("mod(1, \"2\")", "TypeError"), ("isnan(\"x\")", "TypeError"),
])
def test_a_number_path_leaves_the_other_arguments_to_the_general_checks(code, kind):
    with pytest.raises(LaminaError) as e:
        Interpreter().run(f"x = {code}", "<test>")
    assert e.value.kind == kind


def test_round_with_digits_on_a_number_is_the_vectors_to_the_bit():
    """round(x, digits)'s number path (Python's round) against the general path (NumPy's
    np.round, mended near ties), over numbers of every size and digits from -25 to 25."""
    rng = np.random.default_rng(11)
    xs = list(VALUES) + list(rng.normal(size=300) * 10.0 ** rng.uniform(-12, 12, size=300))
    xs += [0.125, 2.675, -1.005, 1.5e-8, 123456.5, 1e22, 1.7976931348623157e308, 2.5e-310]
    fn = REGISTRY["round"].fn
    for x in xs:
        for digits in range(-25, 26):
            assert outcome(fn, float(x), float(digits)) == outcome(fn, np.array([x]), float(digits)), (x, digits)


def test_round_with_digits_rounds_the_stored_value_as_decimal_arithmetic_does():
    """round(x, digits) against Python's decimal module (half to even on the exact stored value):
    0.15 is 0.1499999999999999944, so round(0.15, 1) is 0.1, as in R, Python and Julia. Numbers
    near ties, in a vector and as numbers, float64 and float32."""
    from decimal import ROUND_HALF_EVEN, Decimal
    rng = np.random.default_rng(5)
    cents = np.arange(-2000, 2000) / 1000.0              # 2.675, 1.005, 0.125, ...: ties and near ties
    xs = np.concatenate([cents, rng.normal(size=500) * 10.0 ** rng.uniform(-6, 6, size=500)])
    fn = REGISTRY["round"].fn
    for digits in (-2, -1, 1, 2, 3, 6):
        exact = [float(Decimal(x).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_EVEN)) for x in xs]
        np.testing.assert_array_equal(fn(xs, float(digits)), exact, err_msg=f"digits {digits}")
        assert [fn(float(x), float(digits)) for x in xs[::37]] == exact[::37]
        x32 = xs.astype(np.float32)
        exact32 = np.float32([float(Decimal(float(x)).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_EVEN))
                              for x in x32])
        got32 = fn(x32, float(digits))
        assert got32.dtype == np.float32
        np.testing.assert_array_equal(got32, exact32, err_msg=f"float32, digits {digits}")
    assert fn(0.15, 1.0) == 0.1 and fn(2.675, 2.0) == 2.67 and fn(0.125, 2.0) == 0.12


def test_round_beyond_the_largest_float_is_inf():
    """2e308 has no float (Python's round raises OverflowError there): Inf with x's sign, as a
    number and in a vector, as the scaling arithmetic gives it."""
    fn, big = REGISTRY["round"].fn, 1.7976931348623157e308
    assert fn(big, -308.0) == math.inf and fn(-big, -308.0) == -math.inf
    np.testing.assert_array_equal(fn(np.array([big, -big, 2.5]), -308.0), [math.inf, -math.inf, 0.0])
    assert fn(big, -309.0) == 0.0 and fn(big, 5.0) == big
