"""Dates and date-times: one value for one date or a vector of them, and a table's date column.

A `Dates` holds NumPy datetime64 values: days for dates (`date("2024-01-31")`), microseconds for
date-times (`datetime("2024-01-31T10:30")`); NaT is a missing date. It prints as ISO text
(2024-01-31, 2024-01-31T10:30:00), NA where missing. The operators: date - date is the number of
days between them (a fraction for date-times), date + n and date - n move by n days, and the six
comparisons compare with a date of the same kind or with ISO text. year, month, day, weekday
(1 Monday .. 7 Sunday, ISO 8601) and, for date-times, hour, minute, second give numbers.
"""
from __future__ import annotations

import re

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import LaminaError
from ..lang.selection import index_one_axis, put_one_axis
from ..printing import format_number
from ..values import LibObject, describe, value_of

DAY = np.timedelta64(1, "D")
MOST_DAYS = 10 ** 8          # days as microseconds must fit an int64 (8.6e18 of 9.2e18)
DATE = np.dtype("datetime64[D]")
DATETIME = np.dtype("datetime64[us]")
DATE_TEXT = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
DATETIME_TEXT = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]{1,6})?)?")
PARTS = ("year", "month", "day", "weekday")
CLOCK = ("hour", "minute", "second")
_COMPARE = {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal,
            "==": np.equal, "!=": np.not_equal}


