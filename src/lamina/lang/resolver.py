"""Which names each statement binds, decided once (as jlox's Resolver decides it).

Lamina scopes names as Python does: a function's locals are its parameters and every name a
statement of its body binds (outside the functions and lambdas inside it); anything else is
read from the enclosing scope, then the builtins. Three readers need that answer and take it
from here, so they cannot disagree: the compiler (the `global` line of a top-level loop, the
statement a message names when a name is read before it is bound), the float specialiser (a
function's locals, the names a loop rebinds) and the language server (a document's
definitions, kinds and spans, and which names are read before they are assigned).

RULES holds, for every kind of statement, its parts in the order they run: the expressions
it reads, the bindings it makes itself, the blocks of statements it holds in the same scope,
the parts that repeat (`Loop`) and a function's body (`Inner`). From it come the bindings of
a block (`bindings`) and, in one walk of every scope, the reads of a name before its scope
binds it (`early_reads`). The table is checked against `ast.Statement`'s subclasses at
import, so a new statement without a rule stops Lamina from starting instead of being
invisible to one of the readers.
"""
from __future__ import annotations

import itertools
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


class Loop(Frozen):
    """Parts that run again and again: a name read there may be bound by a later statement
    for the next pass."""

    def __init__(self, parts: tuple):
        self.parts = parts


class Inner(Frozen):
    """A function's body: a scope of its own, its parameters bound on entry."""

    def __init__(self, fn: A.FunctionDef):
        self.fn = fn


# A statement's parts in the order they run: an expression (a node it reads), a Binding, a
# block (a list of statements in the same scope), a Loop or an Inner scope.
Parts = tuple


def _assign(s: A.Assign) -> Parts:
    target, indices = s.target, []
    while not isinstance(target, A.Name):
        indices[:0] = [x for f in target._fields if f not in ("span", "target") for x in _nodes(getattr(target, f))]
        target = target.target
    reads = s.op is not None or target is not s.target
    return (*indices, s.value, Binding(target.name, "variable", target.span, s, reads=reads))


def _try(s: A.Try) -> Parts:
    caught = (Binding(s.var, "variable", s.var_span or s.span, s),) if s.var is not None else ()
    return (s.body, *caught, s.handler or [], s.final or [])


def _for_range(s: A.ForRange) -> Parts:
    step = (s.step,) if s.step is not None else ()
    return (s.start, s.stop, *step, Binding(s.var, "variable", s.span, s), Loop((s.body,)))


def _function(s: A.FunctionDef) -> Parts:
    defaults = tuple(p.default for p in s.params if p.default is not None)
    return (*defaults, Binding(s.name, "function", s.span, s), Inner(s))


RULES: dict[type, Callable[[A.Statement], Parts]] = {
    A.ExprStmt: lambda s: (s.expr,),
    A.Assign: _assign,
    A.FunctionDef: _function,
    A.Return: lambda s: (s.value,) if s.value is not None else (),
    A.If: lambda s: (*(part for cond, body in s.branches for part in (cond, body)), s.orelse or []),
    A.ForRange: _for_range,
    A.ForIn: lambda s: (s.iterable, Binding(s.var, "variable", s.span, s), Loop((s.body,))),
    A.While: lambda s: (Loop((s.cond, s.body)),),
    A.Import: lambda s: (Binding(s.alias, "module", s.alias_span or s.span, s),),
    A.Try: _try,
    A.Break: lambda s: (),
    A.Continue: lambda s: (),
}


def _nodes(value) -> list:
    """The syntax nodes in a field's value (a node, or a list of them)."""
    if isinstance(value, A.Node):
        return [value]
    return [x for x in value if isinstance(x, A.Node)] if isinstance(value, list) else []


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
    """The bindings `stmt` makes itself (none for an expression): those among its rule's own
    parts, not inside its blocks (whose statements make their own)."""
    rule = RULES.get(type(stmt))
    if rule is None:
        return []
    found, parts = [], list(rule(stmt))
    while parts:
        part = parts.pop(0)
        if isinstance(part, Binding) and part.node is stmt:
            found.append(part)
        elif isinstance(part, Loop):
            parts[:0] = part.parts
    return found


def bindings(body: list[A.Node]) -> Iterator[Binding]:
    """Every binding the statements of `body` make in its scope, in the order they run (not
    the insides of functions and lambdas, which are scopes of their own). A stack rather than
    recursion: blocks may nest as deeply as the parser allows."""
    stack = [iter((body,))]
    while stack:
        part = next(stack[-1], None)
        if part is None:
            stack.pop()
        elif isinstance(part, Binding):
            yield part
        elif isinstance(part, list):                 # a block: its statements' parts
            stack.append(itertools.chain.from_iterable(RULES[type(s)](s) for s in part))
        elif isinstance(part, Loop):
            stack.append(iter(part.parts))


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



def early_reads(body: list[A.Node]) -> set[int]:
    """The reads of a name before any statement of its own scope has bound it, on every path
    there: outside a loop (where a later statement binds it for the next pass), before its
    first binding in the text. The ids of the Name nodes that read so, and of the statements
    that read their target first (`x += 1`, `x[i] = v`) so; every function's body is a scope
    with its parameters bound. (A lambda's body reads only its parameters, bound, and outer
    names: nothing in it is early.)"""
    early: set[int] = set()
    scopes = [(body, set())]
    while scopes:
        statements, ready = scopes.pop()
        local = bound_names(statements) | ready
        stack = [(iter((statements,)), 0)]       # parts to go through, with the loops around them
        while stack:
            parts, loops = stack[-1]
            part = next(parts, None)
            if part is None:
                stack.pop()
            elif isinstance(part, Binding):
                if part.reads and not loops and part.name in local and part.name not in ready:
                    early.add(id(part.node))
                ready.add(part.name)
            elif isinstance(part, list):
                stack.append((itertools.chain.from_iterable(RULES[type(s)](s) for s in part), loops))
            elif isinstance(part, Loop):
                stack.append((iter(part.parts), loops + 1))
            elif isinstance(part, Inner):
                scopes.append((part.fn.body, {p.name for p in part.fn.params}))
            elif not loops:                          # an expression: the names it reads
                early.update(id(n) for n in _names_read(part) if n.name in local and n.name not in ready)
    return early


def _names_read(expr: A.Node) -> Iterator[A.Name]:
    """The names an expression reads in its own scope (a lambda's defaults, not its body)."""
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, A.Name):
            yield node
        elif isinstance(node, A.Lambda):
            stack.extend(node.defaults)
        else:
            stack.extend(A.children(node))
