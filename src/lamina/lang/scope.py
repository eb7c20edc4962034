"""Finding a Lamina variable by name from inside a builtin.

The seed passes functions and optimizers by name (`train_loop("loss_fn", w, 100,
optimizer = "opt")`). A builtin resolves such a name in the scope of the Lamina
code that called it: the nearest frame of compiled Lamina code on the stack.
"""
from __future__ import annotations

import sys

from ..errors import LaminaError

CODE_FILENAME = "<lamina>"
MANGLE = "L_"


def mangle(name: str) -> str:
    return MANGLE + name


def unmangle(name: str) -> str:
    return name[len(MANGLE):] if name.startswith(MANGLE) else name


def lookup_variable(name: str, what: str = "name"):
    """The value of Lamina variable `name` as the calling Lamina code sees it."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename != CODE_FILENAME:
        frame = frame.f_back
    if frame is None:
        raise LaminaError("NameError", f"No Lamina code is running to look up '{name}' in.")
    key = mangle(name)
    for scope in (frame.f_locals, frame.f_globals, frame.f_globals.get("__builtins__", {})):
        if isinstance(scope, dict) and key in scope:
            return scope[key]
    raise LaminaError("NameError", f"The {what} '{name}' names no variable.")


def resolve(value, what: str):
    """A value given directly, or by its variable's name as a string."""
    if isinstance(value, str):
        return lookup_variable(value, what)
    return value
