"""A real kernel, asked as jupyter_client asks (a kernel of this module's own, so its history is
this module's cells): its history, user expressions, and an interrupt while a figure is drawn;
and `?r.zz` at the prompt (repl/help.py), which says what the run says about the missing field."""
from __future__ import annotations

import subprocess
import sys
import time

from jupyter_client.manager import start_new_kernel
from test_kernel import ask


def history(kc, **request) -> list:
    content = ask(kc, kc.history(raw=True, **request))
    assert content["status"] == "ok"
    return content["history"]


def test_history_answers_the_cells_run_in_this_kernel(kc):
    for code in ["x = 1", "x + 1", 'error("no")']:
        kc.execute(code, reply=True, timeout=30)
    kc.execute("y = 5", silent=True, reply=True, timeout=30)            # neither counted nor kept
    kc.execute("z = 5", store_history=False, reply=True, timeout=30)    # counted (4), not kept
    kc.execute("x + 1", reply=True, timeout=30)
    assert history(kc, hist_access_type="tail", n=10, output=False) == [
        [1, 1, "x = 1"], [1, 2, "x + 1"], [1, 3, 'error("no")'], [1, 5, "x + 1"]]
    assert history(kc, hist_access_type="tail", n=2, output=True) == [
        [1, 3, ['error("no")', None]], [1, 5, ["x + 1", None]]]
    assert history(kc, hist_access_type="range", session=0, start=2, stop=4, output=False) == [
        [1, 2, "x + 1"], [1, 3, 'error("no")']]
    assert history(kc, hist_access_type="search", pattern="x*", unique=True, output=False) == [
        [1, 1, "x = 1"], [1, 5, "x + 1"]]


def prompt(entries: str) -> str:
    """What the REPL prints (stdout and stderr) for entries piped into it."""
    done = subprocess.run([sys.executable, "-m", "lamina"], input=entries, capture_output=True,
                          text=True, timeout=60)
    return done.stdout + done.stderr


def test_help_on_a_missing_field_says_the_field_is_missing_and_lists_the_fields():
    out = prompt('r = {alpha = {b = 1}, beta = 2}\n?r.alpa\n?r.alpha.c\n?r.beta.c\n?rr.alpha\n'
                 't = table({a = [1]})\n?t.zz\n?mean.x\n')
    assert out.splitlines() == [
        "NameError: Record has no field 'alpa'; its fields are alpha, beta.",
        "NameError: Record has no field 'c'; its fields are b.",
        "TypeError: Cannot read field 'c' of a number; only records and library objects have fields.",
        "NameError: Undefined variable 'rr'. Did you mean 'r' or 'corr'?",
        "NameError: The table has no column 'zz'; its columns are a.",
        "TypeError: Cannot read field 'x' of a function; only records and library objects have fields.",
    ]


def test_user_expressions_are_answered_after_a_cell_that_succeeds(kc):
    reply = kc.execute("u = 3", user_expressions={"double": "u * 2", "name": '"a" + "b"', "bad": "uu"},
                       reply=True, timeout=30)["content"]
    assert reply["status"] == "ok"
    assert reply["user_expressions"] == {
        "double": {"status": "ok", "data": {"text/plain": "6"}, "metadata": {}},
        "name": {"status": "ok", "data": {"text/plain": '"ab"'}, "metadata": {}},
        "bad": {"status": "error", "ename": "NameError", "evalue": "Undefined variable 'uu'. Did you mean 'u'?",
                "traceback": ["NameError: Undefined variable 'uu'. Did you mean 'u'?", "  --> <expression>:1:1",
                              "    |", "  1 | uu", "    | ^^"]}}
    reply = kc.execute('error("no")', user_expressions={"double": "u * 2"}, reply=True, timeout=30)["content"]
    assert reply["status"] == "error" and reply["user_expressions"] == {}


def test_interrupting_while_the_cells_figure_is_drawn_still_answers_the_cell():
    # the interrupt reached the drawing after the cell's code: no execute_reply ever came
    # The call takes about a tenth of the cell, its PNG the rest: timed once here (after a small
    # figure has paid matplotlib's start-up), so the interrupt lands in the drawing on a fast
    # machine as on a slow one.
    km, kc = start_new_kernel(kernel_name="lamina")
    try:
        kc.execute("x = rand(2500000)\ny = rand(2500000)\nscatter([1], [2])", reply=True, timeout=60)
        start = time.monotonic()
        kc.execute("scatter(x, y)", reply=True, timeout=120)
        whole = time.monotonic() - start
        msg_id = kc.execute("scatter(x, y)")
        time.sleep(0.45 * whole)
        km.interrupt_kernel()
        reply = ask(kc, msg_id)
        assert (reply["status"], reply["ename"], reply["traceback"]) == ("error", "KeyboardInterrupt",
                                                                          ["Interrupted."])
        after = kc.execute("length(x)", reply=True, timeout=30)["content"]
        assert after["status"] == "ok"
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
