"""Writes examples/data/wheat.csv, the data of examples/models.lam and docs/models.md: an invented
field trial of three wheat varieties at five nitrogen rates, six plots of each (90 plots).

    python examples/data/make_wheat.py

Synthetic, seeded (NumPy, seed 20261207): the file is committed, and running this again writes the
same bytes. One row per plot:
  plot      W01 .. W90
  variety   standard, dwarf or hybrid
  nitrogen  fertiliser, kg of nitrogen per hectare: 0, 40, 80, 120 or 160
  yield     grain, tonnes per hectare: 3.0 + (0, 0.4, 0.9 for standard, dwarf, hybrid)
            + nitrogen / 100 x (1.6, 2.1, 2.4) + noise (sd 0.45), rounded to 0.01
  aphids    aphids counted on 20 tillers: Poisson with mean exp(1.6 + 0.004 nitrogen
            + (0, -0.3, 0.25))
  lodged    1 if the crop fell over before harvest: probability logistic(-4 + 0.025 nitrogen
            + (0.8, -1.2, 0))
"""
from __future__ import annotations

import pathlib

import numpy as np

VARIETIES = ["standard", "dwarf", "hybrid"]
RATES = [0, 40, 80, 120, 160]
PLOTS_EACH = 6


def rows(rng: np.random.Generator) -> list[str]:
    base, slope = {"standard": 0.0, "dwarf": 0.4, "hybrid": 0.9}, {"standard": 1.6, "dwarf": 2.1, "hybrid": 2.4}
    pests, falls = {"standard": 0.0, "dwarf": -0.3, "hybrid": 0.25}, {"standard": 0.8, "dwarf": -1.2, "hybrid": 0.0}
    out, i = [], 0
    for _ in range(PLOTS_EACH):
        for variety in VARIETIES:
            for n in RATES:
                i += 1
                crop = 3.0 + base[variety] + n / 100 * slope[variety] + rng.normal(0, 0.45)
                aphids = rng.poisson(np.exp(1.6 + 0.004 * n + pests[variety]))
                lodged = int(rng.random() < 1 / (1 + np.exp(-(-4 + 0.025 * n + falls[variety]))))
                out.append(f"W{i:02d},{variety},{n},{crop:.2f},{aphids},{lodged}")
    return out


def main() -> None:
    rng = np.random.default_rng(20261207)
    path = pathlib.Path(__file__).with_name("wheat.csv")
    path.write_text("plot,variety,nitrogen,yield,aphids,lodged\n" + "\n".join(rows(rng)) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
