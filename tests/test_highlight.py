"""The Pygments lexer: found through its entry point, right tokens, and no error token on any
program or documentation block of the repository."""
from __future__ import annotations

import pathlib
import re
import subprocess
import sys

import pytest
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
from pygments.token import (Comment, Error, Keyword, Name, Number, Operator, Punctuation, String, Whitespace)

from lamina.highlight import LaminaLexer

ROOT = pathlib.Path(__file__).parents[1]
PROGRAMS = sorted(ROOT.glob("examples/**/*.lam")) + sorted(ROOT.glob("tests/**/*.lam"))
PAGES = sorted(ROOT.glob("docs/**/*.md")) + [ROOT / "README.md"]
FENCE = re.compile(r"```lamina\n(.*?)```", re.S)


def tokens(text: str) -> list[tuple]:
    return [(t, v) for t, v in LaminaLexer().get_tokens(text) if t not in (Whitespace,)]


def test_the_entry_point_makes_it_pygments_lamina_lexer():
    assert isinstance(get_lexer_by_name("lamina"), LaminaLexer)
    assert isinstance(get_lexer_for_filename("model.lam"), LaminaLexer)


def test_pygmentize_highlights_a_file(tmp_path):
    (tmp_path / "p.lam").write_text('for i = 0 to 2\n    print("i = {i}")  # loop\nend for\n')
    html = subprocess.run([sys.executable, "-m", "pygments", "-l", "lamina", "-f", "html", str(tmp_path / "p.lam")],
                          capture_output=True, text=True, check=True).stdout
    assert '<span class="k">for</span>' in html and '<span class="k">to</span>' in html
    assert '<span class="nb">print</span>' in html and '<span class="si">{</span>' in html
    assert '<span class="c1"># loop</span>' in html and '<span class="err">' not in html


def test_tokens_of_each_construct():
    got = tokens('function f(x, by = 2)\n  return x .* by\' |> sum\nend function\n')
    assert got[:3] == [(Keyword, "function"), (Name.Function, "f"), (Punctuation, "(")]
    assert (Operator, ".*") in got and (Operator, "'") in got and (Operator, "|>") in got
    assert (Name.Builtin, "sum") in got and (Number.Float, "2") in got
    assert got[-2:] == [(Keyword, "end"), (Keyword, "function")]
    s = tokens('"a {x + 1} \\n {{b}}"')
    assert s == [(String.Double, '"'), (String.Double, "a "), (String.Interpol, "{"), (Name, "x"),
                 (Operator, "+"), (Number.Float, "1"), (String.Interpol, "}"), (String.Double, " "),
                 (String.Escape, "\\n"), (String.Double, " "), (String.Escape, "{{"),
                 (String.Double, "b"), (String.Escape, "}}"), (String.Double, '"')]
    assert tokens("r.mean = 1.5e-3 # note")[:3] == [(Name, "r"), (Punctuation, "."), (Name.Attribute, "mean")]
    assert (Number.Float, "1.5e-3") in tokens("1.5e-3") and (Comment.Single, "# note") in tokens("x # note")
    assert tokens("true and not none")[:4] == [(Keyword.Constant, "true"), (Operator.Word, "and"),
                                               (Operator.Word, "not"), (Keyword.Constant, "none")]


def test_to_step_and_in_are_keywords_only_in_a_for_header():
    header = tokens("for i = 0 to 9 step 3\nto = in + step\nfor x in xs\n")
    kinds = [(t, v) for t, v in header if v in ("to", "step", "in")]
    assert kinds == [(Keyword, "to"), (Keyword, "step"), (Name, "to"), (Name, "in"), (Name, "step"),
                     (Keyword, "in")]


def test_modules_errors_and_compound_assignment():
    got = tokens('import "lib/prep.lam" as prep\nimport helpers as h\nas = 1\n')
    assert got[:3] == [(Keyword, "import"), (String.Double, '"'), (String.Double, "lib/prep.lam")]
    assert [(t, v) for t, v in got if v == "as"] == [(Keyword, "as"), (Keyword, "as"), (Name, "as")]
    got = tokens("try\n  x += 1; x -= 2; x *= 3; x /= 4\ncatch err\n  y = 7 % 2\nfinally\nend try\n")
    assert [(t, v) for t, v in got if t in Keyword] == [(Keyword, "try"), (Keyword, "catch"), (Keyword, "finally"),
                                                       (Keyword, "end"), (Keyword, "try")]
    assert [v for t, v in got if t is Operator] == ["+=", "-=", "*=", "/=", "=", "%"]


def test_what_the_language_rejects_is_an_error_token():
    assert any(t is Error for t, _ in tokens("x = 1 $ 2"))
    assert any(t is Error for t, _ in tokens('s = "never closed\nprint(s)'))
    assert any(t is Error for t, _ in tokens('s = "bad \\q escape"'))


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_error_token_in_a_program(path):
    assert [v for t, v in tokens(path.read_text()) if t in Error] == []


@pytest.mark.parametrize("path", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_error_token_in_a_documentation_block(path):
    blocks = FENCE.findall(path.read_text())
    assert [v for b in blocks for t, v in tokens(b) if t in Error] == []


def number_and_error_tokens(code: str) -> list:
    return [(token, text) for _, token, text in LaminaLexer().get_tokens_unprocessed(code)
            if token in (Error,) or token in Number]


def test_a_malformed_number_is_one_error_token():
    assert number_and_error_tokens("x = 1_000 + 0x10 + 1.5e") == [(Error, "1_000"), (Error, "0x10"), (Error, "1.5e")]
    assert number_and_error_tokens('s = "{1_0}"') == [(Error, "1_0")]
    # the numbers the language reads stay whole numbers (no backtracking into "1" + "e-10")
    assert number_and_error_tokens("y = 1e-10 + .5 + 2.e3 + 2.5E+3 + 7") == [
        (Number.Float, "1e-10"), (Number.Float, ".5"), (Number.Float, "2.e3"),
        (Number.Float, "2.5E+3"), (Number.Float, "7")]
