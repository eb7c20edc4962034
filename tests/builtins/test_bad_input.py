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
        "[1, 2, 3] > 1", "[1, 2; 3, 4] > 2", "[1, 2] > 5", "[1; 2] > 1"]
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


@settings(max_examples=scaled(1500), deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(st.sampled_from(NAMES), st.lists(st.sampled_from(ARGS), max_size=3),
       st.lists(st.tuples(st.sampled_from(KEYWORDS), st.sampled_from(ARGS)), max_size=1))
def test_random_calls(name, args, kwargs):
    run_checked(call_text(name, args, kwargs))
