"""The `lamina` command: run a file or a snippet, start the REPL, show help, build docs.

Errors are rendered by console.py, for here and the REPL. Exit status: 0 ok, 1 runtime error,
2 syntax error or bad usage, 130 interrupted.
"""
from __future__ import annotations

import gc
import os
import sys

from .console import internal_failure, report
from .errors import LaminaError, ProgramExit

USAGE = """\
usage: lamina [PERMISSIONS] FILE.lam [ARG ...]  run a program; args() gives it the ARGs
       lamina [PERMISSIONS] - [ARG ...]        run the program read from stdin
       lamina [PERMISSIONS] -e "CODE"          run a snippet
       lamina [PERMISSIONS]                    start the interactive prompt (REPL)
       lamina help [NAME]                      show a builtin's page, or the categories
       lamina docs build [DIR] [--check]       write (or check) the builtin pages
       lamina kernel install [--user | --sys-prefix | --prefix DIR]
                                               install the Jupyter kernel
       lamina lsp                              run the language server (stdio)
       lamina --version                        print the version"""
PERMISSIONS = """\
Permissions, for running programs you did not write: without any of these flags a program
may read and write every file you can; with any, only what they allow (paths are resolved,
symlinks and '..' followed, before they are checked; import counts as a read). A denied
access is a PermissionError. Example: lamina --allow-read=data --allow-write=out prog.lam"""


