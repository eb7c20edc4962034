"""A document's analysis in process: scoping as the compiler does it, a name read before the
statement that first binds it as the run's NameError, builtin calls and the program's own calls
checked with the running program's words, a record's nested fields, and no false alarm on any
program of the repository."""
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
    assert problems(text.replace("by = factor", "by = fctor")) == [(15, 18, 5, "NameError", "Undefined variable 'fctor'. Did you mean 'factor' or 'corr' or 'category'?")]
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


LOCAL = ("'y' is read before it is assigned in this function. Assigning to 'y' anywhere in a function "
         "makes it local there, with no value until an assignment runs (one in a branch not taken leaves it "
         "without); to read an outer 'y', pass it in as an argument.")


@pytest.mark.parametrize("program, where, message", [
    # a function called above its definition
    ("print(f(1))\nfunction f(x)\n    return x\nend function\n", (1, 7, 1),
     "Undefined variable 'f'. The function f is defined at line 2, which has not run yet: a definition "
     "runs in order, like any statement, so define f above its first call."),
    # a variable read above its first assignment, even one a later loop makes
    ("print(total)\nfor i = 0 to 2\n    total = i\nend for\n", (1, 7, 5),
     "Undefined variable 'total'. Its first assignment, at line 3, has not happened yet."),
    # a default is evaluated where the function is defined
    ("function f(x = y)\n    return x\nend function\ny = 1\nprint(f())\n", (1, 16, 1),
     "Undefined variable 'y'. Its first assignment, at line 4, has not happened yet."),
    ("g = (v, by = k) -> v * by\nk = 2\nprint(g(1))\n", (1, 14, 1),
     "Undefined variable 'k'. Its first assignment, at line 2, has not happened yet."),
    # a function's local read before its first assignment
    ("y = 5\nfunction f()\n    print(y)\n    y = 1\nend function\nf()\n", (3, 11, 1), LOCAL),
    ("function f()\n    y[0] = 1\n    y = [0]\nend function\nf()\n", (2, 5, 1), LOCAL),
])
def test_a_name_read_before_its_first_binding_is_the_runs_name_error(program, where, message):
    with pytest.raises(LaminaError) as run:
        Interpreter().run(program)
    assert run.value.kind == "NameError" and run.value.message == message
    assert (run.value.span.line, run.value.span.col, run.value.span.length) == where
    assert problems(program) == [(*where, "NameError", message)]


FINE = [
    # in a loop, a later statement binds the name for the next pass
    "for i = 0 to 3\n    if i > 0\n        print(x)\n    end if\n    x = i\nend for\n",
    "i = 0\nwhile i < 3\n    if i > 0\n        print(j)\n    end if\n    j = i\n    i += 1\nend while\n",
    # at the top level a builtin's name is the builtin until it is assigned
    "y = mean([1, 2])\nmean = 3\nprint(y, mean)\n",
    # a function's body runs when it is called, after the top level below it
    "function f()\n    return g() + k\nend function\nfunction g()\n    return 1\nend function\nk = 2\nprint(f())\n",
    "f = v -> v + k\nk = 2\nprint(f(1))\n",
    "if true\n    a = 1\nelse\n    a = 2\nend if\nprint(a)\n",
    "try\n    b = number(\"x\")\ncatch e\n    b = 0\nend try\nprint(b, e.message)\n",
]


def test_no_alarm_where_the_binding_comes_first_on_the_way_the_run_takes(capsys):
    for program in FINE:
        Interpreter().run(program)
        assert problems(program) == []
    # the same reads, with the binding after them and no loop to come back
    late = "if true\n    print(x)\nend if\nx = 1\n"
    said = "Undefined variable 'x'. Its first assignment, at line 4, has not happened yet."
    assert problems(late) == [(2, 11, 1, "NameError", said)]
    with pytest.raises(LaminaError) as run:
        Interpreter().run(late)
    assert run.value.message == said


def test_a_function_called_before_the_definition_of_one_it_calls_names_that_definition():
    # (the analysis cannot know the call order, so only the run says it)
    program = "function g(x)\n    return h(x)\nend function\nprint(g(1))\nfunction h(x)\n    return x\nend function\n"
    with pytest.raises(LaminaError) as run:
        Interpreter().run(program)
    assert run.value.message == ("Undefined variable 'h'. The function h is defined at line 5, which has not run "
                                 "yet: a definition runs in order, like any statement, so define h above its first call.")
    assert (run.value.span.line, run.value.span.col) == (2, 12)


