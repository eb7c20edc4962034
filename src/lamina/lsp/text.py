"""A document's text as the protocol counts it: lines end at \\r\\n, \\r or \\n only (not at the
form feeds, U+2028 and other separators str.splitlines also breaks at), and a position's
character is in the encoding the client and the server agreed on (UTF-16 unless another).

What is analysed is the text with \\r\\n and \\r read as \\n, as `lamina` reads a file: the
lines and their columns stay those the client counts. A byte-order mark stays in the text
(the client counts it as the first character) but not in the analysis (analysis.py drops
it), so the first line's columns differ by one between them.
"""
from __future__ import annotations

import re

from lsprotocol import types as lsp
from pygls.workspace import PositionCodec

NEWLINE = re.compile(r"\r\n?")


class Text:
    def __init__(self, raw: str, codec: PositionCodec):
        self.text = NEWLINE.sub("\n", raw)
        self.lines = self.text.split("\n")
        self.codec = codec
        self.bom = 1 if self.text.startswith("\ufeff") else 0
        self.starts = [0]            # the offset of each line
        for line in self.lines[:-1]:
            self.starts.append(self.starts[-1] + len(line) + 1)

    def column(self, position: lsp.Position) -> tuple[int, int]:
        """The position's (0-based) line and column in characters of the text."""
        if position.line >= len(self.lines):
            return len(self.lines) - 1, len(self.lines[-1])
        line, units, col = self.lines[position.line], 0, 0
        while col < len(line) and units < position.character:
            units += self.codec.client_num_units(line[col])
            col += 1
        return position.line, col

    def offset(self, position: lsp.Position) -> int:
        line, col = self.column(position)
        return self.starts[line] + col

    def at(self, position: lsp.Position) -> tuple[int, int]:
        """The position as the analysis counts it: its 1-based line and column."""
        line, col = self.column(position)
        return line + 1, col + 1 - (self.bom if line == 0 else 0)

    def position(self, line: int, col: int) -> lsp.Position:
        """The client's position of the text's (0-based) line and column."""
        text = self.lines[line] if line < len(self.lines) else ""
        return lsp.Position(line, self.codec.client_num_units(text[:col]) + max(0, col - len(text)))

    def range(self, span) -> lsp.Range:
        """A span of the analysis, in the client's units."""
        line, col = span.line - 1, span.col - 1 + (self.bom if span.line == 1 else 0)
        return lsp.Range(self.position(line, col), self.position(line, col + span.length))
