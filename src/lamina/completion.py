"""Completion and inspection: one engine for the REPL, the Jupyter kernel and the language server.

Given the text of a cell or document and a cursor offset, `complete` says which word is being
typed and what may finish it: builtins (with their call shapes), variables and functions,
the members of a value (`r.` lists a record's fields, a table's columns, a model's fields,
a module's functions and variables) and keywords. `inspect` gives the page of the builtin under the cursor (or of the call the
cursor is in), or a line about a variable. `call_at` says which call and which argument the
cursor is in (signature help).

What a program defines comes from a `Names`: `LiveNames` reads an Interpreter's variables
(REPL, kernel); the language server gives its own, read from the syntax tree. A kind of
value with members answers in `members_of` (a module is a LibObject whose fields are its
names); the keywords are the lexer's.
"""
from __future__ import annotations

import inspect as pyinspect
import re
from dataclasses import dataclass, field

from .builtins.registry import load_all
from .errors import LaminaError
from .lang.lexer import CONTEXTUAL_WORDS, KEYWORDS
from .lang.scope import CONSTANTS, MANGLE, unmangle
from .printing import format_value
from .values import LibObject, Record, describe

WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
WORD_END = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")
# `a.b.` before the word (on one line: a newline after `.` ends the statement)
DOTTED_END = re.compile(r"((?:[A-Za-z_][A-Za-z0-9_]*[ \t]*\.[ \t]*)+)$")
ALL_KEYWORDS = sorted(KEYWORDS | set(CONTEXTUAL_WORDS))
VALUE_PREVIEW = 400    # characters of a variable's value shown by inspect


@dataclass(frozen=True)
class Candidate:
    text: str
    kind: str          # "builtin", "function", "variable", "field", "module" or "keyword"
    detail: str = ""   # a builtin's call shapes; a function's parameters; a variable's kind


@dataclass(frozen=True)
class Completions:
    start: int         # the word being typed runs from start to end (the cursor)
    end: int
    candidates: list[Candidate]

    @property
    def matches(self) -> list[str]:
        return [c.text for c in self.candidates]


@dataclass(frozen=True)
class Inspection:
    name: str
    text: str
    markdown: bool     # a builtin's page is Markdown; a line about a variable is plain text


@dataclass(frozen=True)
class CallSite:
    callee: str        # the called name (`sum`, or `m.predict` for a method call: `predict`)
    arg_index: int     # which positional argument the cursor is in, from 0
    keyword: str | None  # the keyword argument being written (`axis = |`), if any
    open_at: int       # offset of the call's `(`
    path: list[str] = field(default_factory=list)   # the dotted names before the callee: `h.f(` -> ["h"]


class Names:
    """What a program defines, as completion sees it. The base knows no program."""

    def names(self) -> list[Candidate]:
        return []

    def members(self, path: list[str]) -> list[Candidate]:
        return []

    def describe(self, name: str) -> str | None:
        return None

    def describe_member(self, path: list[str], name: str) -> str | None:
        """What `a.b.name` is (hover on a member), if the program knows."""
        return None


class LiveNames(Names):
    """The variables of a running Interpreter (the REPL, a notebook kernel)."""

    def __init__(self, interpreter):
        self.namespace = interpreter.namespace

    def variables(self) -> dict:
        return {unmangle(k): v for k, v in self.namespace.items() if k.startswith(MANGLE)}

    def names(self) -> list[Candidate]:
        return [_live_candidate(name, v, "variable") for name, v in self.variables().items()]

    def value(self, path: list[str]):
        value = self.variables().get(path[0], MISSING)
        for name in path[1:]:
            value = member(value, name)
        return value

    def members(self, path: list[str]) -> list[Candidate]:
        return [_live_candidate(name, v, "field") for name, v in members_of(self.value(path)).items()]

    def describe(self, name: str) -> str | None:
        value = self.variables().get(name, MISSING)
        return None if value is MISSING else _describe_value(name, value)

    def describe_member(self, path: list[str], name: str) -> str | None:
        value = member(self.value(path), name)
        return None if value is MISSING else _describe_value(".".join(path + [name]), value)


