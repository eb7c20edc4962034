"""The language server through a real client: `lamina lsp` as a subprocess, spoken to in
JSON-RPC over its stdin and stdout, as an editor does."""
from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading

import pytest

URI = "file:///work/example.lam"
TIMEOUT = 30


class Client:
    """A minimal LSP client: requests wait for their response; notifications are queued."""

    def __init__(self):
        self.proc = subprocess.Popen([sys.executable, "-m", "lamina", "lsp"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     env={**os.environ, "PYTHONUNBUFFERED": "1"})
        self.ids = 0
        self.responses: dict[int, queue.Queue] = {}
        self.notifications: queue.Queue = queue.Queue()
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        out = self.proc.stdout
        while True:
            headers = {}
            while True:
                line = out.readline()
                if not line:
                    return
                line = line.decode("ascii").strip()
                if not line:
                    break
                key, _, value = line.partition(":")
                headers[key.strip().lower()] = value.strip()
            message = json.loads(out.read(int(headers["content-length"])))
            if "id" in message and "method" not in message:
                self.responses.setdefault(message["id"], queue.Queue()).put(message)
            elif "method" in message:
                self.notifications.put(message)

    def send(self, message: dict):
        self.send_bytes(json.dumps({"jsonrpc": "2.0", **message}).encode())

    def send_bytes(self, body: bytes):
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def response(self, id_) -> dict:
        """The next response with this id (None: a response to a message whose id is unknown)."""
        return self.responses.setdefault(id_, queue.Queue()).get(timeout=TIMEOUT)

    def request(self, method: str, params: dict):
        self.ids += 1
        box = self.responses.setdefault(self.ids, queue.Queue())
        self.send({"id": self.ids, "method": method, "params": params})
        message = box.get(timeout=TIMEOUT)
        assert "error" not in message, message
        return message["result"]

    def notify(self, method: str, params: dict):
        self.send({"method": method, "params": params})

    def diagnostics(self) -> list[dict]:
        """The next diagnostics published."""
        while True:
            message = self.notifications.get(timeout=TIMEOUT)
            if message["method"] == "textDocument/publishDiagnostics":
                return message["params"]["diagnostics"]

    def close(self):
        self.request("shutdown", None)
        self.notify("exit", None)
        self.proc.wait(timeout=TIMEOUT)


@pytest.fixture(scope="module")
def client():
    c = Client()
    result = c.request("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
    caps = c.capabilities = result["capabilities"]
    assert caps["hoverProvider"] and caps["definitionProvider"] and caps["documentSymbolProvider"]
    assert caps["completionProvider"]["triggerCharacters"] == ["."]
    c.notify("initialized", {})
    yield c
    c.close()
    assert c.proc.returncode == 0


VERSION = [0]


def open_doc(client, text: str) -> list[dict]:
    VERSION[0] += 1
    if VERSION[0] == 1:
        client.notify("textDocument/didOpen", {"textDocument": {
            "uri": URI, "languageId": "lamina", "version": 1, "text": text}})
    else:
        client.notify("textDocument/didChange", {"textDocument": {"uri": URI, "version": VERSION[0]},
                                                 "contentChanges": [{"text": text}]})
    return client.diagnostics()


def at(line: int, character: int) -> dict:
    return {"textDocument": {"uri": URI}, "position": {"line": line, "character": character}}


def rng(line: int, start: int, end: int) -> dict:
    return {"start": {"line": line, "character": start}, "end": {"line": line, "character": end}}


PROGRAM = """\
# Scale a value.
function scale(v, by = 2)
    return v * by
end function
settings = {rate = 0.1, steps = 10}
total = scale(3, by = settings.rate)
print(total)
"""


def test_diagnostics_appear_on_open_and_change_and_clear_when_fixed(client):
    assert open_doc(client, "for i = 0 to 3\n    print(i)\nend while\n") == [{
        "range": rng(2, 4, 9), "severity": 1, "code": "SyntaxError", "source": "lamina",
        "message": "'end while' at line 3 closes the 'for' block opened at line 1; expect 'end for'."}]
    found = open_doc(client, "x = 1\nprint(x + y, sum([1], 0, 1), mean([1], axes = 0))\n")
    assert [(d["range"], d["code"], d["message"]) for d in found] == [
        (rng(1, 10, 11), "NameError", "Undefined variable 'y'."),
        (rng(1, 13, 16), "TypeError", "'sum' takes from 1 to 2 arguments but 3 were given. "
                                      "Call shapes: sum(x), sum(x, axis), sum(x, axis = [j, k]), sum(x, skipnan = true)."),
        (rng(1, 39, 43), "TypeError", "'mean' got an unexpected keyword argument 'axes'. Did you mean "
                                      "'axis'? Call shapes: mean(x), mean(x, axis), "
                                      "mean(x, axis = [j, k]), mean(x, skipnan = true)."),
    ]
    assert open_doc(client, 'print("unclosed)\n')[0]["message"].startswith("This string is never closed")
    assert open_doc(client, PROGRAM) == []


def test_hover_shows_a_builtins_page_and_a_functions_signature(client):
    open_doc(client, PROGRAM)
    page = client.request("textDocument/hover", at(6, 2))["contents"]
    assert page["kind"] == "markdown" and page["value"].startswith("# print\n")
    assert "`print(a, b, ...)`" in page["value"]
    own = client.request("textDocument/hover", at(5, 10))["contents"]["value"]
    assert own == "```lamina\nfunction scale(v, by = 2)\n```\n\nScale a value."
    assert client.request("textDocument/hover", at(2, 13)) is None          # `*`: nothing to show
    assert client.request("textDocument/hover", at(2, 11))["contents"]["value"].endswith("parameter, line 2")


def test_completion_offers_builtins_variables_functions_fields_and_keywords(client):
    open_doc(client, PROGRAM + "sca\nsettings.\nwhi\n")
    items = client.request("textDocument/completion", at(7, 3))["items"]
    assert [(i["label"], i["kind"]) for i in items] == [("scale", 3), ("scatter", 3)]
    assert items[0]["detail"] == "scale(v, by = 2)" and items[1]["detail"].startswith("scatter(x, y)")
    fields = client.request("textDocument/completion", at(8, 9))["items"]
    assert [i["label"] for i in fields] == ["rate", "steps"]
    assert [i["label"] for i in client.request("textDocument/completion", at(9, 3))["items"]] == ["while"]
    builtins = client.request("textDocument/completion", {**at(6, 3)})["items"]
    assert [i["label"] for i in builtins] == ["print", "print_options"]
    assert builtins[0]["detail"] == "print(a, b, ...)"


def test_go_to_definition_of_a_function_a_variable_and_a_parameter(client):
    open_doc(client, PROGRAM)
    assert client.request("textDocument/definition", at(5, 10)) == {"uri": URI, "range": rng(1, 9, 14)}
    assert client.request("textDocument/definition", at(6, 7)) == {"uri": URI, "range": rng(5, 0, 5)}
    assert client.request("textDocument/definition", at(2, 16)) == {"uri": URI, "range": rng(1, 18, 20)}
    assert client.request("textDocument/definition", at(6, 2)) is None          # print: a builtin


def test_document_symbols_are_the_functions_and_top_level_variables(client):
    open_doc(client, PROGRAM)
    found = client.request("textDocument/documentSymbol", {"textDocument": {"uri": URI}})
    assert [(s["name"], s["kind"], s.get("detail")) for s in found] == [
        ("scale", 12, "(v, by = 2)"), ("settings", 13, None), ("total", 13, None)]


def test_signature_help_inside_a_call(client):
    open_doc(client, "x = sum([1, 2; 3, 4], \n")
    helped = client.request("textDocument/signatureHelp", at(0, 22))
    assert [s["label"] for s in helped["signatures"]] == ["sum(x)", "sum(x, axis)", "sum(x, axis = [j, k])",
                                                          "sum(x, skipnan = true)"]
    assert helped["activeSignature"] == 1 and helped["activeParameter"] == 1
    assert [p["label"] for p in helped["signatures"][1]["parameters"]] == ["x", "axis"]
    open_doc(client, PROGRAM + "scale(1, by = ")
    helped = client.request("textDocument/signatureHelp", at(7, 14))
    assert [s["label"] for s in helped["signatures"]] == ["scale(v, by = 2)"]
    assert helped["activeParameter"] == 1
    open_doc(client, "y = no_such_function(1, ")
    assert client.request("textDocument/signatureHelp", at(0, 24)) is None


def test_the_server_keeps_running_after_a_document_it_cannot_parse(client):
    assert open_doc(client, "((((((((((") != []
    assert open_doc(client, PROGRAM) == []


HELPERS = """\
# Helpers for the tests.

RATE = 0.1

# Twice x.
function twice(x, by = 2)
    return by * x
end function
"""
MAIN = """\
import helpers as h
try
    y = h.twice(3)
catch err
    print(err.message)
end try
total = 0
total += y
print(h.RATE, total, h.nope)
"""


def test_modules_try_catch_and_compound_assignment_in_a_real_folder(client, tmp_path):
    """A document on disk imports the module beside it: the module's names complete after
    `h.`, its functions show their page and signature, go-to-definition opens its file."""
    (tmp_path / "helpers.lam").write_text(HELPERS)
    uri = (tmp_path / "main.lam").as_uri()
    module_uri = (tmp_path / "helpers.lam").resolve().as_uri()
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "lamina", "version": 1,
                                                            "text": MAIN}})
    found = client.diagnostics()
    assert [(d["range"], d["code"], d["message"]) for d in found] == [
        (rng(8, 23, 27), "NameError", "The module helpers has no 'nope'. It defines RATE, twice.")]

    def at_(line, character):
        return {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}
    assert client.request("textDocument/definition", at_(2, 8)) == {
        "uri": module_uri, "range": rng(0, 0, 0)}                           # h: the module's file
    assert client.request("textDocument/definition", at_(0, 18)) == {"uri": module_uri, "range": rng(0, 0, 0)}
    assert client.request("textDocument/definition", at_(2, 11)) == {
        "uri": module_uri, "range": rng(5, 9, 14)}                          # h.twice: its function
    assert client.request("textDocument/definition", at_(4, 11)) == {"uri": uri, "range": rng(3, 6, 9)}   # err
    assert client.request("textDocument/definition", at_(7, 9)) == {"uri": uri, "range": rng(2, 4, 5)}    # y
    hover = client.request("textDocument/hover", at_(2, 12))["contents"]["value"]
    assert hover == "```lamina\nfunction twice(x, by = 2)\n```\n\nTwice x."
    module = client.request("textDocument/hover", at_(0, 18))["contents"]["value"]
    assert module == f"```lamina\nimport helpers as h\n```\n\nmodule {tmp_path / 'helpers.lam'}\n\nHelpers for the tests."
    outline = client.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
    assert [(o["name"], o["kind"]) for o in outline] == [("h", 2), ("y", 13), ("err", 13), ("total", 13)]
    helped = client.request("textDocument/signatureHelp", at_(2, 16))
    assert [s["label"] for s in helped["signatures"]] == ["twice(x, by = 2)"]
    client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                             "contentChanges": [{"text": MAIN + "h.\n"}]})
    assert [d["message"] for d in client.diagnostics()] == [
        "Expect a field name after '.'. Found the end of the line.",
        "The module helpers has no 'nope'. It defines RATE, twice."]
    items = client.request("textDocument/completion", at_(9, 2))["items"]    # from the last version that parsed
    assert [(i["label"], i["kind"], i.get("detail")) for i in items] == [("RATE", 6, "variable"),
                                                                       ("twice", 3, "twice(x, by = 2)")]
    client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    assert client.diagnostics() == []


