"""A builtin handed a function of the wrong number of parameters says so as a Lamina error.

Every function literal in a builtin's probe calls and examples is given one parameter more and
none (and one of several parameters just its first): each changed program must run or end in a
Lamina error, never an InternalError. hessian, jacobian, hvp, minimize and mle call their
function from below the language (autodiff, optim), where a call that did not bind was a Python
TypeError the interpreter reported as its own bug (`minimize(x -> x, 0, 0)`, found by fuzzing).
"""
from __future__ import annotations

import contextlib
import io
import re

import pytest
from builtin_checks import fresh_tape, in_tmp_dir  # noqa: F401  (autouse fixtures)

from lamina.builtins.registry import load_all
from lamina.errors import LaminaError
from lamina.interpreter import Interpreter

REGISTRY = load_all()
SETUP = "p = param([1.5, 2.0, 2.5, 3.0])\nq = param([0, 1; 1, 0; 1, 1; 2, 0])\nc = param([1, 0, 1, 0])\n"
ONE_PARAMETER = re.compile(r"(?<![\w)\]])\b([a-z_]\w*) ->")            # x -> ...
SEVERAL = re.compile(r"\(([a-z_]\w*)(?:, [a-z_]\w*)+\) ->")            # (a, b) -> ...


def changed(program: str) -> list[str]:
    """The program with one of its function literals given the wrong number of parameters."""
    out = []
    for m in ONE_PARAMETER.finditer(program):
        out += [program[:m.start()] + f"({m.group(1)}, extra) ->" + program[m.end():],
                program[:m.start()] + "() ->" + program[m.end():]]
    for m in SEVERAL.finditer(program):
        out.append(program[:m.start()] + f"{m.group(1)} ->" + program[m.end():])
    return out


def programs(spec) -> list[str]:
    return [SETUP + call for call in (spec.probes if isinstance(spec.probes, list) else [])] + list(spec.examples)


PROGRAMS = [(name, variant) for name, spec in sorted(REGISTRY.items())
            for program in programs(spec) for variant in changed(program)]


def test_every_function_literal_is_changed():
    """Each probe or example that writes a function literal (` -> `) is changed: a literal the
    patterns above missed would pass the test below without being checked."""
    missed = [(name, program) for name, spec in REGISTRY.items() for program in programs(spec)
              if program.count(" -> ") > len(ONE_PARAMETER.findall(program)) + len(SEVERAL.findall(program))]
    assert not missed, missed
    assert PROGRAMS


@pytest.mark.parametrize("name, program", PROGRAMS, ids=[f"{name}-{i}" for i, (name, _) in enumerate(PROGRAMS)])
def test_a_function_of_the_wrong_arity_is_a_lamina_error(name, program):
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            Interpreter().run(program, "probe")
    except LaminaError as err:
        assert err.kind != "InternalError", f"{program}\n{err.render()}"


@pytest.mark.parametrize("call, message", [
    ("minimize(x -> x, 0, 0)", "minimize calls f(x, ...) with the argument given after x0; the anonymous "
                               "function takes 1 argument but 2 were given."),
    ("minimize((x, a, b) -> x ^ 2, 0.5, 3)", "minimize calls f(x, ...) with the argument given after x0; the "
                                             "anonymous function is missing 1 required argument: 'b'."),
    ("mle(b -> b ^ 2, 0.5, [1, 2], 3)", "mle calls nll(params, ...) with the 2 arguments given after start; "
                                        "the anonymous function takes 1 argument but 3 were given."),
    ("hessian((x, y) -> x ^ 2, 0.5)", "hessian calls f(x); the anonymous function is missing 1 required "
                                      "argument: 'y'."),
    ("jacobian(() -> 1, [0.5])", "jacobian calls f(x); the anonymous function takes 0 arguments but 1 was given."),
    ("hvp(f, 0.5, 1.0)", "hvp calls f(x); 'f' is missing 1 required argument: 'y'."),
])
def test_the_error_says_how_the_builtin_calls_the_function(call, message):
    with pytest.raises(LaminaError) as info:
        Interpreter().run(f"function f(x, y)\n    return x * y\nend function\nr = {call}\n", "f.lam")
    assert info.value.kind == "TypeError"
    assert info.value.message == message
    assert info.value.render().splitlines()[1] == "  --> f.lam:4:5"


def test_an_error_inside_the_function_is_still_its_own():
    """Only a call that does not bind is reworded: a TypeError the function's body raises (here
    a vector added to a record) keeps its message and its place inside the function."""
    with pytest.raises(LaminaError) as info:
        Interpreter().run("r = minimize(x -> sum(x + {a = 1}), [0.5])\n", "f.lam")
    assert info.value.kind == "TypeError"
    assert "minimize calls" not in info.value.message
