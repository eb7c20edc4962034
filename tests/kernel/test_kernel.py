"""The kernel through Jupyter's own kernel test suite (jupyter_kernel_test), then what that
suite does not cover: state between cells, fields, warnings, figures, reports, Ctrl-C."""
from __future__ import annotations

import base64
import re
import time

import jupyter_kernel_test

from lamina.kernel.install import kernel_json


def outputs_of(msgs: list, kind: str) -> list:
    return [m["content"] for m in msgs if m["msg_type"] == kind]


class TestLaminaKernel(jupyter_kernel_test.KernelTests):
    kernel_name = "lamina"
    language_name = "lamina"
    file_extension = ".lam"

    code_hello_world = 'print("hello, world")'
    # grad's warning about a NaN gradient: a Lamina warning, on stderr
    code_stderr = "w0 = param(0.0)\ng0 = grad(sqrt(w0), wrt = w0)"
    completion_samples = [
        {"text": "linre", "matches": {"linreg"}},
        {"text": "tape_", "matches": {"tape_reset", "tape_size", "tape_limit"}},
        {"text": "elsei", "matches": {"elseif"}},
        {"text": 'print("su', "matches": set()},          # inside a string: nothing
    ]
    complete_code_samples = ["print(1)", "x = 1", "for i = 0 to 2\n    print(i)\nend for", "", "# a note"]
    incomplete_code_samples = ["for i = 0 to 2", "f(1,", "x = [1, 2", "function f(x)\n    return x",
                               "x = 1 +", "if x > 1\n    print(x)\nelse"]
    invalid_code_samples = ["x = )", "end for", "for i = 0 to 2\nend while", 'print("abc', "1 +* 2"]
    code_generate_error = 'error("boom")'
    code_execute_result = [
        {"code": "1 + 2", "result": "3"},
        {"code": "[1, 2; 3, 4] * 2", "result": "[2, 4; 6, 8]"},
        {"code": '"a" + "b"', "result": '"ab"'},
        {"code": "t = table({a = [1, 2], b = [3, 4]})\nt", "mime": "text/html"},
    ]
    code_display_data = [{"code": "plot([1, 4, 9])", "mime": "image/png"}]
    code_inspect_sample = "linreg"

    # -- beyond the standard suite ---------------------------------------------------------
    def run_cell(self, code: str):
        """Run a cell; every output it caused says so (its parent is the cell's request)."""
        self.flush_channels()
        reply, msgs = self.execute_helper(code)
        request = reply["parent_header"]["msg_id"]
        assert [m["parent_header"]["msg_id"] for m in msgs] == [request] * len(msgs)
        return reply, msgs

    def test_kernelspec(self):
        spec = kernel_json()
        assert spec["display_name"] == "Lamina" and spec["language"] == "lamina"
        assert spec["argv"][1:] == ["-m", "lamina.kernel", "-f", "{connection_file}"]
        self.flush_channels()
        self.kc.kernel_info()
        info = self.kc.get_shell_msg(timeout=10)["content"]["language_info"]
        assert info["pygments_lexer"] == "lamina" and info["codemirror_mode"] == "julia"

    def test_state_persists_and_only_the_last_expression_is_the_result(self):
        self.run_cell("function sq(v)\n    return v .^ 2\nend function\nw = param([1, 2])")
        reply, msgs = self.run_cell("loss = sum(sq(w))\nprint(loss)\ngrad(loss, wrt = w)")
        assert reply["content"]["status"] == "ok"
        assert [m["text"] for m in outputs_of(msgs, "stream")] == ["5\n"]
        results = outputs_of(msgs, "execute_result")
        assert [r["data"]["text/plain"] for r in results] == ["[2, 4]"]
        reply, msgs = self.run_cell("1\n2\nx_last = 3")             # ends with an assignment
        assert outputs_of(msgs, "execute_result") == []

    def test_completion_of_variables_and_fields(self):
        self.run_cell('rec = {alpha = 1, beta = [1, 2]}\nmyhouses_t = table({price = [1, 2], rooms = [3, 4]})')
        for text, expected in [("rec.", ["alpha", "beta"]), ("rec.b", ["beta"]),
                               ("myhouses_t.p", ["price"]), ("print(myh", ["myhouses_t"])]:
            self.kc.complete(text)
            content = self.get_non_kernel_info_reply(timeout=10)["content"]
            assert content["matches"] == expected, text
            assert content["cursor_end"] == len(text)
        self.kc.complete("lins")
        content = self.get_non_kernel_info_reply(timeout=10)["content"]
        types = content["metadata"]["_jupyter_types_experimental"]
        assert {"linspace"} <= set(content["matches"])
        assert next(t for t in types if t["text"] == "linspace")["signature"].startswith("linspace(")

    def test_inspect_shows_the_builtins_page_inside_a_call(self):
        self.kc.inspect("sum([1, 2], ", 12)
        data = self.get_non_kernel_info_reply(timeout=10)["content"]["data"]
        assert data["text/plain"].startswith("# sum\n") and "`sum(x, axis)`" in data["text/plain"]
        assert data["text/markdown"] == data["text/plain"]

    def test_error_reply_has_the_kind_message_and_the_clis_lines(self):
        reply, msgs = self.run_cell("v = [1, 2, 3]\nv[7]")
        content = reply["content"]
        assert content["status"] == "error" and content["ename"] == "IndexError"
        assert content["evalue"].startswith("Index 7 is out of range")
        assert content["traceback"][0] == f"IndexError: {content['evalue']}"
        assert content["traceback"][1].startswith("  --> <cell ") and content["traceback"][1].endswith(":2:2")
        assert content["traceback"][3:5] == ["  2 | v[7]", "    |  ^"]
        assert outputs_of(msgs, "error")[0]["traceback"] == content["traceback"]

    def test_warnings_go_to_stderr(self):
        reply, msgs = self.run_cell("w1 = param(0.0)\ng1 = grad(sqrt(w1), wrt = w1)\nprint(g1)")
        streams = outputs_of(msgs, "stream")
        assert "".join(s["text"] for s in streams if s["name"] == "stdout") == "Inf\n"
        err = "".join(s["text"] for s in streams if s["name"] == "stderr")
        assert err.startswith("warning: grad(): the loss is finite")

    def test_a_discarded_result_warns_but_the_cells_last_value_is_shown(self):
        reply, msgs = self.run_cell("v3 = [2, 1]\nsort(v3)\nsort(v3)")
        err = "".join(s["text"] for s in outputs_of(msgs, "stream") if s["name"] == "stderr")
        assert re.fullmatch(r"warning: the result of sort is discarded: sort returns a new sorted copy and "
                            r"changes nothing; write `v3 = sort\(v3\)` to keep it \(<cell \d+>:2\)\n", err), err
        assert outputs_of(msgs, "execute_result")[0]["data"]["text/plain"] == "[1, 2]"

    def test_figures_are_shown_once_at_the_end_and_savefig_still_writes(self):
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            path = f"{tmp}/f.png"
            reply, msgs = self.run_cell(f'scatter([1, 2], [3, 4])\nsavefig("{path}")\n'
                                        'hist([1, 2, 2, 3])\nprint("drawn")')
            shown = outputs_of(msgs, "display_data")
            assert len(shown) == 2                       # the saved figure, then the open one
            pngs = [base64.b64decode(d["data"]["image/png"]) for d in shown]
            assert all(p.startswith(b"\x89PNG\r\n\x1a\n") for p in pngs)
            with open(path, "rb") as f:
                assert f.read().startswith(b"\x89PNG")
            assert [m["msg_type"] for m in msgs] == ["display_data", "stream", "display_data"]
        reply, msgs = self.run_cell("print(1)")          # the figures were closed with the cell
        assert outputs_of(msgs, "display_data") == []

    def test_reports_have_html(self):
        reply, msgs = self.run_cell("fit0 = linreg([1; 2; 3; 4; 5], [2.1, 3.9, 6.2, 7.8, 10.1])\nfit0")
        data = outputs_of(msgs, "execute_result")[0]["data"]
        assert data["text/plain"].startswith("Linear regression: y ~ x0  (n = 5)")
        assert "<table" in data["text/html"] and "Coefficients" in data["text/html"]
        assert "<td style=\"text-align: left\">x0</td>" in data["text/html"]

    def test_ctrl_c_stops_the_cell_and_the_kernel_keeps_its_state(self):
        self.run_cell("kept = 42")
        self.flush_channels()
        self.kc.execute("n = 0\nwhile true\n    n = n + 1\nend while")
        time.sleep(1.0)
        self.km.interrupt_kernel()
        reply = self.get_non_kernel_info_reply(timeout=10)
        assert reply["content"]["status"] == "error" and reply["content"]["ename"] == "KeyboardInterrupt"
        reply, msgs = self.run_cell("[kept, n > 0]")
        assert outputs_of(msgs, "execute_result")[0]["data"]["text/plain"] == "[42, true]"

    def test_interrupting_the_kernel_during_fit_keeps_the_model_trained_so_far(self):
        self.flush_channels()
        self.kc.execute("seed(0)\nXi = randn(4000, 20)\nYi = Xi * randn(20, 1)\n"
                        "neti = input(20) |> dense(64, activation = \"relu\") |> dense(1) |> compile(seed = 1)\n"
                        "neti = neti.fit(Xi, Yi, epochs = 100000, batch_size = 4, verbose = 2)\n"
                        'print("kept", neti.epochs >= 2, neti.epochs == length(neti.loss_history), neti.interrupted)')
        seen = ""
        while "epoch 2/" not in seen:
            msg = self.kc.get_iopub_msg(timeout=60)
            if msg["msg_type"] == "stream" and msg["content"]["name"] == "stdout":
                seen += msg["content"]["text"]
        self.km.interrupt_kernel()
        reply = self.get_non_kernel_info_reply(timeout=60)
        assert reply["content"]["status"] == "ok"            # the cell went on after fit
        streams = {"stdout": "", "stderr": ""}
        while True:
            msg = self.kc.get_iopub_msg(timeout=10)
            if msg["msg_type"] == "stream":
                streams[msg["content"]["name"]] += msg["content"]["text"]
            if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                break
        assert (seen + streams["stdout"]).endswith("kept true true true\n")
        assert streams["stderr"].startswith("warning: fit stopped by Ctrl-C after ")

    def test_fit_draws_a_live_progress_bar(self):
        reply, msgs = self.run_cell("Xp = [0, 0; 0, 1; 1, 0; 1, 1]\nYp = [0; 1; 1; 0]\n"
                                    "netp = input(2) |> dense(1) |> compile(seed = 1)\n"
                                    "netp = netp.fit(Xp, Yp, epochs = 2, batch_size = 4)")
        assert reply["content"]["status"] == "ok"
        out = "".join(s["text"] for s in outputs_of(msgs, "stream") if s["name"] == "stdout")
        assert out.startswith("\r") and "\repoch 2/2: 100%|" in out and "8.00/8.00" in out
        assert re.search(r"loss \d\.\d+\]\n$", out)


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
