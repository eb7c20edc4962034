"""The language server (`lamina lsp`): diagnostics, hover, completion, go-to-definition,
document symbols and signature help for `.lam` files, over stdio with pygls.

analysis.py reads a document (parse, scopes, uses and definitions, problems); calls.py
checks a builtin call's arguments against the registry; names.py gives the completion
engine (completion.py) a document's names, as seen from the cursor; text.py counts lines and
columns as the protocol does; server.py answers the protocol, jsonrpc.py a malformed message.
"""
