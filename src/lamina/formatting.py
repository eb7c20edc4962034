"""Numbers and tensors as text, beyond the exact inline form: format specs and the block layout.

`spec_number` writes a number with a format spec of Python's mini-language (`.2f`, `5d`,
`>10`, `,`); printing.py applies it to every number of a value. `block` lays a tensor too wide
for one line out on several aligned lines, each element written by `cell` (`short`: about
`digits` significant digits; or a spec), eliding the middle of one with more than `limit`
elements, as Julia and NumPy do.
"""
from __future__ import annotations

import itertools
import math
import re

import numpy as np

from .errors import LaminaError
from .values import format_number

SPEC = re.compile(r"(?:(?P<fill>.)?(?P<align>[<>=^]))?(?P<sign>[-+ ])?(?P<z>z)?(?P<alt>#)?(?P<zero>0)?"
                  r"(?P<width>\d+)?(?P<grouping>[,_])?(?:\.(?P<precision>\d+))?(?P<type>[bcdeEfFgGnosxX%])?", re.S)
WHOLE_TYPES = set("bcdoxX")
SPEC_HELP = ("a spec is [[fill]align][sign][0][width][,][.precision][type], as in Python: .2f, 8.3e, 5d, "
             ">10, ^9, +.1%")


def parse_spec(spec: str) -> dict:
    """The parts of a format spec; a ValueError naming it when it is not one."""
    m = SPEC.fullmatch(spec)
    if m is None:
        raise LaminaError("ValueError", f"The format spec '{spec}' is not valid: {SPEC_HELP}.")
    return m.groupdict()


def spec_number(x: float, spec: str) -> str:
    """A number written with a format spec. `d` and the other whole-number types take a whole
    float; without a type a whole number is written as one, and a precision counts significant
    digits (`.3` writes 3.14159 as 3.14)."""
    parts = parse_spec(spec)
    kind = parts["type"]
    x = float(x) + 0.0                           # -0.0 as 0, as print writes it
    whole = math.isfinite(x) and x == int(x)
    if kind == "s":
        return _python(format_number(x), spec)
    if kind in WHOLE_TYPES:
        if not whole:
            hint = "use a spec like .0f to round it" if math.isfinite(x) else f"a spec like .0f writes {format_number(x)}"
            raise LaminaError("ValueError", f"The format spec '{spec}' writes whole numbers, but got "
                              f"{format_number(x)}; {hint}.")
        if kind == "c" and not (0 <= x < 0x110000 and not 0xD800 <= x < 0xE000):
            raise LaminaError("ValueError", f"The format spec '{spec}' writes the character with a code point, "
                              f"but {format_number(x)} is none (0 to 1114111, less the surrogates 55296 to 57343).")
        return _python(int(x), spec)
    if kind is None and parts["precision"] is not None:
        spec += "g"
    elif kind in (None, "n") and parts["precision"] is None and whole and abs(x) < 1e15:
        return _python(int(x), spec)
    if not math.isfinite(x) and parts["zero"] and parts["align"] is None:
        spec = _unparse(dict(parts, zero=None))  # NaN and Inf padded with spaces, as C and NumPy pad them
    text = _python(x, spec)
    return text.replace("nan", "NaN").replace("NAN", "NaN").replace("inf", "Inf").replace("INF", "Inf")


def fixes_digits(spec: str) -> bool:
    """Whether a spec sets the digits written (a precision, or a type such as e, f, g or %):
    then a float32 element is written as stored (0.1 with .10f: 0.1000000015, as NumPy and
    PyTorch write it), not as its shortest text reads (0.1000000000)."""
    parts = parse_spec(spec)
    return parts["precision"] is not None or parts["type"] not in (None, "s")


def _unparse(parts: dict) -> str:
    """The spec of `parts` (parse_spec's) again."""
    precision = "" if parts["precision"] is None else "." + parts["precision"]
    return "".join(parts[k] or "" for k in ("fill", "align", "sign", "z", "alt", "zero", "width", "grouping")) + \
        precision + (parts["type"] or "")


def spec_text(text: str, spec: str, what: str) -> str:
    """Text (a string, or the printed form of a bool, none, a function) written with a spec:
    fill, alignment, width, and a precision that cuts it, as Python's format does."""
    kind = parse_spec(spec)["type"]
    if kind not in (None, "s"):
        raise LaminaError("ValueError", f"The format spec '{spec}' writes numbers, but the value is {what}.")
    return _python(text, spec)


def _python(value, spec: str) -> str:
    try:
        return format(value, spec)
    except (ValueError, OverflowError) as exc:
        raise LaminaError("ValueError", f"The format spec '{spec}' does not apply: {exc} ({SPEC_HELP}).") from None


