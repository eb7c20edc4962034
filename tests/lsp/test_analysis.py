"""A document's analysis in process: scoping as the compiler does it, builtin calls checked
with the running program's words, and no false alarm on any program of the repository."""
from __future__ import annotations

import pathlib
import re

import pytest

from lamina.errors import LaminaError
from lamina.interpreter import Interpreter
from lamina.lang.pyerrors import read_before_assigned
from lamina.lsp.analysis import analyse

ROOT = pathlib.Path(__file__).parents[2]
PROGRAMS = sorted(ROOT.glob("examples/**/*.lam")) + sorted(ROOT.glob("tests/programs/**/*.lam"))
PAGES = sorted(ROOT.glob("docs/**/*.md")) + [ROOT / "README.md"]
# A block, and the error block after it if the page shows one.
BLOCK = re.compile(r"```lamina\n((?:(?!```).)*)```(?:\n```error\n(.*?)```)?", re.S)
MODULE_FILE = re.compile(r"# file: (\S+)\n")


def problems(text: str, name: str = "<document>") -> list[tuple]:
    return [(p.span.line, p.span.col, p.span.length, p.kind, p.message) for p in analyse(text, name).problems]


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
    assert problems('total = 1\nprint("{totl + 1}")\n') == [
        (2, 9, 4, "NameError", "Undefined variable 'totl'. Did you mean 'total'?")]


def test_a_builtin_shadowed_by_the_program_is_not_checked_as_the_builtin():
    assert problems("function sum(a, b, c)\n    return a\nend function\nprint(sum(1, 2, 3))\n") == []
    # checked as the program's own function instead, as the run checks it
    assert problems("sum = x -> x\nprint(sum(1, 2, 3))\n") == [
        (2, 7, 3, "TypeError", "'sum' takes 1 argument but 3 were given.")]


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


def allowed(text: str) -> tuple[list[tuple], list[tuple]]:
    """(problems the editor must show, problems it may show) for a program of the repository:
    `# expect problem: LINE:COL Kind: message` (a prefix of it) must be shown; the error the run
    ends with (`# expect error:` at `# expect line:`) may be, when the editor can see it."""
    must = [(int(line), int(col), kind, message) for line, col, kind, message in
            re.findall(r"# expect problem: (\d+):(\d+) (\w+): (.*)$", text, re.M)]
    error, line = re.search(r"# expect error: (\w+): (.*)$", text, re.M), re.search(r"# expect line: (\d+)$", text, re.M)
    may = [(int(line.group(1)), None, error.group(1), error.group(2))] if error and line else []
    return must, may


def matches(problem: tuple, expected: tuple) -> bool:
    line, col, _, kind, message = problem
    want_line, want_col, want_kind, want_message = expected
    return (line, kind) == (want_line, want_kind) and want_col in (None, col) and message.startswith(want_message)


def test_try_catch_compound_assignment_and_lambda_defaults_scope_as_the_compiler_does():
    text = """\
function count(xs)
    n = 0
    for x in xs
        try
            n += number(x)
        catch err
            warn(err.message)
        finally
            seen = true
        end try
    end for
    return [n, seen]
end function
factor = 2
scale = (v, by = factor) -> v * by
print(count(["1", "a"]), scale(1))
"""
    assert problems(text) == []
    assert problems(text.replace("    n = 0\n", "\n")) == [
        (5, 15, 2, "NameError", read_before_assigned("n")), (12, 13, 1, "NameError", read_before_assigned("n"))]
    assert problems(text.replace("by = factor", "by = fctor")) == [(15, 18, 5, "NameError", "Undefined variable 'fctor'. Did you mean 'factor' or 'corr' or 'floor'?")]
    for program, where in [("total += 1\n", (1, 7, 2)), ("v[0] = 1\n", (1, 1, 1))]:
        with pytest.raises(LaminaError) as run:       # where and in the words the run says it
            Interpreter().run(program)
        assert problems(program) == [(*where, "NameError", run.value.message)]
        assert (run.value.span.line, run.value.span.col, run.value.span.length) == where
    found = analyse(text)
    err = next(d for d in found.definitions if d.name == "err")
    assert (err.span.line, err.span.col, err.kind) == (6, 15, "variable")
    assert found.definition_at(7, 18) is err


