"""A program and its surroundings: its arguments, its exit status, its warnings, its errors."""
from __future__ import annotations

from ..errors import KINDS, LaminaError, ProgramExit
from ..lang.pyerrors import ErrorRecord
from ..printing import format_value
from ..values import Record, as_str, describe, value_of
from ..warnings import enabled, set_enabled, warn
from .registry import Shape, builtin

CORE = "Core"
# The kinds a program may raise: every kind but a bug in Lamina.
RAISABLE = tuple(k for k in KINDS if k != "InternalError")

_ARGUMENTS: list[str] = []


def set_program_arguments(arguments: list[str]) -> None:
    """The words after the program's file on the command line (the CLI sets them)."""
    _ARGUMENTS[:] = [str(a) for a in arguments]


@builtin("args", any_rank=True, pure="a list of strings", tracked="constant", category=CORE,
         probes="takes no argument",
         shapes=[Shape("args()", "no input", "list of strings",
                       "The words after the program's name on the command line.")],
         summary="Returns the command-line arguments given after the program's file name.",
         examples=['a = args()\nprint(a, length(a))\n'
                   'lr = 0.01\nfor i = 0 to length(a) - 2\n    if a[i] == "--lr"\n'
                   '        lr = number(a[i + 1])\n    end if\nend for\nprint(lr)'],
         notes="`lamina train.lam data.csv --lr 0.1` gives `[\"data.csv\", \"--lr\", \"0.1\"]`: "
               "everything after the file name belongs to the program, including words that start "
               "with `-`. They are strings; convert numbers with `number`. In the REPL, with `-e` "
               "and in these examples the list is empty. A module sees the same list as the "
               "program that imports it.")
def args():
    return list(_ARGUMENTS)


@builtin("exit", any_rank=True, tracked="constant", category=CORE,
         probes="ends the program with a status",
         shapes=[Shape("exit()", "no input", "does not return", "Ends the program with status 0."),
                 Shape("exit(code)", "whole number 0 to 255", "does not return",
                       "Ends the program with that exit status.")],
         summary="Ends the program now, with an exit status for the shell (0 means success).",
         examples=['function check(n)\n    if n < 0\n        print("n must not be negative")\n'
                   '        exit(2)\n    end if\nend function\n'
                   'try\n    check(-1)\n    print("not reached")\nfinally\n    print("cleaning up")\nend try'],
         notes="`finally` blocks on the way out still run, and `catch` does not stop an exit. "
               "From the command line the status is what the shell sees (`echo $?`); in the REPL "
               "exit() ends the session; in a notebook it ends the cell, the kernel keeps its "
               "variables, and a status other than 0 shows as an error.")
def exit_(code=0.0):
    code = value_of(code)       # a tracked status counts as its number
    if isinstance(code, bool) or not isinstance(code, (float, int)):
        raise LaminaError("TypeError", f"exit needs a whole number from 0 to 255 as the status, not {describe(code)}.")
    if not 0 <= code <= 255 or code % 1:
        raise LaminaError("ValueError", f"exit needs a whole number from 0 to 255 as the status, not {format_value(code)}.")
    raise ProgramExit(int(code))


@builtin("error", any_rank=True, tracked="constant", category=CORE,
         probes="stops the program with its message",
         shapes=[Shape("error(message)", "string", "does not return", "Stops the program with an Error."),
                 Shape("error(message, kind = k)", "string, kind name", "does not return",
                       "The same with a chosen kind, such as \"ValueError\"."),
                 Shape("error(err)", "the record of a caught error", "does not return",
                       "Raises a caught error again, from where it first happened.")],
         summary="Stops the program with an error carrying the given message (or raises a caught one again).",
         examples=['function safe_sqrt(x)\n    if x < 0\n        error("safe_sqrt needs x >= 0")\n    end if\n'
                   '    return sqrt(x)\nend function\nprint(safe_sqrt(9))',
                   'try\n    error("the learning rate must be positive", kind = "ValueError")\n'
                   'catch err\n    print(err.kind, "-", err.message)\nend try'],
         notes="The error is reported like any Lamina error: its kind (`Error` unless `kind` names "
               f"another: {', '.join(RAISABLE)}), the message, the file, line and column of the "
               "call, and the call stack. `try ... catch err ... end try` catches it; inside the "
               "catch block `error(err)` raises it again unchanged, so the report still points "
               "where it first happened. A record with `kind` and `message` fields raises a new "
               "error of that kind.")
def error_(message, kind="Error"):
    if isinstance(message, ErrorRecord):
        raise message.error
    if isinstance(message, Record) and "message" in message.fields:
        kind = message.fields.get("kind", kind)
        message = message.fields["message"]
    kind = as_str(kind, "error's kind")
    if kind not in RAISABLE:
        raise LaminaError("ValueError", f"error's kind must be one of {', '.join(RAISABLE)}; got \"{kind}\".")
    raise LaminaError(kind, format_value(message))


@builtin("warn", any_rank=True, tracked="constant", category=CORE,
         probes=["warn(string(p))"],
         shapes=[Shape("warn(message)", "string", "no output",
                       "Writes `warning: message (file:line)` to standard error, once for this line."),
                 Shape("warn(message, once = false)", "string, bool", "no output",
                       "Writes it every time the line runs.")],
         summary="Writes a warning with the file and line of the call to standard error, and goes on.",
         examples=['for i = 1 to 3\n    warn("step {i} is slow")\nend for\nprint("done")'],
         notes="Warnings go to standard error, after what the program has printed so far, as "
               "`warning: MESSAGE (file:line)`. A call site warns only the first time it runs "
               "unless `once = false`. The library's own warnings (a very long autodiff tape, a "
               "gradient that is NaN while the loss is finite, a logistic regression on classes a "
               "line separates) use the same channel, and `warnings(false)` silences them all.")
def warn_(message, once=True):
    if not isinstance(once, bool):
        raise LaminaError("TypeError", f"warn's once must be true or false, not {describe(once)}.")
    warn(format_value(message), once_key="warn" if once else None)


@builtin("warnings", any_rank=True, tracked="constant", category=CORE,
         probes="takes true or false",
         shapes=[Shape("warnings(on)", "bool", "bool", "Turns warnings on or off; returns the previous setting."),
                 Shape("warnings()", "no input", "bool", "Whether warnings are on.")],
         summary="Turns every warning (warn and the library's) on or off.",
         examples=['before = warnings(false)\nwarn("not shown")\nprint(before, warnings())\nwarnings(true)'],
         notes="Warnings are on when a program starts. The setting holds for the whole process: "
               "every module, and the rest of a REPL session.")
def warnings_(on=None):
    if on is None:
        return enabled()
    if not isinstance(on, bool):
        raise LaminaError("TypeError", f"warnings takes true or false, not {describe(on)}.")
    return set_enabled(on)
