"""The operators' tiers (lang/operators.py): the scalar `%` is autodiff's ops.mod, in compiled
code and through the helper, so floored modulo is written once."""
from __future__ import annotations

import itertools
import math

import numpy as np

from lamina.autodiff import ops
from lamina.interpreter import Interpreter
from lamina.lang import operators, runtime

SPECIAL = [0.0, -0.0, 1.0, -1.0, 2.5, -7.0, 1e308, -1e308, 5e-324, math.inf, -math.inf, math.nan, 0.1]


def same(x: float, y: float) -> bool:
    return (math.isnan(x) and math.isnan(y)) or (x == y and math.copysign(1, x) == math.copysign(1, y))


def test_compiled_percent_of_two_numbers_calls_ops_mod():
    assert runtime.HELPERS["_float_mod"] is ops.mod
    interp = Interpreter()
    interp.run("function m(a, b)\n  return a % b\nend\nx = 7.5\ny = 2.0\nz = x % y", "t.lam")
    assert "_float_mod" in interp.get("m").__code__.co_names
    assert interp.get("z") == 1.5


def test_percent_gives_numpys_floored_modulo_on_every_pair():
    m = Interpreter()
    m.run("function m(a, b)\n  return a % b\nend", "t.lam")
    for a, b in itertools.product(SPECIAL, SPECIAL):
        want = float(ops.mod(a, b))
        for got in (m.get("m")(a, b), operators.mod(a, b)):
            assert same(got, want), (a, b, got, want)
        if b and not math.isinf(a) and not math.isnan(a):
            assert same(want, float(np.mod(a, b))), (a, b)
