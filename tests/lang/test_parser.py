from __future__ import annotations

import os
import pathlib
import random

import numpy as np
import pytest

from lamina.errors import LaminaError, Source, Span
from lamina.lang import ast as A
from lamina.lang import compiler
from lamina.lang.parser import parse
from lamina.lang.recovery import parse_with_errors
from tests.lang.test_runtime import error_of


def one(text: str) -> A.Node:
    body = parse(Source("t", text)).body
    assert len(body) == 1
    node = body[0]
    return node.expr if isinstance(node, A.ExprStmt) else node


def test_precedence_of_arithmetic():
    e = one("1 + 2 * 3")
    assert isinstance(e, A.Binary) and e.op == "+" and e.right.op == "*"


def test_power_binds_tighter_than_unary_minus_and_is_right_associative():
    e = one("-2 ^ 3 ^ 2")
    assert isinstance(e, A.Unary) and e.op == "-"
    assert e.operand.op == "^" and e.operand.right.op == "^"


def test_not_is_below_comparison():
    e = one("not a == b")
    assert isinstance(e, A.Unary) and e.op == "not" and e.operand.op == "=="


def test_and_binds_tighter_than_or():
    e = one("a or b and c")
    assert e.op == "or" and e.right.op == "and"


def test_pipe_inserts_first_argument():
    e = one("x |> f(1, k = 2) |> g")
    assert isinstance(e, A.Call) and e.callee.name == "g"
    inner = e.args[0]
    assert inner.callee.name == "f" and inner.args[0].name == "x" and inner.kwargs[0].name == "k"


def test_postfix_chain():
    e = one("a.b(1)[2, :]'")
    assert isinstance(e, A.Transpose)
    idx = e.operand
    assert isinstance(idx, A.Index) and isinstance(idx.items[1], A.Slice)
    assert isinstance(idx.target, A.MethodCall) and idx.target.name == "b"


def test_matrix_literals():
    assert one("[1, x; 3, 4]").rows.__len__() == 2
    m = one("[1; y; 3]")
    assert m.semicolons and len(m.rows) == 3
    assert one("[]").rows == []


def test_a_literal_of_numbers_is_one_read_only_array():
    """Numbers only, in runs or alone, signed or not: one NumberArray holding NumPy's reading of
    the text (float() of each number), read-only; any other element keeps the Matrix of nodes."""
    text = "[1.5, -2, 3e-4, .5; 1., 0, -0.0, 1E+300]"
    m = one(text)
    assert isinstance(m, A.NumberArray) and m.semicolons
    want = np.array([[1.5, -2, 3e-4, .5], [1., 0, -0.0, 1e300]])
    assert m.values.dtype == np.float64 and np.array_equal(m.values, want)
    assert np.signbit(m.values[1, 2]) and not m.values.flags.writeable
    vector = one("[7, 8 , 9]")
    assert isinstance(vector, A.NumberArray) and not vector.semicolons and vector.values.tolist() == [7, 8, 9]
    assert one("[1; 2; 3]").values.shape == (3, 1)
    mixed = one("[1, 2, 3, x, 5]")
    assert isinstance(mixed, A.Matrix) and [type(e).__name__ for e in mixed.rows[0]] == \
        ["Number"] * 3 + ["Name", "Number"]
    assert isinstance(one("[1, 2; 3]"), A.Matrix)        # ragged: the run reports it with its span
    assert one(text) == m and one("[1.5, -2, 3e-4, .5; 1., 0, 0.0, 1E+300]") != m


def test_a_million_numbers_parse_into_one_array_without_a_node_each():
    numbers = np.random.default_rng(3).normal(size=1_000_000).round(6)
    text = "x = [" + ", ".join(map(repr, numbers.tolist())) + "]"
    node = one(text).value
    assert isinstance(node, A.NumberArray) and np.array_equal(node.values, numbers)


def test_record_and_lambdas():
    r = one("{a = 1, b = x -> x + 1}")
    assert [k for k, _ in r.fields] == ["a", "b"] and isinstance(r.fields[1][1], A.Lambda)
    lam = one("(a, b) -> a * b")
    assert lam.params == ["a", "b"]
    assert one("() -> 1").params == []


def test_slices():
    e = one("v[1:, :2, :]")
    assert [(s.start is None, s.stop is None) for s in e.items] == [(False, True), (True, False), (True, True)]


