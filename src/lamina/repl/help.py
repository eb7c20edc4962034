"""`?name` at the prompt (Julia's help mode): the help of a builtin, a function, a module or a
module's member, rendered for the terminal (docs/render.py); a variable's value otherwise.
A builtin's examples are shown, not run: running them would reset the session's tape, seed
and figure, as the docs build does for each example."""
from __future__ import annotations

import re

from ..completion import MISSING, LiveNames
from ..docs.help import help_for, help_text
from ..docs.render import show_page
from ..errors import LaminaError
from ..lang.modules import Module
from ..values import LibObject

NAME = re.compile(r"[A-Za-z_]\w*")


def show_help(interpreter, query: str) -> None:
    query = query.strip()
    if not query:
        show_page(help_text(None))
        return
    path = [p.strip() for p in query.split(".")]
    if not all(NAME.fullmatch(p) for p in path):
        raise LaminaError("SyntaxError", f"'?' takes a name: ?mean for a builtin's page, ?f for a function, "
                          f"?h or ?h.f for a module and its members; '{query}' is not one.")
    names = LiveNames(interpreter)
    value = names.value(path)
    if value is MISSING and len(path) == 1:
        show_page(help_text(query, run=False))             # a builtin, or a NameError naming close ones
    elif value is MISSING:
        raise LaminaError("NameError", f"'{query}' is not defined.")
    elif isinstance(value, Module) or (callable(value) and not isinstance(value, LibObject)):
        text, markdown = help_for(value, query, run=False)
        show_page(text, markdown_text=markdown)
    else:
        show_page(names.describe_member(path[:-1], path[-1]) if len(path) > 1 else names.describe(query),
                  markdown_text=False)
