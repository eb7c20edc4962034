"""Dates, date-times and categories (stats/dates.py, stats/categories.py): making them and
reading their parts."""
from __future__ import annotations

import numpy as np

from ..errors import LaminaError
from ..stats import categories as CT
from ..stats import dates as DA
from ..stats.categories import Categorical
from ..stats.columns import TextColumn
from ..stats.dates import Dates
from ..values import as_int, describe, value_of
from .registry import Shape, builtin

CATEGORY = "Data"
DATES_NOTE = ("date - date is the number of days between them (a fraction of a day for datetimes), "
              "date + n and date - n move by n days, and <, <=, >, >=, == and != compare with a date "
              "of the same kind or with ISO text (t.day >= \"2024-03-01\"), giving a mask on a vector "
              "of dates. A missing date (NA) compares false. year, month, day and weekday read the "
              "parts as numbers; d.year is the same as year(d). min(d) and max(d) are the earliest and "
              "latest (NA when one is missing, unless skipnan = true).")


def _texts(x, who: str):
    """A string or a list of strings (a text column) as (the texts, whether one was given)."""
    v = value_of(x)
    if isinstance(v, str):
        return [v], True
    if isinstance(v, TextColumn):
        return v.texts(), False
    if isinstance(v, list) and all(isinstance(s, str) for s in v):
        return [s or None for s in v], False
    raise LaminaError("TypeError", f"{who} takes ISO text (\"2024-01-31\"), a list of it or dates, not {describe(x)}.")


def _dates(x, kind: str, who: str) -> Dates:
    if isinstance(x, Dates):
        unit = DA.DATE if kind == "date" else DA.DATETIME
        return Dates(x.values.astype(unit), scalar=x.scalar)
    texts, one = _texts(x, who)
    d = DA.parse(texts, kind, who)
    return Dates(d.values, scalar=one)


@builtin("date", pure="a date", tracked="constant", category=CATEGORY,
         probes="takes text, dates or whole numbers (year, month, day)",
         shapes=[Shape("date(\"2024-01-31\")", "ISO text", "date", "That day."),
                 Shape("date([\"2024-01-31\", \"2024-02-29\"])", "list of ISO text", "dates", "A vector of dates."),
                 Shape("date(2024, 1, 31)", "year, month, day", "date", "The day of those numbers."),
                 Shape("date(2024, range(1, 13), 1)", "years, months, days: numbers or vectors", "dates",
                       "A vector of dates, a part given once standing for every one."),
                 Shape("date(d)", "date-times", "dates", "Their days (the time of day dropped).")],
         summary="A calendar date (or a vector of them) from ISO text YYYY-MM-DD or from its parts.",
         examples=['d = date("2024-01-31")\nprint(d, d + 1, date("2024-03-01") - d)\nprint(year(d), month(d), weekday(d))',
                   'days = date(["2024-01-31", "2024-02-29", ""])\nprint(days, days > "2024-02-01", length(days))',
                   'print(date(2024, range(1, 5), 1))   # the first of each month'],
         notes="A malformed date (2024-13-01, 2023-02-29, 31/01/2024) is a ValueError naming it; so "
               "is a day that does not exist among parts given as vectors (date(2023, 2, 28 + range(0, 2))). An "
               "empty string in a list is a missing date, NA. read_csv reads a column of ISO dates as "
               "dates, and printing, write_csv, sort_rows, group_by and merge keep them. " + DATES_NOTE)
def date(x, month=None, day=None):
    if month is None and day is None:
        return _dates(x, "date", "date")
    if month is None or day is None:
        raise LaminaError("TypeError", "date takes ISO text, or a year, a month and a day: date(2024, 1, 31).")
    parts = [_whole(v, f"date's {w}") for v, w in ((x, "year"), (month, "month"), (day, "day"))]
    lengths = sorted({len(p) for p in parts if isinstance(p, list)})
    if len(lengths) > 1:
        raise LaminaError("ShapeError", f"date's year, month and day must be vectors of one length or single "
                          f"numbers, not vectors of {' and '.join(map(str, lengths))}.")
    n = lengths[0] if lengths else 1
    columns = [p if isinstance(p, list) else [p] * n for p in parts]
    made = DA.parse([f"{y:04d}-{m:02d}-{d:02d}" for y, m, d in zip(*columns)], "date", "date")
    return Dates(made.values, scalar=not lengths)


def _whole(v, what: str):
    """A whole number, or a vector of them as a list (a part of date(year, month, day))."""
    a = value_of(v)
    if not (isinstance(a, np.ndarray) and a.ndim == 1):
        return as_int(v, what)
    if not (np.isfinite(a).all() and (a == np.round(a)).all()):
        raise LaminaError("ValueError", f"{what} must be whole numbers, not {describe(v)}.")
    return [int(k) for k in a]


