"""Every lamina block in the README and docs/language.md prints what the page says."""
from __future__ import annotations

import contextlib
import io
import pathlib
import re

import pytest

from lamina.errors import LaminaError
from lamina.interpreter import Interpreter

ROOT = pathlib.Path(__file__).parents[2]
PAGES = [ROOT / "README.md", ROOT / "docs" / "language.md"]
BLOCK = re.compile(r"```lamina\n(.*?)```\n```(output|error)\n(.*?)```", re.S)


def examples():
    for page in PAGES:
        for i, m in enumerate(BLOCK.finditer(page.read_text())):
            yield pytest.param(m.group(1), m.group(2), m.group(3), id=f"{page.name}#{i}")


def test_pages_have_examples():
    assert len(list(examples())) >= 15


@pytest.mark.parametrize("code, kind, expected", list(examples()))
def test_example(code: str, kind: str, expected: str):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            Interpreter().run(code, "doc")
            error = None
        except LaminaError as err:
            error = err
    if kind == "output":
        assert error is None, error.render()
        assert out.getvalue() == expected
    else:
        assert error is not None, "expected an error"
        assert error.render().splitlines()[0] == expected.strip()
