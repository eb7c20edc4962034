"""Every differentiable builtin and operator, against central finite differences.

The cases come from the registry and ops.OPERATORS, so a builtin registered
later (by any module) is checked here without new test code.
"""
import pytest

from lamina.autodiff import gradcheck
from lamina.builtins.registry import grad_cases

CASES = grad_cases()


@pytest.mark.parametrize("case_id, fn, case", CASES, ids=[c[0] for c in CASES])
def test_gradient_matches_finite_differences(case_id, fn, case):
    assert case is not None, (f"{case_id} is differentiable but declares no GradCase: grad=[GradCase(...)] "
                              f"on its @builtin (docs/ARCHITECTURE.md, recipe 'A differentiable builtin', step 2)")
    problems = gradcheck.check(case_id, fn, case)
    assert not problems, "\n".join(problems)


def test_the_core_differentiable_builtins_and_operators_are_checked():
    names = {c[0].split("#")[0] for c in CASES}
    for name in ("exp", "log", "sqrt", "abs", "sum", "mean", "min", "max", "prod", "dot", "transpose",
                 "reshape", "hcat", "vcat", "solve"):
        assert f"builtin:{name}" in names
    for op in ("add", "sub", "mul", "div", "emul", "ediv", "pow", "epow", "neg", "transpose",
               "index", "setindex", "build_vector", "build_matrix"):
        assert f"op:{op}" in names


def test_a_wrong_gradient_is_caught():
    from lamina.autodiff.tape import record
    from lamina.builtins.registry import GradCase
    from lamina.values import Tracked

    def bad_square(a):
        x = a.value if type(a) is Tracked else a
        return record(x * x, [a], [lambda g: g * 2.01 * x])
    problems = gradcheck.check("bad_square", bad_square, GradCase(((3,),)))
    assert problems and "differs from finite differences" in problems[0]


def test_a_builtin_that_records_nothing_is_caught():
    from lamina.builtins.registry import GradCase
    problems = gradcheck.check("untracked", lambda a: 1.0, GradCase(((),)))
    assert problems and "not recorded" in problems[0]
