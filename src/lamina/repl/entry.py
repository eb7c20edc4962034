"""An entry at the prompt: whether it is complete (Enter runs it) and where its lines go (one
indentation unit per block still open, as `lang.parser.open_blocks` counts them).
"""
from __future__ import annotations

import re

from ..errors import LaminaError
from ..lang.parser import BLOCK_ENDS, open_blocks, parse_entry

UNIT = "    "


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
