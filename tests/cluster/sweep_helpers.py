"""Running Lamina programs for the sweep tests, in this process or as a `lamina` command."""
from __future__ import annotations

import contextlib
import io
import os
import pathlib
import subprocess
import sys

from lamina.interpreter import Interpreter

ROOT = pathlib.Path(__file__).parents[2]

# A training function whose numbers depend on the configuration, its seed and data read at the
# top level: serial and parallel runs must agree on every one of them.
PROGRAM = """\
import helpers
data = [1.5, 2.5, 4.0]
function train(config)
    if config.lr > 1
        error("lr {config.lr} is too large", kind = "ValueError")
    end if
    noise = randn(3)
    return {loss = helpers.scaled(sum((data - config.lr) .^ 2), config.units), draw = noise[0]}
end function
"""
HELPERS = "function scaled(x, k)\n    return x / k\nend function\n"


def run(code: str, name: str = "<test>", interp: Interpreter | None = None, directory: str | None = None):
    """(what the program printed, its interpreter)."""
    interp = interp or Interpreter(directory)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        interp.run(code, name)
    return out.getvalue(), interp


def write_program(folder: pathlib.Path, body: str) -> pathlib.Path:
    (folder / "helpers.lam").write_text(HELPERS)
    path = folder / "prog.lam"
    path.write_text(PROGRAM + body)
    return path


def lamina(args: list[str], cwd, env: dict | None = None, **kwargs):
    return subprocess.run([sys.executable, "-m", "lamina", *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, **kwargs)
