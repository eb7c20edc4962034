"""Errors rendered when the address space is exhausted (`ulimit -v`): the program holds
every byte it could get, so the error path can import nothing (an import reads and maps a
file) and must still print the Lamina error, never a Python traceback."""
from __future__ import annotations

import os
import resource
import subprocess
import sys

LIMIT = 1 << 30      # 1 GiB of address space: a lamina process starts in about 200 MB of it
# Holds arrays of 20,000 numbers until the next one does not fit, leaving less than one array free.
FILL = """\
held = []
while true
    held = append(held, zeros(20000))
end while
"""


def run_limited(program: str, tmp_path) -> subprocess.CompletedProcess:
    path = tmp_path / "prog.lam"
    path.write_text(program, encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "lamina", str(path)], capture_output=True, text=True, timeout=120,
        # one BLAS thread: each thread's buffers take address space, so the start-up size
        # would depend on the machine's cores
        env={**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"},
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT)))


def test_running_out_of_memory_is_a_lamina_error(tmp_path):
    r = run_limited(FILL, tmp_path)
    assert r.returncode == 1, r.stderr
    assert r.stderr.startswith("ValueError: The result is too large to hold in memory (Unable to allocate ")
    assert r.stderr.endswith(" |     held = append(held, zeros(20000))\n    |                         ^^^^^\n")
    assert "Traceback" not in r.stderr and "InternalError" not in r.stderr


def test_a_name_error_after_memory_runs_out_has_its_suggestion_and_caret(tmp_path):
    """The suggestion reads every builtin's name (none of their modules may be imported for
    it), and the caret under a line with wide characters measures them (unicodedata)."""
    program = f"try\n{FILL}catch err\n    print(err.kind)\nend try\nprint(\"日本\", hel)\n"
    r = run_limited(program, tmp_path)
    assert (r.returncode, r.stdout) == (1, "ValueError\n"), r.stderr
    assert r.stderr == (
        "NameError: Undefined variable 'hel'. Did you mean 'help' or 'held'?\n"
        f"  --> {tmp_path / 'prog.lam'}:9:13\n"
        "    |\n"
        "  9 | print(\"日本\", hel)\n"
        "    |               ^^^\n")
