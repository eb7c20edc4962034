"""Source text -> tokens.

Newlines end statements, except inside ( ) [ ] { } and after a token that
cannot end an expression (a binary operator, `,`, `|>`, `=`, `->`, `not`), where
the next line continues the statement. A string literal is one token whose
`value` is a list of parts: plain text, or (expression source, column, format spec or None)
for a `{expr}` or `{expr:spec}` interpolation that the parser parses in place.
"""
from __future__ import annotations

import re
import unicodedata

from ..errors import LaminaError, Source, Span
from ..fields import Fields

KEYWORDS = {
    "function", "return", "end", "for", "while", "if", "elseif",
    "else", "break", "continue", "and", "or", "not", "true", "false", "none",
    "try", "catch", "finally", "import",
}
# Words only in one place, so they stay usable as names: `to`, `step` and `in` inside a for
# header, `as` after an import.
FOR_WORDS = ("to", "step", "in")
IMPORT_WORDS = ("as",)
CONTEXTUAL_WORDS = FOR_WORDS + IMPORT_WORDS

# Longest first, so that `.^` wins over `.` and `|>` over `|`.
OPERATORS = sorted([
    "|>", "->", "==", "!=", "<=", ">=", ".*", "./", ".^", "+=", "-=", "*=", "/=",
    "+", "-", "*", "/", "%", "\\", "^", "@", "<", ">", "=", "(", ")", "[", "]", "{", "}",
    ",", ";", ":", ".", "'",
], key=len, reverse=True)

