"""`lamina lsp`: the language server, over stdio, on pygls.

Each open document is analysed (analysis.py) when it opens and once its changes settle
(SETTLE_S after the last, so a burst of keystrokes costs one analysis, not one each: a
40,000-line file takes seconds), and its problems are published as diagnostics (an empty
list once they are fixed). A request that needs the names analyses a pending change first. Hover,
completion and signature help share the engine of the REPL and the kernel
(completion.py), fed with the document's own names; go-to-definition and the outline
come from the analysis. Go-to-definition of an imported module opens its file, and of a
module's member (`h.fit`) its definition there. While a document does not parse, the names of its last version
that did are used, so completion keeps working as a line is typed; one that has not parsed
since it opened gives those of the statements that parse. Lines and columns are
counted as the protocol counts them (text.py). A request on a document that is neither open
nor a file gets no answer (null, or nothing found).
"""
from __future__ import annotations

import asyncio
import pathlib
from importlib.metadata import PackageNotFoundError, version

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer

from ..builtins.registry import load_all
from ..completion import call_at, complete, inspect, shape_parameters
from .analysis import Analysis, analyse
from .jsonrpc import Protocol
from .names import DocumentNames
from .text import Text

try:
    VERSION = version("lamina")
except PackageNotFoundError:
    VERSION = "unknown"

KINDS = {"builtin": lsp.CompletionItemKind.Function, "function": lsp.CompletionItemKind.Function,
         "variable": lsp.CompletionItemKind.Variable, "field": lsp.CompletionItemKind.Field,
         "keyword": lsp.CompletionItemKind.Keyword, "module": lsp.CompletionItemKind.Module}
SYMBOL_KINDS = {"function": lsp.SymbolKind.Function, "module": lsp.SymbolKind.Module}
SEVERITY = {"Warning": lsp.DiagnosticSeverity.Warning}     # every other problem is an error the run would raise
SETTLE_S = 0.15


class LaminaServer(LanguageServer):
    def __init__(self):
        # Whole texts: pygls applies an incremental change at lines it splits with
        # str.splitlines, which are not the protocol's (text.py).
        super().__init__("lamina-lsp", VERSION, text_document_sync_kind=lsp.TextDocumentSyncKind.Full,
                         protocol_cls=Protocol)
        self.latest: dict[str, Analysis] = {}     # uri -> the analysis of its current text
        self.parsed: dict[str, Analysis] = {}     # uri -> that of its last text that parsed
        self.pending: dict[str, asyncio.TimerHandle] = {}   # uri -> its analysis to come

    def report_server_error(self, error: Exception, source) -> None:
        """Text that is not JSON gets a parse error (jsonrpc.py); other errors as pygls reports them."""
        if not self.protocol.answer_unreadable(error):
            super().report_server_error(error, source)

    def text(self, uri: str) -> Text | None:
        """The document's text: the open one's, else its file's; None when there is neither."""
        try:
            raw = self.workspace.get_text_document(uri).source
        except (OSError, ValueError):
            return None
        return Text(raw, self.workspace.position_codec)

    def refresh_soon(self, uri: str) -> None:
        self.cancel(uri)
        self.pending[uri] = asyncio.get_running_loop().call_later(SETTLE_S, self.refresh, uri)

    def cancel(self, uri: str) -> None:
        handle = self.pending.pop(uri, None)
        if handle is not None:
            handle.cancel()

    def settled(self, uri: str) -> None:
        """The analysis of the current text, now, if a change is waiting for one."""
        if uri in self.pending:
            self.refresh(uri)

    def refresh(self, uri: str) -> None:
        self.cancel(uri)
        doc = self.workspace.get_text_document(uri)
        text = Text(doc.source, self.workspace.position_codec)
        found = analyse(text.text, doc.path or uri)
        self.latest[uri] = found
        if found.parsed:
            self.parsed[uri] = found
        self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(
            uri=uri, version=doc.version, diagnostics=[
                lsp.Diagnostic(range=text.range(p.span), message=p.message, source="lamina",
                               severity=SEVERITY.get(p.kind, lsp.DiagnosticSeverity.Error), code=p.kind)
                for p in found.problems]))

    def names(self, uri: str, at: tuple[int, int] | None = None) -> DocumentNames:
        """The document's names as seen from `at` (see DocumentNames)."""
        self.settled(uri)
        return DocumentNames(self.parsed.get(uri) or self.latest.get(uri), at)


