"""Wilcoxon's statistics: their exact null distributions, and the Hodges-Lehmann estimate with its
confidence interval, as R's wilcox.test computes them.

Null distributions, without ties. The signed rank statistic V of n values is the sum of a random
subset of the ranks 1..n, each in with probability 1/2: its distribution is the coefficients of
prod_i (1 + q^i) / 2 (R's psignrank), built up one rank at a time in probabilities (sums of
positive numbers, which neither overflow nor cancel). The rank sum statistic W = U of samples of
m and n values counts the pairs (x, y) with x > y; the number of arrangements with U = u is the
coefficient of q^u in the Gaussian binomial [m + n choose m] = prod_{i=1..m} (1 - q^(n+i)) /
(1 - q^i) (R's pwilcox), computed in Python's exact integers.

Intervals. The estimate of a location (one sample, or paired differences) is the median of the
Walsh averages (x_i + x_j) / 2, i <= j; of a shift between two samples, the median of the
differences x_i - y_j. Without ties the interval's ends are order statistics of those, at the
ranks the exact null distribution gives (R's qsignrank and qwilcox); otherwise they are the
shifts d at which the normal approximation of the statistic of x - d reaches the normal
quantile, found by R's uniroot with tol = 1e-4, so the digits are R's.
"""
from __future__ import annotations

import math

import numpy as np

from ..warnings import warn
from .uniroot import uniroot

FUZZ = 10 * np.finfo(float).eps         # R's qsignrank and qwilcox compare with this slack
ROOT_TOL = 1e-4                         # wilcox.test's tol.root


def signed_rank_null(n: int) -> np.ndarray:
    """P(V = v) for v = 0 .. n(n + 1)/2 under the null hypothesis."""
    probs = np.zeros(n * (n + 1) // 2 + 1)
    probs[0] = 1.0
    for i in range(1, n + 1):
        shifted = np.zeros_like(probs)
        shifted[i:] = probs[:-i]
        probs = (probs + shifted) / 2
    return probs


def rank_sum_null(m: int, n: int) -> np.ndarray:
    """P(W = w) for w = 0 .. m n under the null hypothesis."""
    m, n = min(m, n), max(m, n)         # the distribution is symmetric in the two sizes
    size = m * n + 1
    counts = np.zeros(size, dtype=object)
    counts[:] = 0
    counts[0] = 1
    for i in range(1, m + 1):
        step = n + i                    # times (1 - q^(n+i)), as a power series cut at degree m n
        if step < size:
            counts[step:] = counts[step:] - counts[:size - step]
        pad = -size % i                 # over (1 - q^i): running sums along each residue mod i
        padded = np.concatenate([counts, np.zeros(pad, dtype=object)]).reshape(-1, i)
        counts = np.cumsum(padded, axis=0).reshape(-1)[:size]
    total = math.comb(m + n, m)
    return np.array([c / total for c in counts], dtype=np.float64)


def tails(probs: np.ndarray, q: float) -> tuple[float, float]:
    """(P(S <= q), P(S >= q)) for a whole q, each summed from its own side."""
    q = int(round(q))
    return float(probs[:max(q + 1, 0)].sum()), float(probs[max(q, 0):].sum())


def quantile(probs: np.ndarray, p: float) -> int:
    """The smallest q with P(S <= q) >= p, by R's qsignrank / qwilcox (with their slack)."""
    top = probs.size - 1
    if p <= 0.5:
        cum = np.cumsum(probs)
        return int(np.argmax(cum >= p - FUZZ)) if (cum >= p - FUZZ).any() else top
    cum = np.cumsum(probs)
    above = cum > 1 - p + FUZZ
    return top - int(np.argmax(above)) if above.any() else 0


def exact_interval(averages: np.ndarray, probs: np.ndarray, alt: str, level: float,
                   two_sample: bool) -> tuple[np.ndarray, float, float]:
    """(interval, its achieved level, estimate) from the sorted Walsh averages (one sample) or
    differences (two samples) and the statistic's exact null distribution."""
    alpha, top = 1 - level, averages.size
    q = quantile(probs, alpha / 2 if alt == "two-sided" else alpha)
    q = max(q, 1)
    low, high = averages[q - 1], averages[top - q]
    achieved = tails(probs, q - 1)[0] * (2 if alt == "two-sided" else 1)
    ci = {"two-sided": [low, high], "greater": [low, math.inf], "less": [-math.inf, high]}[alt]
    if achieved - alpha > alpha / 2:
        warn("wilcox_test: the requested conf_level is not achievable with so few values; the "
             "interval's level is lower.", once_key="wilcox_test: conf_level")
        level = 1 - (achieved if two_sample else float(f"{achieved:.2g}"))
    return np.array(ci, dtype=np.float64), level, float(np.median(averages))


def normal_interval(W, low: float, high: float, alt: str, level: float, two_sample: bool,
                    midpoint: float) -> tuple[np.ndarray, float, float]:
    """(interval, its level, estimate) where W(d, correct) is the normal approximation's z of
    the statistic of the data shifted by d, from low (where it is largest) to high."""
    from scipy.stats import norm
    alpha = 1 - level
    w_low, w_high = W(low, True), W(high, True)

    def root(zq: float) -> float:
        f_low, f_high = w_low - zq, w_high - zq
        if two_sample and f_low <= 0:
            return low
        if two_sample and f_high >= 0:
            return high
        return uniroot(lambda d: W(d, True) - zq, low, high, ROOT_TOL, f_low, f_high)

    if not two_sample:                  # R widens alpha until the quantiles fall inside [low, high]
        def outside(a: float) -> bool:
            return {"two-sided": w_low < norm.isf(a / 2) or w_high > norm.ppf(a / 2),
                    "greater": w_low < norm.isf(a), "less": w_high > norm.ppf(a / 2)}[alt]
        while alpha < 1 and outside(alpha):
            alpha *= 2
        if alpha >= 1 or 1 - level < alpha * 0.75:
            level = 1 - min(1.0, alpha)
            warn("wilcox_test: the requested conf_level is not achievable with so few values; the "
                 "interval's level is lower.", once_key="wilcox_test: conf_level")
    if alpha >= 1:                      # R gives the sample's median for the ends it cannot reach
        ends = {"two-sided": [midpoint, midpoint], "greater": [midpoint, math.inf],
                "less": [-math.inf, midpoint]}[alt]
    elif alt == "two-sided":
        ends = [root(norm.isf(alpha / 2)), root(norm.ppf(alpha / 2))]
    elif alt == "greater":
        ends = [root(norm.isf(alpha)), math.inf]
    else:
        ends = [-math.inf, root(norm.ppf(alpha))]
    estimate = uniroot(lambda d: W(d, False), low, high, ROOT_TOL)
    return np.array(ends, dtype=np.float64), level, estimate
