"""The prompt and `lamina help` on a real pseudo-terminal: Tab completion (builtins with their
call shapes, variables, record fields, a module's names, keywords), auto-indented blocks that
history recalls whole, `?name`, and help pages rendered and paged."""
from __future__ import annotations

import fcntl
import os
import pathlib
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[=>]")

HELPERS = "RATE = 0.5\n# Twice x.\nfunction twice(x)\n    return 2 * x\nend function\n"


class Terminal:
    """A `lamina` process on a pseudo-terminal of the given size, in `folder` (also its HOME)."""

    def __init__(self, folder: pathlib.Path, *args: str, rows: int = 50, columns: int = 120,
                 env: dict | None = None):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
            os.chdir(folder)
            for stale in ("LINES", "COLUMNS"):
                os.environ.pop(stale, None)
            os.environ.update({"HOME": str(folder), "TERM": "xterm", "PROMPT_TOOLKIT_NO_CPR": "1",
                               "PAGER": "cat", **(env or {})})
            os.execv(sys.executable, [sys.executable, "-m", "lamina", *args])
        self.output = b""

    def read_until(self, marker, timeout: float = 30.0, since: int = 0) -> str:
        """The screen's text (escape sequences removed) once `marker` is on it, in what came
        after byte `since` (or, for a function of the text, once it says so)."""
        def done() -> bool:
            new = ANSI.sub("", self.output[since:].decode(errors="replace"))
            return marker(self.text) if callable(marker) else marker in new
        end = time.time() + timeout
        while not done() and time.time() < end:
            self._read(0.1)
        assert done(), self.text[-3000:]
        return self.text

    def _read(self, wait: float) -> None:
        if select.select([self.fd], [], [], wait)[0]:
            try:
                self.output += os.read(self.fd, 65536)
            except OSError:
                pass

    def prompt(self) -> str:
        """Wait for a prompt (`>>`, or `..` inside a block) last on the screen, and nothing more coming."""
        while True:
            self.read_until(lambda text: text.rstrip().endswith((">>", "..")))
            before = len(self.output)
            self._read(0.3)
            if len(self.output) == before:
                return self.text

    def __enter__(self) -> "Terminal":
        return self

    def __exit__(self, kind, error, trace) -> bool:
        """On success the process must end cleanly after Ctrl-D; on a failure it is killed, so
        that the failure itself is what the test reports."""
        if kind is None:
            assert self.close() == 0
        else:
            os.kill(self.pid, 9)
            os.waitpid(self.pid, 0)
        return False

    @property
    def text(self) -> str:
        return ANSI.sub("", self.output.decode(errors="replace"))

    def type(self, keys: str, then=None, prompt: bool = True) -> str:
        """Type keys; then wait for `then` on the screen, and after an Enter for the next prompt
        (unless `prompt` is false: the entry is still running)."""
        start = len(self.output)
        os.write(self.fd, keys.encode())
        if then is not None:
            self.read_until(then, since=start)
        return self.prompt() if keys.endswith("\r") and prompt else self.text

    def close(self) -> int:
        """Ctrl-D, then the exit status once the process has ended and its output is read."""
        try:
            os.write(self.fd, b"\x04")
        except OSError:
            pass
        end, status = time.time() + 30, None
        while time.time() < end:
            try:
                ready = select.select([self.fd], [], [], 0.1)[0]
                chunk = os.read(self.fd, 65536) if ready else b""
            except OSError:           # the terminal is closed: everything has been read
                chunk = None
            if chunk:
                self.output += chunk
                continue
            if status is None:
                pid, code = os.waitpid(self.pid, os.WNOHANG)
                status = os.waitstatus_to_exitcode(code) if pid else None
            if status is not None and (chunk is None or not ready):
                return status
        os.kill(self.pid, 9)
        raise AssertionError("lamina did not end")


def test_tab_completes_builtins_variables_fields_module_names_and_keywords(tmp_path):
    (tmp_path / "helpers.lam").write_text(HELPERS)
    with Terminal(tmp_path) as t:
        t.prompt()
        t.type("import helpers as h\r")
        t.type("record = {alpha = 3}\r")
        t.type("my_long_name = 7\r")
        t.type("h.tw\t", then="h.twice")                  # a module's function
        t.type("(4)\r", then="\n8\r\n")
        t.type("record.al\t", then="record.alpha")        # a field
        t.type("\r", then="\n3\r\n")
        t.type("my_lo\t", then="my_long_name")            # a variable
        t.type("\r", then="\n7\r\n")
        menu = len(t.output)
        t.type("h.\t", then="RATE")                       # the menu of a module's names
        t.read_until("twice(x)", since=menu)              # the menu's lines may come apart
        t.type("RATE\r", then="\n0.5\r\n")
        menu = len(t.output)
        t.type("lin\t", then="linspace(a, b, n)")         # builtins, with their call shapes
        t.read_until("linreg(X, y)", since=menu)
        t.type("space(0, 1, 3)\r", then="[0, 0.5, 1]")
        t.type("functi\t", then="function")               # a keyword, then a block
        t.type(" sq(a)\r")
        t.type("return a ^ 2\r")
        t.type("end\r")
        t.type("sq(3)\r", then="\n9\r\n")


