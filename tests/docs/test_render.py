"""`lamina help NAME` on a terminal: the page rendered by rich, its Lamina examples highlighted
by the Lamina lexer; anywhere else, the plain Markdown."""
from __future__ import annotations

import io

from pygments.token import Keyword, Name, Number
from rich.console import Console
from rich.syntax import PygmentsSyntaxTheme

from lamina.docs.help import help_text
from lamina.docs.render import THEME, markdown, show_page


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def styles(page: str) -> dict[str, set]:
    console = Console(file=io.StringIO(), force_terminal=True, color_system="truecolor", width=100)
    out: dict[str, set] = {}
    for segment in console.render(markdown(page)):
        out.setdefault(segment.text, set()).add(segment.style.color.name if segment.style and segment.style.color else None)
    return out


def test_examples_on_a_page_are_highlighted_by_the_lamina_lexer():
    theme = PygmentsSyntaxTheme(THEME)
    color = {t: theme.get_style_for_token(t).color.name for t in (Keyword, Name.Builtin, Number, Name)}
    assert color[Name.Builtin] != color[Name]          # so a builtin's color shows the lexer at work
    page = "# loop\n\n```lamina\nfor i = 0 to 2\n    print(sum([i, 1]))\nend for\n```\n"
    got = styles(page)
    assert color[Keyword] in got["for"] and color[Keyword] in got["to"]
    assert color[Name.Builtin] in got["print"] and color[Name.Builtin] in got["sum"]
    assert color[Number] in got["2"]
    real = styles(help_text("sum", run=False))
    assert color[Name.Builtin] in real["print"]


def test_a_terminal_gets_the_rendered_page_and_a_pipe_the_markdown():
    tty, pipe = Terminal(), io.StringIO()
    show_page(help_text("sum", run=False), tty)
    show_page(help_text("sum", run=False), pipe)
    assert pipe.getvalue() == help_text("sum", run=False) + "\n"
    assert "\x1b[" in tty.getvalue() and "# sum" not in tty.getvalue() and "sum" in tty.getvalue()


def test_a_terminal_that_reports_no_size_gets_the_usual_width():
    # a new pty whose size was never set reports 0 x 0; rich then wrapped the page to nothing
    import os
    import pty

    from lamina.docs.render import _size
    master, slave = pty.openpty()
    try:
        with os.fdopen(slave, "w", closefd=False) as stream:
            assert os.get_terminal_size(slave) == (0, 0)
            size = _size(stream)
        assert size.columns > 0 and size.lines > 0
    finally:
        os.close(master)
        os.close(slave)
