"""One document, read as the language server sees it: its problems and its names.

The document is parsed with the language's own parser, so a syntax error (an `end` that
closes the wrong block included) has the message and span `lamina` would print; the parser
reads past each (parse_with_errors), and the statements that parsed are checked. The names
each statement binds come from the language's resolver (lang/resolver.py), as the compiler's
do (Python's scoping: a function's assignments are its locals, anything else is read from the
enclosing scope, then the builtins): a name that nothing defines is an error, and so is a builtin called with
arguments it cannot take (calls.py). Every definition and every use of a name is kept, for
go-to-definition, hover, completion and the outline, and so is each function's and lambda's
scope with the lines it spans, for the names seen from a cursor.

`import` binds its alias to the module's file, found as the run would find it (modules.py);
`h.name` is checked against the module's top-level names, read by parsing its file. A name
bound only by `x += 1` or `x[i] = v` must exist before: at the top level it is undefined,
in a function it is read before it is assigned, as the run says. So is a name a statement
reads before any statement of its scope binds it (`f(1)` above `function f`), unless a loop
holds the read (a later statement of the loop binds it for the next pass).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import partial

from ..builtins.index import ELSEWHERE
from ..builtins.registry import load_all
from ..errors import LaminaError, Source, Span
from ..lang import ast as A
from ..lang import resolver
from ..lang.discarded import discarded_calls
from ..lang.modules import no_member
from ..lang.parser import parse
from ..lang.recovery import parse_with_errors
from ..lang.pyerrors import did_you_mean, not_yet, read_before_assigned
from ..lang.scope import CONSTANTS
from ..printing import format_value
from . import modules
from .calls import check_call, check_function_call


@dataclass
class Problem:
    span: Span
    message: str
    kind: str                 # the Lamina error kind (SyntaxError, NameError, TypeError), or Warning


@dataclass
class Definition:
    name: str
    kind: str                 # "function", "variable", "parameter" or "module"
    span: Span                # in its own file: span.source is the document or a module
    top: bool                 # defined at the top level of the document
    params: list[str] = field(default_factory=list)    # a function's, as written: "by = 2"
    shape: dict[str, dict] = field(default_factory=dict)   # a record variable's known fields, each
                                                            # with its own (a nested record's), in order
    value: A.Node | None = None                         # what a variable was first assigned
    module: str | None = None  # a module's file (None: not found)
    bound: bool = True         # False while only `x += v` or `x[i] = v` assign it (they read it first)
    # a function's (or a variable's lambda's) parameters, each with whether it has a default;
    # None once the name is bound a second time (a call may then reach another function)
    signature: list[tuple[str, bool]] | None = None

    @property
    def fields(self) -> list[str]:
        return list(self.shape)


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
    top: Scope | None = None                   # the document's top level
    # (first line, last line, scope) of each function and lambda, an outer one before the inner
    scopes: list[tuple[int, int, Scope]] = field(default_factory=list)

    @property
    def symbols(self) -> list[Definition]:
        """The outline: top-level functions, imported modules and the first assignment of each
        top-level variable."""
        return [d for d in self.definitions if d.top and d.kind in ("function", "variable", "module")]

    def use_at(self, line: int, col: int) -> Use | None:
        """The use of a name at (1-based) line and column."""
        for use in self.uses:
            s = use.span
            if s.line == line and s.col <= col <= s.col + s.length:
                return use
        return None

    def definition_at(self, line: int, col: int) -> Definition | None:
        """The definition of the name at (1-based) line and column, if it is the program's own."""
        use = self.use_at(line, col)
        return None if use is None else use.definition

    def scope_at(self, line: int) -> Scope | None:
        """The innermost scope (function, lambda or the top level) whose lines hold `line`."""
        found = self.top
        for first, last, scope in self.scopes:
            if first <= line <= last:
                found = scope
        return found


def analyse(text: str, name: str = "<document>") -> Analysis:
    """The analysis of a document; `name` is its file (imports are looked for beside it) or,
    for a document not on disk, a label (imports are looked for in the current folder).
    Syntax errors are read past (parse_with_errors): each is a problem, and the statements that
    parsed are walked, a name written in the text an error spoilt never called undefined."""
    parsed = parse_with_errors(Source(name, text[1:] if text.startswith("\ufeff") else text))
    out = Analysis(parsed.source, parsed=not parsed.errors)
    out.problems.extend(Problem(err.span or Span(parsed.source, 1, 1), err.message, err.kind)
                        for err in parsed.errors)
    _Walker(out, parsed.unparsed).program(parsed.program)
    builtins, wrong = load_all(), {p.span.line for p in out.problems}
    out.problems.extend(Problem(stmt.span, message, "Warning") for stmt, message in
                        discarded_calls(parsed.program, lambda name: getattr(builtins.get(name), "fn", None))
                        if stmt.span.line not in wrong)    # a call that is wrong says so, and no more
    return out


