"""Tests of counts: fisher_test (Fisher's exact test of a 2 x 2 table) and prop_test (one
proportion, or the equality of k proportions), computed as R's fisher.test and prop.test compute
them.

fisher_test: with the table's margins fixed, its first cell X follows the noncentral
hypergeometric distribution, P(X = x) proportional to C(m, x) C(n, k - x) psi^x, where m and n
are the column totals, k the first row's total and psi the odds ratio. The p-value sums the
probabilities (at psi = 1) of the tables no more likely than the one observed (relative fuzz
1e-7, as R); a one-sided p-value is a tail. The estimate is the conditional maximum likelihood
odds ratio, the psi at which E(X) = x, and the interval's ends the psi at which a tail has
probability alpha / 2, each found by R's uniroot (stats/uniroot.py), so the digits are R's.

prop_test, for counts x out of n: one sample, X^2 = (|x - n p| - c)^2 / (n p (1 - p)) with the
continuity correction c = min(1/2, |x - n p|) and Wilson's score interval with the same
correction; k samples, Pearson's X^2 of the k x 2 table (successes, failures) against the pooled
proportion (or the given p), df = k - 1 (k with p given), Yates' correction only when k <= 2,
and for two samples the interval for p1 - p2 of the normal approximation (plus the correction).
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import LaminaError, shape_str
from ..printing import format_number
from ..warnings import warn
from .args import data, flag, no_nan, vector
from .htest import TestResult
from .hypothesis import _alternative, _level
from .uniroot import EPS, uniroot


# -- Fisher's exact test ----------------------------------------------------------------------
def fisher_test(M, alternative="two-sided", conf_level=0.95) -> TestResult:
    from scipy import stats
    alt, level = _alternative(alternative, "fisher_test"), _level(conf_level, "fisher_test")
    table = _two_by_two(M)
    m, n = (int(s) for s in table.sum(axis=0))
    k, x = int(table[0].sum()), int(table[0, 0])
    lo, hi = max(0, k - n), min(k, m)
    support = np.arange(lo, hi + 1)
    logdc = stats.hypergeom.logpmf(support, m + n, m, k)

    def density(psi: float) -> np.ndarray:
        d = logdc + math.log(psi) * support
        d = np.exp(d - d.max())
        return d / d.sum()

    def mean(psi: float) -> float:
        return lo if psi == 0 else hi if psi == math.inf else float(support @ density(psi))

    def tail(psi: float, upper: bool) -> float:
        """P(X >= x) (upper) or P(X <= x) at odds ratio psi."""
        if psi == 1:
            return float(stats.hypergeom.sf(x - 1, m + n, m, k) if upper else stats.hypergeom.cdf(x, m + n, m, k))
        if psi == 0:
            return float(x <= lo if upper else x >= lo)
        return float(density(psi)[support >= x if upper else support <= x].sum())

    if alt == "two-sided":
        d = density(1.0)
        p = float(d[d <= d[x - lo] * (1 + 1e-7)].sum())
    else:
        p = tail(1.0, alt == "greater")
    if x == lo or x == hi:
        estimate = 0.0 if x == lo else math.inf
    else:
        estimate = _solve_ratio(lambda psi: mean(psi) - x, mean(1.0) > x)

    def upper_end(a: float) -> float:
        if x == hi:
            return math.inf
        p1 = tail(1.0, False)
        return 1.0 if p1 == a else _solve_ratio(lambda psi: tail(psi, False) - a, p1 < a)

    def lower_end(a: float) -> float:
        if x == lo:
            return 0.0
        p1 = tail(1.0, True)
        return 1.0 if p1 == a else _solve_ratio(lambda psi: tail(psi, True) - a, p1 > a)

    a = 1 - level
    ci = {"less": lambda: [0.0, upper_end(a)], "greater": lambda: [lower_end(a), math.inf],
          "two-sided": lambda: [lower_end(a / 2), upper_end(a / 2)]}[alt]()
    n_text = format_number(float(table.sum()))
    return TestResult("Fisher's Exact Test for Count Data", f"a 2x2 table of counts (n = {n_text})", "", None,
                      None, min(1.0, p), alt, "true odds ratio", 1.0, np.array(ci), level, estimate,
                      ("odds ratio",), {"observed": table.copy()})


def _solve_ratio(f, below_one: bool) -> float:
    """The odds ratio psi where f(psi) = 0, as fisher.test finds it: between 0 and 1 when the zero
    lies there, and otherwise as 1 / t for t between eps and 1."""
    if below_one:
        return uniroot(f, 0.0, 1.0)
    return 1 / uniroot(lambda t: f(1 / t), EPS, 1.0)


def _two_by_two(M) -> np.ndarray:
    table = no_nan(data(M, "fisher_test's table"), "fisher_test's table").astype(np.float64)
    if table.shape != (2, 2):
        what = f"a {shape_str(table.shape)} matrix" if table.ndim == 2 else f"a vector of {table.size}"
        raise LaminaError("ShapeError", f"fisher_test takes a 2 x 2 table of counts, not {what}; for a "
                          f"larger table use chisq_test.")
    bad = ~np.isfinite(table) | (table < 0) | (table != np.round(table))
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise LaminaError("ValueError", f"fisher_test needs whole counts of at least 0, but the table's "
                          f"[{i}, {j}] is {format_number(float(table[i, j]))}.")
    return table


# -- tests of proportions ----------------------------------------------------------------------
def prop_test(x, n=None, p=None, alternative="two-sided", conf_level=0.95, correct=True) -> TestResult:
    from scipy import stats
    alt, level = _alternative(alternative, "prop_test"), _level(conf_level, "prop_test")
    yates = 0.5 if flag(correct, "prop_test's correct") else 0.0
    x, n = _counts(x, n)
    k = x.size
    probs = _null_probabilities(p, k)
    if alt != "two-sided" and (k > 2 or (k == 2 and probs is not None)):
        raise LaminaError("ValueError", f"prop_test's alternative = \"{alt}\" needs one proportion, or two "
                          f"compared with each other; a test of {k} proportions"
                          + (" against given p" if probs is not None else "") + " is two-sided.")
    estimate = x / n
    if k > 2:
        yates = 0.0
    z = stats.norm.ppf((1 + level) / 2 if alt == "two-sided" else level)
    ci, null, null_value = None, "", 0.0
    if k == 1:
        probs = np.array([0.5]) if probs is None else probs
        yates = min(yates, float(abs(x[0] - n[0] * probs[0])))
        ci = _wilson(float(estimate[0]), float(n[0]), yates, z, alt)
        null, null_value = "true p", float(probs[0])
    elif k == 2 and probs is None:
        delta = float(estimate[0] - estimate[1])
        yates = min(yates, abs(delta) / float((1 / n).sum()))
        width = z * math.sqrt(float((estimate * (1 - estimate) / n).sum())) + yates * float((1 / n).sum())
        ci = np.array([max(delta - width, -1.0) if alt != "less" else -1.0,
                       min(delta + width, 1.0) if alt != "greater" else 1.0])
    df = k if probs is not None else k - 1
    pooled = probs if probs is not None else np.full(k, x.sum() / n.sum())
    observed = np.column_stack([x, n - x])
    expected = np.column_stack([n * pooled, n * (1 - pooled)])
    if (expected < 5).any():
        warn("prop_test: some expected counts are below 5, so the chi-squared approximation may be "
             "poor.", once_key="prop_test: small counts")
    stat = float(((np.abs(observed - expected) - yates) ** 2 / expected).sum())
    if alt == "two-sided":
        pvalue = float(stats.chi2.sf(stat, df))
    else:
        direction = estimate[0] - pooled[0] if k == 1 else estimate[0] - estimate[1]
        z_stat = math.copysign(math.sqrt(stat), direction) if direction != 0 else 0.0
        pvalue = float(stats.norm.cdf(z_stat) if alt == "less" else stats.norm.sf(z_stat))
    method = ("1-sample proportions test" if k == 1 else
              f"{k}-sample test for {'given' if p is not None else 'equality of'} proportions")
    method += f" {'with' if yates else 'without'} continuity correction"
    names = ("p",) if k == 1 else tuple(f"prop {i + 1}" for i in range(k))
    return TestResult(method, _data_text(x, n, p, probs), "X-squared", stat, float(df), pvalue, alt, null,
                      null_value, ci, level, estimate[0] if k == 1 else estimate, names,
                      {"observed": observed.astype(np.float64), "expected": expected})


def _wilson(phat: float, n: float, yates: float, z: float, alt: str) -> np.ndarray:
    """Wilson's score interval for a proportion with the continuity correction yates, as R's
    prop.test writes it."""
    z22n = z * z / (2 * n)

    def end(pc: float, sign: float) -> float:
        return (pc + z22n + sign * z * math.sqrt(pc * (1 - pc) / n + z22n / (2 * n))) / (1 + 2 * z22n)
    upper = 1.0 if phat + yates / n >= 1 else end(phat + yates / n, 1.0)
    lower = 0.0 if phat - yates / n <= 0 else end(phat - yates / n, -1.0)
    return np.array([0.0 if alt == "less" else max(lower, 0.0), 1.0 if alt == "greater" else min(upper, 1.0)])


def _counts(x, n) -> tuple[np.ndarray, np.ndarray]:
    """The successes and trials of each group: from x and n, or from a k x 2 matrix x of
    successes and failures."""
    counts = no_nan(data(x, "prop_test's x"), "prop_test's x").astype(np.float64)
    if n is None:
        if counts.ndim != 2 or counts.shape[1] != 2:
            raise LaminaError("TypeError", "prop_test needs the number of trials: prop_test(x, n), or a "
                              "matrix with a row per group of successes and failures.")
        counts, trials = counts[:, 0].copy(), counts.sum(axis=1)
    else:
        counts = vector(counts, "prop_test's x")
        trials = no_nan(vector(n, "prop_test's n"), "prop_test's n").astype(np.float64)
        if trials.size != counts.size:
            raise LaminaError("ShapeError", f"prop_test needs one n (trials) per x (successes), but got "
                              f"{counts.size} x and {trials.size} n.")
    if counts.size == 0:
        raise LaminaError("ValueError", "prop_test needs at least one count, but x is empty.")
    checks = ((~np.isfinite(trials) | (trials <= 0), "n must be positive and finite", trials),
              (counts < 0, "x must be at least 0", counts),
              (counts > trials, "x (successes) must not exceed n (trials)", counts))
    for bad, rule, values in checks:
        if bad.any():
            i = int(np.argmax(bad))
            raise LaminaError("ValueError", f"prop_test's {rule}, but x[{i}] = {format_number(float(counts[i]))} "
                              f"and n[{i}] = {format_number(float(trials[i]))}.")
    return counts, trials


def _null_probabilities(p, k: int) -> np.ndarray | None:
    if p is None:
        return None
    probs = no_nan(vector(p, "prop_test's p"), "prop_test's p").astype(np.float64)
    if probs.size != k:
        raise LaminaError("ShapeError", f"prop_test needs one p per group, but got {k} groups and "
                          f"{probs.size} p.")
    if ((probs <= 0) | (probs >= 1)).any():
        bad = float(probs[(probs <= 0) | (probs >= 1)][0])
        raise LaminaError("ValueError", f"prop_test's p must lie strictly between 0 and 1, but one is "
                          f"{format_number(bad)}.")
    return probs


def _data_text(x: np.ndarray, n: np.ndarray, p, probs) -> str:
    numbers = [f"{format_number(float(a))} out of {format_number(float(b))}" for a, b in zip(x, n)]
    if x.size == 1:
        return f"{numbers[0]}, null probability {format_number(float(probs[0]))}"
    shown = ", ".join(numbers[:6]) + (", ..." if x.size > 6 else "")
    text = f"{x.size} groups: {shown}"
    if p is not None:
        text += ", null probabilities " + ", ".join(format_number(float(q)) for q in probs[:6])
        text += ", ..." if x.size > 6 else ""
    return text

