"""The seed's programs (examples/seed/*.lam) run by the real `lamina` command, against the
expected output kept here (*.out).

An .out line is matched exactly, except one starting with "~ ": the rest is a
regular expression the printed line must match whole. Lines whose builtins come
with a later issue are listed in PENDING and marked as expected failures.
"""
from __future__ import annotations

import pathlib
import re
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).parent
PROGRAMS = HERE.parents[1] / "examples" / "seed"
PENDING: dict[tuple[str, int], str] = {    # (program, 0-based line) -> why
}


def cases():
    for prog in sorted(PROGRAMS.glob("*.lam")):
        want = (HERE / prog.name).with_suffix(".out").read_text().splitlines()
        for i in range(len(want)):
            marks = [pytest.mark.xfail(reason=PENDING[(prog.name, i)], strict=True)] if (prog.name, i) in PENDING else []
            yield pytest.param(prog.name, i, id=f"{prog.stem}:{i + 1}", marks=marks)


_runs: dict[str, subprocess.CompletedProcess] = {}


def output_of(name: str) -> subprocess.CompletedProcess:
    if name not in _runs:
        _runs[name] = subprocess.run([sys.executable, "-m", "lamina", str(PROGRAMS / name)],
                                     capture_output=True, text=True, timeout=300)
    return _runs[name]


@pytest.mark.parametrize("name, line", list(cases()))
def test_line(name: str, line: int):
    want = (HERE / name).with_suffix(".out").read_text().splitlines()[line]
    run = output_of(name)
    got_lines = run.stdout.splitlines()
    assert line < len(got_lines), f"missing line; exit {run.returncode}: {run.stderr[-800:]}"
    got = got_lines[line]
    if want.startswith("~ "):
        assert re.fullmatch(want[2:], got), (want, got)
    else:
        assert got == want


def test_every_program_has_its_expected_output():
    assert sorted(p.stem for p in PROGRAMS.glob("*.lam")) == sorted(p.stem for p in HERE.glob("*.out"))
    assert len(list(PROGRAMS.glob("*.lam"))) == 3


@pytest.mark.parametrize("name", sorted(p.name for p in PROGRAMS.glob("*.lam")))
def test_program_exits_cleanly(name: str):
    pending = any(prog == name for prog, _ in PENDING)
    run = output_of(name)
    if pending:
        pytest.xfail("uses builtins from a later issue")
    assert run.returncode == 0, run.stderr
    assert len(run.stdout.splitlines()) == len((HERE / name).with_suffix(".out").read_text().splitlines())