def _live_candidate(name: str, value, kind: str) -> Candidate:
    """A variable (or a member: kind "field") as completion offers it: functions with their
    parameters, modules as modules."""
    if _is_function(value) and not hasattr(value, "__lamina_builtin__"):
        return Candidate(name, "function", f"{name}{_signature(value)}")
    if getattr(value, "type_name", None) == "module":
        return Candidate(name, "module", value.describe())
    return Candidate(name, "function" if _is_function(value) else kind, _kind(value))


def _describe_value(name: str, value) -> str:
    if _is_function(value) and not hasattr(value, "__lamina_builtin__"):
        return f"function {name}{_signature(value)}"
    text = format_value(value, quote_strings=True)
    if len(text) > VALUE_PREVIEW:
        text = text[:VALUE_PREVIEW] + " ..."
    return f"{name}: {describe(value)}\n{text}"


MISSING = object()    # what a name the program does not define holds


def members_of(value) -> dict:
    """The members a value shows after a dot: a record's fields, a library value's fields (a
    table's columns, a model's weights ...). Values of a new kind with members go here."""
    if isinstance(value, Record):
        return dict(value.fields)
    if isinstance(value, LibObject):
        out = {}
        for name in value.field_names():
            try:
                out[name] = value.get(name)
            except LaminaError:
                out[name] = None
        return out
    return {}


def member(value, name: str):
    return members_of(value).get(name, MISSING)


def _is_function(v) -> bool:
    return callable(v) and not isinstance(v, (LibObject, type))


def _kind(v) -> str:
    if v is MISSING:
        return ""
    if _is_function(v):
        return "function"
    return describe(v)


def _signature(fn) -> str:
    try:
        sig = pyinspect.signature(fn)
    except (TypeError, ValueError):
        return "(...)"
    parts = []
    for p in sig.parameters.values():
        text = unmangle(p.name)
        if p.default is not p.empty:
            text += f" = {format_value(p.default, quote_strings=True)}"
        parts.append(text)
    return "(" + ", ".join(parts) + ")"


# -- builtins ------------------------------------------------------------------------
def builtin_candidates() -> list[Candidate]:
    return ([Candidate(name, "builtin", "; ".join(s.code for s in spec.shapes))
             for name, spec in load_all().items()]
            + [Candidate(name, "builtin", f"constant {format_value(v)}") for name, v in CONSTANTS.items()])


def builtin_page(name: str) -> str | None:
    """The builtin's documentation page (Markdown, its examples not run: so quick, and the
    running program's tape and figure stay as they are), or None for no builtin of that name."""
    if name not in load_all():
        return None
    from .docs.help import help_text
    return help_text(name, run=False)


def shape_parameters(code: str) -> list[str]:
    """The parameters of a call shape's code: `sum(x, axis = 0)` -> ["x", "axis = 0"]."""
    inner = code[code.find("(") + 1:code.rfind(")")] if "(" in code else ""
    out, depth, current = [], 0, []
    for ch in inner:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(current).strip())
            current = []
        else:
            current.append(ch)
    if "".join(current).strip():
        out.append("".join(current).strip())
    return out


# -- where the cursor is -------------------------------------------------------------
@dataclass
class _Open:
    char: str          # "(", "[", "{", or '"' for a string, or "interp" for `{` inside a string
    at: int
    commas: int = 0
    keyword_at: int = -1   # offset of the last `=` at this level (a keyword argument)


@dataclass
class _Scan:
    in_comment: bool = False
    stack: list = field(default_factory=list)

    @property
    def in_string(self) -> bool:
        return bool(self.stack) and self.stack[-1].char == '"'


