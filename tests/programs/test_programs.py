"""Runs every tests/programs/**/*.lam and checks its inline expectations.

A folder with a main.lam is a multi-file program: main.lam runs through the real `lamina`
command in that folder (the other .lam files there are its modules), and its expectations
cover the process: `# flags: WORDS` (lamina's own options, such as --sandbox, before main.lam),
`# args: WORDS` (the program's, after it; both split as a shell would), `# env: NAME=VALUE`, `# expect:`
for each line of stdout, `# expect stderr:` for each line of stderr, `# expect status: N`.
"""
from __future__ import annotations

import contextlib
import io
import os
import pathlib
import re
import shlex
import subprocess
import sys

import pytest

from lamina.errors import LaminaError
from lamina.interpreter import Interpreter

HERE = pathlib.Path(__file__).parent
PROJECTS = sorted(p.parent for p in HERE.rglob("main.lam"))
PROGRAMS = sorted(p for p in HERE.rglob("*.lam") if not any(d in p.parents for d in PROJECTS))


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


@pytest.mark.parametrize("folder", PROJECTS, ids=[str(p.relative_to(HERE)) for p in PROJECTS])
def test_project(folder: pathlib.Path):
    text = (folder / "main.lam").read_text()
    words = re.search(r"# args: (.*)$", text, re.M)
    flags = re.search(r"# flags: (.*)$", text, re.M)
    env = {k: v for k, v in os.environ.items() if k != "LAMINA_PATH"}
    env.update(re.findall(r"# env: (\w+)=(.*)$", text, re.M))
    status = re.search(r"# expect status: (\d+)$", text, re.M)
    r = subprocess.run([sys.executable, "-m", "lamina"] + (shlex.split(flags.group(1)) if flags else []) + ["main.lam"]
                       + (shlex.split(words.group(1)) if words else []),
                       cwd=folder, capture_output=True, text=True, timeout=120, env=env)
    assert r.stdout.splitlines() == re.findall(r"# expect: ?(.*)$", text, re.M), r.stderr
    assert r.stderr.splitlines() == re.findall(r"# expect stderr: ?(.*)$", text, re.M)
    assert r.returncode == (int(status.group(1)) if status else 0), r.stderr
