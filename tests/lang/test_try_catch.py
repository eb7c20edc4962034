"""What `catch` catches: every Lamina error from below it, but not Ctrl-C, exit() or a bug."""
from __future__ import annotations

import contextlib
import io

import pytest

from lamina.errors import LaminaError, ProgramExit
from lamina.interpreter import Interpreter
from lamina.lang.scope import mangle

PROGRAM = """
try
    trouble()
catch err
    print("caught", err.kind)
finally
    print("finally")
end try
"""


def run_with(trouble) -> tuple[str, BaseException | None]:
    interp = Interpreter()
    interp.namespace["__builtins__"][mangle("trouble")] = trouble
    out = io.StringIO()
    raised = None
    with contextlib.redirect_stdout(out):
        try:
            interp.run(PROGRAM, "t.lam")
        except BaseException as exc:   # noqa: BLE001 - the test looks at what escaped
            raised = exc
    return out.getvalue(), raised


def test_a_lamina_error_is_caught():
    def trouble():
        raise LaminaError("ValueError", "bad")
    assert run_with(trouble) == ("caught ValueError\nfinally\n", None)


def test_an_interrupt_is_not_caught_but_finally_runs():
    def trouble():
        raise KeyboardInterrupt
    out, raised = run_with(trouble)
    assert out == "finally\n"
    assert isinstance(raised, KeyboardInterrupt)


def test_exit_is_not_caught_but_finally_runs():
    def trouble():
        raise ProgramExit(3)
    out, raised = run_with(trouble)
    assert out == "finally\n"
    assert isinstance(raised, ProgramExit) and raised.code == 3


def test_a_bug_in_lamina_is_not_caught():
    def trouble():
        return {}["missing"]     # a KeyError in Lamina's own code: an InternalError
    out, raised = run_with(trouble)
    assert out == "finally\n"
    assert isinstance(raised, LaminaError) and raised.kind == "InternalError"
    assert "KeyError" in raised.message


@pytest.mark.parametrize("error", [NameError("name 'math' is not defined", name="math"),
                                   UnboundLocalError("cannot access local variable 'x'")])
def test_a_name_error_in_lamina_s_own_code_is_an_internal_error_not_an_undefined_variable(error):
    # It used to read "NameError: Undefined variable 'math'", as if the program had a typo.
    def trouble():
        raise error
    out, raised = run_with(trouble)
    assert isinstance(raised, LaminaError) and raised.kind == "InternalError"
    assert raised.message.startswith(type(error).__name__)


def test_the_caught_span_and_stack_are_those_the_command_line_prints():
    """The record of a caught error matches the report of the same error left uncaught."""
    body = ("function f(v)\n    return g(v)\nend function\nfunction g(v)\n    return v * [1, 2]\nend function\n"
            "function caller()\n    CALL\nend function\ncaller()\n")
    uncaught = None
    try:
        Interpreter().run(body.replace("CALL", "     f([1, 2, 3])"), "p.lam")
    except LaminaError as err:
        uncaught = err
    caught_program = body.replace("CALL", "try; f([1, 2, 3]); catch e; error(e); end try")   # same lines
    with pytest.raises(LaminaError) as info:
        Interpreter().run(caught_program, "p.lam")
    again = info.value
    assert (again.kind, again.message, again.span.line, again.span.col) == \
        (uncaught.kind, uncaught.message, uncaught.span.line, uncaught.span.col) == \
        ("ShapeError", uncaught.message, 5, 14)
    assert [(f.function, f.span.line, f.span.col) for f in again.stack] == \
        [(f.function, f.span.line, f.span.col) for f in uncaught.stack] == \
        [("caller", 10, 1), ("f", 8, 10), ("g", 2, 12)]
