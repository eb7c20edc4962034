"""Figures with matplotlib: one current figure that drawing builtins add to.

matplotlib is imported by the first drawing call, never before, with the
headless Agg backend unless a display exists (or MPLBACKEND says otherwise).
`savefig` writes the current figure and closes it, so the next drawing starts
a new one. A notebook kernel sets a sink (`show_inline`): then `show` and `savefig` hand
each figure they finish to it, and `finish_inline` hands over the one still open at the
end of a cell.
"""
from __future__ import annotations

import functools
import math
import os
import sys
from contextlib import contextmanager

import numpy as np

from ..errors import LaminaError
from ..files import check_write, expand_home, write_file
from ..values import (
    LibObject,
    Record,
    as_float,
    as_int,
    as_str,
    describe,
    format_number,
    with_article,
)
from ..warnings import warn
from .args import data, vector
from . import figure_axis as FX
from .categories import Categorical
from .dates import Dates
from .descriptive import bin_spec, check_span
from .table import Table

# x: what the current figure's x axis holds (figure_axis.claim), None before anything is drawn
_state = {"plt": None, "fig": None, "ax": None, "sink": None, "x": None}


def has_display() -> bool:
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def pyplot():
    if _state["plt"] is None:
        import matplotlib
        if not os.environ.get("MPLBACKEND") and not has_display():
            matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        _state["plt"] = plt
    return _state["plt"]


def new_figure(width=6.4, height=4.8):
    w, h = as_float(width, "figure's width"), as_float(height, "figure's height")
    if not (0 < w <= 50 and 0 < h <= 50):
        raise LaminaError("ValueError", "figure's width and height are inches, from 0 to 50.")
    plt = pyplot()
    close()
    _state["fig"], _state["ax"] = plt.subplots(figsize=(w, h))
    return _state["ax"]


@contextmanager
def drawing(who: str, hint: str = ""):
    """matplotlib's own failures (a style it cannot read, data it cannot place on an axis, ...)
    as a Lamina error."""
    try:
        yield
    except (ValueError, RuntimeError, OverflowError, ZeroDivisionError, IndexError) as exc:
        detail = " ".join(str(exc).split()) or type(exc).__name__
        raise LaminaError("ValueError", f"{who}: matplotlib could not draw this ({detail}).{hint}") from None


STYLE_HINT = (" A style is a line such as \"-\" or \"--\", a marker such as \"o\", a color letter "
              "such as \"r\", or a mix: \"r--\".")
TOO_BIG = (" Values near the largest float (about 1e308) cannot be placed on an axis; scale the "
           "data first.")


def axes():
    return _state["ax"] if _state["ax"] is not None else new_figure()


def draws(fn):
    """A drawing builtin: a figure that the call started is closed again when it fails, so an
    error leaves no blank figure behind (for savefig to write, or a notebook cell to show)."""
    @functools.wraps(fn)
    def call(*args, **kwargs):
        started, held = _state["fig"] is None, _state["x"]
        try:
            return fn(*args, **kwargs)
        except BaseException:
            if started:
                close()
            _state["x"] = held
            raise
    return call


def x_axis(kind, who: str) -> None:
    """The current figure's x axis takes kind (numbers, dates or a category's levels), or the
    drawing is refused before anything is drawn."""
    _state["x"] = FX.claim(_state["x"], kind, who)


def close():
    if _state["fig"] is not None:
        _state["plt"].close(_state["fig"])
    _state["fig"] = _state["ax"] = _state["x"] = None


def show_inline(sink) -> None:
    """Hand every finished figure (a matplotlib Figure) to `sink`; None stops it."""
    _state["sink"] = sink


def finish_inline() -> None:
    """End of a notebook cell: the figure still open goes to the sink, and is closed."""
    try:
        if _state["fig"] is not None and _state["sink"] is not None:
            _state["sink"](_state["fig"])
    finally:
        close()


def png_bytes(fig, dpi: int = 100) -> bytes:
    """A figure as PNG bytes (what a notebook shows inline)."""
    import io
    buffer = io.BytesIO()
    with drawing("The figure", TOO_BIG):
        fig.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight")
    return buffer.getvalue()


TEXT_LONGEST = 1000


