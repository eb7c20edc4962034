"""The interactive prompt: read an entry, run it, echo its value.

On a terminal an entry is a whole statement or block, typed with line editing, completion,
auto-indent and a history that recalls blocks whole (terminal.py, prompt_toolkit). With
piped input the same loop reads plain lines, a block or bracket left open continuing on the
next, which is what most tests drive. `?name` shows a builtin's page, or the help of a
function, a module or a member (help.py).
"""
from __future__ import annotations

import sys

from ..console import internal_failure, report
from ..errors import LaminaError, ProgramExit
from ..interpreter import Interpreter
from .entry import is_complete

BANNER = ('Lamina — type an expression, a statement or a block; ?name shows a builtin\'s page; '
          'Tab completes; Ctrl-D quits.')


def _plain_reader():
    """A function returning the next entry, read line by line (raising EOFError at the end)."""
    def line() -> str:
        text = sys.stdin.readline()
        if not text:
            raise EOFError
        return text.rstrip("\n")

    def read() -> str:
        text = line()
        while not is_complete(text):
            try:
                text += "\n" + line()
            except EOFError:
                return text     # an unfinished entry at the end: running it reports what is open
        return text
    return read


def repl(permissions=None) -> int:
    interp = Interpreter() if permissions is None else Interpreter(permissions=permissions)
    interactive = sys.stdin.isatty()
    if interactive and sys.stdout.isatty():
        from .terminal import terminal_reader
        read = terminal_reader(interp)
    else:
        read = _plain_reader()
    if interactive:
        print(BANNER)
    status = 0
    while True:
        try:
            text = read()
            if text.lstrip().startswith("?"):
                from .help import show_help
                show_help(interp, text.lstrip()[1:])
                continue
            interp.run_code(interp.compile(text, "<repl>", echo=True))
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
