"""One document, read as the language server sees it: its problems and its names.

The document is parsed with the language's own parser, so a syntax error (an `end` that
closes the wrong block included) has the message and span `lamina` would print. When it
parses, the tree is walked with the scoping the compiler gives it (Python's: a function's
assignments are its locals, anything else is read from the enclosing scope, then the
builtins): a name that nothing defines is an error, and so is a builtin called with
arguments it cannot take (calls.py). Every definition and every use of a name is kept, for
go-to-definition, hover, completion and the outline.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from ..builtins.registry import load_all
from ..errors import LaminaError, Source, Span
from ..lang import ast as A
from ..lang.parser import parse
from ..lang.scope import CONSTANTS
from ..printing import format_value
from .calls import check_call


@dataclass
class Problem:
    span: Span
    message: str
    kind: str                 # the Lamina error kind: SyntaxError, NameError, TypeError


@dataclass
class Definition:
    name: str
    kind: str                 # "function", "variable" or "parameter"
    span: Span
    top: bool                 # defined at the top level of the document
    params: list[str] = field(default_factory=list)    # a function's, as written: "by = 2"
    fields: list[str] = field(default_factory=list)    # a record variable's known fields
    value: A.Node | None = None                         # what a variable was first assigned


@dataclass
class Use:
    span: Span
    definition: Definition | None    # None: a builtin


class Scope:
    def __init__(self, parent: Scope | None, top: bool):
        self.parent = parent
        self.top = top
        self.names: dict[str, Definition] = {}

    def find(self, name: str) -> Definition | None:
        scope = self
        while scope is not None:
            if name in scope.names:
                return scope.names[name]
            scope = scope.parent
        return None


@dataclass
class Analysis:
    source: Source
    problems: list[Problem] = field(default_factory=list)
    definitions: list[Definition] = field(default_factory=list)
    uses: list[Use] = field(default_factory=list)
    parsed: bool = False

    @property
    def symbols(self) -> list[Definition]:
        """The outline: top-level functions and the first assignment of each top-level variable."""
        return [d for d in self.definitions if d.top and d.kind in ("function", "variable")]

    def definition_at(self, line: int, col: int) -> Definition | None:
        """The definition of the name at (1-based) line and column, if it is the program's own."""
        for use in self.uses:
            s = use.span
            if s.line == line and s.col <= col <= s.col + s.length:
                return use.definition
        return None


def analyse(text: str, name: str = "<document>") -> Analysis:
    source = Source(name, text[1:] if text.startswith("\ufeff") else text)
    out = Analysis(source)
    try:
        program = parse(source)
    except LaminaError as err:
        span = err.span or Span(source, 1, 1)
        out.problems.append(Problem(span, err.message, err.kind))
        return out
    except RecursionError:
        out.problems.append(Problem(Span(source, 1, 1), "The program is nested too deeply to parse.", "SyntaxError"))
        return out
    out.parsed = True
    _Walker(out).program(program)
    return out


