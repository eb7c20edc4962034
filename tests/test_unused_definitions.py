"""No dead code: every top-level function, class and constant of the package is named somewhere
besides its definition (in the package, the tests, the benchmarks or the docs). A decorated
function counts as used: its decorator registers it (a builtin, a language-server handler)."""
from __future__ import annotations

import ast
import pathlib
import re

ROOT = pathlib.Path(__file__).parents[1]
PACKAGE = ROOT / "src" / "lamina"
READERS = {"tests": (".py", ".lam"), "bench": (".py",), "docs": (".md",)}
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def definitions(source: str) -> list[tuple[int, str]]:
    """(line, name) of the top-level definitions a reader might call dead."""
    found = []
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and not node.decorator_list:
            found.append((node.lineno, node.name))
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found.extend((node.lineno, t.id) for t in targets if isinstance(t, ast.Name))
    return [(line, name) for line, name in found if not name.startswith("__")]


def unused(sources: dict[str, str], readers: str) -> list[str]:
    """The definitions of `sources` ({path: text}) whose name occurs once in all of the text."""
    counts: dict[str, int] = {}
    for text in [*sources.values(), readers]:
        for word in WORD.findall(text):
            counts[word] = counts.get(word, 0) + 1
    return [f"{path}:{line} {name}" for path, text in sorted(sources.items())
            for line, name in definitions(text) if counts.get(name, 0) <= 1]


def test_every_definition_is_used():
    sources = {str(p.relative_to(ROOT)): p.read_text() for p in sorted(PACKAGE.rglob("*.py"))}
    readers = "\n".join(p.read_text(errors="replace") for folder, endings in READERS.items()
                        for p in sorted((ROOT / folder).rglob("*"))
                        if p.suffix in endings and p.is_file() and p != pathlib.Path(__file__))
    found = unused(sources, readers)
    assert not found, "defined and never used (remove them):\n" + "\n".join(found)


def test_an_unused_definition_is_caught():
    source = ("import numpy as np\n\nKINDS = {}\nFLOAT_DTYPES = (np.float64, np.float32)\n\n\n"
              "def has_lists(key):\n    return any(k is KINDS for k in key)\n\n\n"
              "@register\ndef handler():\n    pass\n")
    assert unused({"m.py": source}, "") == ["m.py:4 FLOAT_DTYPES", "m.py:7 has_lists"]