def test_statements():
    f = one("function f(a, b = 2)\n return a + b\nend function")
    assert isinstance(f, A.FunctionDef) and f.params[1].default.value == 2
    loop = one("for i = 0 to 9 step 2\n x = i\nend for")
    assert isinstance(loop, A.ForRange) and loop.step.value == 2
    assert isinstance(one("for x in xs\nend"), A.ForIn)
    branch = one("if a\n x = 1\nelseif b\n x = 2\nelse\n x = 3\nend if")
    assert len(branch.branches) == 2 and branch.orelse is not None
    assert isinstance(one("a[1].b = 3"), A.Assign)


def test_string_interpolation_is_parsed():
    s = one('"v = {a + 1}!"')
    assert s.parts[0] == "v = " and isinstance(s.parts[1], A.Binary) and s.parts[2] == "!"


@pytest.mark.parametrize("text, message, line", [
    ("for i = 1 to 3\nx = 1\nend while", "'end while' at line 3 closes the 'for' block opened at line 1", 3),
    ("while true\nx = 1\n", "The 'while' block opened at line 1 is never closed", 1),
    ("return 1", "'return' outside a function", 1),
    ("break", "'break' outside a loop", 1),
    ("1 = x", "Can only assign", 1),
    ("f(a = 1, 2)", "Positional arguments must come before keyword arguments", 1),
    ("x = (1 + )", "Expect an expression", 1),
    ("function f(a = 1, b)\nend", "needs a default", 1),
    ("x = 1 2", "Expect the end of the line", 1),
    ("end", "has no open block", 1),
    ("[1, 2; ; 3, 4]", "empty row", 1),
    ("{a = 1, a = 2}", "given twice", 1),
    ('"{1 +}"', "Expect an expression", 1),
    ("x = 'a'", "strings use double quotes", 1),
])
def test_syntax_errors(text, message, line):
    with pytest.raises(LaminaError) as info:
        parse(Source("t", text))
    err = info.value
    assert err.kind == "SyntaxError" and message in err.message, err.message
    assert err.span.line == line


def test_unclosed_input_is_marked_incomplete():
    for text in ("for i = 1 to 2\n", "x = [1,", "y = 1 +"):
        with pytest.raises(LaminaError) as info:
            parse(Source("t", text))
        assert info.value.incomplete, text
    with pytest.raises(LaminaError) as info:
        parse(Source("t", "x = )"))
    assert not info.value.incomplete


def test_import_forms_and_their_names():
    assert one("import helpers") == A.Import(one("import helpers").span, "helpers", False, "helpers")
    node = one("import helpers as h")
    assert (node.spec, node.is_path, node.alias) == ("helpers", False, "h")
    node = one('import "lib/prep.lam"')
    assert (node.spec, node.is_path, node.alias) == ("lib/prep.lam", True, "prep")
    with pytest.raises(LaminaError, match="is not a name the module can be bound to"):
        one('import "lib/2-prep.lam"')
    # the lexer's names are ASCII: a file named mød.lam could be bound to nothing a program can write
    with pytest.raises(LaminaError, match="The file name 'mød' is not a name"):
        one('import "dossier é/mød.lam"')
    with pytest.raises(LaminaError, match=r'by its path: `import "h/x.lam" as name`'):
        one("import h.x")


def test_try_with_catch_and_finally():
    node = one("try\n  a()\ncatch err\n  b()\nfinally\n  c()\nend try")
    assert isinstance(node, A.Try) and node.var == "err"
    assert [len(node.body), len(node.handler), len(node.final)] == [1, 1, 1]
    bare = one("try\n  a()\nfinally\n  c()\nend")
    assert (bare.var, bare.handler, len(bare.final)) == (None, None, 1)


def test_compound_assignment_keeps_its_operator():
    node = one("w[i] *= 2")
    assert isinstance(node, A.Assign) and node.op == "*" and isinstance(node.target, A.Index)
    assert one("x = 2").op is None


def test_anonymous_function_defaults():
    node = one("(u, k = 2) -> u * k")
    assert node.params == ["u", "k"] and [d.value for d in node.defaults] == [2.0]


# -- where an error points -------------------------------------------------------------
def caret_line(err: LaminaError) -> str:
    return err.render().splitlines()[4]


def test_the_caret_keeps_the_tabs_of_the_line_above_it():
    with pytest.raises(LaminaError) as info:
        parse(Source("t", "if true\n\tx = (1 + )\nend"))
    assert info.value.render().splitlines()[3:5] == ["  2 | \tx = (1 + )", "    | \t         ^"]