class Dates(LibObject):
    def __init__(self, values: np.ndarray, scalar: bool = False):
        self.values = values            # 1-d datetime64[D] or [us]; one element when scalar
        self.scalar = scalar

    @property
    def type_name(self) -> str:
        kind = "date" if self.values.dtype == DATE else "datetime"
        return kind if self.scalar else kind + "s"

    def kind_text(self) -> str:
        kind = "date" if self.values.dtype == DATE else "datetime"
        n = len(self.values)
        return f"a {kind}" if self.scalar else f"a vector of {n} {kind}{'s' * (n != 1)}"

    @property
    def is_datetime(self) -> bool:
        return self.values.dtype == DATETIME

    # -- the column protocol (columns.py) -------------------------------------------------
    def __len__(self) -> int:
        return len(self.values)

    def __getitem__(self, i):
        if isinstance(i, (slice, np.ndarray, list)):
            return self.take(i)
        return Dates(self.values[[i]], scalar=True)

    def take(self, rows) -> "Dates":
        return Dates(self.values[rows].copy())

    def missing(self) -> np.ndarray:
        return np.isnat(self.values)

    def to_arrow(self) -> pa.Array:
        return pa.array(self.values, type=pa.date32() if self.values.dtype == DATE else pa.timestamp("us"))

    def texts(self) -> list:
        """Each as ISO text, None where missing."""
        unit = "D" if self.values.dtype == DATE else "us"
        out = np.datetime_as_string(self.values, unit=unit).tolist()
        return [None if t == "NaT" else (t if unit == "D" else _seconds(t)) for t in out]

    def replaced(self, rows, values: list) -> "Dates":
        out = self.values.copy()
        kind = "datetime" if self.is_datetime else "date"
        for i, v in zip(rows, values):
            if isinstance(v, Dates) and v.scalar:
                _same_kind(self, v, "store")
                out[i] = v.values[0]
            elif isinstance(v, str):
                out[i] = parse([v or None], kind, "storing a cell").values[0]
            else:
                raise LaminaError("TypeError", f"A {kind} column holds {kind}s: store a {kind} or ISO text, "
                                  f"not {describe(v)}.")
        return Dates(out)

    def shown(self, i: int) -> str:
        t = Dates(self.values[[i]]).texts()[0]
        return "NA" if t is None else t

    # -- a value ------------------------------------------------------------------------
    def field_names(self) -> list[str]:
        return list(PARTS) + (list(CLOCK) if self.is_datetime else [])

    def get(self, name: str):
        if name in self.field_names():
            return part(self, name)
        return super().get(name)

    def describe(self) -> str:
        texts = ["NA" if t is None else t for t in self.texts()]
        return texts[0] if self.scalar else "[" + ", ".join(texts) + "]"

    def index_get(self, items: tuple):
        return index_one_axis(self, items, len(self.values), self.take, self.__getitem__)

    def elements(self) -> list | None:
        return None if self.scalar else [self[i] for i in range(len(self.values))]

    def index_put(self, items: tuple, value, owned: bool) -> "Dates":
        if self.scalar:
            raise LaminaError("TypeError", f"Cannot assign into {describe(self)} by index; it is one date.")
        return put_one_axis(self, items, value, len(self.values), self.replaced)

    @classmethod
    def bracketed(cls, items: tuple) -> "Dates | None":
        """[d1, d2, ...] of single dates (or of single date-times) is a vector of them; any other
        mixture stays a list."""
        kind = items[0].values.dtype
        if all(isinstance(d, Dates) and d.scalar and d.values.dtype == kind for d in items):
            return Dates(np.concatenate([d.values for d in items]))
        return None

    def operator(self, op: str, other, swapped: bool):
        """self op other (other op self when swapped), or None when the operator does not apply."""
        if op in _COMPARE:
            return _compare(op, self, _as_dates(other, self), swapped)
        if op == "-" and isinstance(other, Dates):
            a, b = (other, self) if swapped else (self, other)
            _same_kind(a, b, "subtract")
            days = (a.values - b.values) / DAY
            return float(days[0]) if a.scalar and b.scalar else days.astype(np.float64)
        if op in ("+", "-") and not (op == "-" and swapped):
            return self.shifted(other if op == "+" else _negated(other))
        return None

    def extreme(self, latest: bool, skip_missing: bool) -> "Dates":
        """min or max: the earliest or latest date; NA when one is missing, unless skip_missing."""
        v = self.values
        gone = np.isnat(v)
        if not len(v) or gone.all() or gone.any() and not skip_missing:
            return Dates(np.array(["NaT"], dtype=v.dtype), scalar=True)
        kept = v[~gone]
        return Dates(np.array([kept.max() if latest else kept.min()]), scalar=True)

    def central(self, how: str, skip_missing: bool) -> "Dates":
        """mean or median: the middle date-time, or for dates the day it falls on (as R prints
        mean.Date's fraction); NA when one is missing, unless skip_missing."""
        v = self.values
        gone = np.isnat(v)
        if not len(v) or gone.all() or gone.any() and not skip_missing:
            return Dates(np.array(["NaT"], dtype=v.dtype), scalar=True)
        counts = v[~gone].astype(np.int64)
        start = counts.min()            # counted from the earliest: exact in a float64
        offset = (counts - start).astype(np.float64)
        middle = offset.mean() if how == "mean" else np.median(offset)
        return Dates(np.array([start + int(np.floor(middle))]).astype(v.dtype), scalar=True)

    def range_to(self, stop, step) -> "Dates":
        """range(d1, d2, step): every step days (1: each day) from this date up to, not including,
        the date stop, as range counts numbers (R's seq(d1, d2, by = step) less its last)."""
        if not (self.scalar and isinstance(stop, Dates) and stop.scalar):
            to = "with no end" if stop is None else f"to {describe(stop)}"
            raise LaminaError("TypeError", f"range of dates goes from one date to another, range(d1, d2) "
                              f"or range(d1, d2, 7), not from {describe(self)} {to}.")
        _same_kind(self, stop, "count from")
        days = value_of(step)
        if isinstance(days, bool) or not isinstance(days, float) or not np.isfinite(days) or days == 0 \
                or (not self.is_datetime and days != int(days)):
            raise LaminaError("ValueError", f"range of {'date-times' if self.is_datetime else 'dates'} steps "
                              f"by a nonzero{'' if self.is_datetime else ' whole'} number of days, not "
                              f"{format_number(days) if isinstance(days, float) else describe(step)}.")
        if np.isnat(self.values[0]) or np.isnat(stop.values[0]):
            raise LaminaError("ValueError", "range of dates needs two dates, not a missing one (NA).")
        per_day = 1 if not self.is_datetime else 86_400_000_000
        span = int((stop.values[0] - self.values[0]).astype(np.int64))
        steps = np.arange(0, span, round(days * per_day), dtype=np.int64)
        return Dates(self.values[0] + steps.astype(self.values.dtype.str.replace("M8", "m8")))

    def shifted(self, days) -> "Dates":
        n = value_of(days)
        if isinstance(n, bool) or not isinstance(n, (float, int, np.ndarray)):
            raise LaminaError("TypeError", f"A date moves by a number of days, not {describe(days)}.")
        n = np.asarray(n, dtype=np.float64)
        if not np.all(np.abs(n) <= MOST_DAYS):        # NaN and Inf too: a cast would wrap silently
            raise LaminaError("ValueError", f"A date moves by a finite number of days, at most "
                              f"{MOST_DAYS:,} either way.")
        if self.is_datetime:
            step = np.round(n * 86_400e6).astype(np.int64).astype("timedelta64[us]")
        else:
            if np.any(n != np.round(n)):
                raise LaminaError("ValueError", "A date moves by whole days; make it a datetime to move it by "
                                  "part of a day.")
            step = n.astype(np.int64).astype("timedelta64[D]")
        try:
            moved = self.values + step
        except ValueError:
            raise LaminaError("ShapeError", f"Cannot add {describe(days)} to {describe(self)}.") from None
        return Dates(moved.reshape(-1), scalar=self.scalar and moved.size == 1 and np.ndim(n) == 0)


