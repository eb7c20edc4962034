"""The language server's record fields, through a real client (test_server.py's): completion
after a field nested in record literals, and hover on a field named like a builtin."""
from __future__ import annotations

import pytest
from test_server import Client

URI = "file:///work/fields.lam"


@pytest.fixture(scope="module")
def client():
    c = Client()
    c.request("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
    c.notify("initialized", {})
    c.version = 0
    yield c
    c.close()
    assert c.proc.returncode == 0


def edit(client, text: str) -> list[dict]:
    """Open the document, then change it: its next diagnostics."""
    client.version += 1
    if client.version == 1:
        client.notify("textDocument/didOpen", {"textDocument": {
            "uri": URI, "languageId": "lamina", "version": 1, "text": text}})
    else:
        client.notify("textDocument/didChange", {"textDocument": {"uri": URI, "version": client.version},
                                                 "contentChanges": [{"text": text}]})
    return client.diagnostics()


def labels(client, line: int, character: int) -> list[tuple[str, str]]:
    items = client.request("textDocument/completion", {
        "textDocument": {"uri": URI}, "position": {"line": line, "character": character}})["items"]
    return [(i["label"], i.get("detail")) for i in items]


def test_completion_after_a_nested_field_offers_the_nested_records_fields(client):
    assert edit(client, 'r = {a = {b = 1, c = {d = 2}}, e = 3}\nr.a.x = 4\nr.f = {g = 5}\n') == []
    # the line being typed does not parse: the names of the last text that did are used
    broken = edit(client, 'r = {a = {b = 1, c = {d = 2}}, e = 3}\nr.a.x = 4\nr.f = {g = 5}\ny = r.a.\n')
    assert [d["message"] for d in broken] == ["Expect a field name after '.'. Found the end of the line."]
    assert labels(client, 3, 8) == [("b", "field of r.a"), ("c", "field of r.a"), ("x", "field of r.a")]
    assert labels(client, 3, 6) == [("a", "field of r"), ("e", "field of r"), ("f", "field of r")]
    assert len(edit(client, 'r = {a = {b = 1, c = {d = 2}}, e = 3}\nr.a.x = 4\nr.f = {g = 5}\n'
                            'y = r.a.c.\nz = r.f.\nw = r.e.\n')) == 3      # one for each line being typed
    assert labels(client, 3, 10) == [("d", "field of r.a.c")]
    assert labels(client, 4, 8) == [("g", "field of r.f")]
    assert labels(client, 5, 8) == []


def test_hover_on_a_field_named_like_a_builtin_is_the_field_not_the_builtins_page(client):
    assert edit(client, 'r = {mean = 1, inner = {sum = 2}}\ny = r.mean + r.inner.sum\n') == []
    hover = client.request("textDocument/hover", {"textDocument": {"uri": URI},
                                                  "position": {"line": 1, "character": 7}})
    assert hover["contents"]["value"] == "```lamina\nr.mean\n```\n\nfield of r"
    hover = client.request("textDocument/hover", {"textDocument": {"uri": URI},
                                                  "position": {"line": 1, "character": 22}})
    assert hover["contents"]["value"] == "```lamina\nr.inner.sum\n```\n\nfield of r.inner"
