"""Lamina errors: where they happened (Span) and how they read (render).

Phases and builtins raise `LaminaError(kind, message)`. A builtin does not know
where it was called from; the runner attaches the span of the failing call and
the Lamina call stack before the command line renders the error.
"""
from __future__ import annotations

# At start-up, not on the first error: an error under a memory limit (`ulimit -v`) cannot
# map a module's file.
import unicodedata

from .fields import Fields, Frozen

KINDS = (
    "SyntaxError", "NameError", "TypeError", "ShapeError", "IndexError",
    "ValueError", "TapeError", "RecursionError", "ImportError", "PermissionError", "Error",
    "InternalError",
)


class Source(Frozen):
    """A program's text and the name it is reported under (a file path or <repl>)."""

    def __init__(self, name: str, text: str):
        self.name, self.text = name, text

    def lines(self) -> list[str]:
        """The lines as the lexer counts them: split at "\n" only (str.splitlines would also
        split at a form feed, U+2028 and other separators, and show the wrong line)."""
        lines = self.text.split("\n")
        if lines[-1] == "":
            lines.pop()
        return [line[:-1] if line.endswith("\r") else line for line in lines]

    def line(self, lineno: int) -> str:
        lines = self.lines()
        return lines[lineno - 1] if 0 < lineno <= len(lines) else ""


class Span(Frozen):
    __slots__ = ("source", "line", "col", "length")

    def __init__(self, source: Source, line: int, col: int, length: int = 1):
        # One per token: set directly, past Frozen's check.
        set_field = object.__setattr__
        set_field(self, "source", source)
        set_field(self, "line", line)           # 1-based
        set_field(self, "col", col)             # 1-based
        set_field(self, "length", length)

    def where(self) -> str:
        return f"{self.source.name}:{self.line}:{self.col}"

    def text(self) -> str:
        line = self.source.line(self.line)
        return line[self.col - 1:self.col - 1 + self.length]


class Frame(Frozen):
    """One Lamina call on the stack: the function and where its call stands."""

    def __init__(self, function: str, span: Span):
        self.function, self.span = function, span


class LaminaError(Fields, Exception):
    def __init__(self, kind: str, message: str, span: Span | None = None, stack: list[Frame] | None = None,
                 note: str | None = None, incomplete: bool = False, located: bool = False):
        self.kind, self.message, self.span = kind, message, span
        self.stack = [] if stack is None else stack
        self.note = note
        self.incomplete = incomplete    # the text ended too early: a REPL reads another line
        self.located = located          # span and stack are final (an error caught, then raised again)
        assert self.kind in KINDS, self.kind
        Exception.__init__(self, f"{self.kind}: {self.message}")

    def __str__(self) -> str:
        return f"{self.kind}: {self.message}"

    def __reduce__(self):
        # Exception pickles its args (one string); a worker's error travels back whole.
        return (type(self), (self.kind, self.message, self.span, self.stack, self.note,
                             self.incomplete, self.located))

    def render(self) -> str:
        """The full report: kind, message, file:line:col, the line, a caret, the call stack."""
        out = [f"{self.kind}: {self.message}"]
        if self.span is not None:
            out.append(f"  --> {self.span.where()}")
            out.extend(_excerpt(self.span))
        if self.note:
            out.append(f"  note: {self.note}")
        if self.stack:
            out.append("Call stack (most recent call last):")
            for frame in self.stack:
                out.append(f"  {frame.function}, called at {frame.span.where()}")
        return "\n".join(out)


class ProgramExit(BaseException):
    """`exit(code)`: ends the program with that status. A BaseException, so `catch` does not
    stop it while `finally` blocks still run; the command line turns it into the exit status."""

    def __init__(self, code: int):
        super().__init__(code)
        self.code = code


def _excerpt(span: Span) -> list[str]:
    line = span.source.line(span.line)
    if not line and span.line > len(span.source.lines()):
        return []
    gutter = str(span.line)
    pad = " " * len(gutter)
    start = span.col - 1
    caret = _under(line[:start]) + "^" * max(1, sum(map(_columns, line[start:start + span.length])))
    return [f"  {pad} |", f"  {gutter} | {line}", f"  {pad} | {caret}"]


def _under(prefix: str) -> str:
    """Blank space as wide as `prefix` on a terminal: its tabs kept (they reach the same tab
    stop under the line), a wide East Asian character two columns."""
    return "".join("\t" if c == "\t" else " " * _columns(c) for c in prefix)


def _columns(c: str) -> int:
    if unicodedata.combining(c):
        return 0
    return 2 if unicodedata.east_asian_width(c) in "WF" else 1


def display_width(text: str) -> int:
    """Columns `text` takes on a terminal: a wide East Asian character two, a combining mark none."""
    return len(text) if text.isascii() else sum(map(_columns, text))


def shape_str(shape: tuple) -> str:
    """Shapes in messages: `2x3` for a matrix, `vector of length 3`, `scalar`."""
    if len(shape) == 0:
        return "scalar"
    if len(shape) == 1:
        return f"vector of length {shape[0]}"
    return "x".join(str(n) for n in shape)


def describe_shape(shape: tuple) -> str:
    """A shape as messages name a value of it: `a number`, `a vector of length 3`, `a 2x3 matrix`."""
    if len(shape) == 0:
        return "a number"
    if len(shape) == 1:
        return f"a {shape_str(shape)}"
    return f"a {shape_str(shape)} {'matrix' if len(shape) == 2 else 'array'}"
