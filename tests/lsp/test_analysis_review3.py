"""A document's analysis in process: a name read before the statement that first binds it
is the run's NameError, where and in the words the run says it; and a record's nested fields."""
from __future__ import annotations

import pytest

from lamina.errors import LaminaError
from lamina.interpreter import Interpreter
from lamina.lsp.analysis import analyse


def problems(text: str) -> list[tuple]:
    return [(p.span.line, p.span.col, p.span.length, p.kind, p.message) for p in analyse(text).problems]


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
