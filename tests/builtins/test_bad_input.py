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
from hypothesis import given, HealthCheck, settings, strategies as st

from lamina.autodiff.tape import DEFAULT_WARN_ENTRIES, TAPE
from lamina.builtins.registry import load_all
from lamina.errors import LaminaError, ProgramExit
from lamina.interpreter import Interpreter
from lamina.printing import reset_options
from lamina.stats.figures import close as close_figure
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
        "float32(0.3)", "param(float32(0.3))", "track(float32(0.3))",
        # arrays of rank 3 and 4: every builtin computes on them or refuses them clearly
        "reshape(range(24), 2, 3, 4)", "param(ones(2, 1, 3))", "zeros(2, 0, 3)", "ones(1, 2, 1, 2) > 0",
        "randn(2, 2, 2, 2)",
        # empty on one axis: a matrix of no columns beside a batch (a reshape(-1, 0) failed inside),
        # an empty batch of matrices
        "zeros(4, 0)", "zeros(0, 3, 4)",
        # a table's other kinds of cells: dates (one, a vector with a missing cell, date-times), a
        # category, a table
        'date("2024-01-31")', 'date(["2024-01-31", ""])', 'datetime("2024-01-31T10:30")',
        'category(["a", "b", ""])', 'table({a = [1, 2], d = date(["2024-01-31", "2024-02-29"])})']
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


FOUND = [
    ("print(hist([1, 2, 3], [3, 1]))", "ValueError"),      # edges that decrease (CI failed at random)
    ("hist([1, 2, 3], [1, 0 / 0])", "ValueError"),
    ("hist([1, 1 / 0])", "ValueError"),                     # Inf falls in no bin
    ("print(r2_score([], []))", "ValueError"),
    ("print(gru_forward(1))", "TypeError"),
    # The 17 causes an adversarial fuzz of 42,000 programs found (each was an InternalError).
    ("for i = 0 to 1 / 0\n  if i > 2\n    break\n  end if\nend for", None),
    ("print(round(1.5, 1e20))", "ValueError"),
    ('net = input(2) |> dense(2, activation = "relu", b = 1)', "TypeError"),
    ("zeros(1e308)", "ValueError"),
    ("ones(1e308)", "ValueError"),
    ("range(1e308)", "ValueError"),
    ("linspace(0, 1, 1e308)", "ValueError"),
    ("permutation(1e308)", "ValueError"),
    ("histogram([1, 2], 1e308)", "ValueError"),
    ("gru_init(1e308, 2)", "ValueError"),
    ("input(1e308)", "ValueError"),
    ("print(cross_entropy([0.5, 0.5], -1 / 0))", "ValueError"),
    ("print(precision(zeros(3, 0), []))", "ShapeError"),
    ("hist(-1e308)", "ValueError"),
    ("plot([1, 2], ylabel = [1, 2; 3, 4])", "TypeError"),
    ('plot([1, 2], style = "zz")', "ValueError"),
    ('plot([1, 2], title = "$x^$")\nsavefig("t.png")', "ValueError"),
    ('plot(-1e308)\nsavefig("big.png")', "ValueError"),
    ("print(sample(poisson(1e308), 6))", "ValueError"),
    # Found by the fuzz with the largest floats.
    ("print(histogram(1e308))", "ValueError"),
    ("zeros(1e15)", "ValueError"),                            # past memory: "too large", not a crash
    ("print(hist([1e308; -1e308], 1))", "ValueError"),        # a range whose width overflows
    ("print(histogram([1e308, -1e308]))", "ValueError"),
    ("print(confusion_matrix(0, 1 / 0))", "ValueError"),      # a label of Inf
    ('print(hist(0, [1; 2] > 1, ""))', None),                 # matplotlib's legend warning leaked
    ('plot([1, 2], label = "")\nscatter([1], [2], label = "")', None),
    ("print(round(1.7976931348623157e308, -308))", None),     # Python's round overflowed
    ("print(minimize(x -> x, 0, 0))", "TypeError"),           # f(x, 0) did not bind, in optim
]


@pytest.mark.parametrize("code, kind", FOUND)
def test_found_case(code, kind, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    close_figure()     # a fresh program: not drawing on a figure an earlier test's failed drawing left open
    error = None
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()), \
            warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            Interpreter().run(code, "found")
        except LaminaError as err:
            error = err
    assert (error.kind if error else None) == kind, error.render() if error else "no error"
    assert [str(w.message) for w in caught if not issubclass(w.category, DeprecationWarning)] == []


def run(code: str) -> list[str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        Interpreter().run(code, "edge")
    return out.getvalue().splitlines()


def test_values_nested_20000_deep_print_and_compare_correctly():
    build = "x = []\nfor i = 1 to 20000\n  x = [x]\nend for\n"
    lines = run(build + "y = x\nprint(x == y, x == [x], length(string(x)))\n"
                "r = {a = 1}\nfor i = 1 to 20000\n  r = {a = r}\nend for\n"
                "s = {a = 1}\nfor i = 1 to 20000\n  s = {a = s}\nend for\n"
                "print(r == s, length(string(r)))")
    assert lines == ["true false 40002", "true 80005"]


def test_a_deep_value_a_builtin_cannot_walk_is_a_value_error_not_recursion():
    with pytest.raises(LaminaError) as e:
        run("x = []\nfor i = 1 to 20000\n  x = [x]\nend for\np = param(x)")
    assert e.value.kind == "ValueError" and "nested too deeply for 'param'" in e.value.message


def test_an_index_far_out_of_range_is_named_in_float_notation():
    with pytest.raises(LaminaError) as e:
        run("x = [1, 2]\nprint(x[1e300])")
    assert e.value.message == ("Index 1e+300 is out of range for a vector of length 2 "
                               "(valid: 0 to 1, or -2 to -1).")


def test_for_to_infinity_counts_until_break_and_never_toward_minus_infinity():
    assert run("for i = 0 to 1 / 0\n  if i > 2\n    break\n  end if\n  print(i)\nend for\n"
               "for i = 0 to -1 / 0\n  print(\"never\")\nend for") == ["0", "1", "2"]