def test_blocks_are_indented_and_history_recalls_them_whole(tmp_path):
    with Terminal(tmp_path) as t:
        t.prompt()
        t.type("for i = 0 to 1\r")
        t.type("if i > 0\r")
        t.type('print("big", i)\r')
        t.type("else\r")
        t.type('print("small", i)\r')
        t.type("end\r")
        t.type("end\r", then="big 1")
        assert t.text.count("small 0") == 1
        t.type("\x1b[A", then="..     end")      # the up arrow brings the whole block back
        t.type("\r", then=lambda text: text.count("big 1") == 2)
        assert t.text.count("small 0") == 2
    history = (tmp_path / ".lamina_history").read_text()
    block = "+for i = 0 to 1\n+    if i > 0\n+        print(\"big\", i)\n+    else\n+        print(\"small\", i)\n+    end\n+end\n"
    assert block in history and history.count("+for i = 0 to 1") == 1


def test_question_mark_shows_help_rendered(tmp_path):
    (tmp_path / "helpers.lam").write_text(HELPERS)
    with Terminal(tmp_path) as t:
        t.prompt()
        page = t.type("?linspace\r", then="Gradients")
        start = page.index("?linspace")
        shown = page[start:]
        assert "linspace(a, b, n)" in shown and "n evenly spaced numbers" in shown
        assert "```" not in shown and "`linspace" not in shown and "| Code |" not in shown
        t.type("import helpers as h\r")
        assert "function h.twice(x)\r\n  Twice x." in t.type("?h.twice\r", then="Twice x.")
        assert "x: a number" in t.type("x = 3\r?x\r", then="x: a number")
        t.type("?lenght\r", then="NameError: There is no builtin named 'lenght'. Did you mean length")
        t.type("help(length)\r", then="# length")                 # help() takes the function too


def test_lamina_help_renders_on_a_terminal_and_pages_what_is_long(tmp_path):
    paged = tmp_path / "paged.txt"
    t = Terminal(tmp_path, "help", "fit", rows=24, env={"PAGER": f"cat > {paged}"})
    assert t.close() == 0
    page = ANSI.sub("", paged.read_text())
    assert "fit(model, X, Y, epochs = n)" in page and "```" not in page and "Ctrl-C" in page
    assert "\x1b[" in paged.read_text()                     # styled, for less -R
    assert "fit(model, X, Y, epochs = n)" not in t.text      # the pager showed it, not the terminal
    t = Terminal(tmp_path, "help", "length", rows=200, env={"PAGER": f"cat > {tmp_path / 'not_paged.txt'}"})
    assert t.close() == 0
    assert "Counts the elements" in t.text and not (tmp_path / "not_paged.txt").exists()
    t = Terminal(tmp_path, "help", rows=200)
    assert t.close() == 0
    assert re.search(r"• Core: append, args", t.text)        # the categories, as a list


def test_lamina_help_into_a_closed_pipe_is_quiet():
    proc = subprocess.Popen([sys.executable, "-m", "lamina", "help", "fit"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    proc.stdout.close()                 # as `| head` does once it has its lines
    assert proc.stderr.read() == b"" and proc.wait(timeout=60) == 0
    r = subprocess.run(f"{sys.executable} -m lamina help fit | head -n 3", shell=True, capture_output=True,
                       text=True, timeout=60)
    assert (r.returncode, r.stdout, r.stderr) == (0, "# fit\n\nBuiltin index · Models\n", "")


def test_ctrl_c_during_fit_at_the_prompt_keeps_the_model_and_the_session(tmp_path):
    """Ctrl-C typed while fit trains (the terminal sends SIGINT): the entry goes on with the
    model trained so far; Ctrl-C in a loop then interrupts the entry as always."""
    with Terminal(tmp_path) as t:
        t.prompt()
        t.type("seed(0)\rX = randn(4000, 20)\rY = X * randn(20, 1)\r")
        t.type('net = input(20) |> dense(64, activation = "relu") |> dense(1) |> compile(seed = 1)\r')
        t.type("net = net.fit(X, Y, epochs = 100000, batch_size = 4, verbose = 2); "
               "print(net.interrupted, net.epochs == length(net.loss_history))\r", then="epoch 2/100000",
               prompt=False)
        t.type("\x03", then="true true")
        t.prompt()
        assert "fit stopped by Ctrl-C after " in t.text
        t.type("n = 0; while true; n += 1; end\r", prompt=False)
        time.sleep(0.5)
        t.type("\x03", then="Interrupted.")
        t.prompt()
        t.type("[n > 0, net.epochs >= 2]\r", then="[true, true]")
