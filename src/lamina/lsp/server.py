"""`lamina lsp`: the language server, over stdio, on pygls.

Each open document is analysed (analysis.py) when it opens and after every change, and
its problems are published as diagnostics (an empty list once they are fixed). Hover,
completion and signature help share the engine of the REPL and the kernel
(completion.py), fed with the document's own names; go-to-definition and the outline
come from the analysis. Go-to-definition of an imported module opens its file, and of a
module's member (`h.fit`) its definition there. While a document does not parse, the names of its last version
that did are used, so completion keeps working as a line is typed.
"""
from __future__ import annotations

import pathlib
from importlib.metadata import PackageNotFoundError, version

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.workspace import ServerTextPosition

from ..builtins.registry import load_all
from ..completion import call_at, complete, inspect, shape_parameters
from .analysis import Analysis, analyse
from .names import DocumentNames

try:
    VERSION = version("lamina")
except PackageNotFoundError:
    VERSION = "unknown"

KINDS = {"builtin": lsp.CompletionItemKind.Function, "function": lsp.CompletionItemKind.Function,
         "variable": lsp.CompletionItemKind.Variable, "field": lsp.CompletionItemKind.Field,
         "keyword": lsp.CompletionItemKind.Keyword, "module": lsp.CompletionItemKind.Module}
SYMBOL_KINDS = {"function": lsp.SymbolKind.Function, "module": lsp.SymbolKind.Module}


class LaminaServer(LanguageServer):
    def __init__(self):
        super().__init__("lamina-lsp", VERSION)
        self.latest: dict[str, Analysis] = {}     # uri -> the analysis of its current text
        self.parsed: dict[str, Analysis] = {}     # uri -> that of its last text that parsed

    def refresh(self, uri: str) -> None:
        doc = self.workspace.get_text_document(uri)
        found = analyse(doc.source, doc.path or uri)
        self.latest[uri] = found
        if found.parsed:
            self.parsed[uri] = found
        self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(
            uri=uri, version=doc.version, diagnostics=[
                lsp.Diagnostic(range=self.span_range(uri, p.span), message=p.message, source="lamina",
                               severity=lsp.DiagnosticSeverity.Error, code=p.kind)
                for p in found.problems]))

    def names(self, uri: str) -> DocumentNames:
        return DocumentNames(self.parsed.get(uri) or self.latest.get(uri))

    def span_range(self, uri: str, span) -> lsp.Range:
        doc = self.workspace.get_text_document(uri)
        start = ServerTextPosition(span.line - 1, span.col - 1)
        end = ServerTextPosition(span.line - 1, span.col - 1 + span.length)
        return lsp.Range(doc.position_to_client_units(start), doc.position_to_client_units(end))

    def offset(self, uri: str, position: lsp.Position) -> int:
        return self.workspace.get_text_document(uri).offset_at_position(position)


server = LaminaServer()


@server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: LaminaServer, params: lsp.DidOpenTextDocumentParams):
    ls.refresh(params.text_document.uri)


@server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: LaminaServer, params: lsp.DidChangeTextDocumentParams):
    ls.refresh(params.text_document.uri)


@server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: LaminaServer, params: lsp.DidCloseTextDocumentParams):
    uri = params.text_document.uri
    ls.latest.pop(uri, None)
    ls.parsed.pop(uri, None)
    ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


@server.feature(lsp.TEXT_DOCUMENT_HOVER)
def hover(ls: LaminaServer, params: lsp.HoverParams):
    uri = params.text_document.uri
    text = ls.workspace.get_text_document(uri).source
    found = inspect(text, ls.offset(uri, params.position), ls.names(uri))
    if found is None:
        return None
    return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=found.text))


@server.feature(lsp.TEXT_DOCUMENT_COMPLETION, lsp.CompletionOptions(trigger_characters=["."]))
def completion(ls: LaminaServer, params: lsp.CompletionParams):
    uri = params.text_document.uri
    text = ls.workspace.get_text_document(uri).source
    found = complete(text, ls.offset(uri, params.position), ls.names(uri))
    return lsp.CompletionList(is_incomplete=False, items=[
        lsp.CompletionItem(label=c.text, kind=KINDS[c.kind], detail=c.detail or None)
        for c in found.candidates])


@server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
def definition(ls: LaminaServer, params: lsp.DefinitionParams):
    uri = params.text_document.uri
    found = ls.parsed.get(uri)
    if found is None:
        return None
    doc = ls.workspace.get_text_document(uri)
    at = doc.position_from_client_units(params.position)
    d = found.definition_at(at.line + 1, at.character + 1)
    if d is None:
        return None
    if d.kind == "module":
        if d.module is None:
            return None
        return lsp.Location(uri=_file_uri(d.module), range=lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0)))
    if d.span.source is not found.source:          # a module's member, in the module's file
        return lsp.Location(uri=_file_uri(d.span.source.name), range=_file_range(d.span))
    return lsp.Location(uri=uri, range=ls.span_range(uri, d.span))


def _file_uri(path: str) -> str:
    return pathlib.Path(path).resolve().as_uri()


def _file_range(span) -> lsp.Range:
    """A span of a file that need not be open, in UTF-16 code units as LSP counts them."""
    line = span.source.line(span.line)

    def units(col: int) -> int:
        return len(line[:col - 1].encode("utf-16-le")) // 2
    return lsp.Range(lsp.Position(span.line - 1, units(span.col)),
                     lsp.Position(span.line - 1, units(span.col + span.length)))


@server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
def symbols(ls: LaminaServer, params: lsp.DocumentSymbolParams):
    uri = params.text_document.uri
    found = ls.parsed.get(uri)
    if found is None:
        return []
    out = []
    for d in found.symbols:
        where = ls.span_range(uri, d.span)
        is_function = d.kind == "function"
        out.append(lsp.DocumentSymbol(
            name=d.name, detail=f"({', '.join(d.params)})" if is_function else None,
            kind=SYMBOL_KINDS.get(d.kind, lsp.SymbolKind.Variable), range=where, selection_range=where))
    return out


@server.feature(lsp.TEXT_DOCUMENT_SIGNATURE_HELP,
                lsp.SignatureHelpOptions(trigger_characters=["(", ","], retrigger_characters=[" "]))
def signature_help(ls: LaminaServer, params: lsp.SignatureHelpParams):
    uri = params.text_document.uri
    text = ls.workspace.get_text_document(uri).source
    call = call_at(text, ls.offset(uri, params.position))
    if call is None:
        return None
    own = ls.names(uri).function(call.callee, call.path)
    if own is not None:
        shapes = [(f"{call.callee}({', '.join(own.params)})", None)]
    elif call.callee in load_all():
        shapes = [(s.code, s.description) for s in load_all()[call.callee].shapes]
    else:
        return None
    params = [[p.split("=")[0].strip() for p in shape_parameters(code)] for code, _ in shapes]

    def fits(names: list[str]) -> bool:
        return call.keyword in names if call.keyword else len(names) > call.arg_index
    active = next((i for i, names in enumerate(params) if fits(names)), 0)
    chosen = params[active]
    index = chosen.index(call.keyword) if call.keyword in chosen else call.arg_index
    return lsp.SignatureHelp(
        signatures=[lsp.SignatureInformation(label=code, documentation=doc, parameters=[
            lsp.ParameterInformation(label=p) for p in shape_parameters(code)]) for code, doc in shapes],
        active_signature=active, active_parameter=min(index, max(len(chosen) - 1, 0)))


def main() -> int:
    server.start_io()
    return 0