def test_imports_bind_modules_whose_members_are_checked(tmp_path, monkeypatch):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "prep.lam").write_text("import util\nfunction scale(v)\n    return v\nend function\n"
                                               "_hidden = 1\n")
    (tmp_path / "lib" / "util.lam").write_text("SIZE = 3\n")
    (tmp_path / "broken.lam").write_text("if x then\nend if\n")
    main = tmp_path / "main.lam"
    text = 'import "lib/prep.lam" as p\nprint(p.scale(1), p.util.SIZE, p.util.SIZES, p._hidden, p.scal)\n'
    assert problems(text, str(main)) == [
        (2, 39, 5, "NameError", "The module util has no 'SIZES'. Did you mean 'SIZE'?"),
        (2, 48, 7, "NameError", "The module prep has no '_hidden' (names starting with '_' stay inside their "
                                "module). It defines util, scale."),
        (2, 59, 4, "NameError", "The module prep has no 'scal'. Did you mean 'scale'?")]
    found = analyse(text, str(main))
    scale = found.definition_at(2, 10)
    assert scale.kind == "function" and scale.span.source.name == str(tmp_path / "lib" / "prep.lam")
    assert found.definition_at(1, 26).module == str(tmp_path / "lib" / "prep.lam")
    # the module is read again when its file changes
    (tmp_path / "lib" / "prep.lam").write_text("function scal(v)\n    return v\nend function\n")
    assert [p[4] for p in problems(text, str(main))][0] == "The module prep has no 'scale'. Did you mean 'scal'?"
    assert problems("import nothing_here\nimport broken\n", str(main)) == [
        (1, 1, 6, "ImportError", f"No module 'nothing_here': there is no nothing_here.lam in {tmp_path} "
                                 "(LAMINA_PATH is not set)."),
        (2, 1, 6, "SyntaxError", "The module broken.lam cannot be loaded: SyntaxError: Lamina has no 'then' after "
                                 "the 'if' condition: the block starts on the next line and ends with 'end if'. "
                                 "(broken.lam:1:6)")]
    monkeypatch.setenv("LAMINA_PATH", str(tmp_path / "lib"))
    assert problems("import util\nprint(util.SIZE)\n", str(tmp_path / "elsewhere" / "x.lam")) == []
    assert problems("import geometry as g\ng = 2\nprint(g.anything)\n") == [
        (1, 1, 6, "ImportError", f"No module 'geometry': there is no geometry.lam in ., {tmp_path / 'lib'}.")]


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_program_that_runs_gets_no_false_problem(path, monkeypatch):
    """Programs are analysed as their run sees them: beside their modules, with their `# env:`."""
    text = path.read_text()
    monkeypatch.chdir(path.parent)
    for name, value in re.findall(r"# env: (\w+)=(.*)$", text, re.M):
        monkeypatch.setenv(name, value)
    must, may = allowed(text)
    found = problems(text, str(path))
    assert [p for p in found if not any(matches(p, e) for e in must + may)] == []
    assert [e for e in must if not any(matches(p, e) for p in found)] == []


def blocks():
    for page in PAGES:
        text = page.read_text()
        files = {m.group(1): code[m.end():] for code, _ in BLOCK.findall(text) if (m := MODULE_FILE.match(code))}
        for i, (code, error) in enumerate(BLOCK.findall(text)):
            if not MODULE_FILE.match(code):
                yield pytest.param(code, error, files, id=f"{page.name}#{i}")


@pytest.mark.parametrize("code, error, files", list(blocks()))
def test_no_false_problem_in_a_documentation_block(code, error, files, tmp_path, monkeypatch):
    """Each block with the page's module files beside it, as the docs test runs it: the only
    problem it may show is the error the page shows."""
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    found = problems(code)
    assert [f"{kind}: {message}" for _, _, _, kind, message in found] in ([], [error.strip()] if error else [])


def test_a_name_inside_an_interpolation_with_a_format_spec_is_checked():
    assert problems('x = 1\nprint("{x:.2f} {y:>5}")\n') == [(2, 17, 1, "NameError", "Undefined variable 'y'.")]
    assert problems('v = [1, 2]\nprint("{v[0:1]} {v[1]:.1f}")\n') == []
