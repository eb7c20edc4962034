"""A documentation page on a terminal: its Markdown rendered by rich, with the Lamina blocks
highlighted by the Lamina lexer (highlight.py), through a pager when it is taller than the
terminal. Text that is not a terminal gets the Markdown as it is, so pipes, files and tests
read plain text."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

THEME = "monokai"


def show_page(text: str, stream=None, markdown_text: bool = True) -> None:
    """Write a page: rendered (Markdown, unless `markdown_text` is false) and paged when long
    on a terminal, as it is anywhere else."""
    stream = sys.stdout if stream is None else stream
    if not _is_terminal(stream):
        print(text, file=stream)
        return
    from rich.console import Console
    from rich.text import Text
    size = _size(stream)
    console = Console(file=stream, width=size.columns)
    with console.capture() as captured:
        console.print(markdown(text) if markdown_text else Text(text))
    rendered = captured.get()
    if rendered.count("\n") >= size.lines - 1 and stream is sys.stdout and sys.stdin.isatty():
        page(rendered)
    else:
        stream.write(rendered)
        stream.flush()


def page(text: str) -> None:
    """Show styled text through the user's pager ($MANPAGER, $PAGER, else `less`), which
    keeps the styles (LESS=-R unless LESS is set); without one, write it out."""
    command = os.environ.get("MANPAGER") or os.environ.get("PAGER") or ("less" if shutil.which("less") else "")
    if not command.strip():
        sys.stdout.write(text)
        return
    sys.stdout.flush()
    env = {**os.environ, "LESS": os.environ.get("LESS", "-R")}
    proc = subprocess.Popen(command, shell=True, stdin=subprocess.PIPE, env=env, errors="backslashreplace")
    try:
        with proc.stdin as pipe:
            pipe.write(text)
    except (BrokenPipeError, KeyboardInterrupt):     # the reader quit the pager early
        pass
    while True:
        try:
            proc.wait()
            return
        except KeyboardInterrupt:    # the pager has the terminal and handles Ctrl-C itself
            pass


def _size(stream) -> os.terminal_size:
    """The terminal's own size (a LINES or COLUMNS left in the environment can be stale); a
    terminal that reports 0 x 0 (a new pty whose size was never set) gets the usual fallback."""
    try:
        size = os.get_terminal_size(stream.fileno())
    except (AttributeError, ValueError, OSError):
        return shutil.get_terminal_size()
    return size if size.columns and size.lines else shutil.get_terminal_size()


def _is_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def markdown(text: str):
    """The page as a rich renderable whose ```lamina blocks use LaminaLexer."""
    from rich.markdown import CodeBlock, Markdown
    from rich.syntax import Syntax

    from ..highlight import LaminaLexer

    class LaminaCodeBlock(CodeBlock):
        def __rich_console__(self, console, options):
            lexer = LaminaLexer() if self.lexer_name == "lamina" else self.lexer_name
            yield Syntax(str(self.text).rstrip(), lexer, theme=self.theme, word_wrap=True, padding=1)

    class Page(Markdown):
        elements = {**Markdown.elements, "fence": LaminaCodeBlock, "code_block": LaminaCodeBlock}

    return Page(text, code_theme=THEME)
