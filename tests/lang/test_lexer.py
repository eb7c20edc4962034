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
    ("x = @", "Unexpected character '@'."),
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

