"""Review 3 of the command line: -e given twice, `lamina -` (the program on stdin), a closed
output while lamina starts, and Ctrl-C before the program runs."""
from __future__ import annotations

import os
import subprocess
import sys

from tests.cli.test_cli import LAMINA, run


def test_e_given_twice_is_refused_not_half_run():
    # The first snippet used to be dropped: only print(2) ran, with status 0.
    r = run("-e", "print(1)", "-e", "print(2)")
    assert (r.returncode, r.stdout) == (2, "")
    assert "lamina: error: give -e once; put the statements in one CODE" in r.stderr
    r = run("--sandbox", "-e", "print(1)", "-e", "print(2)")
    assert (r.returncode, r.stdout) == (2, "")


def test_dash_runs_the_program_read_from_stdin():
    # It used to say "lamina: cannot read -: No such file or directory".
    r = run("-", "a", "-e", "x", "--allow-read", "y", stdin="\ufeffprint(args())\r\nprint(2)")
    assert (r.returncode, r.stdout, r.stderr) == (0, '["a", "-e", "x", "--allow-read", "y"]\n2\n', "")
    r = run("-", stdin="print(1)\nx = y\n")
    assert (r.returncode, r.stdout) == (1, "1\n")
    assert r.stderr.splitlines()[:2] == ["NameError: Undefined variable 'y'.", "  --> <stdin>:2:5"]
    bad = subprocess.run(LAMINA + ["-"], input=b"\xff\n", capture_output=True, timeout=60)
    assert (bad.returncode, bad.stderr) == (2, b"lamina: stdin is not UTF-8 text\n")


def test_a_closed_output_before_the_program_runs_ends_quietly():
    # `lamina --version | true`: a BrokenPipeError traceback from argparse's action.
    read, write = os.pipe()
    os.close(read)                    # nobody will ever read: every write is EPIPE
    try:
        r = subprocess.run(LAMINA + ["--version"], stdout=write, stderr=subprocess.PIPE, text=True, timeout=60)
    finally:
        os.close(write)
    assert (r.returncode, r.stderr) == (0, "")


def test_ctrl_c_while_lamina_starts_is_130_without_a_traceback():
    # A KeyboardInterrupt while the interpreter is imported (the first part of start-up),
    # made certain by an import hook: it used to end in a Python traceback.
    code = ("import sys\n"
            "class Stop:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name == 'lamina.interpreter':\n"
            "            raise KeyboardInterrupt\n"
            "sys.meta_path.insert(0, Stop())\n"
            "from lamina.cli import entry\n"
            "sys.argv = ['lamina', '-e', 'print(1)']\n"
            "entry()\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (r.returncode, r.stdout, r.stderr) == (130, "", "Interrupted.\n")


def test_a_character_the_output_cannot_encode_is_escaped_not_an_internal_error():
    # With an ASCII or Latin-1 output (PYTHONIOENCODING, a Windows code page) print("€")
    # was "InternalError: UnicodeEncodeError"; it is escaped, as Python escapes it on stderr.
    r = run("-e", 'print("aü€", 1)\nprint(2)', env={"PYTHONIOENCODING": "ascii"})
    assert (r.returncode, r.stdout, r.stderr) == (0, "a\\xfc\\u20ac 1\n2\n", "")


def test_a_permission_flag_expands_a_tilde_the_shell_leaves(tmp_path):
    # The shell expands `--allow-read ~/data` but not `--allow-read=~/data` (the documented
    # form), which used to allow only a folder named "~" inside the current one.
    data = tmp_path / "home" / "data"
    data.mkdir(parents=True)
    (data / "x.csv").write_text("k\n5\n")
    r = subprocess.run(LAMINA + ["--allow-read=~/data", "-e", f'print(read_csv("{data}/x.csv").k)'],
                       cwd=tmp_path, capture_output=True, text=True, timeout=60,
                       env={**os.environ, "HOME": str(tmp_path / "home")})
    assert (r.returncode, r.stdout, r.stderr) == (0, "[5]\n", "")


def test_a_full_disk_under_version_or_help_is_said_plainly():
    # --version was a Python traceback, `help NAME` an InternalError calling it a bug in Lamina.
    for args in (["--version"], ["help", "abs"]):
        with open("/dev/full", "w") as full:
            r = subprocess.run(LAMINA + args, stdout=full, stderr=subprocess.PIPE, text=True, timeout=60)
        assert (r.returncode, r.stderr) == (1, "lamina: cannot write the output: No space left on device\n"), args


def test_a_closed_input_reads_as_empty():
    # `lamina <&-` and `lamina - <&-`: Python has no sys.stdin then, and both ended in an
    # AttributeError traceback.
    for args in ([], ["-"]):
        r = subprocess.run(LAMINA + args, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                           timeout=60, preexec_fn=lambda: os.close(0))
        assert (r.returncode, r.stdout, r.stderr) == (0, "", ""), args
