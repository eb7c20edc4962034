"""How values print (LANGUAGE.md "Printing"): `print`, interpolation and the REPL echo; and the
HTML table that a notebook shows beside the text of a report."""
from __future__ import annotations

import html

import numpy as np

from .values import LibObject, Record, Tracked, format_number


def format_tensor(a: np.ndarray) -> str:
    if a.size == 0:
        return "[]"
    if a.dtype == np.float32:
        # the shortest text that reads back to the same float32: 0.1, not 0.10000000149011612
        a = np.array([float(str(x)) for x in a.ravel()]).reshape(a.shape)
    if a.ndim == 1 or a.shape[0] == 1:
        return "[" + ", ".join(format_number(v) for v in a.ravel().tolist()) + "]"
    return "[" + "; ".join(", ".join(format_number(v) for v in row) for row in a.tolist()) + "]"


class _Text(str):
    """A piece of output already formatted (brackets, separators, field names)."""


def format_value(v, quote_strings: bool = False) -> str:
    """The text `print` writes for a value (strings unquoted at the top level).

    Iterative, with its own stack, so a list or record nested any depth prints in full."""
    out = []
    stack = [(v, quote_strings)]
    while stack:
        item = stack.pop()
        if type(item) is _Text:
            out.append(item)
            continue
        v, quoted = item
        if isinstance(v, list):
            out.append("[")
            stack.append(_Text("]"))
            stack.extend(_joined([(x, True) for x in v], ", "))
        elif isinstance(v, Record):
            out.append("{")
            stack.append(_Text("}"))
            pieces = [(_Text(f"{k}="), (x, True)) for k, x in v.fields.items()]
            stack.extend(_joined(pieces, ", "))
        else:
            out.append(_format_one(v, quoted))
    return "".join(out)


def _joined(items: list, sep: str) -> list:
    """Stack entries that produce `items` in order with `sep` between them (last pushed first)."""
    entries = []
    for i, item in enumerate(items):
        if i:
            entries.append(_Text(sep))
        entries.extend(item if type(item) is tuple and type(item[0]) is _Text else [item])
    return entries[::-1]


def _format_one(v, quoted: bool) -> str:
    if type(v) is Tracked:
        v = v.value
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (float, int, np.floating, np.integer)):
        return format_number(v)
    if isinstance(v, str):
        return _quote(v) if quoted else v
    if v is None:
        return "none"
    if isinstance(v, np.ndarray):
        return format_tensor(v)
    if isinstance(v, LibObject):
        return v.describe()
    if callable(v):
        return f"<function {function_name(v)}>"
    return f"<{type(v).__name__}>"


def function_name(f) -> str:
    name = getattr(f, "__lamina_builtin__", None)
    if name:
        return name
    code = getattr(f, "__code__", None)
    if code is not None and code.co_name.startswith("L_"):
        return code.co_name[2:]
    return "anonymous"


def _quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t") + '"'


def html_table(header: list[str], rows: list[list[str]], right: list[bool] | None = None,
               caption: str | None = None, footer: list[str] = ()) -> str:
    """A report's table as HTML: header cells, rows of text cells (column j flush right where
    right[j] is true), a caption above and footer lines below."""
    right = right or [False] * len(header)

    def cells(tag: str, row: list[str]) -> str:
        return "".join(f'<{tag} style="text-align: {"right" if r else "left"}">{html.escape(c)}</{tag}>'
                       for c, r in zip(row, right))
    parts = ['<table class="lamina">']
    if caption:
        parts.append(f'<caption style="text-align: left">{html.escape(caption)}</caption>')
    parts.append(f"<thead><tr>{cells('th', header)}</tr></thead><tbody>")
    parts.extend(f"<tr>{cells('td', row)}</tr>" for row in rows)
    parts.append("</tbody></table>")
    parts.extend(f"<p>{html.escape(line)}</p>" for line in footer if line)
    return "".join(parts)
