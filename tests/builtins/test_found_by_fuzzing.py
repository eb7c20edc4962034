"""Every call a randomised test ever found failing, kept as a fixed regression test.

When a random test (test_bad_input.py, tests/lang/test_fuzz.py) finds a new case, add the
program here with the error kind it must give (None: it must run without an error).
"""
from __future__ import annotations

import contextlib
import io

import pytest

from lamina.errors import LaminaError
from lamina.interpreter import Interpreter

FOUND = [
    ("print(hist([1, 2, 3], [3, 1]))", "ValueError"),      # edges that decrease (CI failed at random)
    ("hist([1, 2, 3], [1, 0 / 0])", "ValueError"),
    ("hist([1, 1 / 0])", "ValueError"),                     # Inf falls in no bin
    ("print(r2_score([], []))", "ValueError"),
    ("print(gru_forward(1))", "TypeError"),
]


@pytest.mark.parametrize("code, kind", FOUND)
def test_found_case(code, kind, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    error = None
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            Interpreter().run(code, "found")
        except LaminaError as err:
            error = err
    assert (error.kind if error else None) == kind, error.render() if error else "no error"
