"""Runs every tests/programs/**/*.lam and checks its inline expectations."""
from __future__ import annotations

import contextlib
import io
import pathlib
import re

import pytest

from lamina.errors import LaminaError
from lamina.interpreter import Interpreter

HERE = pathlib.Path(__file__).parent
PROGRAMS = sorted(HERE.rglob("*.lam"))


def expectations(text: str):
    lines = re.findall(r"# expect: ?(.*)$", text, re.M)
    error = re.search(r"# expect error: (.*)$", text, re.M)
    line = re.search(r"# expect line: (\d+)$", text, re.M)
    return lines, error.group(1).strip() if error else None, int(line.group(1)) if line else None


@pytest.mark.parametrize("path", PROGRAMS, ids=[str(p.relative_to(HERE)) for p in PROGRAMS])
def test_program(path: pathlib.Path):
    text = path.read_text()
    want_lines, want_error, want_line = expectations(text)
    out = io.StringIO()
    err = None
    with contextlib.redirect_stdout(out):
        try:
            Interpreter().run(text, path.name)
        except LaminaError as e:
            err = e
    assert out.getvalue().splitlines() == want_lines
    if want_error is None:
        assert err is None, err.render()
    else:
        assert err is not None, "expected an error"
        assert f"{err.kind}: {err.message}".startswith(want_error), err.render()
        if want_line is not None:
            assert err.span.line == want_line, err.render()
