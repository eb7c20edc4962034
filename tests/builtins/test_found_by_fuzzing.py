"""Every call a randomised test ever found failing, kept as a fixed regression test.

When a random test (test_bad_input.py, tests/lang/test_fuzz.py) finds a new case, add the
program here with the error kind it must give (None: it must run without an error).
"""
from __future__ import annotations

import contextlib
import io
import warnings

import pytest

from lamina.errors import LaminaError
from lamina.interpreter import Interpreter
from lamina.stats.figures import close as close_figure

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
