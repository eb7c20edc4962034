"""The prompt on a terminal (prompt_toolkit): one entry is the whole statement or block.

Enter at the end of the entry runs it when it is complete and otherwise starts a new line,
indented for the blocks still open (a line that starts with `end`, `else`, `elseif`, `catch`
or `finally` moves back to its block's level first); Enter with text after the cursor starts
a new line; Alt-Enter runs the entry as it is. A block is one history entry, recalled whole
with the up arrow. Tab
completes builtins (their call shapes beside them), variables, fields, a module's names and
keywords, from the engine the kernel and the language server use (completion.py).
"""
from __future__ import annotations

import os

from prompt_toolkit import PromptSession
from prompt_toolkit.completion import Completer, Completion
from prompt_toolkit.history import FileHistory
from prompt_toolkit.key_binding import KeyBindings

from ..completion import LiveNames, complete
from .entry import dedent_last_line, is_complete, next_line_indent

HISTORY = os.path.join(os.path.expanduser("~"), ".lamina_history")


class LaminaCompleter(Completer):
    def __init__(self, interpreter):
        self.names = LiveNames(interpreter)

    def get_completions(self, document, complete_event):
        found = complete(document.text, document.cursor_position, self.names)
        for c in found.candidates:
            yield Completion(c.text, start_position=found.start - found.end, display_meta=c.detail or c.kind)


def _bindings() -> KeyBindings:
    keys = KeyBindings()

    @keys.add("enter")
    def enter(event):
        buffer = event.current_buffer
        if buffer.complete_state is not None:          # Enter picks the highlighted completion
            chosen = buffer.complete_state.current_completion
            if chosen is not None:
                buffer.apply_completion(chosen)
            else:
                buffer.cancel_completion()
            return
        if not buffer.document.text_after_cursor.strip():
            text = dedent_last_line(buffer.text.rstrip(" \t"))
            if text != buffer.text:
                buffer.text = text
                buffer.cursor_position = len(text)
            if is_complete(text):
                buffer.validate_and_handle()
                return
        buffer.insert_text("\n" + next_line_indent(buffer.document.text_before_cursor))
    return keys


def terminal_reader(interpreter):
    """A function returning the next entry (raising EOFError at Ctrl-D, KeyboardInterrupt at Ctrl-C)."""
    session = PromptSession(history=FileHistory(HISTORY), completer=LaminaCompleter(interpreter),
                            complete_while_typing=False, multiline=True, key_bindings=_bindings(),
                            prompt_continuation=lambda width, line, wrap: ".. ".rjust(width))
    return lambda: session.prompt(">> ")
