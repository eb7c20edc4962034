"""Every builtin that passes no gradient takes a gradient (or a value computed from one) as the
plain value it holds. A gradient taken without keep is a frozen value (autodiff/handed.py), a
Tracked of no live generation; each builtin's probe calls, which give it tracked p, q and c, are
run here with p, q and c the gradients grad hands out of the same numbers, and must print what
they print with plain p, q and c (or fail with the same error). A call whose printout differs
between two runs with plain values (timings) is held to the same outcome: its printout's kind,
or the same error."""
from __future__ import annotations

import contextlib
import io

import pytest
from builtin_checks import fresh_tape, in_tmp_dir  # noqa: F401  (autouse fixtures)

from lamina.builtins.registry import load_all
from lamina.errors import LaminaError
from lamina.interpreter import Interpreter
from lamina.printing import reset_options
from lamina.rng import reseed

REGISTRY = load_all()
VALUES = {"p": "[1.5, 2.0, 2.5, 3.0]", "q": "[0, 1; 1, 0; 1, 1; 2, 0]", "c": "[1, 0, 1, 0]"}
PLAIN = "".join(f"{name}0 = 0.5\n{name} = {value}\n" for name, value in VALUES.items())   # as many lines
# each a gradient equal to its plain value: the gradient of sum(x0 .* v) is v
GRADIENTS = "".join(f"{name}0 = param(zeros(size({value})) + 0.5)\n{name} = grad(sum({name}0 .* {value}), "
                    f"wrt = {name}0)\n" for name, value in VALUES.items())
CALLS = [(name, call) for name, spec in sorted(REGISTRY.items())
         if spec.tracked != "differentiable" and isinstance(spec.probes, list) for call in spec.probes]


def printed(setup: str, call: str) -> str:
    body, _, last = call.rpartition("\n")
    reseed(0)
    reset_options()
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            Interpreter().run(f"{setup}{body}\nprint({last})\n", "<probe>")
    except LaminaError as err:
        return f"{err.kind}: {err.message}"
    return out.getvalue()


def outcome(text: str) -> str:
    return text.split(":")[0] if text.split(":")[0].endswith("Error") else "printed"


@pytest.mark.parametrize("name,call", CALLS, ids=[f"{n}:{c}" for n, c in CALLS])
def test_a_builtin_takes_a_gradient_as_the_plain_value_it_holds(name, call):
    expected, again, got = printed(PLAIN, call), printed(PLAIN, call), printed(GRADIENTS, call)
    if expected == again:
        assert got == expected
    else:
        assert outcome(got) == outcome(expected), got