def text_option(value, what: str) -> str | None:
    """A title, axis label or legend label: a string whose $...$ parts matplotlib can typeset."""
    if value is None:
        return None
    text = as_str(value, what)
    if len(text) > TEXT_LONGEST:        # a tight figure grows to fit: 10,000 took 6 s, 100 kpx wide
        raise LaminaError("ValueError", f"{what} is {len(text):,} characters long; a figure draws at "
                          f"most {TEXT_LONGEST:,} (a text that long makes an image as wide as it is).")
    dollars = text.replace("\\$", "").count("$")
    if dollars and dollars % 2 == 0:       # matplotlib's rule: an odd number is all plain text
        from matplotlib.mathtext import MathTextParser
        try:
            MathTextParser("path").parse(text)
        except ValueError:
            raise LaminaError("ValueError", f"{what} \"{text}\" has math between $ signs that "
                              f"matplotlib cannot typeset; for a plain dollar sign write \\\\$ "
                              f"in the string (\"\\\\$5\").") from None
    return text


def texts(label, title, xlabel, ylabel) -> tuple:
    """The text options every drawing builtin takes, each checked before anything is drawn."""
    label = text_option(label, "A figure's label")
    if label is not None and label.startswith("_"):
        label = "\u200b" + label       # matplotlib's legend leaves out labels that start with _
    return (label, text_option(title, "A figure's title"),
            text_option(xlabel, "A figure's x label"), text_option(ylabel, "A figure's y label"))


def decorate(ax, label=None, title=None, xlabel=None, ylabel=None, default=(None, None)):
    """The options every drawing builtin takes (checked already by `texts`). `default`: the
    drawing's own x and y axis labels (hist's "count"), each put on its axis only when the
    call gave none and the axis has none yet: a second drawing on the figure keeps the label
    the first was given."""
    if title is not None:
        ax.set_title(title)
    for text, fallback, current, setter in ((xlabel, default[0], ax.get_xlabel, ax.set_xlabel),
                                            (ylabel, default[1], ax.get_ylabel, ax.set_ylabel)):
        if fallback is not None and not text:
            text = None if current() else fallback
        if text is not None:
            setter(text)
    if label is not None or ax.get_legend() is not None:
        # an empty label, as one starting with _, is one matplotlib's legend leaves out
        if any(h.get_label() and not h.get_label().startswith("_")
               for h in ax.get_lines() + ax.collections + ax.patches):
            ax.legend()


def _history(model):
    """A model's loss history (and validation loss history, when it has one)."""
    def field(name):
        if isinstance(model, Record):
            return model.fields.get(name)
        try:
            return model.get(name)
        except LaminaError:
            return None
    loss = field("loss_history")
    if loss is None and isinstance(model, Table):
        raise LaminaError("TypeError", "plot of a table needs the name of a numeric column to draw: "
                          "plot(t, \"loss\").")
    if loss is None:
        raise LaminaError("TypeError", f"plot of {describe(model)} needs a value with a loss_history "
                          f"field (a fitted model).")
    val = field("val_loss_history")
    return vector(loss, "loss_history"), None if val is None else vector(val, "val_loss_history")


@draws
def plot(x, y=None, label=None, title=None, xlabel=None, ylabel=None, style="-"):
    label, title, xlabel, ylabel = texts(label, title, xlabel, ylabel)
    fmt = as_str(style, "plot's style")
    ax = axes()
    if isinstance(x, Table) and isinstance(y, str):
        x_axis(FX.NUMBERS, "plot")
        return _plot_table(ax, x, y, "o-" if fmt == "-" else fmt, label, title, xlabel, ylabel)
    if isinstance(x, (Dates, Categorical)) and y is None:
        what = x.type_name if isinstance(x, Dates) and not x.scalar else with_article(x.type_name)  # dates, a date
        raise LaminaError("TypeError", f"plot of {what} needs the y values to draw at them: plot(x, y).")
    if isinstance(x, (LibObject, Record)) and y is None:
        from .fitparts import is_fit
        if is_fit(x):
            return _plot_fit(x, label, title, xlabel, ylabel)
        x_axis(FX.NUMBERS, "plot")
        from .distributions import Distribution
        if isinstance(x, Distribution):
            return _plot_distribution(ax, x, fmt, label, title, xlabel, ylabel)
        loss, val = _history(x)
        with drawing("plot", STYLE_HINT):
            ax.plot(np.arange(loss.size), loss, fmt, label=label or "loss")
            if val is not None and val.size:
                ax.plot(np.arange(val.size), val, fmt, label="validation loss")
        pos = np.concatenate([loss, val if val is not None else []])
        pos = pos[~np.isnan(pos)]             # epochs of a fit without validation are NaN
        if pos.size and np.all(pos > 0) and pos.max() / pos.min() > 100:
            ax.set_yscale("log")
        decorate(ax, True, title, xlabel, ylabel, default=("epoch", "loss"))
        return None
    ys = data(x if y is None else y, "plot's y values")
    xs, kept, kind = (None, None, FX.NUMBERS) if y is None else FX.x_values(x, "plot")
    if ys.ndim == 2 and ys.shape[0] == 1 and (xs is None or xs.size == ys.size):
        ys = ys.reshape(-1)                   # a row vector: one line, not a point per column
    xs = np.arange(ys.shape[0]) if xs is None else xs
    if xs.size != ys.shape[0]:
        raise LaminaError("ShapeError", f"plot needs one x per y value (per row of a matrix), but got "
                          f"{xs.size} x values and {ys.shape[0]} y values.")
    if kept is not None:                      # a missing date or category cell: left out with its y
        xs, ys = xs[kept], ys[kept]
    x_axis(kind, "plot")
    with drawing("plot", STYLE_HINT):
        ax.plot(xs, ys, fmt, label=label)
    FX.label_axis(ax, kind)
    decorate(ax, label, title, xlabel, ylabel)