@pytest.mark.parametrize("terms", [500, 2000])
def test_a_long_flat_expression_is_analysed(client, terms):
    """`1 + 1 + ...` is a tree as deep as it is long; its walk must not run out of recursion."""
    found = open_doc(client, "x = " + " + ".join(["1"] * terms) + "\nprint(zz)\n")
    assert [(d["range"], d["message"]) for d in found] == [(rng(1, 6, 8), "Undefined variable 'zz'.")]


SHADOWED = """\
x = 1
function f(x)
    return x
end function
function g(v)
    return v
end function
function k(v)
    return v
end function
"""
LOCALS = """\
zqtop = 1
function f(zqalpha)
    zqaleph = 2
    return zq
end function
function g(b)
    return zq
end function
"""


def test_hover_and_completion_see_the_names_of_the_scope_at_the_cursor(client):
    open_doc(client, SHADOWED)
    assert client.request("textDocument/definition", at(2, 11)) == {"uri": URI, "range": rng(1, 11, 12)}
    hover = client.request("textDocument/hover", at(2, 11))["contents"]["value"]
    assert hover == "```lamina\nfunction f(x)\n```\n\nparameter, line 2"
    hover = client.request("textDocument/hover", at(8, 11))["contents"]["value"]
    assert hover == "```lamina\nfunction k(v)\n```\n\nparameter, line 8"
    open_doc(client, LOCALS)

    def labels(line, character):
        return [i["label"] for i in client.request("textDocument/completion", at(line, character))["items"]]
    assert labels(3, 13) == ["zqaleph", "zqalpha", "zqtop"]
    assert labels(6, 13) == ["zqtop"]                      # not f's locals


