"""The kernel: Jupyter's messages answered by one Interpreter.

A cell runs like a REPL entry, in the kernel's one Interpreter (variables, functions and
the tape persist between cells). `print` goes to stdout and warnings to stderr through the
streams ipykernel installs; the value of the cell's last expression is its execute_result;
every figure a cell finishes (or leaves open) is shown as a PNG; a Lamina error is an
error reply whose traceback is what the command line prints. `import` looks in the kernel's
folder, which Jupyter makes the notebook's. exit() ends the cell, not the kernel: exit() and
exit(0) quietly, another status as an error (so "run all" stops there). A history request
answers the cells run in this kernel (a console's up-arrow after a restart of the client);
an execute request's user expressions are answered after a cell that succeeds, as IPython's.
"""
from __future__ import annotations

import fnmatch
import os
import sys
import traceback
from importlib.metadata import PackageNotFoundError, version

from ipykernel.kernelbase import Kernel

from ..completion import LiveNames, complete, inspect
from ..errors import LaminaError, ProgramExit
from ..interpreter import Interpreter
from ..lang.parser import open_blocks, parse_entry
from ..models.callbacks import progress
from ..stats import figures
from . import DISPLAY_NAME
from .display import figure_bundle, value_bundle

try:
    __version__ = version("lamina")
except PackageNotFoundError:      # running from a source tree that is not installed
    __version__ = "unknown"


INTERRUPTED = ("KeyboardInterrupt", "Interrupted", ["Interrupted."])
INDENT = "    "        # a line inside one more block, as the prompt indents it


