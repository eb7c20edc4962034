"""help("name") in a program and `lamina help name` on the command line."""
from __future__ import annotations

import difflib

from ..builtins.registry import CATEGORIES, load_all
from ..errors import LaminaError


def help_text(name: str | None, run: bool = True) -> str:
    """The categories, or one builtin's page (run=False: its examples without their output)."""
    registry = load_all()
    if name is None:
        lines = ["Builtin categories (help(\"name\") shows one builtin's page):", ""]
        for category in CATEGORIES:
            names = sorted(n for n, s in registry.items() if s.category == category)
            if names:
                lines.append(f"{category}: {', '.join(names)}")
        return "\n".join(lines)
    if name not in registry:
        close = difflib.get_close_matches(name, sorted(registry), n=4, cutoff=0.5)
        hint = f" Did you mean {', '.join(close)}?" if close else " help() lists every builtin."
        raise LaminaError("NameError", f"There is no builtin named '{name}'.{hint}")
    from .pages import page
    return page(registry[name], strict=False, run=run).rstrip("\n")
