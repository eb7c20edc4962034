"""The operators' tiers (lang/operators.py): the scalar `%` is autodiff's ops.mod, in compiled
code and through the helper, so floored modulo is written once; the number test and the fast
paths' constants are written once too."""
from __future__ import annotations

import ast
import inspect
import itertools
import math

import numpy as np

from lamina.autodiff import ops
from lamina.interpreter import Interpreter
from lamina.lang import container_ops, operators, runtime, stores

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


def defined_at_top(module) -> set[str]:
    """The names a module's own top level defines (functions, classes, assignments)."""
    names = set()
    for node in ast.parse(inspect.getsource(module)).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        for target in node.targets if isinstance(node, ast.Assign) else ():
            names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    return names


def test_the_number_test_and_the_fast_paths_constants_are_defined_once():
    # operators._is_scalar was container_ops' number test written again; F64, _NDARRAY and
    # _trunc were assigned in both stores.py and runtime.py, and ALL in runtime.py and selection.py.
    assert "_is_scalar" not in defined_at_top(operators) and "is_number" in defined_at_top(container_ops)
    assert not {"F64", "_NDARRAY", "_trunc", "ALL"} & defined_at_top(runtime)
    assert {"F64", "_NDARRAY", "_trunc"} <= defined_at_top(stores)
    assert (runtime.F64, runtime._NDARRAY, runtime._trunc) == (stores.F64, stores._NDARRAY, stores._trunc)
    assert runtime.HELPERS["_ALL"] == slice(None, None)