def module_names(path: str) -> modules.ModuleInfo:
    """The module in the file at `path`, with its public top-level definitions."""
    return modules.read(path, _top_level)


def _parse(source: Source) -> A.Program:
    try:
        return parse(source)
    except RecursionError:
        raise LaminaError("SyntaxError", "The program is nested too deeply to parse.", Span(source, 1, 1)) from None


def _top_level(source: Source) -> dict[str, Definition]:
    """A module file's top-level definitions (its uses are not walked)."""
    scope = Scope(None, top=True)
    _Walker(Analysis(source)).collect(scope, _parse(source).body)
    return scope.names


def _folder(source: Source) -> str | None:
    """Where the file's imports are looked for first: its folder (None: the current folder)."""
    folder = os.path.dirname(source.name)
    return folder if folder and os.path.isdir(folder) else None


class _Walker:
    def __init__(self, out: Analysis, unparsed: set[str] = frozenset()):
        self.out = out
        self.unparsed = unparsed       # names in text a syntax error spoilt: perhaps defined there
        self.builtins = load_all()
        self.folder = _folder(out.source)
        self.imports: dict[int, tuple[str | None, LaminaError | None]] = {}   # id(Import) -> found
        self.early: set[int] = set()   # the reads before their scope binds the name (program)

    # -- definitions: a block's names before its uses (Python's scoping) ----------------------
    def define(self, scope: Scope, name: str, kind: str, span: Span, bound: bool = True, **extra) -> Definition:
        if name in scope.names:
            d = scope.names[name]
            d.bound = d.bound or bound
            d.signature = None
            if (d.kind == "module") != (kind == "module"):   # a module name assigned again
                d.kind, d.module = "variable", None
            return d
        d = Definition(name, kind, span, scope.top, bound=bound, **extra)
        scope.names[name] = d
        self.out.definitions.append(d)
        return d

    def collect(self, scope: Scope, body: list[A.Node]) -> None:
        """Define the names the statements of `body` bind in `scope`, as the resolver finds them."""
        for b in resolver.bindings(body):
            stmt = b.node
            if isinstance(stmt, A.FunctionDef):
                self.define(scope, b.name, b.kind, b.span, params=[_param_text(p) for p in stmt.params],
                            signature=[(p.name, p.default is not None) for p in stmt.params])
            elif isinstance(stmt, A.Assign):
                self.assignment(scope, stmt, b)
            elif b.kind == "module":
                self.define(scope, b.name, b.kind, b.span, module=self.find(stmt)[0])
            else:
                self.define(scope, b.name, b.kind, b.span)

    def find(self, stmt: A.Import) -> tuple[str | None, LaminaError | None]:
        """(the module's file, or None and why not)."""
        if id(stmt) not in self.imports:
            try:
                self.imports[id(stmt)] = (modules.find(stmt.spec, stmt.is_path, self.folder), None)
            except LaminaError as err:
                self.imports[id(stmt)] = (None, err)
        return self.imports[id(stmt)]

    def assignment(self, scope: Scope, stmt: A.Assign, binding: resolver.Binding) -> None:
        target, path = stmt.target, []
        while not isinstance(target, A.Name):
            path.append(target)
            target = target.target
        plain = not binding.reads
        d = self.define(scope, binding.name, "variable", binding.span, bound=plain,
                        value=stmt.value if plain else None,
                        signature=_lambda_signature(stmt.value) if plain else None)
        # `r = {a = {b = 1}}`, `r.a = {b = 1}` and `r.a.b = 1` all give r the field a, with b
        shape = d.shape
        for part in reversed(path):
            if not isinstance(part, A.Field):
                return
            shape = shape.setdefault(part.name, {})
        _record_shape(stmt.value, shape)

    # -- uses --------------------------------------------------------------------------------
    def program(self, program: A.Program) -> None:
        scope = self.out.top = Scope(None, top=True)
        self.early = resolver.early_reads(program.body)
        self.collect(scope, program.body)
        self.block(scope, program.body, END)

    def block(self, scope: Scope, body: list[A.Node], end: int) -> None:
        """`end`: the block's last line."""
        for i, stmt in enumerate(body):
            # a statement's lines run to the next one's (a function's blank lines and `end` included)
            self.statement(scope, stmt, A.start_of(body[i + 1]).line - 1 if i + 1 < len(body) else end)

    def statement(self, scope: Scope, stmt: A.Node, end: int) -> None:
        if isinstance(stmt, A.FunctionDef):
            self.use(stmt.span, scope.find(stmt.name))
            inner = Scope(scope, top=False)
            self.out.scopes.append((stmt.span.line, end, inner))
            for p in stmt.params:
                if p.default is not None:
                    self.expr(scope, p.default)
                self.use(p.span, self.define(inner, p.name, "parameter", p.span))
            self.collect(inner, stmt.body)
            self.block(inner, stmt.body, end)
        elif isinstance(stmt, A.Assign):
            target = stmt.target
            while not isinstance(target, A.Name):
                self.children(scope, target, skip="target")
                target = target.target
            d = scope.find(target.name)
            self.use(target.span, d)
            reads = target is not stmt.target or stmt.op is not None     # `x += 1`, `x[0] = 1`
            if d is not None and reads and (not d.bound or self.too_early(scope, d, stmt)):
                at = stmt.span if target is stmt.target else target.span
                self.out.problems.append(Problem(at, self.unbound(scope, d), "NameError"))
            self.expr(scope, stmt.value)
        elif isinstance(stmt, (A.ForRange, A.ForIn)):
            self.children(scope, stmt, skip="body")
            self.block(scope, stmt.body, end)
        elif isinstance(stmt, A.While):
            self.expr(scope, stmt.cond)
            self.block(scope, stmt.body, end)
        elif isinstance(stmt, A.If):
            for cond, branch in stmt.branches:
                self.expr(scope, cond)
                self.block(scope, branch, end)
            self.block(scope, stmt.orelse or [], end)
        elif isinstance(stmt, A.Try):
            self.block(scope, stmt.body, end)
            if stmt.var is not None:
                self.use(stmt.var_span or stmt.span, scope.find(stmt.var))
            self.block(scope, stmt.handler or [], end)
            self.block(scope, stmt.final or [], end)
        elif isinstance(stmt, A.Import):
            self.import_stmt(scope, stmt)
        else:
            self.children(scope, stmt)

    def import_stmt(self, scope: Scope, stmt: A.Import) -> None:
        d = scope.find(stmt.alias)
        for span in {stmt.spec_span, stmt.alias_span} - {None}:
            self.use(span, d)
        path, err = self.find(stmt)
        if err is not None:
            self.out.problems.append(Problem(stmt.span, err.message, err.kind))
            return
        broken = module_names(path).error
        if broken is not None:
            shown = os.path.relpath(path, self.folder or ".")
            where = f" ({shown}:{broken.span.line}:{broken.span.col})" if broken.span is not None else ""
            self.out.problems.append(Problem(stmt.span, f"The module {shown} cannot be loaded: "
                                             f"{broken.kind}: {broken.message}{where}", broken.kind))

    def expr(self, scope: Scope, node) -> None:
        # A stack, not recursion: `1 + 1 + ...` with thousands of terms parses (the parser
        # loops) into a tree as deep as it is long. Its items are (scope, node) or a step to
        # take once the nodes pushed after it are done.
        todo = [(scope, node)]
        while todo:
            item = todo.pop()
            if callable(item):
                item()
                continue
            scope, node = item
            if isinstance(node, A.Name):
                self.name(scope, node)
                continue
            if isinstance(node, A.Lambda):
                todo.append(partial(self.lambda_body, scope, node))
                todo.extend((scope, d) for d in reversed(node.defaults))   # evaluated where it is written
                continue
            if isinstance(node, A.Call):
                self.call(scope, node)
            elif isinstance(node, (A.Field, A.MethodCall)):
                todo.append(partial(self.member, scope, node))
            if isinstance(node, A.Node):
                todo.extend((scope, child) for child in reversed(_parts(node)))

    def lambda_body(self, scope: Scope, node: A.Lambda) -> None:
        inner = Scope(scope, top=False)
        self.out.scopes.append((*_lines(node), inner))
        for p in node.params:
            self.define(inner, p, "parameter", node.span)
        self.expr(inner, node.body)

    def member(self, scope: Scope, node: A.Field | A.MethodCall) -> None:
        """`h.name` on a module: the module's definition of name, or the run's NameError."""
        info = self.module_of(scope, node.target)
        if info is None or info.error is not None:
            return
        d = info.names.get(node.name)
        if d is None:
            self.out.problems.append(Problem(node.span, no_member(info.name, node.name, list(info.names)),
                                             "NameError"))
        self.use(node.span, d)

    def module_of(self, scope: Scope, node) -> modules.ModuleInfo | None:
        """The module a name (`h`) or a module's member (`prep.util`) holds, if it is one."""
        path = []
        while isinstance(node, A.Field):
            path.append(node.name)
            node = node.target
        if not isinstance(node, A.Name):
            return None
        d = scope.find(node.name)
        for name in reversed(path):
            info = _module(d)
            d = info.names.get(name) if info is not None else None
        return _module(d)

    def children(self, scope: Scope, node: A.Node, skip: str = "") -> None:
        for child in _parts(node, skip):
            self.expr(scope, child)

    def name(self, scope: Scope, node: A.Name) -> None:
        d = scope.find(node.name)
        if d is not None and (not d.bound or self.too_early(scope, d, node)):
            self.out.problems.append(Problem(node.span, self.unbound(scope, d), "NameError"))
        if d is not None or node.name in self.builtins or node.name in CONSTANTS or node.name in self.unparsed:
            self.use(node.span, d)
            return
        self.out.problems.append(Problem(node.span, self.undefined(scope, node.name), "NameError"))

    def undefined(self, scope: Scope, name: str) -> str:
        """The run's message: the closest names the program and the builtins define."""
        known = set(self.builtins)
        while scope is not None:
            known |= {n for n, d in scope.names.items() if d.bound}
            scope = scope.parent
        return f"Undefined variable '{name}'.{did_you_mean(name, known - {name}, ELSEWHERE)}"

    def too_early(self, scope: Scope, d: Definition, read: A.Node) -> bool:
        """Whether `read` (a name, or an update of its target) reads d before any statement of
        d's scope binds it, as the resolver finds (resolver.early_reads). At the top level a
        builtin's name is the builtin until then."""
        return id(read) in self.early and not (scope.top and (d.name in self.builtins or d.name in CONSTANTS))

    def unbound(self, scope: Scope, d: Definition) -> str:
        """A name read before its first binding runs, or one that only updates assign."""
        if not d.top:
            return read_before_assigned(d.name)
        if not d.bound:
            return self.undefined(scope, d.name)
        return f"Undefined variable '{d.name}'.{not_yet(d.name, d.kind == 'function', f'line {d.span.line}')}"

    def call(self, scope: Scope, node: A.Call) -> None:
        callee = node.callee
        if not isinstance(callee, A.Name):
            return
        d, keywords = scope.find(callee.name), [k.name for k in node.kwargs]
        if d is not None:
            if d.signature is None:
                return
            found = check_function_call(callee.name, d.signature, len(node.args), keywords)
        elif callee.name in self.builtins:
            found = check_call(self.builtins[callee.name], len(node.args), keywords)
        else:
            return
        if found is not None:
            bad = next((k for k in node.kwargs if k.name == found.keyword), None)
            span = bad.span if bad is not None else callee.span
            self.out.problems.append(Problem(span, found.message, "TypeError"))

    def use(self, span: Span, d: Definition | None) -> None:
        self.out.uses.append(Use(span, d))


