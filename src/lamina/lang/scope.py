"""Names as compiled code sees them, and a program's scope for builtins that take a name.

The seed passes functions and optimizers by name (`train_loop("loss_fn", w, 100,
optimizer = "opt")`). Such a builtin is registered `scoped`: each Interpreter hands it the
Scope of its own program (its top-level variables, then the builtins), so a name is looked up
there, never by walking Python frames. A variable local to a function is not visible this
way: pass the value itself.

A Scope also carries its program's `Host`: what it would take to start another interpreter
like it (the Interpreter class, handed down by the interpreter itself, which sits above the
builtins; the program's folder; its permissions). `sweep` and `parallel_map` use it to run
the program's functions in interpreters of their own, here or on other machines.
"""
from __future__ import annotations

import math

from ..errors import LaminaError
from ..fields import Frozen

CODE_FILENAME = "<lamina>"
MANGLE = "L_"
# In a program's builtins: `loader(keys)` puts the builtins of these mangled names (None: every
# builtin) there, importing their modules on first use. The interpreter fills the builtins a
# program's code names as it compiles it; a name looked up by text comes through builtins_of.
LOADER = "_load_builtins"
# In a program's builtins: every builtin's name, loaded or not (for a NameError's suggestions).
BUILTIN_NAMES = "_builtin_names"
# In a program's builtins: what other languages call a builtin, {"lm": ("linreg", "R", shape)}.
ELSEWHERE = "_elsewhere"

# Names every program sees beside the builtins (docs/language.md "Constants"). They live with
# the builtins, below a program's own variables, so `pi = 3` in a program shadows pi there.
CONSTANTS = {"pi": math.pi, "Inf": math.inf, "NaN": math.nan}


def mangle(name: str) -> str:
    return MANGLE + name


def unmangle(name: str) -> str:
    return name[len(MANGLE):] if name.startswith(MANGLE) else name


def builtins_of(namespace: dict, keys=None) -> dict:
    """The builtins the code of `namespace` sees, with those of `keys` (mangled names; None:
    every builtin) loaded first where they are missing."""
    builtins = namespace.get("__builtins__", {})
    loader = builtins.get(LOADER) if isinstance(builtins, dict) else None
    if loader is not None and (keys is None or any(k not in builtins for k in keys)):
        loader(keys)
    return builtins


class Host(Frozen):
    """How to start an interpreter like the program's: `make(directory, permissions)` (the
    Interpreter class; picklable by reference, so it travels to other processes)."""

    def __init__(self, make, directory: str | None, permissions: object):
        self.make, self.directory, self.permissions = make, directory, permissions


class Scope:
    """The top-level variables of one program, the builtins it sees, and its Host."""

    def __init__(self, namespace: dict, host: Host | None = None):
        self.namespace = namespace
        self.host = host

    def defines(self, name: str) -> bool:
        key = mangle(name)
        return key in self.namespace or key in builtins_of(self.namespace, (key,))

    def lookup(self, name: str, what: str = "name"):
        key = mangle(name)
        if key in self.namespace:
            return self.namespace[key]
        builtins = builtins_of(self.namespace, (key,))
        if key in builtins:
            return builtins[key]
        raise LaminaError("NameError", f"The {what} '{name}' names no top-level variable; pass the "
                          f"value itself (a variable inside a function is not visible by name).")

    def resolve(self, value, what: str):
        """A value given directly, or by its variable's name as a string."""
        return self.lookup(value, what) if isinstance(value, str) else value
