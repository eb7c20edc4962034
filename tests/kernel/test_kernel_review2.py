"""The kernel's is_complete_request, asked of a real kernel: a line ending in a backslash
continues on the next (as in a file), unless the backslash is in a comment; each open block
indents the next line. And a warning's place among a cell's output."""
from __future__ import annotations


def ask(kc, msg_id: str) -> dict:
    """The content of the shell reply to the request msg_id."""
    reply = kc.get_shell_msg(timeout=30)
    while reply["parent_header"].get("msg_id") != msg_id:     # a late kernel_info reply
        reply = kc.get_shell_msg(timeout=30)
    return reply["content"]


def is_complete(kc, code: str) -> dict:
    return ask(kc, kc.is_complete(code))


def test_a_trailing_backslash_makes_the_cell_incomplete(kc):
    answers = [is_complete(kc, code)["status"]
               for code in ["x = 1 + \\", "y = 10 \\", "# a note \\", "x = 1  # \\", 'print("a\\']]
    assert answers == ["incomplete", "incomplete", "complete", "complete", "invalid"]
    reply = kc.execute("x = 1 + \\\n2", reply=True, timeout=30)
    assert reply["content"]["status"] == "ok"


def test_a_warning_arrives_between_the_output_before_and_after_it(kc):
    # the kernel buffers stderr: an unflushed warning came after all of the cell's later output
    msg_id = kc.execute('print(1)\nwarn("one")\nprint(2)\nwarn("two")\nprint(3)')
    streams = []
    while True:
        msg = kc.get_iopub_msg(timeout=30)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "stream":
            streams += [(msg["content"]["name"], line) for line in msg["content"]["text"].splitlines()]
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            break
    assert [(name, line.split(" (")[0]) for name, line in streams] == [
        ("stdout", "1"), ("stderr", "warning: one"), ("stdout", "2"), ("stderr", "warning: two"),
        ("stdout", "3")]


def test_is_complete_indents_per_open_block_and_waits_for_a_block_with_an_error_to_close(kc):
    # as the prompt decides (repl/entry.py); the kernel said 4 spaces at any depth, and "invalid"
    # at once for an error inside a block still open
    codes = ["function f()\n    for i = 0 to 2", "for i = 0 to 2\n    x = )", "x = )",
             "for i = 0 to 2\n    x = )\nend"]
    answers = [(reply["status"], reply.get("indent")) for reply in (is_complete(kc, c) for c in codes)]
    assert answers == [("incomplete", " " * 8), ("incomplete", " " * 4), ("invalid", None), ("invalid", None)]
