"""The recipe "A statement" (docs/ARCHITECTURE.md): every kind of statement, a subclass of
`ast.Statement`, has each step done, and a kind that misses one fails with the step's name.

Steps 3 and 4 (the resolver's rule, the compile handler) are checked when Lamina is imported;
the tests here show that a statement missing one stops the import with a message naming the
step. Steps 2, 5 and 6 (the parser, docs/language.md, a program under tests/programs) are
checked for every kind of statement: a kind no parsed program or docs example contains was
never made reachable or never shown.
"""
from __future__ import annotations

import pathlib
import re
import subprocess
import sys

import pytest

from lamina.errors import Source
from lamina.lang import ast as A
from lamina.lang.parser import parse
from lamina.lang.resolver import statement_kinds

ROOT = pathlib.Path(__file__).parents[2]
BLOCK = re.compile(r"```lamina\n((?:(?!```).)*)```", re.S)
KINDS = sorted(statement_kinds(), key=lambda c: c.__name__)


def kinds_in(texts) -> set[type]:
    found = set()
    for name, text in texts:
        try:
            body = parse(Source(name, text)).body
        except Exception:       # an example of a syntax error: it shows no statement
            continue
        found |= {type(n) for n in A.walk(body, into_functions=True)}
    return found


def programs():
    return ((str(p), p.read_text()) for p in (ROOT / "tests" / "programs").rglob("*.lam"))


def doc_examples():
    text = (ROOT / "docs" / "language.md").read_text()
    return ((f"language.md#{i}", m.group(1)) for i, m in enumerate(BLOCK.finditer(text)))


@pytest.fixture(scope="module")
def in_programs():
    return kinds_in(programs())


@pytest.fixture(scope="module")
def in_docs():
    return kinds_in(doc_examples())


@pytest.mark.parametrize("kind", KINDS, ids=[k.__name__ for k in KINDS])
def test_a_program_uses_every_statement(kind, in_programs):
    assert kind in in_programs, (
        f"no program under tests/programs contains a {kind.__name__} (recipe 'A statement', step 2: "
        f"the parser makes it; step 6: a program using it with its expected output)")


@pytest.mark.parametrize("kind", KINDS, ids=[k.__name__ for k in KINDS])
def test_the_language_page_shows_every_statement(kind, in_docs):
    assert kind in in_docs, (
        f"docs/language.md has no lamina example containing a {kind.__name__} (recipe 'A statement', "
        f"step 5: document it with an example)")


def import_with_new_statement(first: str = "", then: str = "") -> str:
    """Import the compiler with a statement kind `Repeat` declared after `first` runs (and
    before `then` does): the import's error message, or "" when it imports."""
    code = (f"{first}\n"
            "from lamina.lang import ast as A\n"
            "class Repeat(A.Statement):\n"
            "    def __init__(self, span, body):\n"
            "        self.span, self.body = span, body\n"
            f"{then}\n"
            "import lamina.lang.compiler\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    return done.stderr.strip().splitlines()[-1] if done.returncode else ""


def test_a_statement_without_a_resolver_rule_stops_the_import():
    assert import_with_new_statement() == (
        "TypeError: statements without a resolver rule (recipe 'A statement', step 3: add to RULES in "
        "lang/resolver.py the names each binds and the blocks it holds): ['Repeat']")


def test_a_statement_without_a_compile_handler_stops_the_import():
    assert import_with_new_statement("from lamina.lang import resolver",
                                     "resolver.RULES[Repeat] = lambda s: (s.body,)") == (
        "TypeError: statements without a compile handler (recipe 'A statement', step 4: a method "
        "s_<Name> of Compiler in lang/compiler.py): ['Repeat']")


def test_a_statement_with_its_rule_and_handler_imports():
    # the handler given through a base class of Compiler, which exists before compiler.py runs
    assert import_with_new_statement(
        "from lamina.lang import resolver\nfrom lamina.lang.specialise import FloatSpecialiser",
        "resolver.RULES[Repeat] = lambda s: (s.body,)\n"
        "FloatSpecialiser.s_Repeat = lambda self, node, top: []") == ""
