"""`?name` at the prompt (Julia's help mode): the help of a builtin, a function, a module or a
module's member, rendered for the terminal (docs/render.py); a variable's value otherwise.
`?r.zz` where r has no field zz is the error the run gives for `r.zz` (r's fields listed).
A builtin's examples are shown, not run: running them would reset the session's tape, seed
and figure, as the docs build does for each example."""
from __future__ import annotations

import re

from ..builtins.index import ELSEWHERE
from ..builtins.registry import load_all
from ..completion import MISSING, LiveNames
from ..docs.help import help_for, help_text
from ..docs.render import show_page
from ..errors import LaminaError
from ..lang.modules import Module
from ..lang.pyerrors import did_you_mean
from ..lang.runtime import field
from ..lang.scope import CONSTANTS
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
        _missing_member(names, path)
    elif isinstance(value, Module) or (callable(value) and not isinstance(value, LibObject)):
        text, markdown = help_for(value, query, run=False)
        show_page(text, markdown_text=markdown)
    else:
        show_page(names.describe_member(path[:-1], path[-1]) if len(path) > 1 else names.describe(query),
                  markdown_text=False)


def _missing_member(names: LiveNames, path: list[str]) -> None:
    """The error the run gives for `r.zz` (r undefined, without the field, or a value without
    fields): the fields r has, the names close to r."""
    known = {**{name: spec.fn for name, spec in load_all().items()}, **CONSTANTS, **names.variables()}
    if path[0] not in known:
        raise LaminaError("NameError", f"Undefined variable '{path[0]}'.{did_you_mean(path[0], known, ELSEWHERE)}")
    value = known[path[0]]
    for name in path[1:]:
        value = field(value, name)        # raises at the field that is missing
    raise LaminaError("NameError", f"'{'.'.join(path)}' is not defined.")    # (completion hides it)
