"""Building Python's `ast` for compiled Lamina code: names, helper calls, constants, the
float test every guarded operator makes, and the line numbers CPython needs on every node
(`place`); what a compiled program reads as globals (`global_names`)."""
from __future__ import annotations

import ast as py
import types


def load(name: str) -> py.Name:
    return py.Name(name, py.Load())


def helper(name: str, *args: py.expr) -> py.Call:
    return py.Call(load(name), list(args), [])


def const(value) -> py.Constant:
    return py.Constant(value)


def is_float_test(expr: py.expr) -> py.expr:
    return py.Compare(helper("_type", expr), [py.Is()], [load("_float")])



def place(tree: py.AST) -> None:
    """Give every node without a line number the line of its nearest ancestor that has one."""
    stack = [(tree, 1)]
    while stack:
        n, line = stack.pop()
        if "lineno" in n._attributes:
            own = getattr(n, "lineno", None)
            if own is None:
                n.lineno = n.end_lineno = line
                n.col_offset = n.end_col_offset = 0
            else:
                line = own
        for name in n._fields:
            child = getattr(n, name, None)
            if type(child) is list:
                stack.extend((c, line) for c in child if isinstance(c, py.AST))
            elif isinstance(child, py.AST):
                stack.append((child, line))


def deepest_statement(tree: py.AST) -> int:
    """The line (a node id) of the innermost statement on the deepest path through `tree`."""
    deepest, line = -1, 1
    stack = [(tree, 0, 1)]
    while stack:
        n, depth, at = stack.pop()
        if isinstance(n, py.stmt):
            at = n.lineno
        if depth > deepest:
            deepest, line = depth, at
        stack.extend((child, depth + 1, at) for child in py.iter_child_nodes(n))
    return line


def global_names(code: tuple) -> set[str]:
    """Every name the code objects (and the functions and lambdas in them) read as a global
    or builtin: the builtins a program needs are among them."""
    names: set[str] = set()
    stack = list(code)
    while stack:
        c = stack.pop()
        names.update(c.co_names)
        stack.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
    return names

