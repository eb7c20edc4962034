"""Gradient targets written in the call, and the argument a call passes to a parameter.

The one place where how an argument is written changes what it means: a bracket literal
written directly as the argument of a parameter named `wrt` (TARGETS) is the list of its
items, whatever they are, not the vector or matrix the bracket would make, so that
`grad(loss, wrt = [a, b])` asks for one gradient per item (docs/language.md, "The autodiff
tape").
The hook is the parameter's name in the builtin's own function (`def grad(loss, wrt=None)`,
builtins/autodiff.py): a builtin that names a parameter `wrt` gets the rule for it, written
by keyword (in any call) or by position (in call form or method form), and the compiler
knows no builtin by name. Error messages name such an argument by its text (`{arg:wrt}`,
pyerrors.py) through the same `argument_for`.
"""
from __future__ import annotations

import inspect

from . import ast as A

TARGETS = "wrt"


def parameter_names(fn) -> list[str]:
    """The parameters of a Python function (or of a builtin bound to its scope), in order;
    none for what has no signature."""
    try:
        return list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return []


def callee_name(node: A.Node | None) -> str | None:
    """The name a call calls: `f` in `f(x)`, and in method form `x.f()`."""
    if isinstance(node, A.Call) and isinstance(node.callee, A.Name):
        return node.callee.name
    return node.name if isinstance(node, A.MethodCall) else None


def argument_for(node: A.Node | None, name: str, fn=None) -> A.Node | None:
    """The argument a call passes to parameter `name`: its keyword, or the argument at the
    parameter's place among `fn`'s parameters (in method form the value before the dot is
    the first argument). `fn`: the function called, when known."""
    if not isinstance(node, (A.Call, A.MethodCall)):
        return None
    for k in node.kwargs:
        if k.name == name:
            return k.value
    params = parameter_names(fn) if fn is not None else []
    if name not in params:
        return None
    args = ([node.target] if isinstance(node, A.MethodCall) else []) + node.args
    i = params.index(name)
    return args[i] if i < len(args) else None


def is_target_list(node: A.Node | None) -> bool:
    """A bracket literal without `;`: as the wrt argument it is a list of targets."""
    return isinstance(node, A.Matrix) and not node.semicolons


def may_be_targets(node: A.Node) -> bool:
    """Whether `node`, written as the wrt argument, is read as a list of targets."""
    return is_target_list(node) or (isinstance(node, A.NumberArray) and not node.semicolons)
