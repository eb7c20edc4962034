"""Ctrl-C while the `lamina` command is still starting (most of that time is NumPy's import):
one line, "Interrupted.", and status 130, as for an interrupt at any later moment; never a
traceback through Python's import machinery.

A real console script gets a real SIGINT at a chosen point of its start-up: a sitecustomize
module (found first on PYTHONPATH) sends the signal to its own process when the named module
starts to be imported, so each point is hit every time, however fast or slow the machine."""
from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

COMMAND = [str(pathlib.Path(sys.executable).with_name("lamina")), "-e", "print(1)"]
INTERRUPTER = '''
import os, signal, sys

class InterruptAt:
    def find_spec(self, name, path=None, target=None):
        if name == os.environ["INTERRUPT_AT"]:
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signal.SIGINT)
        return None

sys.meta_path.insert(0, InterruptAt())
'''


POINTS = ["lamina.malloc_tuning", "ctypes", "numpy", "numpy.lib", "numpy.linalg", "numpy.matrixlib"]


@pytest.mark.parametrize("module", POINTS)
def test_ctrl_c_while_starting_is_one_line_and_status_130(tmp_path, module):
    (tmp_path / "sitecustomize.py").write_text(INTERRUPTER)
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "INTERRUPT_AT": module}
    done = subprocess.run(COMMAND, capture_output=True, text=True, timeout=60, env=env)
    assert (done.returncode, done.stdout, done.stderr) == (130, "", "Interrupted.\n")


def test_those_modules_are_imported_while_the_command_starts():
    """The points above are really on the way: importing what the command imports loads them."""
    probe = "import sys; import lamina.cli; print(' '.join(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert set(POINTS) <= set(done.stdout.split())
