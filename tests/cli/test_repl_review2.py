"""The prompt: a line ending in a backslash continues on the next."""
from __future__ import annotations

import subprocess
import sys

from lamina.repl.entry import is_complete

LAMINA = [sys.executable, "-m", "lamina"]


def test_a_trailing_backslash_continues_the_entry_at_the_prompt():
    script = 'x = 1 + \\\n2\nx\ny = 10 \\\n- 4\ny\n# a note \\\nz = 3\nz\n'
    r = subprocess.run(LAMINA, input=script, capture_output=True, text=True, timeout=60)
    assert (r.stdout, r.stderr, r.returncode) == ("3\n6\n3\n", "", 0)


def test_is_complete_reads_a_trailing_backslash_as_a_line_break():
    assert not is_complete("x = 1 + \\") and not is_complete("y = 10 \\")
    assert is_complete("# a note \\") and is_complete("x = 1  # \\")


def test_an_error_inside_a_block_is_reported_once_when_the_block_ends():
    script = 'for i = 1 to 2\n  x = )\n  print(i)\nend for\nprint("after")\n'
    r = subprocess.run(LAMINA, input=script, capture_output=True, text=True, timeout=60)
    assert r.stdout == "after\n"
    assert r.stderr == ("SyntaxError: ')' has no matching opening bracket.\n  --> <repl>:2:7\n    |\n"
                        "  2 |   x = )\n    |       ^\n")
    assert not is_complete("for i = 1 to 2\n  x = )") and is_complete("for i = 1 to 2\n  x = )\nend for")
