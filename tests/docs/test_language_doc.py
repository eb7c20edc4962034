"""Every lamina block in the README, docs/language.md, docs/tables.md, docs/models.md, docs/networks.md and
docs/likelihood.md prints what the page says.

A lamina block whose first line is `# file: NAME.lam` is a module: it is written into the
folder each example runs in (a fresh one per example), so `import NAME` finds it.
"""
from __future__ import annotations

import contextlib
import io
import pathlib
import re

import pytest

from lamina.errors import LaminaError, ProgramExit
from lamina.interpreter import Interpreter

ROOT = pathlib.Path(__file__).parents[2]
PAGES = [ROOT / "README.md", ROOT / "docs" / "language.md", ROOT / "docs" / "tables.md", ROOT / "docs" / "models.md",
         ROOT / "docs" / "networks.md", ROOT / "docs" / "likelihood.md"]
BLOCK = re.compile(r"```lamina\n((?:(?!```).)*)```\n```(output|error)\n(.*?)```", re.S)
FILE = re.compile(r"```lamina\n# file: (\S+)\n(.*?)```", re.S)


def examples():
    for page in PAGES:
        for i, m in enumerate(BLOCK.finditer(page.read_text())):
            yield pytest.param(page, m.group(1), m.group(2), m.group(3), id=f"{page.name}#{i}")


def test_pages_have_examples():
    assert len(list(examples())) >= 15


def test_module_files_are_not_taken_for_examples():
    text = (ROOT / "docs" / "language.md").read_text()
    modules = FILE.findall(text)
    assert modules, "the modules section shows its module files"
    assert not any(code.startswith("# file:") for code in (m.group(1) for m in BLOCK.finditer(text)))


@pytest.mark.parametrize("page, code, kind, expected", list(examples()))
def test_example(page: pathlib.Path, code: str, kind: str, expected: str, tmp_path: pathlib.Path,
                 monkeypatch: pytest.MonkeyPatch):
    for name, text in FILE.findall(page.read_text()):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            Interpreter().run(code, "doc")
            error = None
        except ProgramExit:     # the example ends itself with exit()
            error = None
        except LaminaError as err:
            error = err
    if kind == "output":
        assert error is None, error.render()
        assert out.getvalue() == expected
    else:
        assert error is not None, "expected an error"
        assert error.render().splitlines()[0] == expected.strip()