def test_go_to_definition_in_a_module_counts_in_the_negotiated_encoding(tmp_path):
    (tmp_path / "emo.lam").write_text('s = "😀😀"; val = 1\n', encoding="utf-8")
    uri = (tmp_path / "main.lam").as_uri()
    for offered, chosen, start in [(["utf-8", "utf-16", "utf-32"], "utf-8", 16), (["utf-32"], "utf-32", 10),
                                   (None, "utf-16", 12)]:
        c = Client()
        try:
            general = {"general": {"positionEncodings": offered}} if offered else {}
            result = c.request("initialize", {"processId": None, "rootUri": None, "capabilities": general})
            assert result["capabilities"]["positionEncoding"] == chosen
            c.notify("initialized", {})
            c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "lamina", "version": 1,
                                                                "text": "import emo\nw = emo.val\n"}})
            assert c.diagnostics() == []
            found = c.request("textDocument/definition", {"textDocument": {"uri": uri},
                                                          "position": {"line": 1, "character": 9}})
            assert found == {"uri": (tmp_path / "emo.lam").resolve().as_uri(), "range": rng(0, start, start + 3)}
        finally:
            c.close()


def test_lines_end_only_at_the_protocols_line_terminators(client):
    """LSP's lines end at \\n, \\r\\n and \\r, not at the other separators of str.splitlines."""
    assert client.capabilities["textDocumentSync"]["change"] == 1     # whole texts: pygls splits changes by splitlines
    found = open_doc(client, "# note\u2028more\nvalue = 1\nprint(yy)\n")
    assert [d["range"] for d in found] == [rng(2, 6, 8)]
    hover = client.request("textDocument/hover", at(1, 1))["contents"]["value"]
    assert hover == "```lamina\nvalue = 1\n```\n\nvariable, line 2"
    assert client.request("textDocument/definition", at(1, 1)) == {"uri": URI, "range": rng(1, 0, 5)}
    assert [d["range"] for d in open_doc(client, "# a\x0cb\nprint(yy)\n")] == [rng(1, 6, 8)]
    assert client.request("textDocument/hover", at(1, 2))["contents"]["value"].startswith("# print\n")
    assert open_doc(client, "x = 1\rprint(x)\r") == []                # read as the command line reads it
    found = open_doc(client, "x = 1\rprint(y)\r\nz = 2\n")
    assert [(d["range"], d["message"]) for d in found] == [(rng(1, 6, 7), "Undefined variable 'y'.")]
    assert client.request("textDocument/definition", at(2, 0)) == {"uri": URI, "range": rng(2, 0, 1)}


