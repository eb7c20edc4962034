"""A document's names, for the completion engine (completion.Names): read from its syntax
tree, not from running it. A function is shown with its parameters and the comment lines
just above it; a variable with the line that first assigns it; a variable assigned a
record literal (or given fields with `r.f = ...`) offers those fields after a dot."""
from __future__ import annotations

from ..completion import Candidate, Names
from .analysis import Analysis, Definition


class DocumentNames(Names):
    def __init__(self, analysis: Analysis | None):
        self.analysis = analysis
        self.by_name: dict[str, Definition] = {}
        for d in analysis.definitions if analysis else []:
            # the top-level definition wins over a local one of the same name
            if d.name not in self.by_name or (d.top and not self.by_name[d.name].top):
                self.by_name[d.name] = d

    def names(self) -> list[Candidate]:
        return [Candidate(d.name, "function" if d.kind == "function" else "variable",
                          f"{d.name}({', '.join(d.params)})" if d.kind == "function" else d.kind)
                for d in self.by_name.values()]

    def members(self, path: list[str]) -> list[Candidate]:
        d = self.by_name.get(path[0])
        if d is None or len(path) != 1:
            return []
        return [Candidate(f, "field", f"field of {d.name}") for f in d.fields]

    def function(self, name: str) -> Definition | None:
        d = self.by_name.get(name)
        return d if d is not None and d.kind == "function" else None

    def describe(self, name: str) -> str | None:
        d = self.by_name.get(name)
        if d is None:
            return None
        source = self.analysis.source
        if d.kind == "function":
            text = f"```lamina\nfunction {d.name}({', '.join(d.params)})\n```"
            notes = _comments_above(source, d.span.line)
            return text + (f"\n\n{notes}" if notes else "")
        return f"```lamina\n{source.line(d.span.line).strip()}\n```\n\n{d.kind}, line {d.span.line}"


def _comments_above(source, line: int) -> str:
    out = []
    k = line - 1
    while k >= 1 and source.line(k).lstrip().startswith("#"):
        out.append(source.line(k).lstrip()[1:].strip())
        k -= 1
    return "\n".join(reversed(out))