def _plot_fit(fit, label, title, xlabel, ylabel):
    """R's four diagnostic panels of a linear model or GLM (diagnostic_plots.py), in a figure of
    their own, as R's plot starts a new page: a figure open with drawings on it, never saved or
    shown, is dropped with a warning."""
    if label is not None or xlabel is not None or ylabel is not None:
        raise LaminaError("TypeError", "plot of a fitted model draws four panels, each with its own "
                          "axis labels; it takes only title = \"...\" (the figure's title).")
    fig = _state["fig"]
    if fig is not None and any(ax.has_data() for ax in fig.axes):
        warn("plot of a fitted model draws its four panels in a figure of their own, so the figure "
             "drawn before it, never saved or shown, is dropped; savefig it first to keep it.")
    from .diagnostic_plots import draw
    close()
    fig, grid = pyplot().subplots(2, 2, figsize=(9.6, 8.4))
    _state["fig"], _state["ax"], _state["x"] = fig, grid[1][1], FX.NUMBERS
    draw(grid, fit)
    if title is not None:
        fig.suptitle(title)
    fig.tight_layout()


def _plot_distribution(ax, d, fmt, label, title, xlabel, ylabel):
    lo, hi = d.quantile(0.001), d.quantile(0.999)
    if d.spec.discrete:
        first, last = np.floor(lo), np.ceil(hi)
        # a support too wide to draw value by value (poisson(1e11)): 2,001 whole values across it
        ks = np.arange(first, last + 1) if last - first <= 2000 else np.unique(np.round(np.linspace(first, last, 2001)))
        ps = d.pdf(ks)
        with drawing("plot", STYLE_HINT):
            ax.plot(ks, ps, "o" if fmt == "-" else fmt)
        ax.vlines(ks, 0, ps, label=label or d.describe())
    else:
        xs = np.linspace(lo, hi, 400)
        with drawing("plot", STYLE_HINT):
            ax.plot(xs, d.pdf(xs), fmt, label=label or d.describe())
    decorate(ax, True, title, xlabel, ylabel, default=("x", "probability" if d.spec.discrete else "density"))


def _plot_table(ax, t: Table, name: str, fmt: str, label, title, xlabel, ylabel):
    """A column against the swept parameter of a sweep's table with the most numeric values (the
    first of equals, a parameter set to one value if none varies; the row number for another
    table), one line per setting of the others."""
    ys = t.get(name)
    if not isinstance(ys, np.ndarray):
        held = "text" if isinstance(ys, list) else ys.type_name
        raise LaminaError("TypeError", f"plot(t, \"{name}\") needs a numeric column, but '{name}' holds {held}.")
    varied = [k for k in t.swept if k != name and len(set(map(str, t.columns[k]))) > 1]
    numeric = ([k for k in varied if isinstance(t.columns[k], np.ndarray)]
               or [k for k in t.swept if k != name and isinstance(t.columns[k], np.ndarray)])
    over = max(numeric, key=lambda k: len(set(t.columns[k])), default=None)
    xs = t.columns[over] if over else np.arange(t.nrows, dtype=np.float64)
    others = [k for k in varied if k != over]
    groups: dict[str, list[int]] = {}
    for i in range(t.nrows):
        key = ", ".join(f"{k} = {_cell_text(t.columns[k][i])}" for k in others)
        groups.setdefault(key, []).append(i)
    with drawing("plot", STYLE_HINT):
        for key, rows in groups.items():
            rows = sorted(rows, key=lambda i: xs[i])
            ax.plot(xs[rows], ys[rows], fmt, label=", ".join(filter(None, (label, key))) or None)
    if over and np.all(xs > 0) and xs.max() / xs.min() >= 10:
        ax.set_xscale("log")
    decorate(ax, bool(others or label) or None, title, xlabel, ylabel, default=(over or "row", name))