@pytest.mark.parametrize("line, col, length, caret", [
    ("\t\tx = 1", 3, 1, "\t\t^"),
    ("  \t y", 5, 1, "  \t ^"),
    ('\ts = "日本" + )', 13, 1, "\t" + " " * 13 + "^"),     # a wide character takes two columns
    ('s = "日本"', 5, 4, "    " + "^" * 6),
    ("ｘ = 1", 3, 1, "   ^"),                               # a fullwidth letter too
    ("é = 1", 3, 1, "  ^"),                                 # a narrow one does not
])
def test_the_caret_pads_as_the_line_is_shown(line, col, length, caret):
    err = LaminaError("TypeError", "m", Span(Source("t", line), 1, col, length))
    assert caret_line(err) == "    | " + caret


def deeply_nested(lines: list[str]) -> LaminaError:
    with pytest.raises(LaminaError) as info:
        compiler.compile_program(parse(Source("t", "\n".join(lines) + "\n")), {})
    return info.value


@pytest.mark.parametrize("lines, phase, line", [
    (["x = 1", "y = 2", "print(" + "+".join(["x"] * 3000) + ")"], "compile", 3),    # CPython's compiler
    (["x = 2", "y = " + "^".join(["x"] * 5000)], "parse", 2),                        # right-nested
    (["x = 2", "y = " + "(" * 5000 + "x" + ")" * 5000], "parse", 2),
    (["x = 1", "z = [1]", "y = " + "+".join(["x"] * 60000)], "compile", 3),         # Lamina's compiler
    (["function f(x)", "  y = 1", "  return " + "+".join(["x"] * 3000), "end"], "compile", 3),
])
def test_a_statement_nested_too_deeply_is_the_one_the_error_points_at(lines, phase, line):
    err = deeply_nested(lines)
    assert err.kind == "SyntaxError"
    assert err.message == (f"This statement is nested too deeply to {phase}; split it into several "
                           "statements.")
    start = len(lines[line - 1]) - len(lines[line - 1].lstrip())
    assert (err.span.line, err.span.col, err.span.length) == (line, start + 1, len(lines[line - 1]) - start)


def test_too_many_nested_loops_point_at_the_loop_that_is_one_too_many():
    lines = ["x = 0"] + [" " * i + f"for i{i} = 1 to 1" for i in range(25)] + [" " * 25 + "x += 1"]
    err = deeply_nested(lines + ["end"] * 25)
    assert err.message == ("Too many loops and try blocks are nested here to compile (about 20 at "
                           "most); move the inner ones into a function.")
    assert lines[err.span.line - 1].lstrip().startswith("for ") and err.span.line > 10
    assert err.span.col == len(lines[err.span.line - 1]) - len(lines[err.span.line - 1].lstrip()) + 1


@pytest.mark.parametrize("separator", ["\x0c", "\u2028", "\x0b", "\x85"])
def test_the_line_under_the_caret_is_the_lexers_line(separator):
    # Source.line used str.splitlines, which also splits at these: the excerpt showed 'b'
    from lamina.interpreter import Interpreter
    with pytest.raises(LaminaError) as e:
        Interpreter().run(f"# a{separator}b\nprint(yy)\n", "ff.lam")
    assert e.value.render().splitlines()[1:4] == ["  --> ff.lam:2:7", "    |", "  2 | print(yy)"]


# -- parse_with_errors: reading past syntax errors (the language server's parse) ----------------
def errors_of(text: str) -> list[tuple[int, int, str]]:
    return [(e.span.line, e.span.col, e.message) for e in parse_with_errors(Source("t", text)).errors]


def test_recovery_reports_every_syntax_error_and_keeps_the_statements_between():
    text = ("x = = 1\ny = 2\nfunction f(a b)\n    z = a\nend function\nif y = 2\n    w = 1\nelse\n"
            "    w = 2\nend if\nfor i = 1 to 3\n    v = i\nend while\nprint(y))\n")
    found = parse_with_errors(Source("t", text))
    assert [(e.span.line, e.span.col, e.message) for e in found.errors] == [
        (14, 9, "')' has no matching opening bracket."),      # the lexer's, first, as a run reports it
        (1, 5, "Expect an expression, found '='."),
        (3, 14, "Expect ',' or ')' after a parameter. Found 'b'."),
        (6, 6, "'=' assigns; to compare in the 'if' condition, write '=='."),
        (13, 5, "'end while' at line 13 closes the 'for' block opened at line 11; expect 'end for'."),
    ]
    # a block whose header failed leaves the statements of its body to the block around it
    assert [(type(s).__name__, s.target.name if isinstance(s, A.Assign) else s.var) for s in found.program.body] == [
        ("Assign", "y"), ("Assign", "z"), ("Assign", "w"), ("Assign", "w"), ("ForRange", "i")]
    assert found.source.text.split("\n")[13] == ""           # the line of the lexer's error, blank
    assert found.unparsed == {"x", "f", "a", "b", "y", "print"}