def scan(text: str) -> _Scan:
    """Where the end of `text` stands: in a comment, in a string, inside which brackets
    (each with its commas so far). Strings end at the end of their line, as in the lexer."""
    state = _Scan()
    stack = state.stack
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if stack and stack[-1].char == '"':
            if ch == "\\":
                i += 2
                continue
            if ch == "\n":
                stack.pop()
            elif ch == '"':
                stack.pop()
            elif ch == "{" and text[i + 1:i + 2] == "{":
                i += 1
            elif ch == "{":
                stack.append(_Open("interp", i))
            i += 1
            continue
        if ch == "#":
            end = text.find("\n", i)
            if end < 0:
                state.in_comment = True
                return state
            i = end
            continue
        if ch == '"':
            stack.append(_Open('"', i))
        elif ch in "([{":
            stack.append(_Open(ch, i))
        elif ch in ")]}":
            if stack:
                stack.pop()
        elif ch == "," and stack:
            stack[-1].commas += 1
            stack[-1].keyword_at = -1
        elif ch == "=" and stack and text[i + 1:i + 2] != "=" and text[i - 1:i] not in ("=", "!", "<", ">"):
            stack[-1].keyword_at = i
        i += 1
    return state


def word_before(text: str, cursor: int) -> tuple[int, list[str]] | None:
    """(start of the word that ends at the cursor, the dotted path before it): `r.a.x|` ->
    (offset of x, ["r", "a"]); None in a number (`2.5e1|`)."""
    head = text[:cursor]
    m = WORD_END.search(head)
    start = m.start() if m else cursor
    if head[start - 1:start].isdigit() or (not m and head[-1:].isdigit()):
        return None
    before = head[:start]
    dotted = DOTTED_END.search(before)
    path = []
    if dotted and before.rstrip(" \t").endswith("."):
        path = [p.strip() for p in dotted.group(1).split(".") if p.strip()]
    return start, path


def complete(text: str, cursor: int, names: Names | None = None) -> Completions:
    names = names or Names()
    state = scan(text[:cursor])
    word = word_before(text, cursor)
    if state.in_comment or state.in_string or word is None:
        return Completions(cursor, cursor, [])
    start, path = word
    prefix = text[start:cursor]
    if path:
        found = names.members(path)
    else:
        found = names.names()
        known = {c.text for c in found}
        found += [c for c in builtin_candidates() if c.text not in known]
        found += [Candidate(k, "keyword") for k in ALL_KEYWORDS]
    seen, out = set(), []
    for c in sorted(found, key=lambda c: c.text):
        if c.text.startswith(prefix) and c.text not in seen:
            seen.add(c.text)
            out.append(c)
    return Completions(start, cursor, out)


def word_at(text: str, cursor: int) -> tuple[int, int] | None:
    """The span of the identifier the cursor is in or just after."""
    for m in WORD.finditer(text, max(0, text.rfind("\n", 0, cursor) + 1)):
        if m.start() > cursor:
            break
        if m.start() <= cursor <= m.end():
            return m.start(), m.end()
    return None


def call_at(text: str, cursor: int) -> CallSite | None:
    """The innermost call whose parentheses hold the cursor."""
    state = scan(text[:cursor])
    if state.in_comment:
        return None
    for opened in reversed(state.stack):
        if opened.char != "(":
            continue
        callee = WORD_END.search(text[:opened.at].rstrip())
        if callee is None or callee.group() in KEYWORDS:
            return None
        keyword = None
        if opened.keyword_at >= 0:
            m = WORD_END.search(text[:opened.keyword_at].rstrip())
            keyword = m.group() if m else None
        path = word_before(text, callee.end())
        return CallSite(callee.group(), opened.commas, keyword, opened.at, path[1] if path else [])
    return None


def inspect(text: str, cursor: int, names: Names | None = None) -> Inspection | None:
    """What shift-tab or hover shows: the page of the builtin under the cursor (or of the call
    the cursor is in), or a line about a variable; nothing in a comment or a string, where a
    word is only text."""
    names = names or Names()
    state = scan(text[:cursor])
    if state.in_comment or state.in_string:
        return None
    candidates = []
    span = word_at(text, cursor)
    if span is not None:
        found = word_before(text, span[1])
        candidates.append((text[span[0]:span[1]], found[1] if found else []))
    call = call_at(text, cursor)
    if call is not None:
        candidates.append((call.callee, call.path))
    for name, path in candidates:
        own = names.describe_member(path, name) if path else names.describe(name)
        if own is not None:
            return Inspection(name, own, False)
        page = builtin_page(name)
        if page is not None:
            return Inspection(name, page, True)
    return None