def test_hover_shows_nothing_for_a_word_in_a_comment_or_a_string(client):
    open_doc(client, '# sum of it\ns = "mean"\n')
    assert client.request("textDocument/hover", at(0, 3)) is None
    assert client.request("textDocument/hover", at(1, 6)) is None
    assert client.request("textDocument/hover", at(1, 0))["contents"]["value"].endswith("variable, line 2")


def test_requests_on_a_document_not_open_find_nothing(client, tmp_path):
    uri = (tmp_path / "gone.lam").as_uri()
    where = {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 2}}
    for opened in (False, True):
        if opened:
            client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "lamina",
                                                                    "version": 1, "text": "print(1)\n"}})
            assert client.diagnostics() == []
            assert client.request("textDocument/hover", where) is not None
            client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
            assert client.diagnostics() == []
        assert client.request("textDocument/hover", where) is None
        assert client.request("textDocument/completion", where)["items"] == []
        assert client.request("textDocument/definition", where) is None
        assert client.request("textDocument/signatureHelp", where) is None
        assert client.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}}) == []


def test_a_byte_order_mark_is_the_first_character_of_the_client_text(client):
    found = open_doc(client, "\ufeffprint(yy)\nx = 1\n")
    assert [d["range"] for d in found] == [rng(0, 7, 9)]
    assert client.request("textDocument/hover", at(0, 2))["contents"]["value"].startswith("# print\n")
    open_doc(client, "\ufeffx = 1\nprint(x)\n")
    assert client.request("textDocument/definition", at(1, 6)) == {"uri": URI, "range": rng(0, 1, 2)}
    assert client.request("textDocument/hover", at(0, 1))["contents"]["value"].endswith("variable, line 1")


