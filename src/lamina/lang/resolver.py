"""Which names each statement binds, decided once (as jlox's Resolver decides it).

Lamina scopes names as Python does: a function's locals are its parameters and every name a
statement of its body binds (outside the functions and lambdas inside it); anything else is
read from the enclosing scope, then the builtins. Three readers need that answer and take it
from here, so they cannot disagree: the compiler (the `global` line of a top-level loop, the
statement a message names when a name is read before it is bound), the float specialiser (a
function's locals, the names a loop rebinds) and the language server (a document's
definitions, kinds and spans, and which names are read before they are assigned).

RULES holds, for every kind of statement, its parts in the order they run: the bindings it
makes itself and the blocks of statements it holds in the same scope. The table is checked
against `ast.Statement`'s subclasses at import, so a new statement without a rule stops
Lamina from starting instead of being invisible to one of the readers.
"""
from __future__ import annotations

from typing import Callable, Iterator

from ..errors import Span
from ..fields import Frozen
from . import ast as A


class Binding(Frozen):
    """A name a statement binds. `kind`: "function", "variable" or "module". `reads`: the
    statement reads the name before it binds it (`x += 1`, `x[i] = v`, `r.f = v`), so the name
    must exist already; such a statement is not where the name comes into being."""

    def __init__(self, name: str, kind: str, span: Span, node: A.Statement, reads: bool = False):
        self.name, self.kind, self.span, self.node, self.reads = name, kind, span, node, reads


# A statement's parts, in the order they run: a Binding, or a block (a list of statements).
Parts = tuple


def _assign(s: A.Assign) -> Parts:
    target = s.target
    while not isinstance(target, A.Name):
        target = target.target
    return (Binding(target.name, "variable", target.span, s, reads=s.op is not None or target is not s.target),)


def _try(s: A.Try) -> Parts:
    caught = (Binding(s.var, "variable", s.var_span or s.span, s),) if s.var is not None else ()
    return (s.body, *caught, s.handler or [], s.final or [])


RULES: dict[type, Callable[[A.Statement], Parts]] = {
    A.ExprStmt: lambda s: (),
    A.Assign: _assign,
    # the name only: the body is the function's own scope (function_locals)
    A.FunctionDef: lambda s: (Binding(s.name, "function", s.span, s),),
    A.Return: lambda s: (),
    A.If: lambda s: (*(body for _, body in s.branches), s.orelse or []),
    A.ForRange: lambda s: (Binding(s.var, "variable", s.span, s), s.body),
    A.ForIn: lambda s: (Binding(s.var, "variable", s.span, s), s.body),
    A.While: lambda s: (s.body,),
    A.Import: lambda s: (Binding(s.alias, "module", s.alias_span or s.span, s),),
    A.Try: _try,
    A.Break: lambda s: (),
    A.Continue: lambda s: (),
}


def statement_kinds(cls: type = A.Statement) -> set[type]:
    """Every kind of statement: the subclasses of ast.Statement."""
    found = set()
    for sub in cls.__subclasses__():
        found |= {sub} | statement_kinds(sub)
    return found


_missing = statement_kinds() - set(RULES)
if _missing:
    raise TypeError("statements without a resolver rule (recipe 'A statement', step 3: add to RULES in "
                    f"lang/resolver.py the names each binds and the blocks it holds): "
                    f"{sorted(c.__name__ for c in _missing)}")


def binds(stmt: A.Node) -> list[Binding]:
    """The bindings `stmt` makes itself (none for an expression)."""
    rule = RULES.get(type(stmt))
    return [] if rule is None else [p for p in rule(stmt) if isinstance(p, Binding)]


def bindings(body: list[A.Node]) -> Iterator[Binding]:
    """Every binding the statements of `body` make in its scope, in the order they run (not
    the insides of functions and lambdas, which are scopes of their own). A stack rather than
    recursion: blocks may nest as deeply as the parser allows."""
    stack = [iter(body)]
    while stack:
        part = next(stack[-1], None)
        if part is None:
            stack.pop()
        elif isinstance(part, Binding):
            yield part
        elif isinstance(part, list):                 # a block
            stack.append(iter(part))
        else:                                        # a statement: its parts
            stack.append(iter(RULES[type(part)](part)))


def bound_names(body: list[A.Node]) -> set[str]:
    """The names the statements of `body` bind in its scope."""
    return {b.name for b in bindings(body)}


def function_locals(fn: A.FunctionDef) -> set[str]:
    """A function's locals: its parameters and the names its body binds."""
    return {p.name for p in fn.params} | bound_names(fn.body)


def first_binders(body: list[A.Node]) -> dict[str, A.Statement]:
    """For each name `body` binds in its scope, the first statement that brings it into being
    (one that does not read it first): reading the name before that statement runs is an error
    that this statement explains."""
    first: dict[str, A.Statement] = {}
    for b in bindings(body):
        if not b.reads:
            first.setdefault(b.name, b.node)
    return first
