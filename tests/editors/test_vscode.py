"""The VS Code extension (editors/vscode): its manifest, its language configuration, and its
TextMate grammar run under Node with vscode-textmate (VS Code's own tokenizer), installed from
npm by the first test that needs it (`npm ci` into editors/vscode/node_modules).

The grammar is checked character by character against the Pygments lexer (an independent
implementation): on every example, test program and documentation block, each keyword,
string, escape, interpolation brace, number, comment and operator gets the same category.
"""
from __future__ import annotations

import json
import pathlib
import re
import shutil
import subprocess

import pytest
from pygments.token import Comment, Keyword, Number, Operator, String

from lamina.highlight import LaminaLexer
from lamina.lang.lexer import KEYWORDS

ROOT = pathlib.Path(__file__).parents[2]
EXT = ROOT / "editors" / "vscode"
PROGRAMS = sorted(ROOT.glob("examples/**/*.lam")) + sorted(ROOT.glob("tests/programs/**/*.lam"))
PAGES = sorted(ROOT.glob("docs/**/*.md")) + [ROOT / "README.md"]


def npm_ready() -> None:
    """node_modules as package-lock.json says, installed when missing or out of date."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("node and npm are not installed")
    stamp = EXT / "node_modules" / ".package-lock.json"
    needed = [EXT / "node_modules" / name / "package.json" for name in ("vscode-textmate", "vscode-oniguruma")]
    if not all(p.exists() for p in needed) or stamp.stat().st_mtime < (EXT / "package-lock.json").stat().st_mtime:
        subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=EXT, check=True,
                       timeout=600)


@pytest.fixture(scope="module")
def tokenized(tmp_path_factory) -> dict[str, list]:
    """Every program and documentation block, tokenized by the grammar: name -> lines of
    [text, scopes] tokens."""
    npm_ready()
    folder = tmp_path_factory.mktemp("blocks")
    files = {str(p.relative_to(ROOT)): p for p in PROGRAMS}
    for page in PAGES:
        for i, block in enumerate(re.findall(r"```lamina\n(.*?)```", page.read_text(), re.S)):
            path = folder / f"{page.stem}-{i}.lam"
            path.write_text(block)
            files[f"{page.relative_to(ROOT)} block {i}"] = path
    out = subprocess.run(["node", str(EXT / "test" / "tokenize.js"), *map(str, files.values())],
                         capture_output=True, text=True, check=True, timeout=120).stdout
    by_path = json.loads(out)
    return {name: (path.read_text(), by_path[str(path)]) for name, path in files.items()}


def tm_category(scopes: list[str]) -> str:
    s = scopes[-1]
    if s.startswith(("comment.", "punctuation.definition.comment")):
        return "comment"
    if s.startswith("constant.character.escape"):
        return "escape"
    if s.startswith(("punctuation.section.interpolation", "constant.other.placeholder.format-spec")):
        return "interpolation"
    if s.startswith(("string.", "punctuation.definition.string")):
        return "string"
    if s.startswith("constant.numeric"):
        return "number"
    if s.startswith("constant.language"):
        return "constant"
    if s.startswith(("keyword.operator", "storage.type.function.arrow")):
        return "operator"
    if s.startswith(("keyword.", "storage.type.function")):
        return "keyword"
    return "other"


def pygments_category(token) -> str:
    for kind, name in ((Comment, "comment"), (String.Escape, "escape"), (String.Interpol, "interpolation"),
                       (String, "string"), (Number, "number"), (Keyword.Constant, "constant"),
                       (Operator, "operator"), (Keyword, "keyword")):
        if token in kind:
            return name
    return "other"


def categories(text: str, lines: list) -> tuple[list, list]:
    """(grammar's, lexer's) category of each non-blank character, line by line."""
    grammar = []
    for number, line in enumerate(lines):
        col = 0
        for piece, scopes in line:
            grammar += [(number, col + k, tm_category(scopes)) for k, ch in enumerate(piece) if not ch.isspace()]
            col += len(piece)
    lexer, number, col = [], 0, 0
    for token, value in LaminaLexer().get_tokens(text):
        for ch in value:
            if ch == "\n":
                number, col = number + 1, 0
                continue
            if not ch.isspace():
                lexer.append((number, col, pygments_category(token)))
            col += 1
    return grammar, lexer


def test_the_grammar_agrees_with_the_pygments_lexer_everywhere(tokenized):
    assert len(tokenized) > 40
    for name, (text, lines) in tokenized.items():
        grammar, lexer = categories(text, lines)
        differ = [(g, p) for g, p in zip(grammar, lexer) if g != p]
        assert grammar and len(grammar) == len(lexer) and not differ, (name, differ[:5])


def test_scopes_of_each_construct(tokenized):
    text, lines = tokenized["examples/first_steps.lam"]
    flat = [(t, s[-1]) for line in lines for t, s in line]
    assert ("function", "storage.type.function.lamina") in flat and ("fib", "entity.name.function.lamina") in flat
    assert ("to", "keyword.control.loop.lamina") in flat and ("end", "keyword.control.end.lamina") in flat
    assert ("{", "punctuation.section.interpolation.begin.lamina") in flat
    assert ("#", "punctuation.definition.comment.lamina") in flat and ("=", "keyword.operator.assignment.lamina") in flat
    assert not any(s.startswith("invalid") for _, (_, lines) in tokenized.items()
                   for line in lines for _, scopes in line for s in scopes)
    text, lines = tokenized["examples/project/train.lam"]
    flat += [(t, s[-1]) for line in lines for t, s in line]
    assert ("import", "keyword.control.import.lamina") in flat and ("try", "keyword.control.exception.lamina") in flat
    assert ("catch", "keyword.control.exception.lamina") in flat
    words = {t for line in lines for t, s in line if t in KEYWORDS}
    assert words and all(tm_category(s) in ("keyword", "operator", "constant")
                         for line in lines for t, s in line if t in KEYWORDS)


def test_manifest_wires_the_language_the_grammar_and_the_server():
    manifest = json.loads((EXT / "package.json").read_text())
    [language] = manifest["contributes"]["languages"]
    [grammar] = manifest["contributes"]["grammars"]
    assert language["id"] == grammar["language"] == "lamina" and language["extensions"] == [".lam"]
    assert json.loads((EXT / grammar["path"]).read_text())["scopeName"] == grammar["scopeName"] == "source.lamina"
    assert (EXT / language["configuration"]).exists() and (EXT / manifest["main"]).exists()
    settings = manifest["contributes"]["configuration"]["properties"]
    assert settings["lamina.server.command"]["default"] == ""        # the workspace's .venv, or PATH
    assert settings["lamina.server.args"]["default"] == ["lsp"]
    assert "vscode-languageclient" in manifest["dependencies"]
    lock = json.loads((EXT / "package-lock.json").read_text())
    assert {"node_modules/vscode-textmate", "node_modules/vscode-oniguruma"} <= set(lock["packages"])


def test_the_extension_code_is_valid_javascript():
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    subprocess.run(["node", "--check", str(EXT / "extension.js")], check=True, timeout=60)
    subprocess.run(["node", "--check", str(EXT / "test" / "tokenize.js")], check=True, timeout=60)


def test_language_configuration_indents_blocks():
    rules = json.loads((EXT / "language-configuration.json").read_text())["indentationRules"]
    increase, decrease = re.compile(rules["increaseIndentPattern"]), re.compile(rules["decreaseIndentPattern"])
    opening = ["function f(x)", "for i = 0 to 2", "while true", "if x > 1", "elseif x", "else", "try",
               "catch err", "finally"]
    assert all(increase.search(f"    {line}") for line in opening)
    assert not any(increase.search(line) for line in ["if x > 1; print(x); end", "x = 1", "ending = 2"])
    assert all(decrease.search(f"  {line}") for line in ["end", "end try", "catch", "finally", "else", "elseif x"])
    assert not decrease.search("ending = 2")


def test_language_configuration_folds_end_blocks_and_knows_comments_and_brackets():
    config = json.loads((EXT / "language-configuration.json").read_text())
    assert config["comments"] == {"lineComment": "#"}
    assert config["brackets"] == [["(", ")"], ["[", "]"], ["{", "}"]]
    start = re.compile(config["folding"]["markers"]["start"])
    end = re.compile(config["folding"]["markers"]["end"])
    for path in PROGRAMS:
        if "# expect error: SyntaxError" in path.read_text():     # `endfor` and the like, on purpose
            continue
        lines = path.read_text().splitlines()
        depth = 0
        for line in lines:
            depth += bool(start.search(line)) - bool(end.search(line))
            assert depth >= 0, path
        assert depth == 0, path