def run_text(text: str, name: str, directory: str | None = None, permissions=None) -> int:
    """Run a program; `directory` is where its imports are looked for first (None: the
    current folder)."""
    from .files import EVERYTHING
    from .interpreter import Interpreter
    try:
        Interpreter(directory, permissions or EVERYTHING).run(text, name)
    except ProgramExit as exc:    # exit(code)
        sys.stdout.flush()
        return exc.code
    except LaminaError as err:
        if os.environ.get("LAMINA_DEBUG") == "1" and err.__cause__ is not None:
            import traceback
            traceback.print_exception(err.__cause__)
        return report(err)
    except KeyboardInterrupt:
        print("Interrupted.", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return _output_closed()
    except Exception as exc:   # a bug in Lamina itself, still reported in Lamina's words
        return internal_failure(exc)
    return 0


def _output_closed() -> int:
    """The reader of our output went away (`lamina ... | head`): stop quietly, with what was
    written counting as success, and keep Python from complaining as it flushes at exit."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def _os_failure(exc: OSError) -> int:
    """A file, or the output (no file name), that could not be written: said as tools say it."""
    what = exc.filename if exc.filename is not None else "cannot write the output"
    print(f"lamina: {what}: {exc.strerror or exc}", file=sys.stderr)
    return 1


def run_file(path: str, arguments: list[str], permissions=None) -> int:
    from .builtins.program import set_program_arguments
    set_program_arguments(arguments)
    stdin = path == "-"     # the program on stdin, as `python -` reads it
    shown = "stdin" if stdin else path
    try:
        if stdin:       # read as open() reads a file: a byte order mark dropped, line ends made \n
            text = sys.stdin.buffer.read().decode("utf-8-sig").replace("\r\n", "\n").replace("\r", "\n")
        else:
            with open(path, encoding="utf-8-sig") as f:
                text = f.read()
    except OSError as exc:
        print(f"lamina: cannot read {shown}: {exc.strerror}", file=sys.stderr)
        return 2
    except UnicodeDecodeError:
        print(f"lamina: {shown} is not UTF-8 text", file=sys.stderr)
        return 2
    if stdin:
        return run_text(text, "<stdin>", None, permissions)
    return run_text(text, path, os.path.dirname(path), permissions)


def tool_command(argv: list[str]) -> int:
    """`lamina help [NAME]` (rendered and paged on a terminal) and `lamina docs build ...`."""
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
        except BrokenPipeError:
            return _output_closed()
        except OSError as exc:     # a full disk, a folder it may not write
            return _os_failure(exc)
        except Exception as exc:   # a bug in Lamina itself, still reported in Lamina's words
            return internal_failure(exc)
    # The two common forms skip argparse, whose parser costs more start-up time than the rest
    # of this module (its formatter imports shutil, its messages gettext and locale). With a
    # first word that is no option, argparse would give the same (tests/cli/test_cli.py).
    if len(argv) == 2 and argv[0] == "-e":
        return run_text(argv[1], "<-e>")
    if argv and not argv[0].startswith("-"):
        return run_file(argv[0], argv[1:])
    parser = argument_parser()
    try:
        args = parser.parse_args(_code_attached(argv))
        permissions = permissions_of(args)
    except SystemExit as exc:
        return 2 if exc.code else 0
    except ValueError as exc:
        print(f"lamina: {exc}\n{USAGE}", file=sys.stderr)
        return 2
    if args.code is not None and args.file is not None:
        print("lamina: give either FILE or -e CODE, not both\n" + USAGE, file=sys.stderr)
        return 2
    if args.code is not None:
        return run_text(args.code, "<-e>", permissions=permissions)
    if args.file is not None:
        return run_file(args.file, _after_file(argv, args.file, args.arguments), permissions)
    from .repl import repl
    return repl(permissions)


def argument_parser():
    """The full command line's parser (argparse is imported here, only for the other forms)."""
    import argparse

    class Version(argparse.Action):
        """`--version`: the package's version, looked up only when asked for (it costs start-up time)."""

        def __call__(self, parser, namespace, values, option_string=None):
            from importlib.metadata import PackageNotFoundError, version
            try:
                number = version("lamina")
            except PackageNotFoundError:
                number = "(not installed)"
            print(f"lamina {number}")
            parser.exit()

    parser = argparse.ArgumentParser(prog="lamina", usage=USAGE.removeprefix("usage: "), epilog=PERMISSIONS,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file", nargs="?", help="the program to run")
    # Everything after FILE belongs to the program, words starting with '-' included.
    parser.add_argument("arguments", nargs=argparse.REMAINDER, help="the program's arguments, for args()")

    class Once(argparse.Action):
        """`-e CODE`, at most once: a second would otherwise replace the first unrun."""

        def __call__(self, parser, namespace, values, option_string=None):
            if namespace.code is not None:
                parser.error("give -e once; put the statements in one CODE, on lines or separated by ';'")
            namespace.code = values

    parser.add_argument("-e", dest="code", action=Once, help="run CODE")
    parser.add_argument("--version", action=Version, nargs=0, help="print the version")
    parser.add_argument("--allow-read", action="append", metavar="DIR,...",
                        help="the program may read files under these folders (or these files)")
    parser.add_argument("--allow-write", action="append", metavar="DIR,...",
                        help="the program may write files under these folders (or these files)")
    parser.add_argument("--sandbox", action="store_true",
                        help="the program may read and write only under the current folder")
    return parser


def permissions_of(args):
    """The Permissions the flags ask for (files.py); a ValueError for an empty list."""
    from .files import Permissions

    def folders(values, flag):
        if values is None:
            return None
        out = [p for v in values for p in v.split(",")]
        if not all(out):
            raise ValueError(f"{flag} needs folders (or files) separated by commas, as in "
                             f"{flag}=data,out; {flag}=/ allows every path")
        return [os.path.expanduser(p) for p in out]   # the shell leaves `=~/data` unexpanded
    return Permissions.of(folders(args.allow_read, "--allow-read"),
                          folders(args.allow_write, "--allow-write"), args.sandbox)


def _after_file(argv: list[str], file: str, rest: list[str]) -> list[str]:
    """Every word after FILE: argparse's remainder, with the '--' it drops right after FILE."""
    k = len(argv) - len(rest)
    return ["--"] + rest if k >= 2 and argv[k - 1] == "--" and argv[k - 2] == file else rest


def _code_attached(argv: list[str]) -> list[str]:
    """argv with each `-e CODE` among lamina's own options written `-e=CODE`: the word after -e
    is the code even when it starts with '-' (as python -c takes it), where argparse would
    read `-e "-(2)"` as an option without its value."""
    out, i = list(argv), 0
    while i < len(out) and out[i].startswith("-") and out[i] not in ("--", "-"):   # "-": stdin
        if out[i] == "-e" and i + 1 < len(out):
            out[i:i + 2] = ["-e=" + out[i + 1]]
        elif out[i] in ("--allow-read", "--allow-write"):
            i += 1                     # its value
        i += 1
    return out


def entry() -> None:
    # Started with its output or error stream closed (`lamina ... >&-`), Python has None there:
    # the program runs with that stream discarded, as after `| head` closes its pipe; a closed
    # input (`<&-`) reads as empty.
    for name, mode in (("stdin", "r"), ("stdout", "w"), ("stderr", "w")):
        if getattr(sys, name) is None:
            setattr(sys, name, open(os.devnull, mode))
    # A character the output's encoding lacks (PYTHONIOENCODING=ascii, a Windows code page)
    # is written as \u20ac, as Python writes it to stderr, not failed on in the middle of a print.
    # (surrogateescape, where Python chose it, still writes a file name's own bytes back).
    if getattr(sys.stdout, "errors", None) == "strict" and hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="backslashreplace")
    try:
        status = main()
        if not sys.stdout.closed:    # the language server closes it when its client exits
            sys.stdout.flush()       # here, where a closed pipe is still caught
    except KeyboardInterrupt:    # Ctrl-C while Lamina starts, before a program runs
        print("Interrupted.", file=sys.stderr)
        status = 130
    except BrokenPipeError:      # `lamina --version | true`
        status = _output_closed()
    except OSError as exc:       # `lamina --version > /dev/full`
        status = _os_failure(exc)
    # Objects still alive at exit are freed by the interpreter's shutdown, whose garbage
    # collections would walk all of NumPy's and ours: about 8 ms of a 110 ms `lamina -e`.
    # Frozen, they are skipped; reference counts still free (and close) everything else.
    gc.freeze()
    sys.exit(status)


if __name__ == "__main__":
    entry()