class _Walker:
    def __init__(self, out: Analysis):
        self.out = out
        self.builtins = load_all()

    # -- definitions: a block's names before its uses (Python's scoping) ----------------------
    def define(self, scope: Scope, name: str, kind: str, span: Span, **extra) -> Definition:
        if name in scope.names:
            return scope.names[name]
        d = Definition(name, kind, span, scope.top, **extra)
        scope.names[name] = d
        self.out.definitions.append(d)
        return d

    def collect(self, scope: Scope, body: list[A.Node]) -> None:
        for stmt in body:
            if isinstance(stmt, A.FunctionDef):
                self.define(scope, stmt.name, "function", stmt.span, params=[_param_text(p) for p in stmt.params])
            elif isinstance(stmt, A.Assign):
                self.assignment(scope, stmt)
            elif isinstance(stmt, (A.ForRange, A.ForIn)):
                self.define(scope, stmt.var, "variable", stmt.span)
                self.collect(scope, stmt.body)
            elif isinstance(stmt, A.While):
                self.collect(scope, stmt.body)
            elif isinstance(stmt, A.If):
                for _, branch in stmt.branches:
                    self.collect(scope, branch)
                self.collect(scope, stmt.orelse or [])

    def assignment(self, scope: Scope, stmt: A.Assign) -> None:
        target, path = stmt.target, []
        while not isinstance(target, A.Name):
            path.append(target)
            target = target.target
        d = self.define(scope, target.name, "variable", target.span,
                        value=stmt.value if not path else None)
        if not path and isinstance(stmt.value, A.RecordLit):
            d.fields.extend(f for f, _ in stmt.value.fields if f not in d.fields)
        if len(path) == 1 and isinstance(path[0], A.Field) and path[0].name not in d.fields:
            d.fields.append(path[0].name)

    # -- uses --------------------------------------------------------------------------------
    def program(self, program: A.Program) -> None:
        scope = Scope(None, top=True)
        self.collect(scope, program.body)
        self.block(scope, program.body)

    def block(self, scope: Scope, body: list[A.Node]) -> None:
        for stmt in body:
            self.statement(scope, stmt)

    def statement(self, scope: Scope, stmt: A.Node) -> None:
        if isinstance(stmt, A.FunctionDef):
            self.use(stmt.span, scope.find(stmt.name))
            inner = Scope(scope, top=False)
            for p in stmt.params:
                if p.default is not None:
                    self.expr(scope, p.default)
                self.use(p.span, self.define(inner, p.name, "parameter", p.span))
            self.collect(inner, stmt.body)
            self.block(inner, stmt.body)
        elif isinstance(stmt, A.Assign):
            target = stmt.target
            while not isinstance(target, A.Name):
                self.children(scope, target, skip="target")
                target = target.target
            self.use(target.span, scope.find(target.name))
            self.expr(scope, stmt.value)
        elif isinstance(stmt, (A.ForRange, A.ForIn)):
            self.children(scope, stmt, skip="body")
            self.block(scope, stmt.body)
        elif isinstance(stmt, A.While):
            self.expr(scope, stmt.cond)
            self.block(scope, stmt.body)
        elif isinstance(stmt, A.If):
            for cond, branch in stmt.branches:
                self.expr(scope, cond)
                self.block(scope, branch)
            self.block(scope, stmt.orelse or [])
        else:
            self.children(scope, stmt)

    def expr(self, scope: Scope, node) -> None:
        if isinstance(node, A.Name):
            self.name(scope, node)
        elif isinstance(node, A.Lambda):
            inner = Scope(scope, top=False)
            for p in node.params:
                self.define(inner, p, "parameter", node.span)
            self.expr(inner, node.body)
        elif isinstance(node, A.Call):
            self.call(scope, node)
            self.children(scope, node)
        elif isinstance(node, A.Node):
            self.children(scope, node)

    def children(self, scope: Scope, node: A.Node, skip: str = "") -> None:
        for f in dataclasses.fields(node):
            if f.name not in ("span", skip):
                self.nested(scope, getattr(node, f.name))

    def nested(self, scope: Scope, value) -> None:
        if isinstance(value, A.Node):
            self.expr(scope, value)
        elif isinstance(value, (list, tuple)):
            for item in value:
                self.nested(scope, item)

    def name(self, scope: Scope, node: A.Name) -> None:
        d = scope.find(node.name)
        if d is not None or node.name in self.builtins or node.name in CONSTANTS:
            self.use(node.span, d)
            return
        self.out.problems.append(Problem(node.span, f"Undefined variable '{node.name}'.", "NameError"))

    def call(self, scope: Scope, node: A.Call) -> None:
        callee = node.callee
        if not isinstance(callee, A.Name) or scope.find(callee.name) is not None:
            return
        spec = self.builtins.get(callee.name)
        if spec is None:
            return
        found = check_call(spec, len(node.args), [k.name for k in node.kwargs])
        if found is not None:
            bad = next((k for k in node.kwargs if k.name == found.keyword), None)
            span = bad.span if bad is not None else callee.span
            self.out.problems.append(Problem(span, found.message, "TypeError"))

    def use(self, span: Span, d: Definition | None) -> None:
        self.out.uses.append(Use(span, d))


def _param_text(p: A.Param) -> str:
    if p.default is None:
        return p.name
    if isinstance(p.default, (A.Number, A.Bool, A.NoneLit)):
        value = getattr(p.default, "value", None)
        return f"{p.name} = {format_value(value)}"
    if isinstance(p.default, A.String) and all(isinstance(x, str) for x in p.default.parts):
        return f"{p.name} = {format_value(''.join(p.default.parts), quote_strings=True)}"
    return f"{p.name} = ..."
