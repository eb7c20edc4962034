"""How values print (docs/language.md "Printing"): `print`, interpolation, `format` and the REPL
echo; and the HTML table that a notebook shows beside the text of a report.

A tensor whose exact inline text (`[1, 2; 3, 4]`, every digit that reads back) fits in
`width` characters prints so. A wider one prints, at the top level, as a block of aligned lines
with about `digits` significant digits under a header (`100x100 matrix:`), its middle elided
when it has more than `limit` elements; inside a list, a record or a string it stays on one
line, the same digits and elision. `print_options` sets the three.

An array of rank 3 or more has no literal, so it never prints as one (its text would read back
as something else). At the top level it prints as Julia prints one: a header with its shape
(`2x3x4 array:`), then each matrix it holds, labelled by the index that gives it (`[0, :, :] =`),
laid out as a matrix is (formatting.block), one layout for them all: the same digits, the same
rows and columns left out of each, a column as wide in every slice. The matrices are the LAST
two axes, `a[i, :, :]`, walked in row-major order, as NumPy prints them; Julia's `a[:, :, k]`
are the first two because Julia stores arrays column-major. Lamina stores them row-major and
puts the batch first (b x t x d), so each block is one item's t x d matrix, exactly what
print(a[i, :, :]) shows, and the blocks read the elements in the order reshape lays them out.
Beyond `limit` elements each leading axis longer than 6 keeps its first and last 3 slices, a `⋮`
line between them, as Julia and NumPy keep 3. An empty one prints its header alone (`0x3x4
array`). Inside a list, a record or a string it is one line in angle brackets, as a function
is: `<2x2x2 array: [0, :, :] = [0, 1; 2, 3], [1, :, :] = [4, 5; 6, 7]>`.
"""
from __future__ import annotations

import numpy as np

from .fields import Fields
from .errors import shape_str
from .formatting import block, compact, compact_array, fixes_digits, short, spec_number, spec_text
from .values import LibObject, Record, Tracked, describe, format_number


class PrintOptions(Fields):
    def __init__(self, digits: int = 6, limit: float = 1000, width: float = 80):
        self.digits = digits    # significant digits of a tensor too wide for its exact inline text
        self.limit = limit      # a tensor with more elements than this has its middle elided
        self.width = width      # the characters an exact inline tensor may take


OPTIONS = PrintOptions()


def reset_options() -> None:
    """Back to the defaults (a test or a docs example that changed them)."""
    global OPTIONS
    OPTIONS = PrintOptions()


def set_options(digits=None, limit=None, width=None) -> PrintOptions:
    """Change some options; returns the previous ones."""
    global OPTIONS
    before = OPTIONS
    OPTIONS = PrintOptions(before.digits if digits is None else digits,
                           before.limit if limit is None else limit,
                           before.width if width is None else width)
    return before


def as_written(a: np.ndarray) -> np.ndarray:
    """A float32 array as the float64 numbers its elements' shortest texts read as (0.1, not
    0.10000000149011612): what printing and write_csv show of float32 data."""
    return np.array([float(str(x)) for x in a.ravel()]).reshape(a.shape)


def inline(a: np.ndarray, number=format_number, row_end: str = ";") -> str:
    """A tensor on one line, each number written by `number`: `[1, 2]` a vector, `[1, 2; 3, 4]` a
    matrix, `[1, 2;]` a 1 x n matrix (a trailing `;` ends its one row), `[1; 2]` m x 1."""
    if a.size == 0:
        return "[]"
    if a.dtype == np.float32:
        a = as_written(a)
    if a.ndim == 1:
        return "[" + ", ".join(number(v) for v in a.tolist()) + "]"
    if a.shape[0] == 1:
        return "[" + ", ".join(number(v) for v in a[0].tolist()) + row_end + "]"
    return "[" + "; ".join(", ".join(number(v) for v in row) for row in a.tolist()) + "]"


