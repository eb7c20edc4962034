"""Every differentiable builtin and operator in float32: results and gradients stay float32 and
agree with float64 to float32 precision. The cases are the generic gradient check's (the
registry's grad_cases()), so a builtin registered later is covered without new test code."""
import pytest

from lamina.autodiff import gradcheck
from lamina.builtins.registry import grad_cases, load_all

# Builtins whose whole result is float64 by design, declared with the reason on the decorator
# (`@builtin(..., float64_results=(reason, ("result",)))`, as float64's).
NOT_FLOAT32 = {f"builtin:{name}": spec.float64_results[0] for name, spec in load_all().items()
               if spec.differentiable and spec.float64_results and "result" in spec.float64_results[1]}

# Cases whose inputs are all numbers: numbers are always float64, so they have no float32 run.
CASES = [c for c in grad_cases() if c[2] is not None and c[0].split("#")[0] not in NOT_FLOAT32
         and gradcheck.has_tensor(c[2])]


@pytest.mark.parametrize("case_id, fn, case", CASES, ids=[c[0] for c in CASES])
def test_float32_results_and_gradients(case_id, fn, case):
    problems = gradcheck.check_float32(case_id, fn, case)
    assert not problems, "\n".join(problems)


def test_a_builtin_that_computes_in_float64_is_caught():
    import numpy as np

    from lamina.autodiff.tape import record
    from lamina.builtins.registry import GradCase
    from lamina.values import Tracked

    def leaky_square(a):           # forward in float32, backward through a float64 array
        x = a.value if type(a) is Tracked else a
        return record(x * x, [a], [lambda g: g * 2.0 * x.astype(np.float64)])
    problems = gradcheck.check_float32("leaky_square", leaky_square, GradCase(((3,),)))
    assert problems == ["leaky_square: gradient for argument 0 is float64 array, not a float32 array"]


def test_a_float32_result_far_from_float64_is_caught():
    import numpy as np

    from lamina.autodiff.tape import record
    from lamina.builtins.registry import GradCase
    from lamina.values import value_of

    def coarse(a):                 # float32 in, but rounded to one decimal: wrong beyond tolerance
        x = value_of(a)
        return record(np.round(x, 1) if x.dtype == np.float32 else x.copy(), [a], [lambda g: g])
    problems = gradcheck.check_float32("coarse", coarse, GradCase(((3,),)))
    assert problems and "result 0 differs from float64" in problems[0]


def test_float64_is_left_out_by_its_declaration():
    assert NOT_FLOAT32["builtin:float64"] == "it converts to float64: that is what it is for"