def _cell_text(x) -> str:
    return format_number(float(x)) if isinstance(x, (float, np.floating)) else str(x)


SCATTER_LARGEST = 1e6


@draws
def scatter(x, y, color=None, label=None, title=None, xlabel=None, ylabel=None, size=20.0):
    label, title, xlabel, ylabel = texts(label, title, xlabel, ylabel)
    ax = axes()
    (xs, kept, kind), ys = FX.x_values(x, "scatter"), vector(y, "scatter's y values")
    if xs.size != ys.size:
        raise LaminaError("ShapeError", f"scatter needs as many x values as y values, but got {xs.size} and {ys.size}.")
    c = None
    if color is not None:
        c = as_str(color, "scatter's color") if isinstance(color, str) else vector(color, "scatter's color")
        from matplotlib.colors import is_color_like
        if isinstance(c, str) and not is_color_like(c):
            raise LaminaError("ValueError", f"scatter's color \"{c}\" is not a color matplotlib knows; "
                              f"use a name such as \"red\" or a code such as \"#1f77b4\".")
        if not isinstance(c, str) and c.size != xs.size:
            raise LaminaError("ShapeError", f"scatter's color needs one value per point ({xs.size}), not {c.size}.")
    area = as_float(size, "scatter's size")
    if not 0 <= area < math.inf:           # matplotlib takes any; the figure could not be saved then
        raise LaminaError("ValueError", f"scatter's size is a marker's area in points squared, a finite "
                          f"number at least 0, not {format_number(area)}.")
    if area > SCATTER_LARGEST:             # saving 1e30 took hours
        raise LaminaError("ValueError", f"scatter's size is a marker's area in points squared, at most "
                          f"{SCATTER_LARGEST:,.0f} (a dot about 14 inches across), not {format_number(area)}.")
    cmap = None
    if c is not None and not isinstance(c, str):   # matplotlib leaves a NaN's dot out (transparent)
        from matplotlib import colormaps
        cmap = colormaps["viridis"].with_extremes(bad="gray")
    if kept is not None:                      # a missing date or category cell: left out with its y
        xs, ys, c = xs[kept], ys[kept], c if c is None or isinstance(c, str) else c[kept]
    x_axis(kind, "scatter")
    ax.scatter(xs, ys, c=c, s=area, label=label, cmap=cmap)
    FX.label_axis(ax, kind)
    decorate(ax, label, title, xlabel, ylabel)


HIST_SEPARATE_BARS = 500        # more bins than this are drawn as one filled outline
HIST_MOST_BINS = 1_000_000


@draws
def hist(x, bins=10.0, label=None, title=None, xlabel=None, ylabel=None):
    label, title, xlabel, ylabel = texts(label, title, xlabel, ylabel)
    values = data(x, "hist's data").reshape(-1)
    values = values[~np.isnan(values)]
    if np.isinf(values).any():
        raise LaminaError("ValueError", "hist cannot place Inf or -Inf in a bin; drop those values first.")
    spec = bin_spec(bins, "hist")
    if not isinstance(spec, np.ndarray):
        check_span(values, "hist")
    count = spec if isinstance(spec, int) else spec.size - 1
    if count > HIST_MOST_BINS:
        raise LaminaError("ValueError", f"hist draws at most {HIST_MOST_BINS:,} bins, not {count:,}; "
                          "histogram(x, bins) gives the counts of more.")
    try:        # histogram's own counts, drawn as they are
        counts, edges = np.histogram(values, bins=spec)
    except ValueError as exc:     # bins of equal width narrower than the values' precision
        raise LaminaError("ValueError", f"hist cannot make equal bins over these values ({exc}); "
                          f"scale the data first.") from None
    ax = axes()
    x_axis(FX.NUMBERS, "hist")
    with drawing("hist", TOO_BIG):
        if count <= HIST_SEPARATE_BARS:
            ax.hist(edges[:-1], bins=edges, weights=counts, label=label, edgecolor="white")
        else:   # one filled step curve, not a patch per bin (100,000 patches took minutes)
            ax.fill_between(edges, np.append(counts, counts[-1]), step="post", label=label)
    decorate(ax, label, title, xlabel, ylabel, default=(None, "count"))