def format_tensor(a: np.ndarray, top: bool = True, row_end: str = ";", spec: str | None = None) -> str:
    """Exact and inline when that fits in the width; else a block (top level) or one line. With
    a format `spec` every element is written with it, in the same layout."""
    opts = OPTIONS
    if spec is not None and a.dtype == np.float32 and fixes_digits(spec):
        a = a.astype(np.float64)              # written as stored, not as its shortest text
    number = format_number if spec is None else (lambda x: spec_number(x, spec))
    if a.ndim <= 2 and a.size * 3 <= opts.width + 1:     # only then can the exact text fit
        text = inline(a, number, row_end)
        if len(text) <= opts.width:
            return text
    cell = (lambda x: short(x, opts.digits)) if spec is None else number
    if a.dtype == np.float32:                 # each element as its shortest float32 text reads
        cell = (lambda x, write=cell: write(float(str(np.float32(x)))))
    if a.ndim > 2 and not top:
        return compact_array(a, _header(a), cell, opts.limit)
    if not top:
        return compact(a, cell, opts.limit, row_end)
    return block(a, _header(a) + ":" * (a.ndim <= 2 or a.size > 0), cell, opts.limit, opts.width)


def _header(a: np.ndarray) -> str:
    logical = "logical " if a.dtype == bool else ""
    if a.ndim == 1:
        return f"{logical}vector of length {a.size}"
    return f"{shape_str(a.shape)} {logical}{'matrix' if a.ndim == 2 else 'array'}"


def format_row(a: np.ndarray) -> str:
    """A 1 x n matrix as its row, `[1, 2, 3]`: how `{x}` in a string writes one (the seed's
    programs print a 1 x n dropout mask so)."""
    return format_tensor(a, top=False, row_end="")


class _Text(str):
    """A piece of output already formatted (brackets, separators, field names)."""


def format_value(v, quote_strings: bool = False, spec: str | None = None, top: bool = True) -> str:
    """The text `print` writes for a value (strings unquoted at the top level). With a format
    `spec` (Python's mini-language) every number in it is written with the spec, and a string or
    other value with its fill, alignment and width. `top`: a tensor alone may take a block of
    lines (print, the REPL); inside text it keeps to one line.

    Iterative, with its own stack, so a list or record nested any depth prints in full."""
    if spec is not None and (isinstance(v, bool) or not isinstance(v, (list, Record, np.ndarray, Tracked, float, int))):
        text = format_value(v, quote_strings, top=False)
        return spec_text(text, spec, "none" if v is None else describe(v))
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
            alone = len(out) == 0 and not stack       # the value itself, not an item of it
            out.append(_format_one(v, quoted, spec, top and alone, alone))
    return "".join(out)


def _joined(items: list, sep: str) -> list:
    """Stack entries that produce `items` in order with `sep` between them (last pushed first)."""
    entries = []
    for i, item in enumerate(items):
        if i:
            entries.append(_Text(sep))
        entries.extend(item if type(item) is tuple and type(item[0]) is _Text else [item])
    return entries[::-1]


def _format_one(v, quoted: bool, spec: str | None = None, top: bool = False, alone: bool = False) -> str:
    if type(v) is Tracked:
        v = v.value
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (float, int, np.floating, np.integer)):
        return format_number(v) if spec is None else spec_number(v, spec)
    if isinstance(v, str):
        return _quote(v) if quoted else v
    if v is None:
        return "none"
    if isinstance(v, np.ndarray):
        # `{r:.1f}` writes a 1 x n matrix as its row, as `{r}` does (runtime.show)
        return format_tensor(v, top, "" if spec is not None and alone and not top else ";", spec)
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
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r") + '"'


def html_table(header: list[str], rows: list[list[str]], right: list[bool] | None = None,
               caption: str | None = None, footer: list[str] = ()) -> str:
    """A report's table as HTML: header cells, rows of text cells (column j flush right where
    right[j] is true), a caption above and footer lines below."""
    from html import escape  # for notebooks only: not loaded at start-up
    right = right or [False] * len(header)

    def cells(tag: str, row: list[str]) -> str:
        return "".join(f'<{tag} style="text-align: {"right" if r else "left"}">{escape(c)}</{tag}>'
                       for c, r in zip(row, right))
    parts = ['<table class="lamina">']
    if caption:
        parts.append(f'<caption style="text-align: left">{escape(caption)}</caption>')
    parts.append(f"<thead><tr>{cells('th', header)}</tr></thead><tbody>")
    parts.extend(f"<tr>{cells('td', row)}</tr>" for row in rows)
    parts.append("</tbody></table>")
    parts.extend(f"<p>{escape(line)}</p>" for line in footer if line)
    return "".join(parts)
