"""A call whose result goes nowhere: `net.fit(X, y, epochs = 20)` as a statement trains a copy
of the network and throws it away (the Keras habit), as `sort(v)` alone sorts nothing.

A builtin whose result is its whole effect says what it returns on its registration
(`pure="a new model"`, builtins/registry.py); the registry puts that on the function as
`__lamina_pure__`, which is how this layer, below the builtins, reads it. A call of such a
builtin, in call form or method form (`fit(net, ...)`, `net.fit(...)`), as an expression
statement whose value is not echoed (the REPL's top level) and not a notebook cell's result is
a warning, given when the code is compiled (compiler.py) and by the language server.

The name must mean the builtin there: a name the program binds anywhere (a function of its own,
a parameter, a variable) or that earlier entries bound (the REPL, a notebook) is left alone in
call form, and so is `h.name(...)` on an imported module or on a record with a field of that
name. In method form only a name that may hold a function is left alone, since a method call
uses the builtin when the variable holds a plain value (`fit = linreg(...)`, then `net.fit(...)`).
"""
from __future__ import annotations

from typing import Callable

from ..values import LibObject, Record
from . import ast as A
from . import resolver
from .scope import mangle

# The builtin of a name (a function carrying __lamina_pure__), or None.
BuiltinOf = Callable[[str], object]


class Names:
    """What a program binds anywhere, the record fields and the modules it names: read once,
    when the first call statement of a pure builtin asks."""

    def __init__(self, body: list[A.Node], earlier: dict | None = None):
        self.body = body
        self.earlier = earlier or {}     # mangled name -> value, from entries run before
        self.bound: set[str] = set()
        self.callable: set[str] = set()  # bound otherwise than to a plain value: may hold a function
        self.fields: set[str] = set()
        self.modules: set[str] = set()
        self.read = False

    def read_program(self) -> None:
        self.read = True
        for node in A.walk(self.body, into_functions=True):
            names = {b.name for b in resolver.binds(node)}
            self.bound.update(names)
            if not (isinstance(node, A.Assign) and not isinstance(node.value, A.Lambda)):
                self.callable.update(names)
            if isinstance(node, A.Import):
                self.modules.add(node.alias)
            elif isinstance(node, A.FunctionDef):
                self.bound.update(p.name for p in node.params)
                self.callable.update(p.name for p in node.params)
            elif isinstance(node, A.Lambda):
                self.bound.update(node.params)
                self.callable.update(node.params)
            elif isinstance(node, A.RecordLit):
                self.fields.update(k for k, _ in node.fields)
            elif isinstance(node, A.Assign) and isinstance(node.target, A.Field):
                self.fields.add(node.target.name)

    def shadows(self, name: str) -> bool:
        """Whether `name` may mean something of the program's own rather than the builtin."""
        if not self.read:
            self.read_program()
        return name in self.bound or mangle(name) in self.earlier

    def may_call(self, name: str) -> bool:
        """Whether `x.name(...)` may call something of the program's own: a method call uses
        the builtin when the variable holds no function (`fit = linreg(...)` then `net.fit(...)`),
        so only a name that may hold a function counts (a function, a parameter, a loop or
        lambda variable), not one every assignment gives a plain value."""
        if not self.read:
            self.read_program()
        earlier = self.earlier.get(mangle(name))
        return name in self.callable or (earlier is not None and callable(earlier))

    def member_of(self, target: A.Node, name: str) -> bool:
        """Whether `target.name(...)` may reach a module's or a record's own `name`."""
        if not self.read:
            self.read_program()
        if name in self.fields or (isinstance(target, A.Name) and target.name in self.modules):
            return True
        value = self.earlier.get(mangle(target.name)) if isinstance(target, A.Name) else None
        if isinstance(value, Record):
            return name in value.fields
        return isinstance(value, LibObject) and name in value.field_names()


def discarded_call(stmt: A.ExprStmt, builtin_of: BuiltinOf, names: Names) -> str | None:
    """The warning for an expression statement that calls a pure builtin, or None."""
    call = stmt.expr
    if isinstance(call, A.Call) and isinstance(call.callee, A.Name):
        name, first = call.callee.name, call.args[0] if call.args else None
    elif isinstance(call, A.MethodCall):
        name, first = call.name, call.target
    else:
        return None
    returns = getattr(builtin_of(name), "__lamina_pure__", None)
    if isinstance(call, A.MethodCall):
        if returns is None or names.may_call(name) or names.member_of(call.target, name):
            return None
    elif returns is None or names.shadows(name):
        return None
    shown = written(call, name, first)
    copy = returns.startswith("a new ")
    # a changed copy goes back into the first argument's variable (`net = net.fit(...)`), a value
    # into a new one (`y = sqrt(x)`), or is printed: a summary or a mean is often called to be
    # looked at, as R's console prints it
    into = first.name if isinstance(first, A.Name) and copy else "y"
    see = "" if copy else f" or `print({shown})` to see it"
    return (f"the result of {name} is discarded: {name} returns {returns} and changes nothing; "
            f"write `{into} = {shown}` to keep it{see}")


def written(call: A.Call | A.MethodCall, name: str, first: A.Node | None) -> str:
    """The call as the warning shows it: its first argument when that is a variable, `...` for
    the rest (`fit(net, ...)`, `net.fit(...)`, `sqrt(x)`)."""
    given = first.name if isinstance(first, A.Name) else "..."
    if isinstance(call, A.MethodCall):
        return f"{given if given != '...' else '(...)'}.{name}({'...' if call.args or call.kwargs else ''})"
    if first is None:
        return f"{name}({'...' if call.kwargs else ''})"
    return f"{name}({given}{', ...' if len(call.args) + len(call.kwargs) > 1 and given != '...' else ''})"


def discarded_calls(program: A.Program, builtin_of: BuiltinOf) -> list[tuple[A.ExprStmt, str]]:
    """Every warning of a program run as a script (the language server's view of a document):
    there every expression statement's value goes nowhere."""
    names = Names(program.body)
    out = []
    for node in A.walk(program.body, into_functions=True):
        if isinstance(node, A.ExprStmt):
            message = discarded_call(node, builtin_of, names)
            if message is not None:
                out.append((node, message))
    return sorted(out, key=lambda found: (found[0].span.line, found[0].span.col))
