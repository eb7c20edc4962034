"""help("name") and help(value) in a program, `?name` at the prompt, `lamina help name` on the
command line."""
from __future__ import annotations

import difflib

from ..builtins.index import ELSEWHERE
from ..builtins.registry import CATEGORIES, load_all
from ..errors import LaminaError
from ..lang.modules import Module, function_help
from ..lang.pyerrors import known_elsewhere
from ..lang.runtime import is_user_function
from ..values import describe


def help_text(name: str | None, run: bool = True) -> str:
    """The categories, or one builtin's page (run=False: its examples without their output).
    Both are Markdown that also reads as plain text."""
    registry = load_all()
    if name is None:
        lines = ["Builtin categories (help(\"name\") shows one builtin's page):", ""]
        for category in CATEGORIES:
            names = sorted(n for n, s in registry.items() if s.category == category)
            if names:
                lines.append(f"- {category}: {', '.join(names)}")
        return "\n".join(lines)
    if name not in registry and name in ELSEWHERE:      # help("lm"): linreg's page, saying so
        return f"({known_elsewhere(name, ELSEWHERE)}.)\n\n" + help_text(ELSEWHERE[name][0], run)
    if name not in registry:
        close = difflib.get_close_matches(name, sorted(registry), n=4, cutoff=0.5)
        hint = f" Did you mean {', '.join(close)}?" if close else " help() lists every builtin."
        raise LaminaError("NameError", f"There is no builtin named '{name}'.{hint}")
    from .pages import page
    return page(registry[name], strict=False, run=run).rstrip("\n")


def help_for(value, label: str = "", run: bool = True) -> tuple[str, bool]:
    """(the help text for a value, whether it is Markdown): a builtin's page for the builtin or
    its name, a module's functions and values, a function's parameters and leading comment.
    `label` is how the value was written (`h.fit`), for functions of the program."""
    if value is None:
        return help_text(None), True
    if isinstance(value, str):
        return help_text(value, run), True
    builtin = getattr(value, "__lamina_builtin__", None)
    if builtin is not None:
        return help_text(builtin, run), True
    if isinstance(value, Module):
        return value.help_text(), False
    if is_user_function(value):
        call, *doc = function_help(label or _function_label(value), value)
        return "\n".join([f"function {call}"] + ["  " + line for line in doc]), False
    raise LaminaError("TypeError", f"help takes a builtin's name, a function or a module, not {describe(value)}; "
                      "help() lists the builtins.")


def _function_label(fn) -> str:
    from ..printing import function_name
    return function_name(fn)