OPERATOR = re.compile("|".join(re.escape(op) for op in OPERATORS))
# Digits with an optional fraction and exponent; a '.' followed by * / ^ or ' is the start of an
# elementwise operator (`1.*x`), not a decimal point.
NUMBER = re.compile(r"(?:\d+(?:\.(?![*/^'])\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
# In a bracket literal, a run of plain numbers each followed by a comma (`1.5, -2, 3e4, `) is
# one NUMBERS token: a literal of a million numbers then costs one regex pass, not a million
# trips through the lexer and the parser's precedence levels. The repetition is possessive
# (`++`): a plain `+` keeps a backtracking point per number, 1 GB for a million of them.
NUMBER_RUN = re.compile(r"(?:-?%s(?![\w.])[ \t]*+,[ \t]*+)++" % NUMBER.pattern)

CONTINUES_LINE = {
    "+", "-", "*", "/", "%", "\\", "^", "@", ".*", "./", ".^", "==", "!=", "<", "<=", ">", ">=",
    "=", "+=", "-=", "*=", "/=", ",", "|>", "->", "and", "or", "not",
}
# `x++` and `x--` (C, JavaScript): the doubled sign with nothing after it on the line.
INCREMENT = re.compile(r"(\+\+|--)[ \t]*(?:#.*)?(?=\n|;|$)")

OPENERS = {"(": ")", "[": "]", "{": "}"}
DIGITS = set("0123456789")
RUN_START = DIGITS | {"-", "."}       # where a NUMBER_RUN may start: `[-2.25, ...` too
NAME_START = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
NAME_CHARS = NAME_START | DIGITS


class Token(Fields):
    __slots__ = ("kind", "text", "value", "span", "spaced")

    def __init__(self, kind: str, text: str, value: object, span: Span, spaced: bool = False):
        self.kind = kind        # NUMBER, NUMBERS (a run in a literal), STRING, IDENT, KEYWORD, OP, NEWLINE, EOF
        self.text = text
        self.value = value
        self.span = span
        self.spaced = spaced    # whitespace came right before this token

    def is_op(self, *texts: str) -> bool:
        return self.kind == "OP" and self.text in texts

    def is_kw(self, *words: str) -> bool:
        return self.kind == "KEYWORD" and self.text in words

    def is_word(self, word: str) -> bool:
        """A contextual keyword (`to`, `step`, `in`), lexed as a name."""
        return self.kind == "IDENT" and self.text == word


def shown(ch: str) -> str:
    """A character as a message shows it: 'x', or one that prints as nothing or as a space (a
    NUL, a no-break space pasted from a web page) by its code point and name."""
    if ch.isprintable() and not ch.isspace():
        return f"'{ch}'"
    name = unicodedata.name(ch, "a control character").lower()
    return f"U+{ord(ch):04X} ({name})"


class Lexer:
    def __init__(self, source: Source, text: str | None = None, line: int = 1, col: int = 1):
        self.source = source
        self.text = source.text if text is None else text
        self.pos = 0
        self.line = line
        self.col = col
        self.tokens: list[Token] = []
        self.brackets: list[Token] = []

    def error(self, message: str, line: int, col: int, length: int = 1) -> LaminaError:
        return LaminaError("SyntaxError", message, Span(self.source, line, col, length))

    def tokens_all(self) -> list[Token]:
        text = self.text
        spaced = True
        while self.pos < len(text):
            ch = text[self.pos]
            if ch in " \t\r":
                self.advance(1)
                spaced = True
                continue
            if ch == "#":
                while self.pos < len(text) and text[self.pos] != "\n":
                    self.advance(1)
                continue
            if ch == "\\" and text[self.pos + 1:self.pos + 2] == "\n":
                self.advance(1)
                self.newline()
                continue
            if ch == "\n":
                self.end_line()
                self.newline()
                spaced = True
                continue
            start_line, start_col = self.line, self.col
            if ch in RUN_START and self.in_literal() and (run := NUMBER_RUN.match(text, self.pos)):
                tok = self.number_run(run.group())
            elif ch in DIGITS or (ch == "." and text[self.pos + 1:self.pos + 2] in DIGITS
                                and text[self.pos + 1:self.pos + 2] != ""
                                and (spaced or not self.after_value())):
                tok = self.number()
            elif ch in NAME_START:
                tok = self.word()
            elif ch == '"':
                tok = self.string()
            else:
                tok = self.operator()
            tok.spaced = spaced
            spaced = False
            self.tokens.append(tok)
            self.track_brackets(tok, start_line, start_col)
        if self.brackets:
            opener = self.brackets[-1]
            raise LaminaError("SyntaxError", f"'{opener.text}' opened here is never closed.", opener.span,
                              incomplete=True)
        self.end_line()
        self.tokens.append(Token("EOF", "", None, Span(self.source, self.line, self.col)))
        return self.tokens

    # -- helpers ---------------------------------------------------------------
    def advance(self, n: int) -> None:
        self.pos += n
        self.col += n

    def newline(self) -> None:
        self.pos += 1
        self.line += 1
        self.col = 1

    def after_value(self) -> bool:
        """Whether the previous token ends a value (so `.` would be field access)."""
        return bool(self.tokens) and self._ends_value(self.tokens[-1])

    @staticmethod
    def _ends_value(tok: Token) -> bool:
        return tok.kind in ("NUMBER", "STRING", "IDENT") or tok.is_op(")", "]", "}", "'")

    def in_literal(self) -> bool:
        """Whether the innermost open bracket is a `[` literal whose previous token separates
        elements (`[`, `,` or `;`): where a run of numbers may start."""
        if not self.brackets or self.brackets[-1].text != "[" or self.brackets[-1].value != "literal":
            return False
        last = self.tokens[-1]
        return last.kind == "NUMBERS" or last.is_op("[", ",", ";")

    def end_line(self) -> None:
        if self.brackets or not self.tokens:
            return
        last = self.tokens[-1]
        if last.kind == "NEWLINE" or last.text in CONTINUES_LINE and last.kind in ("OP", "KEYWORD"):
            return
        self.tokens.append(Token("NEWLINE", "\\n", None, Span(self.source, self.line, self.col)))

    def track_brackets(self, tok: Token, line: int, col: int) -> None:
        if tok.kind != "OP":
            return
        if tok.text in OPENERS:
            if tok.text == "[" and not (len(self.tokens) > 1 and self._ends_value(self.tokens[-2])):
                tok.value = "literal"          # not an index: `a[` and `f(x)[` index
            self.brackets.append(tok)
        elif tok.text in (")", "]", "}"):
            if not self.brackets:
                raise self.error(f"'{tok.text}' has no matching opening bracket.", line, col)
            opener = self.brackets.pop()
            if OPENERS[opener.text] != tok.text:
                raise self.error(
                    f"'{tok.text}' does not match '{opener.text}' opened at line {opener.span.line}, "
                    f"column {opener.span.col}.", line, col)

    def make(self, kind: str, text: str, value, line: int, col: int) -> Token:
        return Token(kind, text, value, Span(self.source, line, col, max(1, len(text))))

    # -- token kinds -------------------------------------------------------------
    def number(self) -> Token:
        text, start, line, col = self.text, self.pos, self.line, self.col
        end = NUMBER.match(text, start).end()
        if end < len(text) and text[end] in NAME_START:
            raise self.error(f"Malformed number '{text[start:end + 1]}'.", line, col, end + 1 - start)
        lexeme = text[start:end]
        self.advance(end - start)
        return self.make("NUMBER", lexeme, float(lexeme), line, col)

    def number_run(self, lexeme: str) -> Token:
        # each item between the commas is `-?NUMBER` with blanks, which float() reads exactly
        tok = self.make("NUMBERS", lexeme, list(map(float, lexeme.split(",")[:-1])), self.line, self.col)
        self.advance(len(lexeme))
        return tok

    def word(self) -> Token:
        text, start, line, col = self.text, self.pos, self.line, self.col
        end = start
        while end < len(text) and text[end] in NAME_CHARS:
            end += 1
        lexeme = text[start:end]
        self.advance(end - start)
        return self.make("KEYWORD" if lexeme in KEYWORDS else "IDENT", lexeme, lexeme, line, col)

    def operator(self) -> Token:
        line, col = self.line, self.col
        if (bump := INCREMENT.match(self.text, self.pos)) and self.after_value():
            op = bump.group(1)
            target = self.tokens[-1].text if self.tokens[-1].kind == "IDENT" else "x"
            raise self.error(f"Lamina has no '{op}' operator; write `{target} {op[0]}= 1`.", line, col, 2)
        match = OPERATOR.match(self.text, self.pos)
        if match:
            op = match.group()
            if op == "%" and not self.brackets and self.at_line_start():
                raise self.error("Unexpected character '%'. Comments start with '#'.", line, col)
            self.advance(len(op))
            return self.make("OP", op, op, line, col)
        ch = self.text[self.pos]
        raise self.error(f"Unexpected character {shown(ch)}.{self.character_hint(ch)}", line, col)

    def at_line_start(self) -> bool:
        """Whether only blanks come before the current position on its line."""
        return not self.text[self.text.rfind("\n", 0, self.pos) + 1:self.pos].strip()

    def character_hint(self, ch: str) -> str:
        """What a user of another language meant by a character Lamina does not use."""
        if ch == "'":
            return " Strings use double quotes."
        hints = {"&": "and", "|": "or", "!": "not", "~": "not"}
        if ch in hints:
            return f" Write '{hints[ch]}' for the logical operator."
        return ""

    def string(self) -> Token:
        """A double-quoted string with escapes and {expr} interpolation, on one line."""
        text, line, col = self.text, self.line, self.col
        i = self.pos + 1
        parts: list = []
        buf: list[str] = []
        escapes = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "{": "{", "}": "}"}
        while True:
            if i >= len(text) or text[i] == "\n":
                raise self.error("This string is never closed (strings end on the line they start).",
                                 line, col, i - self.pos)
            ch = text[i]
            if ch == '"':
                i += 1
                break
            if ch == "\\":
                nxt = text[i + 1:i + 2]
                if nxt not in escapes:
                    raise self.error(f"Unknown escape '\\{nxt}' in a string.", line, col + i - self.pos, 2)
                buf.append(escapes[nxt])
                i += 2
            elif ch == "{" and text[i + 1:i + 2] == "{":
                buf.append("{")
                i += 2
            elif ch == "}" and text[i + 1:i + 2] == "}":
                buf.append("}")
                i += 2
            elif ch == "{":
                end = self.interpolation_end(i, line, col)
                if buf:
                    parts.append("".join(buf))
                    buf = []
                inner = text[i + 1:end]
                colon = spec_colon(inner)
                if colon is None:
                    parts.append((inner, col + (i + 1 - self.pos), None))
                else:
                    spec = inner[colon + 1:]
                    if "{" in spec or "}" in spec:
                        raise self.error("A format spec in a string cannot hold braces: write it out, "
                                         "as in {x:.2f}.", line, col + i - self.pos, end - i + 1)
                    parts.append((inner[:colon], col + (i + 1 - self.pos), spec))
                i = end + 1
            elif ch == "}":
                raise self.error("A lone '}' in a string; write '}}' for a literal brace.",
                                 line, col + i - self.pos)
            else:
                buf.append(ch)
                i += 1
        if buf or not parts:
            parts.append("".join(buf))
        lexeme = text[self.pos:i]
        self.advance(i - self.pos)
        return self.make("STRING", lexeme, parts, line, col)

    def interpolation_end(self, open_at: int, line: int, col: int) -> int:
        """Index of the `}` closing the interpolation that opens at `open_at`."""
        text, depth, i = self.text, 0, open_at
        while i < len(text) and text[i] != "\n":
            ch = text[i]
            if ch == '"':          # a string inside the expression
                i += 1
                while i < len(text) and text[i] not in '"\n':
                    i += 2 if text[i] == "\\" else 1
            elif ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    if not text[open_at + 1:i].strip():
                        raise self.error("Empty '{}' in a string; write '{{}}' for literal braces.",
                                         line, col + open_at - self.pos, 2)
                    return i
            i += 1
        raise self.error("'{' in a string is never closed; write '{{' for a literal brace.",
                         line, col + open_at - self.pos)


def spec_colon(inner: str) -> int | None:
    """Where the format spec of an interpolation starts: its first `:` outside brackets and
    strings (`{v[1:3]}` has none; `{x:.2f}` and `{x::>9}`, filled with ':', have one)."""
    depth, i = 0, 0
    while i < len(inner):
        ch = inner[i]
        if ch == '"':
            i += 1
            while i < len(inner) and inner[i] != '"':
                i += 2 if inner[i] == "\\" else 1
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == ":" and depth == 0:
            return i
        i += 1
    return None


def tokenize(source: Source) -> list[Token]:
    return Lexer(source).tokens_all()


def tokenize_fragment(source: Source, text: str, line: int, col: int) -> list[Token]:
    """Tokens of an interpolated expression, with spans in the enclosing file."""
    return Lexer(source, text, line, col).tokens_all()