def _seconds(text: str) -> str:
    """2024-01-31T10:30:00.000000 as 2024-01-31T10:30:00: the fraction of a second only when there is one."""
    whole, _, fraction = text.partition(".")
    fraction = fraction.rstrip("0")
    return whole + (f".{fraction}" if fraction else "")


def _negated(x):
    v = value_of(x)
    return -v if isinstance(v, (float, int, np.ndarray)) and not isinstance(v, bool) else x


def _same_kind(a: Dates, b: Dates, doing: str) -> None:
    if a.is_datetime != b.is_datetime:
        raise LaminaError("TypeError", f"Cannot {doing} {describe(a)} and {describe(b)}: make both dates "
                          f"or both datetimes (datetime(d) makes a date a datetime at midnight).")


def _as_dates(x, like: Dates) -> Dates:
    if isinstance(x, Dates):
        return x
    if isinstance(x, str):
        return parse([x], "datetime" if like.is_datetime else "date", "comparison")
    raise LaminaError("TypeError", f"Cannot compare {describe(like)} with {describe(x)}; compare with "
                      f"a date, or ISO text such as \"2024-01-31\".")


def _compare(op: str, a: Dates, b: Dates, swapped: bool):
    if swapped:
        a, b = b, a
    _same_kind(a, b, "compare")
    try:
        out = _COMPARE[op](a.values, b.values)
    except ValueError:
        raise LaminaError("ShapeError", f"Cannot compare {describe(a)} with {describe(b)}.") from None
    return bool(out[0]) if a.scalar and b.scalar else out


def parse(texts, kind: str, who: str) -> Dates:
    """Dates from ISO text (a missing cell, None, stays missing); a malformed one is an error
    naming it."""
    pattern, dtype = (DATE_TEXT, DATE) if kind == "date" else (DATETIME_TEXT, DATETIME)
    out = np.empty(len(texts), dtype=dtype)
    for i, t in enumerate(texts):
        if t is None:
            out[i] = np.datetime64("NaT")
            continue
        text = t.strip()
        if kind == "datetime" and DATE_TEXT.fullmatch(text):
            text += "T00:00"
        try:
            if not pattern.fullmatch(text):
                raise ValueError
            out[i] = np.datetime64(text.replace(" ", "T"), "D" if kind == "date" else "us")
        except ValueError:
            form = "YYYY-MM-DD" if kind == "date" else "YYYY-MM-DDThh:mm:ss"
            raise LaminaError("ValueError", f"{who}: \"{t}\" is not a {kind} ({form}, a real day of the "
                              f"calendar).") from None
    return Dates(out)


def part(d: Dates, name: str):
    """year, month, day, weekday, hour, minute or second of each date, NaN where missing."""
    if name in CLOCK and not d.is_datetime:
        raise LaminaError("TypeError", f"{name} needs a datetime, not {describe(d)}.")
    v = d.values
    days = v.astype("datetime64[D]")
    if name == "year":
        out = v.astype("datetime64[Y]").astype(np.int64) + 1970
    elif name == "month":
        out = v.astype("datetime64[M]").astype(np.int64) % 12 + 1
    elif name == "day":
        out = (days - v.astype("datetime64[M]").astype("datetime64[D]")).astype(np.int64) + 1
    elif name == "weekday":                      # 1970-01-01 was a Thursday, ISO day 4
        out = (days.astype(np.int64) + 3) % 7 + 1
    else:
        since_midnight = (v - days.astype(v.dtype)).astype("timedelta64[us]").astype(np.int64)
        out = since_midnight // {"hour": 3_600_000_000, "minute": 60_000_000, "second": 1_000_000}[name]
        out = out % {"hour": 24, "minute": 60, "second": 60}[name]
    out = np.where(np.isnat(v), np.nan, out.astype(np.float64))
    return float(out[0]) if d.scalar else out


def from_arrow(arr) -> Dates:
    """A date or timestamp Arrow array as dates (days) or date-times (microseconds, in UTC when
    the timestamps carry a time zone)."""
    t = arr.type
    if pa.types.is_timestamp(t):
        target = pa.timestamp("us", tz=t.tz) if t.tz else pa.timestamp("us")
        values = pc.cast(arr, target)
        if t.tz:
            values = pc.cast(values, pa.int64()).cast(pa.timestamp("us"))
        return Dates(np.asarray(values.to_numpy(zero_copy_only=False), dtype=DATETIME))
    values = pc.cast(arr, pa.date32()) if not pa.types.is_date32(t) else arr
    return Dates(np.asarray(values.to_numpy(zero_copy_only=False), dtype=DATE))