# -- numbers to about `digits` significant digits ---------------------------------------------
def short(x, digits: int) -> str:
    """x to `digits` significant digits, never more than the shortest text that reads back to x
    has (0.1 at 20 digits is 0.1, as NumPy writes it, not 0.10000000000000000555)."""
    x = float(x)
    if x != x:
        return "NaN"
    if math.isinf(x):
        return "Inf" if x > 0 else "-Inf"
    if x == int(x) and abs(x) < 10 ** max(digits, 7):
        return str(int(x))
    if 10 ** digits <= abs(x) < 1e7:            # 1142.86 at 3 digits: 1143, not 1.14e+03
        return str(round(x))
    mantissa = repr(x).split("e")[0].replace("-", "").replace(".", "").strip("0")
    return f"{x + 0.0:.{min(digits, max(1, len(mantissa)))}g}"


# -- the block layout ---------------------------------------------------------------------------
def block(a: np.ndarray, header: str, cell, limit: float, width: float) -> str:
    """A matrix on aligned lines, or a vector wrapped over lines, under a header line; `cell`
    writes one element. An array of rank 3 or more is its matrices over the last two axes, each
    under a line naming it (`[0, :, :] =`), a blank line between them (printing.py says why)."""
    if a.ndim == 1:
        return "\n".join([header] + _vector_lines(a, cell, limit, width))
    if a.ndim == 2:
        return "\n".join([header] + _slice_lines(a[None], cell, a.size > limit, width)[0])
    if a.size == 0:
        return header
    indices = slice_indices(a.shape[:-2], a.size > limit, EDGE_SLICES)
    shown = [i for i in indices if i is not None]
    slices = iter(_slice_lines(a[tuple(np.array(shown).T)], cell, a.size > limit, width))
    lines = [header]
    for k, index in enumerate(indices):
        lines += [""] * (k > 0) + (["⋮"] if index is None else [slice_label(index) + " ="] + next(slices))
    return "\n".join(lines)


EDGE_ROWS = 5       # rows kept at each end when a large matrix is elided
EDGE_LINES = 3      # lines kept at each end when a long vector is elided
EDGE_SLICES = 3     # slices kept at each end of an axis of a large array (Julia and NumPy keep 3)


def slice_indices(lead: tuple, elide: bool, edge: int) -> list:
    """The indices over the leading axes `lead` of the slices shown, in order, with None where
    slices are left out: when `elide`, an axis longer than 2 * edge keeps `edge` at each end,
    and a run of left-out slices is one None (at the first index it hides)."""
    axes = [list(range(n)) if not elide or n <= 2 * edge else
            list(range(edge)) + [None] + list(range(n - edge, n)) for n in lead]
    out = []
    for index in itertools.product(*axes):
        if None in index:
            k = index.index(None)
            if all(i == axis[0] for i, axis in zip(index[k + 1:], axes[k + 1:])):
                out.append(None)
            continue
        out.append(index)
    return out


def slice_label(index: tuple) -> str:
    """The matrix of an array at `index` of its leading axes as an index writes it: `[0, 2, :, :]`."""
    return "[" + "".join(f"{i}, " for i in index) + ":, :]"


