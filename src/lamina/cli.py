"""The `lamina` command: run a file or a snippet, start the REPL, show help, build docs.

Errors are rendered by console.py, for here and the REPL. Exit status: 0 ok, 1 runtime error,
2 syntax error or bad usage, 130 interrupted.
"""
from __future__ import annotations

import argparse
import os
import sys
import traceback

from .console import internal_failure, report
from .errors import LaminaError

USAGE = """\
usage: lamina FILE.lam          run a program
       lamina -e "CODE"         run a snippet
       lamina                   start the interactive prompt (REPL)
       lamina help [NAME]       show a builtin's page, or the categories
       lamina docs build [DIR] [--check]
                                write (or check) the builtin pages
       lamina kernel install [--user | --sys-prefix | --prefix DIR]
                                install the Jupyter kernel
       lamina lsp               run the language server (stdio)"""


def run_text(text: str, name: str) -> int:
    from .interpreter import Interpreter
    try:
        Interpreter().run(text, name)
    except LaminaError as err:
        if os.environ.get("LAMINA_DEBUG") == "1" and err.__cause__ is not None:
            traceback.print_exception(err.__cause__)
        return report(err)
    except KeyboardInterrupt:
        print("Interrupted.", file=sys.stderr)
        return 130
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as exc:   # a bug in Lamina itself, still reported in Lamina's words
        return internal_failure(exc)
    return 0


def run_file(path: str) -> int:
    try:
        with open(path, encoding="utf-8-sig") as f:
            text = f.read()
    except OSError as exc:
        print(f"lamina: cannot read {path}: {exc.strerror}", file=sys.stderr)
        return 2
    except UnicodeDecodeError:
        print(f"lamina: {path} is not UTF-8 text", file=sys.stderr)
        return 2
    return run_text(text, path)


def tool_command(argv: list[str]) -> int:
    """`lamina help [NAME]` and `lamina docs build ...`."""
    if argv[0] == "help":
        from .docs.help import help_text
        from .docs.render import show_page
        show_page(help_text(argv[1] if len(argv) > 1 else None))
        return 0
    from .docs.build import main as docs_main
    return docs_main(argv[1:])


def editor_command(argv: list[str]) -> int:
    """`lamina kernel install ...`, `lamina kernel -f FILE` (what Jupyter runs) and `lamina lsp`."""
    if argv[0] == "lsp":
        from .lsp.server import main as lsp_main
        return lsp_main()
    if argv[1:2] == ["install"]:
        from .kernel.install import main as install_main
        return install_main(argv[2:])
    from .kernel.app import main as kernel_main
    kernel_main(argv[1:])
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] in (["kernel"], ["lsp"]):
        return editor_command(argv)
    if argv[:1] in (["help"], ["docs"]):
        try:
            return tool_command(argv)
        except LaminaError as err:
            return report(err)
        except Exception as exc:   # a bug in Lamina itself, still reported in Lamina's words
            return internal_failure(exc)
    parser = argparse.ArgumentParser(prog="lamina", usage=USAGE, add_help=True)
    parser.add_argument("file", nargs="?")
    parser.add_argument("-e", dest="code", help="run CODE")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return 2 if exc.code else 0
    if args.code is not None and args.file is not None:
        print("lamina: give either FILE or -e CODE, not both\n" + USAGE, file=sys.stderr)
        return 2
    if args.code is not None:
        return run_text(args.code, "<-e>")
    if args.file is not None:
        return run_file(args.file)
    from .repl import repl
    return repl()


def entry() -> None:
    sys.exit(main())


if __name__ == "__main__":
    entry()
