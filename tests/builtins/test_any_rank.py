"""Every builtin takes tensors of any rank or refuses them: never a matrix routine's answer for an array.

A builtin declares `any_rank=True` (it computes on tensors of any rank, and if differentiable its
gradient check covers ranks 3 and 4), `any_rank="items"` (it only holds or passes on the values it
is given), or nothing, and then the rank gate refuses a rank-3+ argument with a ShapeError before
the builtin's own code runs. The lists here come from the registry.
"""
from __future__ import annotations

import numpy as np
import pytest

from lamina.autodiff.cases import Const
from lamina.autodiff.ops import OPERATORS
from lamina.autodiff.tape import TAPE
from lamina.builtins.registry import load_all
from lamina.errors import LaminaError
from lamina.values import GATE_CODE, rank_gate

REGISTRY = load_all()
GATED = sorted(name for name, spec in REGISTRY.items() if not spec.any_rank)
ANY_RANK_DIFFERENTIABLE = sorted(name for name, spec in REGISTRY.items()
                                 if spec.any_rank is True and spec.differentiable)


def _ranks(cases) -> set[int]:
    """The ranks of the tensors a list of GradCases differentiates."""
    return {len(arg) for case in cases for arg in case.args if not isinstance(arg, Const)}


@pytest.mark.parametrize("name", GATED)
def test_a_builtin_that_does_not_declare_any_rank_refuses_a_rank_3_tensor(name):
    spec = REGISTRY[name]
    assert spec.fn.__code__ is GATE_CODE, f"{name} is registered without its rank gate"
    array = np.zeros((2, 3, 4))
    before = (None,) if spec.scoped else ()
    for args in ((array,), (1.0, [array])):     # as an argument, and as an item of a list argument
        with pytest.raises(LaminaError) as caught:
            spec.fn(*before, *args)
        assert caught.value.kind == "ShapeError"
        assert caught.value.message.startswith(f"{name} takes numbers, vectors and matrices, not a 2x3x4 array.")


@pytest.mark.parametrize("name", ANY_RANK_DIFFERENTIABLE)
def test_a_differentiable_builtin_of_any_rank_checks_its_gradient_at_ranks_3_and_4(name):
    ranks = _ranks(REGISTRY[name].grad)
    assert {3, 4} <= ranks, (f"{name} declares any_rank=True: give it GradCases with a rank-3 and a "
                             f"rank-4 argument (it has ranks {sorted(ranks)})")


@pytest.mark.parametrize("name", ["add", "sub", "emul", "ediv", "epow", "mod", "neg", "index", "setindex"])
def test_each_elementwise_operator_and_index_checks_its_gradient_at_ranks_3_and_4(name):
    assert {3, 4} <= _ranks(OPERATORS[name][1])


def test_the_gate_reads_a_tracked_value_and_keywords_and_lets_vectors_and_matrices_through():
    gated = rank_gate(lambda *args, **kwargs: "ran", "probe")
    assert gated(np.zeros(3), np.zeros((2, 2)), k=[np.zeros((1, 1))], s="text") == "ran"
    tracked = REGISTRY["param"].fn(np.zeros((2, 2, 2)))
    with pytest.raises(LaminaError, match="probe takes numbers, vectors and matrices, not a 2x2x2 array"):
        gated(tracked)
    with pytest.raises(LaminaError, match=r"reshape\(x, 2, -1\)"):
        gated(k=np.zeros((2, 2, 2)))
    TAPE.reset()