def _vector_lines(a: np.ndarray, cell, limit: float, width: float) -> list[str]:
    n = a.size
    most = max(1, int((width - 1) // 3)) if math.isfinite(width) else n   # cells a line can hold
    if n > limit and n > 2 * EDGE_LINES * most + most:
        # elided for sure: only the cells that can be shown are written (a vector of 10^7 prints at once)
        span = EDGE_LINES * most
        cells = [cell(v) for v in a[:span].tolist()] + [cell(v) for v in a[n - span:].tolist()]
    else:
        cells = [cell(v) for v in a.tolist()]
    per_line = max(1, int((width - 1) // (max(len(c) for c in cells) + 2))) if math.isfinite(width) else n
    if n > limit and -(-n // per_line) > 2 * EDGE_LINES + 1:
        k = EDGE_LINES * per_line
        head, tail = cells[:k], cells[len(cells) - k:]
        w = max(len(c) for c in head + tail)          # of the cells shown, as NumPy aligns them
        return _lines(head, w, per_line) + [" " + "⋮".rjust(w)] + _lines(tail, w, per_line)
    return _lines(cells, max(len(c) for c in cells), per_line)


def _lines(cells: list[str], w: int, per_line: int) -> list[str]:
    return [" " + "  ".join(c.rjust(w) for c in cells[i:i + per_line]) for i in range(0, len(cells), per_line)]


def _slice_lines(s: np.ndarray, cell, elide: bool, width: float) -> list[list[str]]:
    """The lines of each matrix of the stack `s` (k x m x n), laid out as one: the same rows and
    columns shown in each, a column as wide in each (a matrix is a stack of one)."""
    k, m, n = s.shape
    rows = list(range(m))
    if elide and m > 2 * EDGE_ROWS:
        rows = rows[:EDGE_ROWS] + [None] + rows[-EDGE_ROWS:]
    shown = [r for r in rows if r is not None]
    if not elide and math.isfinite(width) and 1 + sum(
            max(len(cell(v)) for v in s[:, :, j].ravel().tolist()) + 2 for j in range(n)) - 2 > width:
        return _column_blocks(s, cell, width)
    fit = width if elide else math.inf
    most = int(fit // 3) + 1 if math.isfinite(fit) else n       # more columns than this never fit
    candidates = list(range(n)) if n <= 2 * most else list(range(most)) + list(range(n - most, n))
    columns = {j: [[cell(v) for v in s[i, shown, j].tolist()] for i in range(k)] for j in candidates}
    widths = [max(len(c) for column in columns[j] for c in column) for j in candidates]
    left, right = _fitting_columns(widths, fit)
    elided = len(left) + len(right) < n            # `…` marks the columns left out, even with none on its right
    order = [candidates[j] for j in left] + ([None] + [candidates[j] for j in right] if elided else [])
    width_of = dict(zip(candidates, widths))
    out = []
    for i in range(k):
        lines, at = [], 0
        for r in rows:
            cells = []
            for j in order:
                if j is None:
                    cells.append("⋱" if r is None else "…")
                else:
                    cells.append(("⋮" if r is None else columns[j][i][at]).rjust(width_of[j]))
            lines.append(" " + "  ".join(cells))
            at += r is not None
        out.append(lines)
    return out


def _column_blocks(s: np.ndarray, cell, width: float) -> list[list[str]]:
    """Every element of each matrix of the stack `s` too wide for the width, as MATLAB shows one:
    the columns in blocks that fit, each under a line naming its columns."""
    k, m, n = s.shape
    columns = [[[cell(v) for v in s[i, :, j].tolist()] for i in range(k)] for j in range(n)]
    widths = [max(len(c) for column in col for c in column) for col in columns]
    blocks, start, used = [], 0, 1
    for j, w in enumerate(widths):
        if j > start and used + w + 2 > width + 2:
            blocks.append((start, j))
            start, used = j, 1
        used += w + 2
    blocks.append((start, len(widths)))
    out = []
    for i in range(k):
        lines = []
        for lo, hi in blocks:
            lines.append(f" columns {lo} to {hi - 1}:" if hi - lo > 1 else f" column {lo}:")
            lines += [" " + "  ".join(columns[j][i][r].rjust(widths[j]) for j in range(lo, hi)) for r in range(m)]
        out.append(lines)
    return out


def _fitting_columns(widths: list[int], width: float) -> tuple[list[int], list[int]]:
    """The columns shown from the left and from the right (all from the left when all fit)."""
    n = len(widths)
    if 1 + sum(w + 2 for w in widths) - 2 <= width:
        return list(range(n)), []
    budget = width - 1 - 3              # the `…` column and its separator
    left, right, used = [], [], 0
    lo, hi = 0, n - 1
    while lo <= hi:
        j = lo if len(left) <= len(right) else hi
        if used + widths[j] + 2 > budget and (left or right):
            break
        used += widths[j] + 2
        if j == lo:
            left.append(j)
            lo += 1
        else:
            right.insert(0, j)
            hi -= 1
    if lo > hi:                          # everything fitted after all
        return left + right, []
    return left, right


# -- one line, for a tensor inside a list, a record or a string --------------------------------
EDGE_ITEMS = 3      # elements (and rows) kept at each end on one line


def compact(a: np.ndarray, cell, limit: float, row_end: str = "") -> str:
    """A tensor on one line, each element written by `cell`; with more than `limit` elements,
    the middle elements of each row and the middle rows are left out (`…`)."""
    elide = a.size > limit
    if a.ndim == 1:
        return "[" + _items(a, cell, elide) + "]"
    rows = [_items(row, cell, elide) for row in _edges(a, elide)]
    if elide and a.shape[0] > 2 * EDGE_ITEMS:
        rows = rows[:EDGE_ITEMS] + ["…"] + rows[EDGE_ITEMS:]
    return "[" + "; ".join(rows) + (row_end if a.shape[0] == 1 else "") + "]"


def _edges(a, elide: bool):
    if elide and len(a) > 2 * EDGE_ITEMS:
        return list(a[:EDGE_ITEMS]) + list(a[-EDGE_ITEMS:])
    return list(a)


def _items(v: np.ndarray, cell, elide: bool) -> str:
    cells = [cell(x) for x in _edges(v, elide)]
    if elide and len(v) > 2 * EDGE_ITEMS:
        cells = cells[:EDGE_ITEMS] + ["…"] + cells[EDGE_ITEMS:]
    return ", ".join(cells)


def compact_array(a: np.ndarray, head: str, cell, limit: float) -> str:
    """An array of rank 3 or more on one line, `<2x2x2 array: [0, :, :] = [1, 2; 3, 4], [1, :, :]
    = [5, 6; 7, 8]>`: its slices as `compact` writes a matrix, with more than `limit` elements
    the middle slices left out (`…`) and the middle of each. No literal writes such an array,
    so its text is no literal's: the brackets around it say so, as a function's do."""
    if a.size == 0:
        return f"<{head}>"
    elide = a.size > limit
    parts = ["…" if index is None else f"{slice_label(index)} = {compact(a[index], cell, -1 if elide else math.inf, ';')}"
             for index in slice_indices(a.shape[:-2], elide, EDGE_ITEMS)]
    return f"<{head}: " + ", ".join(parts) + ">"
