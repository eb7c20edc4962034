"""A malformed message gets the JSON-RPC error it calls for, so that no client waits forever.

pygls logs a message it cannot read and shows the user "Error in server", but sends no
response, and a client whose request that was waits for one. Here: text that is not JSON
(or not UTF-8) is answered -32700 (parse error), a message that is not a request, a
notification or a response -32600 (invalid request), and a request whose params do not
fit its method -32602 (invalid params), each with the message's id when it has one (for text
that is not JSON, an `"id"` found in it), else null. A notification is never answered, as
JSON-RPC says, whatever is wrong with its params.
"""
from __future__ import annotations

import json
import re

from pygls.exceptions import JsonRpcException
from pygls.protocol import LanguageServerProtocol

PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS = -32700, -32600, -32602
# the first "id" member in text that did not parse: a number or a string
_ID = re.compile(r'"id"\s*:\s*(-?\d+(?![.eE\d])|"(?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*")')


class Malformed:
    """A message read as JSON that is not a well-formed message: the error to answer it with."""

    def __init__(self, id_, code: int, message: str):
        self.id, self.code, self.message = id_, code, message


class Protocol(LanguageServerProtocol):
    def structure_message(self, data: dict):
        # json.loads calls this for every object, innermost first; only a message has "jsonrpc"
        if "jsonrpc" not in data:
            return data
        id_ = data.get("id")
        if "id" in data and (not isinstance(id_, (int, str)) or isinstance(id_, bool)):
            return Malformed(None, INVALID_REQUEST, "Invalid request: the id must be a number or a string.")
        method = data.get("method")
        if "method" in data and not isinstance(method, str):
            return Malformed(id_, INVALID_REQUEST, "Invalid request: the method must be a string.")
        if method is None and "id" in data and "result" not in data and "error" not in data:
            return Malformed(id_, INVALID_REQUEST, "Invalid request: a message with an id needs a method "
                                                   "(a request) or a result or error (a response).")
        try:
            return super().structure_message(data)
        except JsonRpcException:
            if method is None:
                return Malformed(id_, INVALID_REQUEST, "Invalid request: the response does not fit its request.")
            return Malformed(id_ if "id" in data else None, INVALID_PARAMS,
                             f"Invalid params: they do not fit the method '{method}'.")

    def handle_message(self, message) -> None:
        if isinstance(message, Malformed):
            if message.code != INVALID_PARAMS or message.id is not None:     # not a notification
                self.answer_error(message.id, message.code, message.message)
            return
        if not hasattr(message, "jsonrpc"):       # JSON, but no object with "jsonrpc": "2.0"
            id_ = message.get("id") if isinstance(message, dict) else None
            self.answer_error(id_ if isinstance(id_, (int, str)) else None, INVALID_REQUEST,
                              'Invalid request: a message is an object with "jsonrpc": "2.0".')
            return
        super().handle_message(message)

    def answer_unreadable(self, error: Exception) -> bool:
        """Answer text that is not JSON (-32700); False for another error (pygls reports it)."""
        if isinstance(error, json.JSONDecodeError):
            text, reason = error.doc, f"{error.msg} at character {error.pos}"
        elif isinstance(error, UnicodeDecodeError):
            text, reason = error.object.decode("utf-8", "replace"), "the text is not UTF-8"
        else:
            return False
        found = _ID.search(text)
        self.answer_error(json.loads(found.group(1)) if found else None, PARSE_ERROR, f"Parse error: {reason}.")
        return True

    def answer_error(self, id_, code: int, message: str) -> None:
        # a plain object: lsprotocol's converter would leave out an id that is null
        self._send_data({"jsonrpc": "2.0", "id": id_, "error": {"code": code, "message": message}})