@draws
def bar(x, heights=None, label=None, title=None, xlabel=None, ylabel=None):
    label, title, xlabel, ylabel = texts(label, title, xlabel, ylabel)
    ax = axes()
    kind = FX.NUMBERS
    if heights is None and isinstance(x, Categorical):    # the count of each level, at its position
        hs, names, kind = FX.level_counts(x), list(x.levels), x.levels
    elif heights is None:
        hs = vector(x, "bar's heights")
        names = [str(i) for i in range(hs.size)]
    else:
        hs = vector(heights, "bar's heights")
        if isinstance(x, Categorical):
            if len(x) != hs.size:
                raise LaminaError("ShapeError", f"bar needs one cell of the category per bar, but got "
                                  f"{len(x)} cells and {hs.size} heights.")
            order, names = FX.level_order(x)
            hs = hs[order]
        elif isinstance(x, list) and all(isinstance(s, str) for s in x):
            names = list(x)
        elif isinstance(x, list) and any(isinstance(s, str) for s in x):
            raise LaminaError("TypeError", "bar's labels must be all strings or all numbers, not a mix.")
        else:
            names = [format_number(v) for v in vector(x, "bar's labels")]
        if len(names) != hs.size:
            raise LaminaError("ShapeError", f"bar needs one label per bar, but got {len(names)} labels and {hs.size} heights.")
    if not np.isfinite(hs).all():
        bad = hs[~np.isfinite(hs)][0]
        raise LaminaError("ValueError", f"bar's heights must be finite numbers, but one is "
                          f"{format_number(bad)}; drop it (or give it a height) first.")
    # Positions 0, 1, ... with the labels as tick labels: a repeated label is a bar of its own
    # (matplotlib's categorical axis would stack them), and many bars label only some ticks.
    positions = np.arange(hs.size)
    x_axis(kind, "bar")
    ax.bar(positions, hs, label=label)
    shown = positions if hs.size <= FX.MOST_LABELS else np.linspace(0, hs.size - 1, 11).round().astype(int)
    ax.set_xticks(shown, [names[i] for i in shown])
    decorate(ax, label, title, xlabel, ylabel)


FORMATS = (".png", ".svg", ".pdf", ".jpg", ".jpeg")
RASTER = ("png", "jpg", "jpeg")
MAX_PIXELS = 100_000_000    # about 400 MB of RGBA while it is drawn


def savefig(path, dpi=100.0):
    target = expand_home(as_str(path, "savefig's path"))
    if not target.lower().endswith(FORMATS):
        raise LaminaError("ValueError", f"savefig writes {', '.join(FORMATS)} files; \"{target}\" has "
                          f"none of those endings.")
    if _state["fig"] is None:
        raise LaminaError("ValueError", "savefig has no figure to save; draw one first with plot, "
                          "scatter, hist or bar.")
    check_write(target, "savefig")
    folder = os.path.dirname(target)
    if folder and not os.path.isdir(folder):
        raise LaminaError("ValueError", f"savefig cannot write \"{target}\": the folder \"{folder}\" does not exist.")
    resolution = as_int(dpi, "savefig's dpi", minimum=10)
    # the ending itself (splitext reads ".png" as a name without one)
    kind = next(f for f in FORMATS if target.lower().endswith(f)).lstrip(".")
    fig = _state["fig"]
    width, height = (round(inches * resolution) for inches in fig.get_size_inches())
    if kind in RASTER and width * height > MAX_PIXELS:     # dpi 5000 ran for minutes, then ran out of memory
        raise LaminaError("ValueError", f"savefig at dpi {resolution} would make a {width:,} x {height:,} "
                          f"pixel image, more than {MAX_PIXELS:,} pixels; use a lower dpi, or .svg or .pdf.")
    try:
        with drawing("savefig", TOO_BIG):
            write_file(target, "savefig", lambda f: fig.savefig(f, format=kind, dpi=resolution, bbox_inches="tight"))
    except OSError as exc:
        raise LaminaError("ValueError", f"savefig cannot write \"{target}\": {exc.strerror or exc}.") from None
    if _state["sink"] is not None:
        _state["sink"](_state["fig"])
    close()


def show():
    if _state["fig"] is None:
        raise LaminaError("ValueError", "show has no figure to show; draw one first with plot, scatter, hist or bar.")
    if _state["sink"] is not None:
        _state["sink"](_state["fig"])
        close()
        return
    plt = pyplot()
    if plt.get_backend().lower() == "agg":
        warn("show: no display is available here, so the figure is not shown; save it with "
             "savefig(\"file.png\").")
        return
    plt.show()
    close()
