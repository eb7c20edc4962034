"""The interactive prompt: read a complete statement, run it, echo its value.

A block or bracket left open continues on the next line (`..` prompt). With a
terminal, prompt_toolkit gives line editing and a history file; with piped input
the same loop reads plain lines, which is what the tests drive.
"""
from __future__ import annotations

import os
import sys

from .console import internal_failure, report
from .errors import LaminaError, ProgramExit
from .interpreter import Interpreter

BANNER = 'Lamina — type an expression, a statement or a block; help() lists builtins; Ctrl-D quits.'
HISTORY = os.path.join(os.path.expanduser("~"), ".lamina_history")


def _reader():
    """A function prompt -> line (raising EOFError at the end)."""
    if sys.stdin.isatty() and sys.stdout.isatty():
        from prompt_toolkit import PromptSession
        from prompt_toolkit.history import FileHistory
        session = PromptSession(history=FileHistory(HISTORY))
        return lambda prompt: session.prompt(prompt)

    def plain(prompt: str) -> str:
        line = sys.stdin.readline()
        if not line:
            raise EOFError
        return line.rstrip("\n")
    return plain


def repl(permissions=None) -> int:
    interp = Interpreter() if permissions is None else Interpreter(permissions=permissions)
    read = _reader()
    interactive = sys.stdin.isatty()
    if interactive:
        print(BANNER)
    status = 0
    while True:
        try:
            text = read(">> ")
            while True:
                try:
                    code = interp.compile(text, "<repl>", echo=True)
                    break
                except LaminaError as err:
                    if not err.incomplete:
                        raise
                    text += "\n" + read(".. ")
            interp.run_code(code)
        except LaminaError as err:
            status = report(err)
        except ProgramExit as exc:    # exit(code) ends the session
            return exc.code
        except KeyboardInterrupt:
            print("Interrupted.", file=sys.stderr)
        except EOFError:
            if interactive:
                print()
            return status if not interactive else 0
        except Exception as exc:
            status = internal_failure(exc)
