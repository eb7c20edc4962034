"""Every builtin, given tracked arguments, keeps its word about gradients (registry `tracked`).

No builtin may lose a gradient without a word. A differentiable builtin (one with GradCases)
must return a result recorded on the tape; the generic gradient check runs it against finite
differences. A `constant` builtin is declared to pass no gradient (sizes, counts, text,
decisions, output, training); its result must not be connected to the tracked argument. A
`refuses` builtin must answer a tracked argument with a TypeError that says so. A `holds`
builtin makes a value that keeps its tracked arguments for another builtin to differentiate
(a distribution's parameters, for logpdf): its result must hold tracked values connected to them.

Every builtin that is not differentiable carries its probes on its decorator (`@builtin(...,
probes=[...])`, builtins/registry.py): calls in Lamina with tracked arguments (`param(...)` bound
to p, q and c before the call), or, when none of its arguments can carry a gradient, the reason
why. The registry refuses such a builtin without them.
"""
from __future__ import annotations

import contextlib
import io

import numpy as np
import pytest
from builtin_checks import fresh_tape, in_tmp_dir  # noqa: F401  (autouse fixtures)

from lamina.autodiff import reductions
from lamina.autodiff.grad import backward
from lamina.autodiff.gradcheck import random_input
from lamina.autodiff.tape import TAPE, is_live
from lamina.builtins.registry import Const, builtin, load_all
from lamina.errors import LaminaError
from lamina.interpreter import Interpreter
from lamina.values import LibObject, Record, Tracked

REGISTRY = load_all()

# Arguments of differentiable builtins that take no gradient: refused, never ignored.
REFUSED_ARGUMENTS = ["quantile([1, 2, 3], p[0] / 10)", "choice([1, 2, 3, 4], 2, p = p ./ sum(p))",
                     "normal(0, 1).quantile(p[0] / 10)"]
SETUP = "p = param([1.5, 2.0, 2.5, 3.0])\nq = param([0, 1; 1, 0; 1, 1; 2, 0])\nc = param([1, 0, 1, 0])\n"


def run_probe(call: str):
    """(the result of `call`, the tracked p and q it was given); raises the LaminaError it raises."""
    interp = Interpreter()
    setup, _, last = (SETUP + call).rpartition("\n")
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        interp.run(f"{setup}\nprobe_result = {last}\n", "<probe>")
    return interp.get("probe_result"), [interp.get(v) for v in ("p", "q", "c")]


def tracked_members(x) -> list:
    if isinstance(x, list):
        return [m for item in x for m in tracked_members(item)]
    if isinstance(x, Record):
        return [m for item in x.fields.values() for m in tracked_members(item)]
    if isinstance(x, LibObject):
        return [m for name in x.field_names() for m in tracked_members(_field(x, name))]
    return [x] if is_live(x) else []


def _field(obj: LibObject, name: str):
    try:
        return obj.get(name)
    except LaminaError:
        return None


def connected(result, inputs: list) -> bool:
    """Whether any tracked value in `result` depends on any of `inputs` on the tape."""
    wanted = {x.node for x in inputs if type(x) is Tracked}
    for member in tracked_members(result):
        loss = member if type(member.value) is float else reductions.sum(member)
        if backward(loss, wanted)[0]:
            return True
    return False


def test_every_builtin_declares_what_it_does_with_a_tracked_argument():
    for name, spec in REGISTRY.items():
        assert spec.tracked in ("differentiable", "constant", "refuses", "holds"), name
        assert (spec.tracked == "differentiable") == (spec.grad is not None), name
        assert (spec.tracked != "differentiable") == (spec.probes is not None), \
            f"{name} needs probes=: calls with tracked arguments, or why there are none"


def test_a_builtin_without_probes_is_refused_at_registration():
    with pytest.raises(ValueError, match="'no_probes' is not differentiable, so it needs probes="):
        builtin("no_probes", category="Core", shapes=[], summary="", examples=[], notes="", tracked="constant")
    with pytest.raises(ValueError, match="'smooth_probe' is differentiable: its GradCases are its probes"):
        builtin("smooth_probe", category="Core", shapes=[], summary="", examples=[], notes="", grad=[],
                probes=["smooth_probe(p)"])
    assert "no_probes" not in REGISTRY and "smooth_probe" not in REGISTRY


@pytest.mark.parametrize("name", sorted(n for n, s in REGISTRY.items() if s.tracked != "differentiable"))
def test_a_builtin_that_is_not_differentiable_keeps_its_word(name):
    spec, probes = REGISTRY[name], REGISTRY[name].probes
    if isinstance(probes, str):
        assert probes, f"{name}: say why no argument can be tracked"
        return
    for call in probes:
        if spec.tracked == "refuses":
            with pytest.raises(LaminaError) as info:
                run_probe(call)
            assert info.value.kind == "TypeError", f"{call}: {info.value.render()}"
            assert "tracked" in info.value.message and "detach" in info.value.message, call
        elif spec.tracked == "holds":
            result, inputs = run_probe(call)
            assert connected(result, inputs), f"{name} is declared to hold its tracked arguments but {call} does not"
        else:
            result, inputs = run_probe(call)
            assert not connected(result, inputs), f"{name} is declared constant but {call} passes a gradient"


@pytest.mark.parametrize("call", REFUSED_ARGUMENTS)
def test_arguments_that_take_no_gradient_are_refused(call):
    with pytest.raises(LaminaError) as info:
        run_probe(call)
    assert info.value.kind == "TypeError" and "detach" in info.value.message, info.value.render()


@pytest.mark.parametrize("name", sorted(n for n, s in REGISTRY.items() if s.tracked == "differentiable"))
def test_a_differentiable_builtin_records_its_result_for_every_case(name):
    """Each GradCase's tracked arguments give a result connected to every one of them (the
    gradient check then compares the numbers)."""
    rng = np.random.default_rng(7)
    for case in REGISTRY[name].grad:
        TAPE.reset()
        args = [a.value if isinstance(a, Const) else TAPE.leaf(random_input(a, case.domain, rng), False)
                for a in case.args]
        kwargs = {k: (v.value if isinstance(v, Const) else v) for k, v in case.kwargs.items()}
        if case.reseed:
            from lamina.rng import reseed
            reseed(0)
        out = REGISTRY[name].fn(*args, **kwargs)
        for x in args:
            if type(x) is Tracked and np.size(x.value):
                assert connected(out, [x]), (f"{name}{case.args}: the result does not depend on an argument: "
                                             f"record it with its VJP (docs/ARCHITECTURE.md, recipe "
                                             f"'A differentiable builtin', step 1)")
