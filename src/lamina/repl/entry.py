"""An entry at the prompt: whether it is complete (Enter runs it) and where its lines go (one
indentation unit per block still open).

The text being typed is usually incomplete (an open bracket, a string not yet closed), which
the lexer rejects, so the blocks are counted on words: a block keyword opens one (`if`, `for`,
`while`, `function`, `try`: each can only start a block), `end` closes one, and the keyword
after `end` on its line names the block it closes. Strings and comments are skipped.
"""
from __future__ import annotations

import re

from ..errors import LaminaError
from ..lang.parser import BLOCK_ENDS, BLOCK_KEYWORDS, parse_entry

UNIT = "    "
# A string (closed or not), a comment, a word, or what ends a statement.
_PIECE = re.compile(r'"(?:\\.|[^"\\\n])*"?|#[^\n]*|[A-Za-z_]\w*|[\n;]')


def open_blocks(text: str) -> int:
    """How many blocks are open at the end of `text`."""
    depth, after_end = 0, False
    for m in _PIECE.finditer(text):
        piece = m.group()
        if piece == "end":
            depth, after_end = max(depth - 1, 0), True
            continue
        if piece in BLOCK_KEYWORDS and not after_end:
            depth += 1
        after_end = False
    return depth


def next_line_indent(text: str) -> str:
    """The indentation of a line started after `text`."""
    return UNIT * open_blocks(text)


def dedent_last_line(text: str) -> str:
    """`text` with its last line at the level of the block it belongs to when it starts with
    `end`, `else`, `elseif`, `catch` or `finally` (typed at the body's level)."""
    head, newline, line = text.rpartition("\n")
    word = re.match(r"[A-Za-z_]\w*", line.lstrip())
    if not newline or word is None or word.group() not in BLOCK_ENDS:
        return text
    return head + newline + UNIT * max(open_blocks(head) - 1, 0) + line.lstrip()


def is_complete(text: str) -> bool:
    """Whether the entry can run: a `?` question, or a program that parses or is wrong for a
    reason more lines would not fix (its error is shown when it runs, once the blocks it opens
    are closed: the rest of a block, run line by line, would only add errors of its own)."""
    if not text.strip() or text.lstrip().startswith("?"):
        return True
    try:
        parse_entry(text)
    except LaminaError as err:
        return not err.incomplete and open_blocks(text) == 0
    except RecursionError:
        return True
    return True
