"""A document's analysis in process: scoping as the compiler does it, builtin calls checked
with the running program's words, and no false alarm on any program of the repository."""
from __future__ import annotations

import pathlib
import re

import pytest

from lamina.interpreter import Interpreter
from lamina.errors import LaminaError
from lamina.lsp.analysis import analyse

ROOT = pathlib.Path(__file__).parents[2]
PROGRAMS = sorted(ROOT.glob("examples/**/*.lam")) + sorted(ROOT.glob("tests/programs/**/*.lam"))
BLOCKS = [b for page in sorted(ROOT.glob("docs/**/*.md")) + [ROOT / "README.md"]
          for b in re.findall(r"```lamina\n(.*?)```", page.read_text(), re.S)]


def problems(text: str) -> list[tuple]:
    return [(p.span.line, p.span.col, p.span.length, p.kind, p.message) for p in analyse(text).problems]


def test_scopes_follow_the_compiler():
    text = """\
function outer(a, b = 2)
    total = a + b
    inner = x -> x + total + top_level
    for i = 0 to 2
        total = total + i
    end for
    return inner(1) + later(2)
end function
function later(z)
    return z
end function
top_level = 1
r = {w = 1}
print(outer(1), r.w, (p -> p)(2), [k for_ever])
"""
    got = problems(text)
    assert [p[3:] for p in got] == [("SyntaxError", "Expect ',' ';' or ']' in a bracket literal, found 'for_ever'.")]
    assert problems(text.replace("[k for_ever]", "nothing_here")) == [
        (14, 35, 12, "NameError", "Undefined variable 'nothing_here'.")]
    assert problems(text.replace("[k for_ever]", "i")) == [(14, 35, 1, "NameError", "Undefined variable 'i'.")]
    assert problems("f = x -> y\n") == [(1, 10, 1, "NameError", "Undefined variable 'y'.")]
    assert problems('print("{missing + 1}")\n') == [(1, 9, 7, "NameError", "Undefined variable 'missing'.")]


def test_a_builtin_shadowed_by_the_program_is_not_checked_as_the_builtin():
    assert problems("function sum(a, b, c)\n    return a\nend function\nprint(sum(1, 2, 3))\n") == []
    assert problems("sum = x -> x\nprint(sum(1, 2, 3))\n") == []


@pytest.mark.parametrize("call", ["sum([1], 0, 1)", "sum(axis = 0)", "mean([1], axes = 0)", "linreg([1; 2])",
                                  "print(x = 1)", 'train_loop("f")', "seed()"])
def test_a_builtin_call_problem_reads_as_the_runtime_error(call):
    with pytest.raises(LaminaError) as run:
        Interpreter().run(call, "<doc>")
    [(line, col, length, kind, message)] = problems(call)
    assert (kind, message) == (run.value.kind, run.value.message)


def test_definitions_and_fields():
    found = analyse("cfg = {a = 1}\ncfg.b = 2\nfunction f(x)\n    y = x\n    return y\nend function\n")
    by_name = {d.name: d for d in found.definitions}
    assert by_name["cfg"].fields == ["a", "b"] and by_name["cfg"].top
    assert not by_name["y"].top and by_name["x"].kind == "parameter"
    assert [d.name for d in found.symbols] == ["cfg", "f"]
    assert found.definition_at(5, 12) is by_name["y"]
    assert found.definition_at(2, 1) is by_name["cfg"]


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_problem_reported_in_a_program_that_runs(path):
    text = path.read_text()
    if "# expect error: NameError" in text or "# expect error: SyntaxError" in text:
        pytest.skip("the program's point is that error")
    assert problems(text) == []


def test_no_problem_reported_in_a_documentation_block():
    assert [(b, problems(b)) for b in BLOCKS if problems(b)] == []
