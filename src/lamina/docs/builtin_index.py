"""Write src/lamina/builtins/index.py: which module registers each builtin (`make docs` runs
this; `python -m lamina.docs.builtin_index --check` compares instead).

A program imports only the builtin modules whose names it uses (registry.spec_of), so the names
must be known before the modules are imported: this file is that knowledge, generated from the
registry with every module imported, and tests/builtins/test_lazy_builtins.py checks it.
"""
from __future__ import annotations

import inspect
import pathlib
import sys
import textwrap

from ..builtins import index
from ..builtins.registry import load_all
from ..files import atomic_write

PATH = pathlib.Path(index.__file__)
HEADER = '''"""Which module of lamina.builtins registers each builtin, so that a program imports only the
modules whose builtins it uses (registry.spec_of). Generated from the registry by `make docs`
(lamina/docs/builtin_index.py): do not edit."""

'''


def index_source() -> str:
    by_module: dict[str, list[str]] = {}
    for name, spec in load_all().items():
        by_module.setdefault(spec.fn.__module__.rpartition(".")[2], []).append(name)
    lines = ["BY_MODULE = {"]
    for module, names in sorted(by_module.items()):
        body = ", ".join(f'"{n}"' for n in sorted(names))
        lines.append(f'    "{module}": (')
        lines += textwrap.wrap(body + ",", 96, initial_indent=" " * 8, subsequent_indent=" " * 8,
                               break_on_hyphens=False)
        lines.append("    ),")
    lines.append("}")
    lines.append("MODULES = {name: module for module, names in BY_MODULE.items() for name in names}")
    lines.append("# A name other languages give a builtin: (the builtin, the language, its first call shape).")
    lines.append("ELSEWHERE = {")
    for foreign, (name, language, code) in sorted(elsewhere_names().items()):
        lines.append(f"    {foreign!r}: ({name!r}, {language!r}, {code!r}),")
    lines.append("}")
    return HEADER + "\n".join(lines) + "\n"


def elsewhere_names() -> dict[str, tuple[str, str, str]]:
    """Every builtin's names in other languages, each naming one builtin, and none a builtin itself
    or a builtin's parameter (a program's own variable of that name, undefined, would read as the
    other language's function)."""
    specs = load_all()
    parameters = {p for spec in specs.values() for p in inspect.signature(spec.fn).parameters}
    found: dict[str, tuple[str, str, str]] = {}
    for name, spec in specs.items():
        for foreign, language in spec.elsewhere.items():
            if foreign in specs or foreign in found or foreign in parameters:
                taken = "a parameter's name" if foreign in parameters else \
                    f"{foreign if foreign in specs else found[foreign][0]!r}'s"
                raise ValueError(f"builtin {name!r}: its name elsewhere {foreign!r} is already {taken}")
            found[foreign] = (name, language, spec.shapes[0].code)
    return found


def main(argv: list[str]) -> int:
    text = index_source()
    if argv == ["--check"]:
        if PATH.read_text() != text:
            print(f"out of date: {PATH}; run `make docs` and commit it", file=sys.stderr)
            return 1
        return 0
    atomic_write(str(PATH), lambda f: f.write(text.encode("utf-8")))
    print(f"wrote {PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
