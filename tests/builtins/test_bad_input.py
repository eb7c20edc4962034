"""Every builtin, called with arguments of every kind, answers with a result or a Lamina error.

Never a Python exception (an InternalError), and never a Python warning printed past Lamina
(matplotlib's "No artists with labels found" once was): bad input must read as a Lamina message. The
arguments include Inf, NaN, the largest floats, empty tensors and huge sizes; a probe that
runs longer than a few seconds (a count of 10^15 epochs is a valid request) is stopped and
counts as answered.
"""
from __future__ import annotations

import contextlib
import io
import os
import re
import signal
import warnings

import pytest
from builtin_checks import in_tmp_dir  # noqa: F401  (autouse fixtures)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lamina.autodiff.tape import DEFAULT_WARN_ENTRIES, TAPE
from lamina.builtins.registry import load_all
from lamina.errors import LaminaError, ProgramExit
from lamina.interpreter import Interpreter
from lamina.printing import reset_options
from lamina.warnings import reset as reset_warnings


def scaled(examples: int) -> int:
    """The examples a run draws: the default, times LAMINA_FUZZ_SCALE for a long run."""
    return int(examples * float(os.environ.get("LAMINA_FUZZ_SCALE", "1")))

ARGS = ["0", "1", "-1", "2.5", "0 / 0", "1 / 0", "true", "none", '"text"', '""', "[]", "[1, 2, 3]",
        "[0.5; -1]", "[1, 2; 3, 4]", "zeros(0, 3)", '["a", 1]', "{a = 1}", "x -> x", "param(1.5)",
        "param([1, 2])", "input(2)", "adam(param(1.0))", "[1, 0, 1]", "1e308", "-1e308", "1e15",
        "2 ^ 60", "[1 / 0, 0 / 0, 1e308]", "zeros(0)", "[1e308; -1e308]", "-308", "400",
        # masks (logical tensors, from comparisons): a vector, a matrix, all false, a column
        "[1, 2, 3] > 1", "[1, 2; 3, 4] > 2", "[1, 2] > 5", "[1; 2] > 1",
        # numbers of every kind (a NumPy routine handed one as a 0-d array once failed inside)
        "float32(0.3)", "param(float32(0.3))", "track(float32(0.3))"]
NUMBERS = ["0.3", "float32(0.3)", "param(0.3)", "param(float32(0.3))", "track(float32(0.3))", "true"]
KEYWORDS = ["axis", "seed", "lr", "epochs", "activation", "loss", "from", "skipnan", "ddof", "wrt", "digits"]
SKIP = {"help", "show"}   # print whole pages / open windows: covered by their own tests
NAMES = sorted(set(load_all()) - SKIP)


def call_text(name, args, kwargs):
    parts = list(args) + [f"{k} = {v}" for k, v in kwargs]
    return f"print({name}({', '.join(parts)}))"


class TookTooLong(BaseException):
    """Raised by the alarm: a BaseException, so the interpreter does not turn it into an error."""


def _alarm(signum, frame):
    raise TookTooLong()


def run_checked(code: str, seconds: int = 5) -> None:
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(seconds)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()), \
            warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            Interpreter().run(code, "probe")
        except LaminaError as err:
            assert err.kind != "InternalError", f"{code}\n{err.render()}"
        except (TookTooLong, ProgramExit):     # a probe may call exit(): the program ends
            pass
        finally:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, previous)
            TAPE.warn_entries = DEFAULT_WARN_ENTRIES   # a probe may have called tape_limit
            TAPE.reset()
            reset_warnings()                           # ... or warnings(false)
            reset_options()                            # ... or print_options
    # Python shows these to a user by default (a DeprecationWarning from a library it does not)
    shown = [w for w in caught if not issubclass(w.category, (DeprecationWarning, PendingDeprecationWarning,
                                                              ResourceWarning))]
    assert not shown, f"{code}\n{shown[0].category.__name__}: {shown[0].message}"


@pytest.mark.parametrize("name", NAMES)
def test_each_builtin_with_each_kind_of_single_argument(name):
    run_checked(f"print({name}())")
    for arg in ARGS:
        run_checked(call_text(name, [arg], []))


LITERAL = re.compile(r'^(".*"|-?[0-9.]+(e-?[0-9]+)?|true|false|none)$')


def _arguments(text: str) -> list[str]:
    """The top-level comma-separated parts of a call's argument text."""
    parts, depth, quoted, start = [], 0, False, 0
    for i, ch in enumerate(text):
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch in "([{":
            depth += 1
        elif not quoted and ch in ")]}":
            depth -= 1
        elif not quoted and depth == 0 and ch == ",":
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return [p for p in parts if p and p != "..."]


def shape_with(name: str, code: str, number: str) -> str | None:
    """A call shape from the registry (`binary_cross_entropy(z, y, from = "logits")`) with
    `number` in place of each argument that is not a literal; None for a shape that is not a
    plain call of the builtin (`net.fit(...)`, `spec |> dense(...)`)."""
    call = re.fullmatch(rf"{re.escape(name)}\((.*)\)", code.strip())
    if call is None:
        return None
    args = []
    for part in _arguments(call.group(1)):
        keyword = re.fullmatch(r"([A-Za-z_]\w*)\s*=\s*(.*)", part)
        key, value = keyword.groups() if keyword else (None, part)
        value = value if LITERAL.match(value) else number
        args.append(value if key is None else f"{key} = {value}")
    return f"print({name}({', '.join(args)}))"


@pytest.mark.parametrize("name", NAMES)
def test_each_call_shape_with_numbers_of_every_kind(name):
    """Each documented call shape, its keywords' literal choices kept (from = "logits"), with a
    number of each kind for every other argument: binary_cross_entropy(0.3, 1, from = "logits")
    was an InternalError in a NumPy routine given a 0-d array, a keyword value that the random
    calls below never draw."""
    for shape in load_all()[name].shapes:
        for number in NUMBERS:
            code = shape_with(name, shape.code, number)
            if code is not None:
                run_checked(code)


@settings(max_examples=scaled(1500), deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(st.sampled_from(NAMES), st.lists(st.sampled_from(ARGS), max_size=3),
       st.lists(st.tuples(st.sampled_from(KEYWORDS), st.sampled_from(ARGS)), max_size=1))
def test_random_calls(name, args, kwargs):
    run_checked(call_text(name, args, kwargs))