@pytest.mark.parametrize("text, errors, kept", [
    # a statement left open above a block ends where the block starts
    ("x = 1 +\nfunction h()\n    return 1\nend function\n",
     [(2, 1, "Expect an expression, found the keyword 'function'.")], ["FunctionDef"]),
    # `endfor` closes its block; `end for` of the loop around an `if` closes both
    ("for i = 1 to 3\n    print(i)\nendfor\nx = 1\n", [(3, 1, "Write 'end for' (two words) or just 'end'.")],
     ["ForRange", "Assign"]),
    ("for i = 1 to 3\n    if i > 1\n        print(i)\nend for\nq = 1\n",
     [(4, 5, "'end for' at line 4 closes the 'if' block opened at line 2; expect 'end if'.")], ["ForRange", "Assign"]),
    # a clause the block cannot have is skipped with its statements; a block open at the end ends there
    ("while true\n    a = 1\nelse\n    b = 2\nend\nc = 3\n",
     [(1, 1, "The 'while' block opened at line 1 is never closed; expect 'end while'.")], ["While", "Assign"]),
    ("function g()\n    x = = 1\n    y = 2\n",
     [(2, 9, "Expect an expression, found '='."),
      (1, 1, "The 'function' block opened at line 1 is never closed; expect 'end function'.")], ["FunctionDef"]),
    ("end\nx = 1\nelse\ncatch\n", [(1, 1, "'end' has no open block to close."), (3, 1, "'else' has no open block to close."),
                                   (4, 1, "'catch' has no open 'try' block.")], ["Assign"]),
])
def test_recovery_resumes_at_the_next_statement_or_block(text, errors, kept):
    found = parse_with_errors(Source("t", text))
    assert ([(e.span.line, e.span.col, e.message) for e in found.errors], [type(s).__name__ for s in found.program.body]) \
        == (errors, kept)


PROGRAM_FILES = sorted(pathlib.Path(__file__).parents[1].glob("programs/**/*.lam"))
JUNK = ["=", "(", ")", "]", "end", "end if", "else", "function", "\n", '"', "+", ",", "for i =", "catch", "\\"]


def test_recovery_finds_first_the_error_a_run_stops_at_and_nothing_in_a_program_that_parses():
    """Every program of tests/programs, and a few hundred copies with junk put in at random
    places: parse_with_errors raises nothing, its first error is parse's (the CLI's), and a
    text that parses gives the same tree and no error."""
    rng = random.Random(int(os.environ.get("LAMINA_TEST_SEED", "1")))
    texts = [p.read_text() for p in PROGRAM_FILES]
    for _ in range(400):
        text = rng.choice(texts)
        at = rng.randrange(len(text) + 1)
        texts.append(text[:at] + rng.choice(JUNK) + text[at + rng.randrange(3):])
    for text in texts:
        found = parse_with_errors(Source("t", text))
        try:
            program = parse(Source("t", text))
        except LaminaError as err:
            first = found.errors[0]
            assert (first.message, first.span.line, first.span.col) == (err.message, err.span.line, err.span.col), text
        else:
            assert (found.errors, found.program) == ([], program), text


@pytest.mark.parametrize("source, first, second", [
    ("print(1 == 1 == 1)", "==", "=="),           # was false: (1 == 1) is a bool, not 1
    ("x = 0.5\nif 0 < x < 1\n  print(x)\nend if", "<", "<"),
])
def test_comparisons_do_not_chain(run, source, first, second):
    err = error_of(run, source)
    assert (err.kind, err.message) == (
        "SyntaxError", f"Comparisons do not chain: write 'a {first} b and b {second} c' for both to hold.")
    lines, _ = run("print((1 == 1) == true, 1 < 2 and 2 < 3, ([1, 2] > 1) == ([3, 4] > 3))")
    assert lines == ["true true [1, 1]"]        # a comparison in parentheses may be compared
