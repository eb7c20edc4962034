"""Every differentiable builtin and operator keeps a value computed from a gradient frozen
(autodiff/handed.py): called with frozen values where its gradient case has tracked ones, every
member of its result that the same call with tracked values records on the tape comes back frozen,
holding their grad() call, so a later grad against that call's targets sees where the value came
from. An op that computed the plain value without asking the tape (`record`) would make a loss
built from a gradient silently first order. (A member the tape does not record either, such as
batch_norm's running statistics, passes no gradient, and is plain.) The numbers are the plain
call's."""
import numpy as np
import pytest

from lamina.autodiff import handed
from lamina.autodiff.gradcheck import _members, _prepared, _tracked_call
from lamina.autodiff.tape import TAPE
from lamina.builtins.registry import grad_cases
from lamina.values import Tracked

CASES = [(case_id, fn, case) for case_id, fn, case in grad_cases() if case is not None]


@pytest.mark.parametrize("case_id,fn,case", CASES, ids=[c[0] for c in CASES])
def test_a_result_computed_from_frozen_arguments_is_frozen(case_id, fn, case):
    _, args, kwargs, wrt, fn = _prepared(case_id, fn, case)
    TAPE.reset()
    try:
        _, live = _tracked_call(fn, args, kwargs, wrt)
        recorded = [type(o) is Tracked for o in live]
        call = handed.Call({-2})
        frozen_args = list(args)
        for i in wrt:
            frozen_args[i] = handed.frozen(args[i], (call,))
        outs = _members(fn(*frozen_args, **kwargs))
        plain = _members(fn(*args, **kwargs))
    finally:
        TAPE.reset()
    for o, p in zip(outs, plain):         # the numbers are the plain call's
        np.testing.assert_array_equal(o.value if type(o) is Tracked else o, p, err_msg=case_id)
    assert any(recorded), f"{case_id} recorded nothing"
    plain = [i for i, (o, r) in enumerate(zip(outs, recorded)) if r and not (
        type(o) is Tracked and o.gen == handed.FROZEN and call in handed.calls_of(o))]
    assert not plain, f"{case_id}: result members {plain} came back plain"