def test_a_burst_of_changes_is_analysed_once_and_a_request_sees_the_latest_text(client):
    # every keystroke was analysed in turn: seconds each on a long file, the diagnostics lagging
    open_doc(client, PROGRAM)
    first = VERSION[0] + 1
    for k in range(30):
        VERSION[0] += 1
        client.notify("textDocument/didChange", {"textDocument": {"uri": URI, "version": VERSION[0]},
                                                 "contentChanges": [{"text": f"x = y{k}\n"}]})
    while True:
        message = client.notifications.get(timeout=TIMEOUT)
        if message["method"] == "textDocument/publishDiagnostics":
            break
    assert message["params"]["version"] > first
    assert [d["message"] for d in message["params"]["diagnostics"]] == ["Undefined variable 'y29'."]
    VERSION[0] += 1
    client.notify("textDocument/didChange", {"textDocument": {"uri": URI, "version": VERSION[0]},
                                             "contentChanges": [{"text": PROGRAM.replace("scale", "grow")}]})
    own = client.request("textDocument/hover", at(5, 10))["contents"]["value"]
    assert own == "```lamina\nfunction grow(v, by = 2)\n```\n\nScale a value."
    assert client.diagnostics() == []


def test_one_syntax_error_does_not_hide_the_others_nor_the_problems_of_the_rest(client):
    found = open_doc(client, "x = = 1\ny = undefined_a\nfunction f(a b)\n    return a + undefined_b\nend function\n"
                             "for i = 1 to 2\n    print(i)\nend while\nz = sum(1, 2, 3)\n")
    assert [(d["range"]["start"]["line"], d["code"], d["message"]) for d in found] == [
        (0, "SyntaxError", "Expect an expression, found '='."),
        (2, "SyntaxError", "Expect ',' or ')' after a parameter. Found 'b'."),
        (7, "SyntaxError", "'end while' at line 8 closes the 'for' block opened at line 6; expect 'end for'."),
        (1, "NameError", "Undefined variable 'undefined_a'."),
        (3, "NameError", "Undefined variable 'undefined_b'."),      # `a`, in the failed header, is no alarm
        (8, "TypeError", "'sum' takes from 1 to 2 arguments but 3 were given. "
                         "Call shapes: sum(x), sum(x, axis), sum(x, axis = [j, k]), sum(x, skipnan = true)."),
    ]
    assert open_doc(client, PROGRAM) == []


