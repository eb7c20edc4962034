"""Writes the data of examples/sales.lam: a million sales of an invented chain of 40 shops.

    python examples/data/make_sales.py [--rows N] [--out DIR]

writes DIR/sales.csv (N sales, default 1,000,000) and DIR/stores.csv (the 40 stores), DIR being
examples/data/generated/ (ignored by git). A file that is already there is left alone, so
`make demo` pays for the data once; delete the folder to make it again. Synthetic, seeded: the
same N gives the same files. NumPy and pyarrow only (both are Lamina's dependencies).

sales.csv, one row per sale:
  day       2022-01-01 .. 2024-12-31; busier in December and at weekends, and 8% more each year
  store     S01 .. S40 (stores.csv says where each is)
  channel   shop, online or phone (60%, 30%, 10%)
  price     unit price, 2 to 60 (log-uniform), two decimals
  discount  0, 0.05, 0.1 or 0.2
  quantity  1 + Poisson(mean): mean 2.0, + 0.8 online, - 0.5 by phone, - 0.02 per unit of price,
            + 6 per unit of discount, + 0.3 at a weekend (at least 0.3, so the mean of quantity
            is exactly linear in these, and linreg should find each effect)
stores.csv, one row per store: store, region (north, south, east, west), city, size_m2.
"""
from __future__ import annotations

import argparse
import os
import pathlib

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

HERE = pathlib.Path(__file__).resolve().parent
SEED = 38
N_STORES = 40
STORE_IDS = np.array([f"S{i:02d}" for i in range(1, N_STORES + 1)])
FIRST, LAST = np.datetime64("2022-01-01"), np.datetime64("2024-12-31")
CHANNELS = np.array(["shop", "online", "phone"])
CHANNEL_SHARE = [0.6, 0.3, 0.1]
CHANNEL_EFFECT = np.array([0.0, 0.8, -0.5])
DISCOUNTS = np.array([0.0, 0.05, 0.1, 0.2])
DISCOUNT_SHARE = [0.7, 0.15, 0.1, 0.05]
REGIONS = np.array(["north", "south", "east", "west"])
CITIES = ["Aberby", "Brookhaven", "Caldmoor", "Dunmere", "Eastwick", "Fairholt", "Glenrock",
          "Harlow", "Ivybridge", "Juniper"]


def days_of_sales(rng: np.random.Generator, n: int) -> np.ndarray:
    """n sale days, drawn with each day's weight: season, weekend and growth."""
    days = np.arange(FIRST, LAST + 1)
    month = days.astype("datetime64[M]").astype(int) % 12 + 1
    weekday = (days.astype(int) + 3) % 7                     # 0 Monday .. 6 Sunday
    years = (days - FIRST).astype(int) / 365.25
    weight = (1 + 0.5 * (month == 12) + 0.15 * (month == 11) - 0.15 * (month == 2)) \
        * (1 + 0.35 * (weekday >= 5)) * 1.08 ** years
    return np.sort(rng.choice(days, size=n, p=weight / weight.sum()))


def sales(rng: np.random.Generator, n: int) -> pa.Table:
    day = days_of_sales(rng, n)
    store = rng.integers(N_STORES, size=n)
    channel = rng.choice(3, size=n, p=CHANNEL_SHARE)
    price = np.round(np.exp(rng.uniform(np.log(2), np.log(60), size=n)), 2)
    discount = DISCOUNTS[rng.choice(len(DISCOUNTS), size=n, p=DISCOUNT_SHARE)]
    weekend = (day.astype(int) + 3) % 7 >= 5
    mean = 2.0 + CHANNEL_EFFECT[channel] - 0.02 * price + 6 * discount + 0.3 * weekend
    quantity = 1 + rng.poisson(mean)
    return pa.table({
        "day": pa.array(day.astype("datetime64[D]"), type=pa.date32()),
        "store": pa.array(STORE_IDS[store]),
        "channel": pa.array(CHANNELS[channel]),
        "price": price,
        "discount": discount,
        "quantity": quantity.astype(np.int64)})


def stores(rng: np.random.Generator) -> pa.Table:
    return pa.table({
        "store": STORE_IDS,
        "region": REGIONS[np.arange(N_STORES) % len(REGIONS)],
        "city": [f"{CITIES[i % len(CITIES)]} {i // len(CITIES) + 1}" for i in range(N_STORES)],
        "size_m2": rng.integers(8, 40, size=N_STORES) * 25})


def write(table: pa.Table, path: pathlib.Path) -> None:
    """CSV without quotes (ISO dates), written beside the target and renamed, so a stopped run
    leaves no half file."""
    part = path.with_suffix(".csv.part")
    with open(part, "wb") as f:
        f.write((",".join(table.column_names) + "\n").encode())
        pacsv.write_csv(table, f, pacsv.WriteOptions(include_header=False, quoting_style="none"))
    os.replace(part, path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--out", type=pathlib.Path, default=HERE / "generated")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    # each file has its own generator, so one made again matches the other left in place
    for name, make in (("stores.csv", lambda: stores(np.random.default_rng([SEED, 1]))),
                       ("sales.csv", lambda: sales(np.random.default_rng([SEED, 2]), args.rows))):
        path = args.out / name
        if path.exists():
            print(f"{path} is already there")
            continue
        write(make(), path)
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
