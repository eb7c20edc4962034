"""The one warnings channel: `warn`, `warnings(false)`, and the library's warnings on it."""
from __future__ import annotations

import ast
import contextlib
import io
import os
import pathlib
import subprocess
import sys

import pytest

from lamina import warnings as channel
from lamina.interpreter import Interpreter


@pytest.fixture(autouse=True)
def fresh_channel():
    channel.reset()
    yield
    channel.reset()


def run(code: str, name: str = "w.lam") -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        Interpreter().run(code, name)
    return out.getvalue(), err.getvalue()


def test_warn_writes_once_per_call_site_with_file_and_line():
    out, err = run('function f(i)\n    warn("slow step {i}")\nend function\n'
                   'for i = 1 to 3\n    f(i)\n    warn("each time {i}", once = false)\nend for\nprint("done")\n')
    assert out == "done\n"
    assert err.splitlines() == ["warning: slow step 1 (w.lam:2)", "warning: each time 1 (w.lam:6)",
                                "warning: each time 2 (w.lam:6)", "warning: each time 3 (w.lam:6)"]


def test_warnings_false_silences_every_warning_and_true_restores_them():
    out, err = run('print(warnings(false), warnings())\nwarn("hidden")\n'
                   'w = param([1.0, 2.0])\ng = grad(sum(sqrt(w * 0)), wrt = w)\n'
                   'print(warnings(true))\nwarn("shown")\n')
    assert out == "true false\nfalse\n"
    assert err == "warning: shown (w.lam:6)\n"


def test_a_nan_gradient_warns_at_the_grad_call_once():
    _, err = run("for i = 1 to 3\n    w = param([1.0, 4.0])\n    g = grad(sum(sqrt(w * 0)), wrt = w)\nend for\n")
    lines = err.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("warning: grad(): the loss is finite (0.0) but the gradient for wrt contains NaN or Inf")
    assert lines[0].endswith("(w.lam:3)")


@pytest.mark.parametrize("dtype, big", [("float32", "1e30"), ("float64", "1e300")])
def test_a_huge_finite_gradient_does_not_warn(dtype, big):
    # grad looks for NaN and Inf by a sum of squares: squares that overflow must not pass for one
    out, err = run(f"w = param({dtype}([1.0, 2.0]))\ng = grad(sum(w .* {dtype}([{big}, -{big}])), wrt = w)\n"
                   "print(g[0] > 0, g[1] < 0)\n")
    assert (out, err) == ("true true\n", "")


def test_the_tape_size_warning_uses_the_channel():
    code = "tape_reset()\nold = tape_limit(10)\nw = param(1.0)\nfor i = 1 to 20\n    w = w * 1.0\nend for\ntape_limit(old)\ntape_reset()\n"
    _, err = run(code)
    assert err.splitlines() == ["warning: the autodiff tape holds more than 10 entries; call tape_reset() "
                                "between independent computations to free them (w.lam:5)"]
    channel.set_enabled(False)
    assert run(code) == ("", "")


def test_logreg_warns_when_a_line_separates_the_classes():
    separable = "X = [0.5; 1.0; 1.5; 2.0; 2.5; 3.0]\ny = [0, 0, 0, 1, 1, 1]\nfit = logreg(X, y)\nprint(fit.weights[0] > 5)\n"
    out, err = run(separable)
    assert out == "true\n"    # the weights run off toward infinity
    assert err.startswith("warning: logreg: a line separates the two classes perfectly")
    assert err.endswith("(w.lam:3)\n")
    overlapping = "X = [0.5; 1.0; 1.5; 2.0; 2.5; 3.0; 3.5; 4.0]\ny = [0, 0, 1, 0, 1, 0, 1, 1]\nfit = logreg(X, y)\n"
    assert run(overlapping) == ("", "")


def test_a_penalized_fit_of_separable_data_does_not_warn():
    out, err = run("X = [0.5; 1.0; 1.5; 2.0; 2.5; 3.0]\ny = [0, 0, 0, 1, 1, 1]\nfit = logreg(X, y, l2 = 0.1)\n"
                   "print(abs(fit.weights[0]) < 5)\n")
    assert (out, err) == ("true\n", "")


def test_a_warning_comes_after_what_the_program_printed_before_it():
    r = subprocess.run([sys.executable, "-m", "lamina", "-e", 'print("a")\nwarn("b")\nprint("c")'],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60,
                       env={**os.environ})
    assert r.stdout == "a\nwarning: b (<-e>:2)\nc\n"


def test_the_channel_without_a_lamina_frame_has_no_location():
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert channel.warn("plain") is True
        assert channel.warn("keyed", once_key="k") is True
        assert channel.warn("keyed again", once_key="k") is False
    assert err.getvalue() == "warning: plain\nwarning: keyed\n"


# What a program's run writes on stderr goes through the channel, so warnings(false) silences it
# all (sweep's Ctrl-C notice once printed past it). Besides the channel, only the front ends
# (the command, the REPL, the kernel, the language server, the docs tools, the import-time
# Ctrl-C in __init__) write there, and the cluster's engine, which relays what a worker's
# channel wrote.
WRITERS_OF_STDERR = {"warnings.py", "cluster/engine.py", "__init__.py", "cli.py", "console.py"}
FRONT_ENDS = ("repl/", "kernel/", "lsp/", "docs/")


def stderr_writes(source: str) -> list[int]:
    """Lines that print to sys.stderr or call sys.stderr.write."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        text = ast.unparse(node.func)
        if text in ("sys.stderr.write", "_sys.stderr.write") or text == "print" and any(
                k.arg == "file" and ast.unparse(k.value) in ("sys.stderr", "_sys.stderr") for k in node.keywords):
            lines.append(node.lineno)
    return lines


def test_the_library_writes_to_stderr_only_through_the_channel():
    package = pathlib.Path(channel.__file__).parent
    found = [f"{path.relative_to(package).as_posix()}:{line}" for path in sorted(package.rglob("*.py"))
             if path.relative_to(package).as_posix() not in WRITERS_OF_STDERR
             and not path.relative_to(package).as_posix().startswith(FRONT_ENDS)
             for line in stderr_writes(path.read_text())]
    assert not found, f"write to stderr past the warnings channel (use warnings.warn): {found}"
    assert stderr_writes('import sys\nprint("sweep: interrupted", file=sys.stderr)\nsys.stderr.write("x")\n') == [2, 3]
