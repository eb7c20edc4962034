"""Every differentiable builtin and operator, one order up: the gradient kept on the tape
(grad's keep) and differentiated again, against finite differences of exact gradients.

The cases come from the registry and ops.OPERATORS (as tests/autodiff/test_gradcheck.py's).
An operator, and a builtin that declares twice=True, must pass; any other builtin must pass
or be refused by the keep sweep's "first order only" TapeError: never a wrong second
derivative.
"""
import pytest

from lamina.autodiff import gradcheck, ops
from lamina.autodiff.cases import GradCase
from lamina.autodiff.tape import TAPE, record1, second_order
from lamina.builtins.registry import REGISTRY, BuiltinSpec, Shape, grad_cases
from lamina.values import value_of

CASES = [c for c in grad_cases() if c[2] is not None]    # a missing case fails test_gradcheck.py


def declares_twice(case_id: str) -> bool:
    """Whether the case's builtin says it is differentiable twice (every operator is)."""
    kind, name = case_id.split("#")[0].split(":")
    return kind == "op" or REGISTRY[name].twice


def second_order_problems(case_id: str, fn, case: GradCase, twice: bool) -> list[str]:
    result = gradcheck.check_second_order(case_id, fn, case)
    if result.refused is None:
        return result.problems
    if twice:
        return [f"{case_id} declares twice=True, but the keep sweep refuses it: {result.refused}"]
    return []


@pytest.mark.parametrize("case_id, fn, case", CASES, ids=[c[0] for c in CASES])
def test_second_derivatives_match_finite_differences_of_exact_gradients(case_id, fn, case):
    problems = second_order_problems(case_id, fn, case, declares_twice(case_id))
    assert not problems, "\n".join(problems)


def test_every_operator_is_checked_at_second_order():
    checked = {c[0].split("#")[0] for c in CASES if declares_twice(c[0])}
    for op in ("add", "sub", "mul", "div", "emul", "ediv", "pow", "epow", "neg", "transpose",
               "index", "setindex", "build_vector", "build_matrix"):
        assert f"op:{op}" in checked


# -- the check itself: ops whose second derivative is right, wrong, or not declared -------------
@second_order
def cube(a):
    """x^3 elementwise, its keep rule written with tape operations: 3 x^2 g."""
    x = value_of(a)
    return record1(x ** 3, a, lambda g: ops.emul(g, ops.emul(3.0, ops.emul(a, a))) if TAPE.keeping
                   else g * 3.0 * x * x)


@second_order
def cube_constant_slope(a):
    """x^3 whose keep rule uses the slope as a constant: the right gradient, recorded as if it did
    not depend on x (a second derivative of 0 instead of 6 x)."""
    x = value_of(a)
    return record1(x ** 3, a, lambda g: ops.emul(g, 3.0 * x * x) if TAPE.keeping else g * 3.0 * x * x)


@second_order
def cube_wrong_kept_value(a):
    """x^3 whose keep rule is 1% off: the kept gradient is not the first-order one."""
    x = value_of(a)
    return record1(x ** 3, a, lambda g: ops.emul(g, ops.emul(3.03, ops.emul(a, a))) if TAPE.keeping
                   else g * 3.0 * x * x)


def cube_first_order(a):
    """x^3 with a VJP that is not declared second order."""
    x = value_of(a)
    return record1(x ** 3, a, lambda g: g * 3.0 * x * x)


@pytest.mark.parametrize("case", [GradCase(((4,),)), GradCase(((),)), GradCase(((2, 3),), domain="positive")])
def test_a_right_second_derivative_passes(case):
    result = gradcheck.check_second_order("cube", cube, case)
    assert result.refused is None and result.problems == []


def test_a_keep_rule_that_treats_its_slope_as_a_constant_is_caught():
    result = gradcheck.check_second_order("cube", cube_constant_slope, GradCase(((4,),)))
    assert result.refused is None
    assert len(result.problems) == 1 and "second derivative for argument 0" in result.problems[0]


def test_a_kept_gradient_that_differs_from_the_first_order_one_is_caught():
    result = gradcheck.check_second_order("cube", cube_wrong_kept_value, GradCase(((3,),)))
    assert any("kept gradient for argument 0 differs from the first-order gradient" in p
               for p in result.problems)


def test_an_op_that_is_first_order_only_is_refused_by_name():
    result = gradcheck.check_second_order("cube", cube_first_order, GradCase(((3,),)))
    assert result.problems == []
    assert "the gradient of cube_first_order" in result.refused and "first order only" in result.refused


def test_a_builtin_declaring_twice_that_the_keep_sweep_refuses_fails():
    case = GradCase(((3,),))
    spec = BuiltinSpec("fake_cube", cube_first_order, "Math", [Shape("fake_cube(x)", "tensor", "tensor", "")],
                       "x cubed.", [], "", grad=[case], twice=True)
    problems = second_order_problems("builtin:fake_cube#0", spec.fn, case, spec.twice)
    assert problems and "declares twice=True, but the keep sweep refuses it" in problems[0]
    assert second_order_problems("builtin:fake_cube#0", spec.fn, case, twice=False) == []


def test_a_builtin_not_declaring_twice_still_fails_on_a_wrong_second_derivative():
    assert second_order_problems("cube", cube_constant_slope, GradCase(((4,),)), twice=False)


def test_a_function_of_several_arguments_checks_each_and_their_cross_terms():
    # f(a, b) = a .* b .^ 2: d2/da db = 2 b, which only the cross term of the Hessian carries.
    def product(a, b):
        return ops.emul(a, ops.emul(b, b))
    result = gradcheck.check_second_order("product", product, GradCase(((3,), (3,))))
    assert result.refused is None and result.problems == []

    @second_order
    def product_without_cross_term(a, b):
        x, y = value_of(a), value_of(b)
        from lamina.autodiff.tape import record2
        return record2(x * y * y, a, b,
                       lambda g: ops.emul(g, y * y) if TAPE.keeping else g * y * y,
                       lambda g: ops.emul(g, ops.emul(2.0 * x, b)) if TAPE.keeping else g * 2.0 * x * y)
    result = gradcheck.check_second_order("product", product_without_cross_term, GradCase(((3,), (3,))))
    assert {p.split(" (")[0] for p in result.problems} == {
        "product: second derivative for argument 0", "product: second derivative for argument 1"}


def test_a_symmetric_domain_is_moved_within_symmetric_matrices():
    # f(A) = A .^ 3 + (A .^ 3)' is a function of symmetric A whose gradient is symmetric, as a
    # function on that domain (chol, eigh) gives; the directions are symmetric too.
    def symmetric_cube(a):
        c = cube(a)
        return ops.add(c, ops.transpose(c))
    result = gradcheck.check_second_order("cube", symmetric_cube, GradCase(((3, 3),), domain="spd"))
    assert result.refused is None and result.problems == []
    wrong = gradcheck.check_second_order("cube", lambda a: ops.add(cube_constant_slope(a), ops.transpose(
        cube_constant_slope(a))), GradCase(((3, 3),), domain="spd"))
    assert len(wrong.problems) == 1


def test_an_argument_the_result_does_not_depend_on_gets_zeros_at_both_orders():
    result = gradcheck.check_second_order("cube", lambda a, b: cube(a), GradCase(((3,), (2,))))
    assert result.refused is None and result.problems == []