@builtin("datetime", pure="a date-time", tracked="constant", category=CATEGORY,
         probes="takes text or dates",
         shapes=[Shape("datetime(\"2024-01-31T10:30\")", "ISO text", "datetime", "That moment (to the microsecond)."),
                 Shape("datetime(list)", "list of ISO text", "datetimes", "A vector of them."),
                 Shape("datetime(d)", "dates", "datetimes", "Midnight of each day.")],
         summary="A date and time of day (or a vector of them) from ISO text YYYY-MM-DDThh:mm[:ss[.ffffff]].",
         examples=['t = datetime("2024-01-31T10:30")\nprint(t, t + 0.5, hour(t + 0.5))\n'
                   'print(datetime("2024-02-01 06:00") - t)'],
         notes="A space may stand for the T; seconds and fractions of a second are optional; a date "
               "alone is midnight. There are no time zones: read_csv turns a time with an offset into "
               "text. " + DATES_NOTE)
def datetime(x):
    return _dates(x, "datetime", "datetime")


def _part(name: str, needs: str):
    def read(d):
        if not isinstance(d, Dates):
            raise LaminaError("TypeError", f"{name} takes {needs}, not {describe(d)}.")
        return DA.part(d, name)
    read.__name__ = name
    return read


for _name, _what, _example in [
        ("year", "The year", 'print(year(date("2024-01-31")), year(date(["1999-12-31", "2000-01-01"])))'),
        ("month", "The month, 1 to 12", 'print(month(date(["2024-01-31", "2024-12-01"])))'),
        ("day", "The day of the month, 1 to 31", 'print(day(date("2024-02-29")))'),
        ("weekday", "The day of the week, 1 (Monday) to 7 (Sunday), as ISO 8601 counts",
         'print(weekday(date(["2024-01-29", "2024-02-04"])))'),
        ("hour", "The hour, 0 to 23", 'print(hour(datetime("2024-01-31T17:45")))'),
        ("minute", "The minute, 0 to 59", 'print(minute(datetime("2024-01-31T17:45")))'),
        ("second", "The second, 0 to 59", 'print(second(datetime("2024-01-31T17:45:09")))')]:
    _needs = "a date-time" if _name in DA.CLOCK else "a date or date-time"
    builtin(_name, pure="a number or vector", tracked="constant", category=CATEGORY,
            probes=f"takes {_needs}",
            shapes=[Shape(f"{_name}(d)", _needs, "number", _what + "."),
                    Shape(f"{_name}(dates)", "a vector of them", "vector", _what + " of each, NaN where missing.")],
            summary=f"{_what} of a {'date-time' if _name in DA.CLOCK else 'date'}.",
            examples=[_example],
            notes=f"d.{_name} is the same. A missing date gives NaN. To group a table by month, add the "
                  f"parts as columns: t.year = year(t.day); t.month = month(t.day), then "
                  f"group_by(t, [\"year\", \"month\"]).")(_part(_name, _needs))


@builtin("category", pure="a category", tracked="constant", category=CATEGORY,
         probes="takes text",
         shapes=[Shape("category(x)", "list of strings", "category", "Levels in sorted order."),
                 Shape("category(x, levels = [...])", "list of strings, the levels in order", "category",
                       "Levels in that order; a value that is not a level is an error."),
                 Shape("category(c, levels = [...])", "category, levels", "category", "The same cells, levels reordered.")],
         summary="Text from a fixed, ordered set of levels (R's factor): group_by, count, sort_rows, "
                 "linreg's indicator columns and plots follow the level order.",
         examples=['dose = category(["low", "high", "mid", "low"], levels = ["low", "mid", "high"])\n'
                   'print(dose)\nprint(dose == "low", levels(dose), dose[1])',
                   't = table({dose = ["low", "high", "mid", "low"], y = [1, 5, 3, 2]})\n'
                   't.dose = category(t.dose, levels = ["low", "mid", "high"])\nprint(sort_rows(t, "dose"))'],
         notes="An empty string is a missing cell (NA). With levels, a value that is not one of them is "
               "a ValueError that names it and the levels; so is comparing with text that is not a "
               "level (a misspelt level would otherwise silently match nothing). read_csv(path, types = "
               "{g = \"category\"}) reads a column as a category with sorted levels; a Parquet file "
               "with a dictionary (categorical) column keeps its levels, while sql gives a category's "
               "text (DuckDB's result). In linreg and "
               "logreg the first level is the reference.")
def category(x, levels=None):
    order = None if levels is None else _level_list(levels)
    if isinstance(x, Categorical):
        return CT.make(["" if t is None else t for t in x.texts()], order or x.levels)
    texts, one = _texts(x, "category")
    if one:
        raise LaminaError("TypeError", "category takes a list of strings (a column), not one string.")
    return CT.make(["" if t is None else t for t in texts], order)


def _level_list(levels) -> list:
    if isinstance(levels, list) and levels and all(isinstance(s, str) and s for s in levels):
        return levels
    raise LaminaError("TypeError", f"category's levels must be a list of non-empty strings, not {describe(levels)}.")


@builtin("levels", pure="a list of strings", tracked="constant", category=CATEGORY,
         probes="takes a category",
         shapes=[Shape("levels(c)", "category", "list of strings", "Its levels, in order.")],
         summary="The levels of a category, in their order.",
         examples=['print(levels(category(["b", "a", "b"])))'],
         notes="c.levels is the same.")
def levels(c):
    if not isinstance(c, Categorical):
        raise LaminaError("TypeError", f"levels takes a category (made by category), not {describe(c)}.")
    return list(c.levels)

