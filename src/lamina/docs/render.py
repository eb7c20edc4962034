"""A documentation page on a terminal: its Markdown rendered by rich, with the Lamina blocks
highlighted by the Lamina lexer (highlight.py). Text that is not a terminal gets the Markdown
as it is, so pipes, files and tests read plain text."""
from __future__ import annotations

import sys

THEME = "monokai"


def show_page(text: str, stream=None) -> None:
    stream = sys.stdout if stream is None else stream
    try:
        terminal = stream.isatty()
    except (AttributeError, ValueError):
        terminal = False
    if not terminal:
        print(text, file=stream)
        return
    from rich.console import Console
    Console(file=stream).print(markdown(text))


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
