"""What the prompt counts as one entry and how it indents its lines (repl/entry.py), and `?name`
with piped input."""
from __future__ import annotations

import subprocess
import sys

from lamina.docs.help import help_text
from lamina.repl.entry import dedent_last_line, is_complete, next_line_indent, open_blocks


def test_blocks_are_counted_on_words_even_in_text_the_lexer_rejects():
    assert open_blocks("for i = 0 to 2\n    if i > 1") == 2
    assert open_blocks("function f(x)\n    y = [1,\n") == 1                 # an open bracket
    assert open_blocks('while true\n    s = "for if {x') == 1               # an open string
    assert open_blocks("if x > 1; print(x); end\nfor i = 0 to 1\nend for\n") == 0
    assert open_blocks("try\n    x = 1 # if for while\ncatch err\n") == 1
    assert open_blocks("end\nend\nfor x in xs") == 1                        # never below zero
    assert next_line_indent("function f(x)\n    for i = 0 to x") == " " * 8


def test_a_closing_line_moves_back_to_its_block():
    typed = "function f(x)\n    if x > 1\n        return 1\n        else"
    assert dedent_last_line(typed) == "function f(x)\n    if x > 1\n        return 1\n    else"
    assert dedent_last_line("try\n    x = 1\n    catch e") == "try\n    x = 1\ncatch e"
    assert dedent_last_line("for i = 0 to 1\n    print(i)\n    end for") == "for i = 0 to 1\n    print(i)\nend for"
    assert dedent_last_line("for i = 0 to 1\n    ending = 2") == "for i = 0 to 1\n    ending = 2"
    assert dedent_last_line("end") == "end"


def test_an_entry_is_complete_when_more_lines_would_not_change_it():
    assert is_complete("x = 1") and is_complete("") and is_complete("?mean")
    assert not is_complete("for i = 0 to 2\n    print(i)") and not is_complete("x = [1,")
    assert not is_complete("try\n    x = 1\ncatch err")
    assert is_complete("x = )")                 # an error more lines cannot fix: it runs and says so
    assert is_complete("function f(x)\n    return x\nend function")


def test_question_mark_with_piped_input():
    script = "?length\nfunction half(v)\n    # Halves v.\n    return v / 2\nend function\n?half\nr = 1\n?r\n?no_such\n? 1 + 2\n"
    r = subprocess.run([sys.executable, "-m", "lamina"], input=script, capture_output=True, text=True, timeout=60)
    assert r.stdout == help_text("length", run=False) + "\nfunction half(v)\n  Halves v.\nr: a number\n1\n"
    assert r.stderr.splitlines() == [
        "NameError: There is no builtin named 'no_such'. Did you mean nrows?",
        "SyntaxError: '?' takes a name: ?mean for a builtin's page, ?f for a function, ?h or ?h.f for a "
        "module and its members; '1 + 2' is not one."]


def test_piped_input_ending_inside_a_block_reports_it():
    # It used to drop the unfinished block without a word and exit 0.
    r = subprocess.run([sys.executable, "-m", "lamina"], input="print(1)\nfor i = 0 to 1\n    print(i)\n",
                       capture_output=True, text=True, timeout=60)
    assert (r.returncode, r.stdout) == (2, "1\n")
    assert r.stderr.splitlines()[0] == "SyntaxError: The 'for' block opened at line 1 is never closed; expect 'end for'."


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
