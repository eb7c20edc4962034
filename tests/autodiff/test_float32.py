"""Every differentiable builtin and operator in float32: results and gradients stay float32 and
agree with float64 to float32 precision. The cases are the generic gradient check's (the
registry's grad_cases()), so a builtin registered later is covered without new test code."""
import pytest

from lamina.autodiff import gradcheck
from lamina.builtins.registry import grad_cases

# Builtins that do not keep float32, with the reason.
NOT_FLOAT32 = {
    "builtin:map": "the function's results are numbers, and a vector built from numbers is float64",
}

# Cases whose inputs are all numbers: numbers are always float64, so they have no float32 run.
CASES = [c for c in grad_cases() if c[2] is not None and c[0].split("#")[0] not in NOT_FLOAT32
         and gradcheck.has_tensor(c[2])]


@pytest.mark.parametrize("case_id, fn, case", CASES, ids=[c[0] for c in CASES])
def test_float32_results_and_gradients(case_id, fn, case):
    problems = gradcheck.check_float32(case_id, fn, case)
    assert not problems, "\n".join(problems)
