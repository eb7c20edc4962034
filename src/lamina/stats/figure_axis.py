"""What a figure's x axis holds: numbers, dates, or the levels of one category.

plot and scatter place dates on a date axis (matplotlib's date numbers, ticks as ISO text) and a
category's cells at its levels' positions 0, 1, ... (the level names as tick labels, in the
level order); a missing date or cell is left out with its y. bar of a category counts its
levels. One axis holds one kind (dates and date-times are one kind): matplotlib would read
numbers on a date axis as days since 1970, and dates on a numeric axis without its date ticks.
matplotlib is imported by the first call that labels an axis, as figures.py does.
"""
from __future__ import annotations

import functools

import numpy as np

from ..errors import LaminaError
from .args import vector
from .categories import Categorical
from .dates import Dates

NUMBERS, DATES, DATETIMES = "numbers", "dates", "datetimes"
MOST_LABELS = 50            # more levels than this label 11 of them, as bar does
# matplotlib's tick spacing (the locator's unit, in days) -> the ISO text a tick reads as
ISO_TICKS = {365.0: "%Y", 30.0: "%Y-%m", 1.0: "%Y-%m-%d", 1 / 24: "%Y-%m-%d %H:%M",
             1 / 1440: "%Y-%m-%d %H:%M", 1 / 86400: "%Y-%m-%d %H:%M:%S", 1 / 86400e3: "%H:%M:%S.%f"}


def x_values(x, who: str):
    """plot's or scatter's x as (values, kept, kind): the numbers, the dates as datetime64 or a
    category's level positions; kept is the mask of the points drawn (None: every one); kind is
    NUMBERS, DATES, DATETIMES or the category's levels."""
    if isinstance(x, Dates):
        return x.values, ~np.isnat(x.values), DATETIMES if x.is_datetime else DATES
    if isinstance(x, Categorical):
        return x.codes.astype(np.float64), x.codes >= 0, x.levels
    if isinstance(x, list) and x and all(isinstance(s, str) for s in x):
        raise LaminaError("TypeError", f"{who}'s x values are text; make them a category to draw them at "
                          f"its levels, in their order: {who}(category(x), y).")
    return vector(x, f"{who}'s x values"), None, NUMBERS


def claim(current, kind, who: str):
    """The kind the x axis holds once `who` draws `kind` on it (holding `current`, None when
    nothing is drawn yet); a kind it cannot hold beside the current one is an error."""
    if current is None:
        return kind
    dated = (DATES, DATETIMES)
    if current in dated and kind in dated:
        return DATETIMES if DATETIMES in (current, kind) else DATES
    if current != kind:
        raise LaminaError("TypeError", f"{who} cannot draw {_kind_text(kind)} on this figure, whose x axis "
                          f"holds {_kind_text(current)}; start another with figure() first.")
    return current


def _kind_text(kind) -> str:
    if isinstance(kind, tuple):
        names = ", ".join(kind[:5]) + (", ..." if len(kind) > 5 else "")
        return f"a category of levels {names}" if kind else "a category without levels"
    return {NUMBERS: "numbers", DATES: "dates", DATETIMES: "date-times"}[kind]


def label_axis(ax, kind) -> None:
    """Ticks for what the x axis holds: ISO dates, or the level names at their positions."""
    if kind in (DATES, DATETIMES):
        import matplotlib.dates as md
        locator = _iso_ticks()(days_only=kind == DATES)
        formatter = md.AutoDateFormatter(locator, defaultfmt="%Y-%m-%d")
        formatter.scaled = dict(ISO_TICKS)
        ax.xaxis.set_major_locator(locator)
        ax.xaxis.set_major_formatter(formatter)
        ax.tick_params(axis="x", labelrotation=30)     # ten characters a tick: tilted, as pandas does
        for text in ax.get_xticklabels():
            text.set_horizontalalignment("right")
    elif isinstance(kind, tuple):
        shown = range(len(kind)) if len(kind) <= MOST_LABELS else \
            np.linspace(0, len(kind) - 1, 11).round().astype(int).tolist()
        ax.set_xticks(list(shown), [kind[i] for i in shown])


@functools.cache
def _iso_ticks():
    """matplotlib's automatic date ticks with two changes. Days apart are 1, 7 or 14 (the 1st,
    8th, 15th and 22nd of a month, or the 1st and 15th): its steps of 2 or 4 days put ticks on
    the 29th or 31st and again on the 1st, whose labels overlap. On an axis of dates (days_only)
    ticks are a day apart at least: a span of a few days would otherwise tick every few hours,
    each tick reading the same date."""
    import matplotlib.dates as md

    class IsoTicks(md.AutoDateLocator):
        def __init__(self, days_only: bool):
            super().__init__()
            self.days_only = days_only
            self.intervald[md.DAILY] = [1, 7, 14]
            self.maxticks[md.DAILY] = 16            # a tick a day up to 15 days: labels tilted fit

        def get_locator(self, dmin, dmax):
            if not self.days_only or abs((dmax - dmin).days) >= self.minticks:
                return super().get_locator(dmin, dmax)
            self._freq = md.DAILY                   # what the formatter reads the spacing from
            locator = md.DayLocator(tz=self.tz)
            locator.set_axis(self.axis)
            return locator
    return IsoTicks


def level_counts(c: Categorical) -> np.ndarray:
    """How many cells hold each level (missing cells counted nowhere), in the level order."""
    codes = c.codes[c.codes >= 0]
    return np.bincount(codes, minlength=len(c.levels)).astype(np.float64)


def level_order(c: Categorical) -> tuple[np.ndarray, list[str]]:
    """The cells' order by level (cells of one level as given, missing ones last) and the names
    of the cells in that order (NA where missing)."""
    order = np.argsort(np.where(c.codes < 0, len(c.levels), c.codes), kind="stable")
    return order, [c.shown(i) for i in order.tolist()]