END = 1 << 62      # the last line of the document's top level: no line is after it


def _module(d: Definition | None) -> modules.ModuleInfo | None:
    return module_names(d.module) if d is not None and d.kind == "module" and d.module else None


def _record_shape(value: A.Node, shape: dict[str, dict]) -> None:
    """Add the fields a record literal (and the records nested in it) gives to `shape`."""
    todo = [(value, shape)]
    while todo:
        value, shape = todo.pop()
        if isinstance(value, A.RecordLit):
            todo.extend((v, shape.setdefault(f, {})) for f, v in value.fields)


def _parts(node: A.Node, skip: str = "") -> list[A.Node]:
    """A node's child nodes, in order (its lists and tuples of them flattened)."""
    out, todo = [], [getattr(node, f) for f in reversed(node._fields) if f not in ("span", skip)]
    while todo:
        value = todo.pop()
        if isinstance(value, A.Node):
            out.append(value)
        elif isinstance(value, (list, tuple)):
            todo.extend(reversed(value))
    return out


def _lines(node: A.Node) -> tuple[int, int]:
    """The first and last lines of a node's text."""
    lines, todo = [], [node]
    while todo:
        x = todo.pop()
        if type(x) is Span:
            lines.append(x.line)
        elif isinstance(x, (list, tuple)):
            todo.extend(x)
        elif isinstance(x, (A.Node, A.Param)):
            todo.extend(getattr(x, f) for f in x._fields)
    return min(lines), max(lines)


def _lambda_signature(value: A.Node) -> list[tuple[str, bool]] | None:
    """A lambda's parameters with whether each has a default (its last len(defaults) do)."""
    if not isinstance(value, A.Lambda):
        return None
    first_default = len(value.params) - len(value.defaults)
    return [(p, i >= first_default) for i, p in enumerate(value.params)]


def _param_text(p: A.Param) -> str:
    if p.default is None:
        return p.name
    if isinstance(p.default, (A.Number, A.Bool, A.NoneLit)):
        value = getattr(p.default, "value", None)
        return f"{p.name} = {format_value(value)}"
    if isinstance(p.default, A.String) and all(isinstance(x, str) for x in p.default.parts):
        return f"{p.name} = {format_value(''.join(p.default.parts), quote_strings=True)}"
    return f"{p.name} = ..."