def test_a_name_bound_only_by_an_update_or_inside_a_function_is_not_named_as_a_later_binding():
    for program, message in [("x += 1\nx += 2\n", "Undefined variable 'x'."),
                             ("v[0] = 1\nv[1] = 2\n", "Undefined variable 'v'."),
                             ("print(w)\nfunction f()\n    w = 1\nend function\n", "Undefined variable 'w'.")]:
        with pytest.raises(LaminaError) as run:
            Interpreter().run(program)
        assert run.value.message.startswith(message) and "has not" not in run.value.message


def test_a_records_nested_fields_are_known():
    found = analyse("r = {a = {b = 1}, c = 2}\nr.a.d = 3\nr.e = {f = {g = 4}}\nr.h[0] = 5\n")
    r = next(d for d in found.definitions if d.name == "r")
    assert r.fields == ["a", "c", "e", "h"]
    assert r.shape == {"a": {"b": {}, "d": {}}, "c": {}, "e": {"f": {"g": {}}}, "h": {}}


@pytest.mark.parametrize("program, length", [("train_loop(scop = 1)\n", 4), ("train_loop(zzz = 1)\n", 3)])
def test_a_scoped_builtins_unknown_keyword_is_said_without_its_hidden_scope_parameter(program, length):
    with pytest.raises(LaminaError) as run:
        Interpreter().run(program)
    assert "scope" not in run.value.message
    assert problems(program) == [(1, 12, length, "TypeError", run.value.message)]


def test_a_document_that_does_not_parse_still_gives_the_names_and_problems_of_its_other_lines():
    found = analyse("x = 1\nfunction f(v)\n    return v + undefined_here\nend function\ny = 2 +\n\n")
    assert not found.parsed
    assert problems("x = 1\nfunction f(v)\n    return v + undefined_here\nend function\ny = 2 +\n\n") == [
        (7, 1, 1, "SyntaxError", "Expect an expression, found the end of the program."),
        (3, 16, 14, "NameError", "Undefined variable 'undefined_here'.")]
    assert list(found.top.names) == ["x", "f"] and found.definition_at(2, 10).kind == "function"


@pytest.mark.parametrize("program, message", [
    ("t = sweep(1, 2, 3)", "'sweep' takes 2 arguments but 3 were given."),
    ("h = train_loop(1, 2, 3, 4, 5, 6)", "'train_loop' takes from 3 to 5 arguments but 6 were given."),
    ("z = parallel_map(1)", "'parallel_map' is missing 1 required argument: 'xs'."),
    # the distributions took *args and counted them themselves, so the editor said nothing
    ("d = normal(1, 1, 1)", "'normal' takes from 0 to 2 arguments but 3 were given."),
    ("d = beta_dist(1)", "'beta_dist' is missing 1 required argument: 'b'."),
])
def test_a_scoped_builtins_argument_count_is_the_runs(program, message):
    # the run leaves the bound scope out of the count (lang/pyerrors.py); the editor must too
    with pytest.raises(LaminaError) as run:
        Interpreter().run(program)
    assert run.value.message.startswith(message)
    assert [p[-1].split(" Call shapes")[0] for p in problems(program)] == [message]


@pytest.mark.parametrize("program", [
    "function f(a, b = 2)\n    return a\nend function\nx = f(1, 2, 3)",
    "function f(a, b = 2)\n    return a\nend function\nx = f(b = 1)",
    "function f(a, b = 2)\n    return a\nend function\nx = f(1, c = 1)",
    "g = (a, b = 1) -> a\nx = g()",
])
def test_a_call_of_the_programs_own_function_is_checked_as_the_run_checks_it(program):
    with pytest.raises(LaminaError) as run:
        Interpreter().run(program)
    [(line, _, _, kind, message)] = problems(program)
    assert (line, kind, message) == (program.count("\n") + 1, run.value.kind, run.value.message)


def test_a_name_bound_twice_is_not_checked_against_either_function():
    program = "h = (a) -> a\nh = (a, b) -> a\nu = h(1, 2)\nfunction k(a)\n  return a\nend function\nk = 3"
    assert problems(program) == []
