"""dates.py: parts, arithmetic and reading, against pandas' datetime handling."""
import numpy as np
import pandas as pd
import pytest

from lamina.stats import dates as DA
from lamina.stats.data import read_csv


def random_days(n, seed=3):
    rng = np.random.default_rng(seed)
    return (np.datetime64("1900-01-01") + rng.integers(0, 80_000, n).astype("timedelta64[D]"))


@pytest.mark.parametrize("name, attr", [("year", "year"), ("month", "month"), ("day", "day"),
                                        ("weekday", "isoweekday")])
def test_parts_are_pandas(name, attr):
    days = random_days(2000)
    want = [getattr(d, attr)() if attr == "isoweekday" else getattr(d, attr) for d in pd.to_datetime(days)]
    np.testing.assert_array_equal(DA.part(DA.Dates(days), name), want)


@pytest.mark.parametrize("name", ["hour", "minute", "second"])
def test_clock_parts_are_pandas(name):
    moments = random_days(500).astype("datetime64[us]") + np.arange(500) * np.timedelta64(7_777_777_777, "us")
    want = getattr(pd.DatetimeIndex(moments), name).to_numpy()
    np.testing.assert_array_equal(DA.part(DA.Dates(moments), name), want)


def test_difference_in_days_and_shift_are_numpy():
    a, b = random_days(300, 1), random_days(300, 2)
    got = DA.Dates(a).operator("-", DA.Dates(b), False)
    np.testing.assert_array_equal(got, (a - b).astype(np.int64))
    moved = DA.Dates(a).shifted(np.arange(300.0))
    np.testing.assert_array_equal(moved.values, a + np.arange(300).astype("timedelta64[D]"))


def test_missing_dates_print_na_and_compare_false():
    d = DA.parse(["2024-01-31", None], "date", "test")
    assert d.describe() == "[2024-01-31, NA]"
    assert d.operator(">", DA.parse(["2000-01-01"], "date", "test"), False).tolist() == [True, False]


@pytest.mark.parametrize("padded", [False, True])
def test_read_csv_reads_iso_dates_as_pandas_does(tmp_path, padded):
    # padded: a text column with spaces around its cells sends the file to the careful reader
    days = random_days(50)
    df = pd.DataFrame({"when": days, "at": days.astype("datetime64[s]") + np.timedelta64(3723, "s"),
                       "x": np.arange(50.0), "note": [" a " if padded else "a"] * 50})
    path = tmp_path / "d.csv"
    df.to_csv(path, index=False, date_format="%Y-%m-%d %H:%M:%S")
    text = path.read_text().replace(" 00:00:00", "")
    path.write_text(text)
    t = read_csv(str(path))
    np.testing.assert_array_equal(t.columns["when"].values, pd.read_csv(path, parse_dates=["when"])["when"].to_numpy())
    np.testing.assert_array_equal(t.columns["at"].values, df["at"].to_numpy().astype("datetime64[us]"))


@pytest.mark.parametrize("days", [1e300, float("inf"), float("nan"), -2e8])
def test_a_shift_beyond_the_calendar_is_an_error_not_a_wrapped_date(days):
    from lamina.errors import LaminaError
    with pytest.raises(LaminaError, match="finite number of days, at most 100,000,000"):
        DA.parse(["2024-01-31"], "date", "test").shifted(days)