server = LaminaServer()


@server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: LaminaServer, params: lsp.DidOpenTextDocumentParams):
    ls.refresh(params.text_document.uri)


@server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: LaminaServer, params: lsp.DidChangeTextDocumentParams):
    ls.refresh_soon(params.text_document.uri)


@server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: LaminaServer, params: lsp.DidCloseTextDocumentParams):
    uri = params.text_document.uri
    ls.cancel(uri)
    ls.latest.pop(uri, None)
    ls.parsed.pop(uri, None)
    ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


@server.feature(lsp.TEXT_DOCUMENT_HOVER)
def hover(ls: LaminaServer, params: lsp.HoverParams):
    uri = params.text_document.uri
    text = ls.text(uri)
    if text is None:
        return None
    found = inspect(text.text, text.offset(params.position), ls.names(uri, text.at(params.position)))
    if found is None:
        return None
    return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=found.text))


@server.feature(lsp.TEXT_DOCUMENT_COMPLETION, lsp.CompletionOptions(trigger_characters=["."]))
def completion(ls: LaminaServer, params: lsp.CompletionParams):
    uri = params.text_document.uri
    text = ls.text(uri)
    if text is None:
        return lsp.CompletionList(is_incomplete=False, items=[])
    found = complete(text.text, text.offset(params.position), ls.names(uri, text.at(params.position)))
    return lsp.CompletionList(is_incomplete=False, items=[
        lsp.CompletionItem(label=c.text, kind=KINDS[c.kind], detail=c.detail or None)
        for c in found.candidates])


@server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
def definition(ls: LaminaServer, params: lsp.DefinitionParams):
    uri = params.text_document.uri
    ls.settled(uri)
    found, text = ls.parsed.get(uri) or ls.latest.get(uri), ls.text(uri)
    if found is None or text is None:
        return None
    d = found.definition_at(*text.at(params.position))
    if d is None:
        return None
    if d.kind == "module":
        if d.module is None:
            return None
        return lsp.Location(uri=_file_uri(d.module), range=lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0)))
    if d.span.source is not found.source:          # a module's member, in the module's file
        module = Text(d.span.source.text, ls.workspace.position_codec)
        return lsp.Location(uri=_file_uri(d.span.source.name), range=module.range(d.span))
    return lsp.Location(uri=uri, range=text.range(d.span))


def _file_uri(path: str) -> str:
    return pathlib.Path(path).resolve().as_uri()


@server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
def symbols(ls: LaminaServer, params: lsp.DocumentSymbolParams):
    uri = params.text_document.uri
    ls.settled(uri)
    found, text = ls.parsed.get(uri) or ls.latest.get(uri), ls.text(uri)
    if found is None or text is None:
        return []
    out = []
    for d in found.symbols:
        where = text.range(d.span)
        is_function = d.kind == "function"
        out.append(lsp.DocumentSymbol(
            name=d.name, detail=f"({', '.join(d.params)})" if is_function else None,
            kind=SYMBOL_KINDS.get(d.kind, lsp.SymbolKind.Variable), range=where, selection_range=where))
    return out


@server.feature(lsp.TEXT_DOCUMENT_SIGNATURE_HELP,
                lsp.SignatureHelpOptions(trigger_characters=["(", ","], retrigger_characters=[" "]))
def signature_help(ls: LaminaServer, params: lsp.SignatureHelpParams):
    uri = params.text_document.uri
    text = ls.text(uri)
    if text is None:
        return None
    call = call_at(text.text, text.offset(params.position))
    if call is None:
        return None
    own = ls.names(uri, text.at(params.position)).function(call.callee, call.path)
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
