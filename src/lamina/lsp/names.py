"""A document's names, for the completion engine (completion.Names): read from its syntax
tree, not from running it. A function is shown with its parameters and the comment lines
just above it; a variable with the line that first assigns it; a variable assigned a
record literal (or given fields with `r.f = ...`) offers those fields after a dot, and a
record nested in one its own after `r.a.`; an
imported module offers its top-level names (read from its file) after a dot. Names are
those seen from the cursor: a function's locals inside it, its parameter over a global of
the same name, no other function's locals."""
from __future__ import annotations

from ..completion import Candidate, Names
from ..errors import Source
from .analysis import Analysis, Definition, Scope, module_names


class DocumentNames(Names):
    def __init__(self, analysis: Analysis | None, at: tuple[int, int] | None = None):
        """`at`: the cursor's (1-based) line and column; None: the top level."""
        self.analysis = analysis
        self.at = at
        self.scope: Scope | None = None
        if analysis is not None:
            self.scope = analysis.scope_at(at[0]) if at else analysis.top

    def visible(self) -> dict[str, Definition]:
        """The names seen from the cursor, an inner scope's over an outer one's."""
        out, scope = {}, self.scope
        while scope is not None:
            for name, d in scope.names.items():
                out.setdefault(name, d)
            scope = scope.parent
        return out

    def lookup(self, name: str) -> Definition | None:
        """What `name` means at the cursor: the use there, as go-to-definition finds it, if
        it is that name; else the name as the cursor's scope sees it."""
        use = self.analysis.use_at(*self.at) if self.analysis is not None and self.at else None
        if use is not None and use.span.text() == name:
            return use.definition
        return self.scope.find(name) if self.scope is not None else None

    def names(self) -> list[Candidate]:
        return [_candidate(d) for d in self.visible().values()]

    def members(self, path: list[str]) -> list[Candidate]:
        d, fields = self.walk(path)
        if d is not None and d.kind == "module":
            return [_candidate(m) for m in _module_members(d).values()]
        shape = _field(d, fields)
        return [] if shape is None else [Candidate(f, "field", f"field of {'.'.join(path)}") for f in shape]

    def walk(self, path: list[str]) -> tuple[Definition | None, list[str]]:
        """The definition of a dotted name's longest head that modules give (`h.cfg` of
        `h.cfg.a.b`), and the record fields after it (`["a", "b"]`)."""
        d, fields = self.lookup(path[0]), path[1:]
        while fields and d is not None and d.kind == "module":
            d, fields = _member(d, fields[0]), fields[1:]
        return d, fields

    def definition(self, path: list[str]) -> Definition | None:
        """The definition a dotted name stands for: `f`, or a module's member `h.f`."""
        d = self.lookup(path[0])
        for name in path[1:]:
            d = _member(d, name)
        return d

    def function(self, name: str, path: list[str] | None = None) -> Definition | None:
        d = self.definition([*(path or []), name])
        return d if d is not None and d.kind == "function" else None

    def describe(self, name: str) -> str | None:
        d = self.lookup(name)
        return None if d is None else _describe(d, self.analysis.source)

    def describe_member(self, path: list[str], name: str) -> str | None:
        d, fields = self.walk([*path, name])
        if d is None or not path:
            return None
        if not fields:
            return _describe(d, self.analysis.source)
        if _field(d, fields) is None:
            return None
        return f"```lamina\n{'.'.join([*path, name])}\n```\n\nfield of {'.'.join(path)}"


def _candidate(d: Definition) -> Candidate:
    if d.kind == "function":
        return Candidate(d.name, "function", f"{d.name}({', '.join(d.params)})")
    if d.kind == "module":
        return Candidate(d.name, "module", f"module {d.module}" if d.module else "module (not found)")
    return Candidate(d.name, "variable", d.kind)


def _field(d: Definition | None, fields: list[str]) -> dict[str, dict] | None:
    """The shape of a record variable's field `r.a.b` (fields ["a", "b"]); None: not known."""
    shape = None if d is None or d.kind == "module" else d.shape
    for name in fields:
        shape = None if shape is None else shape.get(name)
    return shape


def _module_members(d: Definition) -> dict[str, Definition]:
    return module_names(d.module).names if d.kind == "module" and d.module else {}


def _member(d: Definition | None, name: str) -> Definition | None:
    return None if d is None else _module_members(d).get(name)


def _describe(d: Definition, document: Source) -> str:
    """A definition's hover text, read from the file that defines it (the document or a module)."""
    source = d.span.source
    if d.kind == "function":
        text = f"```lamina\nfunction {d.name}({', '.join(d.params)})\n```"
        notes = _comments(source, d.span.line - 1, -1) or _comments(source, d.span.line + 1, 1)
        return text + (f"\n\n{notes}" if notes else "")
    if d.kind == "module":
        text = f"```lamina\n{source.line(d.span.line).strip()}\n```\n\n"
        if d.module is None:
            return text + "module, not found"
        info = module_names(d.module)
        notes = _comments(info.source, 1, 1) if info.source is not None else ""
        return text + f"module {d.module}" + (f"\n\n{notes}" if notes else "")
    where = f"line {d.span.line}" + ("" if source is document else f" of {source.name}")
    return f"```lamina\n{source.line(d.span.line).strip()}\n```\n\n{d.kind}, {where}"


def _comments(source: Source, line: int, step: int) -> str:
    """The run of `#` comment lines from `line` going up (step -1) or down (+1)."""
    out = []
    k = line
    while k >= 1 and source.line(k).lstrip().startswith("#"):
        out.append(source.line(k).lstrip()[1:].strip())
        k += step
    return "\n".join(reversed(out) if step < 0 else out)