class LaminaKernel(Kernel):
    implementation = "lamina"
    implementation_version = __version__
    language = "lamina"
    language_version = __version__
    language_info = {
        "name": "lamina",
        "version": __version__,
        "mimetype": "text/x-lamina",
        "file_extension": ".lam",
        "pygments_lexer": "lamina",
        # CodeMirror has no Lamina mode; Julia's knows `#` comments, `end`, `function`,
        # double-quoted strings and `'` as transpose.
        "codemirror_mode": "julia",
    }
    banner = f"{DISPLAY_NAME} {__version__}: help() lists the builtins; shift-tab shows a builtin's page."

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.interp = Interpreter()
        progress.live_output = True
        figures.show_inline(self._show_figure)
        self._silent = False
        self._history: list[tuple[int, str]] = []     # (execution count, cell) of each cell run

    def set_parent(self, ident, parent, channel="shell"):
        """Output a request causes is sent as its child: IPython's kernel tells the streams of
        each new request through its shell; a wrapper kernel does it here."""
        super().set_parent(ident, parent, channel)
        if channel == "shell":
            for stream in (sys.stdout, sys.stderr):
                if hasattr(stream, "set_parent"):
                    stream.set_parent(parent)

    # -- execute ---------------------------------------------------------------------
    async def do_execute(self, code, silent, store_history=True, user_expressions=None,
                         allow_stdin=False, *, cell_meta=None, cell_id=None):
        self._silent = silent
        reply = {"status": "ok", "execution_count": self.execution_count, "payload": [],
                 "user_expressions": {}}
        if store_history and not silent:
            self._history.append((self.execution_count, code))
        try:
            try:
                value, failure = self._run(code, f"<cell {self.execution_count}>")
            finally:
                self._finish_figures()
            if failure is None and value is not None and not silent:
                bundle = value_bundle(value)
                self._flush()
                self.send_response(self.iopub_socket, "execute_result", {
                    "execution_count": self.execution_count, "data": bundle, "metadata": {}})
        except KeyboardInterrupt:      # while its figure or its value was drawn: the cell still answers
            failure = INTERRUPTED
        if failure is not None:
            ename, evalue, lines = failure
            content = {"ename": ename, "evalue": evalue, "traceback": lines}
            if not silent:
                self._flush()
                self.send_response(self.iopub_socket, "error", content)
            return {**reply, "status": "error", **content}
        reply["user_expressions"] = {key: self._expression(text) for key, text in (user_expressions or {}).items()}
        return reply

    def _run(self, code: str, name: str) -> tuple:
        """(the value of the code's last expression, None) or (None, (ename, evalue, traceback))."""
        try:
            return self.interp.run_cell(code, name), None
        except LaminaError as err:
            if os.environ.get("LAMINA_DEBUG") == "1" and err.__cause__ is not None:
                traceback.print_exception(err.__cause__)
            return None, (err.kind, err.message, err.render().splitlines())
        except KeyboardInterrupt:
            return None, INTERRUPTED
        except ProgramExit as exc:
            return None, None if exc.code == 0 else \
                ("Exit", f"exit({exc.code})", [f"The program called exit({exc.code}); the kernel keeps its variables."])
        except Exception as exc:   # a bug in Lamina itself, still reported in Lamina's words
            if os.environ.get("LAMINA_DEBUG") == "1":
                traceback.print_exception(exc)
            return None, ("InternalError", f"{type(exc).__name__}: {exc}",
                          [f"InternalError: {type(exc).__name__}: {exc}",
                           "  note: this is a bug in Lamina; run with LAMINA_DEBUG=1 to see the Python traceback"])

    def _expression(self, code: str) -> dict:
        """A user expression's answer (run after a cell that succeeded), as IPython gives it."""
        value, failure = self._run(code, "<expression>")
        if failure is not None:
            return {"status": "error", **dict(zip(("ename", "evalue", "traceback"), failure))}
        return {"status": "ok", "data": value_bundle(value), "metadata": {}}

    def _flush(self) -> None:
        """Stream output first, so that it comes before what is sent next."""
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()

    def _show_figure(self, fig) -> None:
        if self._silent:
            return
        bundle = figure_bundle(fig)
        self._flush()
        self.send_response(self.iopub_socket, "display_data", bundle)

    def _finish_figures(self) -> None:
        try:
            figures.finish_inline()
        except LaminaError as err:       # the figure cannot be drawn (say, values near 1e308)
            print(err.render(), file=sys.stderr)

    async def do_history(self, hist_access_type, output, raw, session=None, start=None, stop=None,
                         n=None, pattern=None, unique=False):
        """The cells this kernel ran, as IPython's history of its one session (numbered 1,
        and 0 asks for the current one): each (session, execution count, cell), or with output
        (session, count, (cell, None)): outputs are not kept, as IPython's default. 'tail': the
        last n; 'range': counts from start to stop (excluded); 'search': the cells the glob
        pattern matches, the last n of them, each text once if unique."""
        cells = self._history
        if hist_access_type == "range":
            mine = session in (None, 0, 1)
            cells = [c for c in cells if mine and (start or 0) <= c[0] and (stop is None or c[0] < stop)]
        elif hist_access_type == "search":
            cells = [c for c in cells if fnmatch.fnmatchcase(c[1], pattern or "*")]
            if unique:
                last = {text: count for count, text in cells}
                cells = [c for c in cells if last[c[1]] == c[0]]
        elif hist_access_type != "tail":
            cells = []
        if hist_access_type != "range" and n is not None:
            cells = cells[max(0, len(cells) - n):]
        return {"status": "ok", "history": [(1, count, (text, None) if output else text) for count, text in cells]}

    # -- the editor's questions ------------------------------------------------------------
    async def do_is_complete(self, code):
        """As the prompt decides (repl/entry.py): an error inside a block still open is
        reported once the block closes, and each open block indents the next line."""
        blocks = open_blocks(code)
        try:
            parse_entry(code, "<cell>")
        except LaminaError as err:
            if err.incomplete or blocks:
                return {"status": "incomplete", "indent": INDENT * blocks}
            return {"status": "invalid"}
        except RecursionError:
            return {"status": "invalid"}
        return {"status": "complete"}

    async def do_complete(self, code, cursor_pos):
        found = complete(code, cursor_pos, LiveNames(self.interp))
        types = [{"start": found.start, "end": found.end, "text": c.text, "type": c.kind,
                  "signature": c.detail if c.kind == "builtin" else ""} for c in found.candidates]
        return {"status": "ok", "matches": found.matches, "cursor_start": found.start,
                "cursor_end": found.end, "metadata": {"_jupyter_types_experimental": types}}

    async def do_inspect(self, code, cursor_pos, detail_level=0, omit_sections=()):
        found = inspect(code, cursor_pos, LiveNames(self.interp))
        if found is None:
            return {"status": "ok", "found": False, "data": {}, "metadata": {}}
        data = {"text/plain": found.text}
        if found.markdown:
            data["text/markdown"] = found.text
        return {"status": "ok", "found": True, "data": data, "metadata": {}}