MALFORMED = [   # raw bodies, the JSON-RPC error each must get, and the id it must echo
    (b'{"jsonrpc": "2.0", "id": 901, "method": "textDocument/hover", "params": {', -32700, 901),
    (b'\xff\xfe{"jsonrpc": "2.0", "id": 902}', -32700, 902),
    (b'[1, 2', -32700, None),
    (b'{"jsonrpc": "2.0", "id": "a\\x", "method": ', -32700, None),     # an id JSON cannot decode
    (b'{"jsonrpc": "2.0", "id": 1.5, "method": ', -32700, None),         # nor a number that is not whole
    (b'"hello"', -32600, None),
    (b'{"id": 903, "method": "textDocument/hover"}', -32600, 903),
    (b'{"jsonrpc": "2.0", "id": 904}', -32600, 904),
    (b'{"jsonrpc": "2.0", "id": 905, "method": 7}', -32600, 905),
    (b'{"jsonrpc": "2.0", "id": 906, "method": "textDocument/hover", "params": {"textDocument": 5}}', -32602, 906),
    (b'{"jsonrpc": "2.0", "id": "s907", "method": "textDocument/hover", "params": {"textDocument": '
     b'{"uri": "file:///x.lam"}, "position": {"line": 0, "character": "a"}}}', -32602, "s907"),
]


def test_a_malformed_message_gets_a_json_rpc_error_and_the_server_goes_on():
    c = Client()
    threading.Thread(target=c.proc.stderr.read, daemon=True).start()    # pygls logs each one there
    try:
        c.request("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
        c.notify("initialized", {})
        # a notification whose params do not fit is not answered (JSON-RPC): the next answer is the request's
        c.send_bytes(b'{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": 1}}')
        for body, code, id_ in MALFORMED:
            c.send_bytes(body)
            answer = c.response(id_)
            assert (answer["id"], answer["error"]["code"]) == (id_, code), body
        assert c.responses[None].empty()
        c.notify("textDocument/didOpen", {"textDocument": {"uri": URI, "languageId": "lamina", "version": 1,
                                                            "text": "y = 1\n"}})
        assert c.diagnostics() == []
        assert c.request("textDocument/hover", at(0, 0))["contents"]["value"].startswith("```lamina\ny")
    finally:
        c.close()
    assert c.proc.returncode == 0


def test_a_discarded_result_of_a_pure_builtin_is_a_warning(client):
    found = open_doc(client, "v = [2, 1]\nv.sort()\nv = v.sort()\n")
    assert found == [{
        "range": rng(1, 2, 6), "severity": 2, "code": "Warning", "source": "lamina",
        "message": "the result of sort is discarded: sort returns a new sorted copy and changes nothing; "
                   "write `v = v.sort()` to keep it"}]


def test_a_document_opened_with_a_syntax_error_in_the_middle_still_knows_its_other_names(client):
    uri = "file:///work/broken_middle.lam"
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "lamina", "version": 1,
        "text": "x = 1\ny = (2 +\nfunction foo(v)\n    return v\nend function\nz = foo(x)\nfor i = 0 to 2\nend while\n"}})
    assert [(d["range"]["start"]["line"], d["message"]) for d in client.diagnostics()] == [
        (1, "'(' opened here is never closed."),
        (7, "'end while' at line 8 closes the 'for' block opened at line 7; expect 'end for'.")]

    def at_(line, character):
        return {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}
    hover = client.request("textDocument/hover", at_(5, 5))
    assert hover["contents"]["value"] == "```lamina\nfunction foo(v)\n```"
    assert client.request("textDocument/definition", at_(5, 8)) == {"uri": uri, "range": {
        "start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}}
    symbols = client.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
    assert [s["name"] for s in symbols] == ["x", "foo", "z", "i"]
    client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    assert client.diagnostics() == []
