from __future__ import annotations

import pytest

from lamina.errors import LaminaError, Source
from lamina.lang.lexer import tokenize


def kinds(text: str) -> list[tuple[str, str]]:
    return [(t.kind, t.text) for t in tokenize(Source("t", text))]


def test_numbers_and_operators():
    assert kinds("x = 1.5e3 .* .5") == [
        ("IDENT", "x"), ("OP", "="), ("NUMBER", "1.5e3"), ("OP", ".*"), ("NUMBER", ".5"),
        ("NEWLINE", "\\n"), ("EOF", "")]


def test_number_values():
    toks = tokenize(Source("t", "3 0.5 .5 1e-3 2.5E+4"))
    assert [t.value for t in toks if t.kind == "NUMBER"] == [3.0, 0.5, 0.5, 1e-3, 2.5e4]


def test_dot_operators_after_integer():
    assert kinds("1.*x")[:3] == [("NUMBER", "1"), ("OP", ".*"), ("IDENT", "x")]


def test_field_access_is_not_a_number():
    assert kinds("a.b")[:3] == [("IDENT", "a"), ("OP", "."), ("IDENT", "b")]


def test_transpose_and_keywords():
    assert kinds("a' and not b")[:5] == [("IDENT", "a"), ("OP", "'"), ("KEYWORD", "and"),
                                         ("KEYWORD", "not"), ("IDENT", "b")]


def test_newlines_inside_brackets_are_ignored():
    assert [k for k, _ in kinds("[1,\n2]\n")].count("NEWLINE") == 1


@pytest.mark.parametrize("op", ["+", "-", "*", "/", ".*", "|>", ",", "==", "and", "or", "="])
def test_line_ending_in_operator_continues(op):
    assert [k for k, _ in kinds(f"a {op}\nb")].count("NEWLINE") == 1


def test_comments_are_skipped():
    assert kinds("x # comment\n") == [("IDENT", "x"), ("NEWLINE", "\\n"), ("EOF", "")]


def test_string_parts_and_escapes():
    tok = tokenize(Source("t", r'"a {x + 1} {{b}} \n"'))[0]
    assert tok.kind == "STRING"
    assert tok.value == ["a ", ("x + 1", 5, None), " {b} \n"]


def test_interpolation_may_hold_strings_and_records():
    tok = tokenize(Source("t", '"{f("}")} { {a = 1}.a }"'))[0]
    assert tok.value == [('f("}")', 3, None), " ", (" {a = 1}.a ", 12, None)]


def test_interpolation_format_spec_starts_at_the_first_colon_outside_brackets():
    tok = tokenize(Source("t", '"{x:.2f} {v[1:3]} {f(a = "b:c"):>8} {y::^9}"'))[0]
    assert tok.value == [("x", 3, ".2f"), " ", ("v[1:3]", 11, None), " ", ('f(a = "b:c")', 20, ">8"), " ",
                         ("y", 38, ":^9")]


@pytest.mark.parametrize("text, message", [
    ('"abc', "never closed"),
    ('"a\\q"', "Unknown escape"),
    ('"a } b"', "lone '}'"),
    ('"{x"', "never closed"),
    ("(1, 2", "never closed"),
    ("1 + )", "no matching"),
    ("(1]", "does not match"),
    ("x = 3abc", "Malformed number"),
    ("x = $", "Unexpected character '$'."),
    # a NUL or a pasted no-break space was shown raw, as '' or ' '
    ("print(1)\0", "Unexpected character U+0000 (a control character)."),
    ("x\u00a0= 1", "Unexpected character U+00A0 (no-break space)."),
])
def test_lexer_errors(text, message):
    with pytest.raises(LaminaError) as info:
        tokenize(Source("t", text))
    assert info.value.kind == "SyntaxError"
    assert message in info.value.message
    assert info.value.span.line == 1


def test_spans_are_one_based():
    toks = tokenize(Source("t", "a\n  bb"))
    b = toks[2]
    assert (b.span.line, b.span.col, b.span.length) == (2, 3, 2)



def test_a_run_of_numbers_in_a_literal_is_one_token_read_exactly():
    run = tokenize(Source("t", "[1.5, -2 ,3e-4,\t.5, 1., 0.1, 7]"))[1]
    assert run.kind == "NUMBERS" and run.value == [1.5, -2.0, 3e-4, 0.5, 1.0, 0.1]
    # a row may start with a negative number (it lexed a token per number, 36 s for 1000 x 1000)
    rows = tokenize(Source("t", "[-2.25, 1, 3;\n-4, -.5, 6]"))
    assert [t.kind for t in rows[:7]] == ["OP", "NUMBERS", "NUMBER", "OP", "NUMBERS", "NUMBER", "OP"]
    assert rows[4].value == [-4.0, -0.5]
    # where a number is an operand, it is no run: `-2 ^ 2` is -(2 ^ 2)
    assert [t.text for t in tokenize(Source("t", "[-2 ^ 2, 1]"))[1:4]] == ["-", "2", "^"]


def test_lexing_a_long_literal_keeps_no_state_per_number():
    """The run's regex kept a backtracking point for every number it passed (165 MB for
    200,000 numbers, 1.1 GB for a million); the token's own floats take about 10 MB."""
    import tracemalloc
    text = "x = [" + ", ".join(["1.5"] * 200_000) + "]"
    tracemalloc.start()
    try:
        tokens = tokenize(Source("t", text))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert tokens[3].kind == "NUMBERS" and len(tokens[3].value) == 199_999
    assert peak < 40e6, f"{peak / 1e6:.0f} MB"
