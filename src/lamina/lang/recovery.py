"""Reading a program past its syntax errors, as an editor needs (the language server): the
parser reports each error and goes on (Parser.report, skip_statement, close_block), and the
lexer's errors blank their lines."""
from __future__ import annotations

import re

from ..errors import LaminaError, Source, Span
from ..fields import Fields
from . import ast as A
from .lexer import tokenize
from .parser import Parser


class Parsed(Fields):
    """A program read past its syntax errors: `program` holds every statement that parsed (its
    spans in `source`), `errors` every syntax error as found (the first is the one `parse`
    raises, as a run reports it), `unparsed` the names written in the text that was skipped
    (a later use of one may be defined there)."""

    def __init__(self, program: A.Program, errors: list[LaminaError], source: Source, unparsed: set[str]):
        self.program, self.errors, self.source, self.unparsed = program, errors, source, unparsed


LEX_RETRIES = 10
_WORD = re.compile(r"[A-Za-z_]\w*")


def parse_with_errors(source: Source) -> Parsed:
    """Parse past syntax errors: a statement that fails is reported and skipped to the end of
    its line (a block whose header fails keeps the statements of its body), and parsing goes
    on at the next. An error of the lexer (a string or bracket never closed) blanks its line,
    and the text is read again: `source` is then the text with those lines blank, which keeps
    every other line and column where it was."""
    errors, unparsed, lines = [], set(), None
    for _ in range(LEX_RETRIES):
        try:
            tokens = tokenize(source)
            break
        except LaminaError as err:
            errors.append(err)
            lines = lines or source.text.split("\n")
            line = min(err.span.line, len(lines)) if err.span is not None else len(lines)
            unparsed.update(_WORD.findall(lines[line - 1]))
            lines[line - 1] = ""
            source = Source(source.name, "\n".join(lines))
    else:
        return Parsed(A.Program([]), errors, source, unparsed)
    parser = Parser(tokens, source)
    parser.errors = errors
    try:
        program = parser.program()
    except RecursionError:
        errors.append(LaminaError("SyntaxError", "The program is nested too deeply to parse.", Span(source, 1, 1)))
        program = A.Program([])
    unparsed.update(t.text for t in parser.skipped if t.kind == "IDENT")
    return Parsed(program, errors, source, unparsed)
