"""Tests on ranks and order statistics: wilcox_test, kruskal_test and shapiro_test, computed as
R's wilcox.test, kruskal.test and shapiro.test compute them (and as SciPy's wilcoxon,
mannwhitneyu, kruskal and shapiro do: the tests compare the two).

wilcox_test, one sample (or the paired differences x - y), of d = x - mu without its zeros (n
values): V = the sum of the ranks of |d| where d > 0. Two samples of m and n values: W = the sum
of the ranks of x - mu among all m + n values, less m (m + 1) / 2. Ties share their mean rank.
The p-value is exact (stats/wilcoxon.py) when asked for, by default when there are fewer than 50
values (in each sample) and none tie, nor is a difference 0; otherwise it is the normal
approximation with
    V: mean n (n + 1) / 4,  variance n (n + 1) (2n + 1) / 24 - sum(t^3 - t) / 48
    W: mean m n / 2,        variance m n / 12 ((m + n + 1) - sum(t^3 - t) / ((m + n) (m + n - 1)))
over the sizes t of the groups of tied ranks, and the continuity correction of 1/2 towards the
mean (correct = false leaves it out).
kruskal_test, of N values in k groups with rank sums R_i over n_i values each:
    H = (12 / (N (N + 1)) sum(R_i^2 / n_i) - 3 (N + 1)) / (1 - sum(t^3 - t) / (N^3 - N)),
referred to chi-squared with k - 1 degrees of freedom.
shapiro_test: the Shapiro-Wilk W and its p-value by Royston's approximation (1995, algorithm
AS R94), which SciPy's shapiro and R's shapiro.test both implement, for 3 to 5000 values.
"""
from __future__ import annotations

import numpy as np

from ..errors import LaminaError
from ..printing import format_number
from ..values import as_float, as_str, describe, value_of
from ..warnings import warn
from . import wilcoxon
from .args import flag
from .htest import TestResult
from .hypothesis import _alternative, _column_by_group, _labels, _level, _sample
from .moments import constant

# The largest exact distributions, each a second or less: the rank sum's costs about
# min(m, n) m n operations on big integers, the signed rank's n^3 / 2 on floats.
RANK_SUM_LIMIT = 5_000_000
SIGNED_RANK_LIMIT = 1000


# -- Wilcoxon's tests ---------------------------------------------------------------------------
def wilcox_test(x, y=None, by=None, mu=0.0, paired=False, exact=None, correct=True, conf_int=False,
                alternative="two-sided", conf_level=0.95) -> TestResult:
    from .table import Table
    settings = _settings(mu, exact, correct, conf_int, alternative, conf_level)
    if isinstance(x, Table):
        if flag(paired, "wilcox_test's paired"):
            raise LaminaError("TypeError", "wilcox_test(t, column, by = ...) compares independent groups; for "
                              "paired data pass the two columns: wilcox_test(t.before, t.after, paired = true).")
        name = as_str(y, "wilcox_test's column") if y is not None else None
        labels, (a, b) = _table_groups("wilcox_test", x, name, by, two=True)
        text = f"{name} by {by} ({labels[0]}: {_values(a.size)}, {labels[1]}: {_values(b.size)})"
        return _rank_sum(a, b, text, **settings)
    if by is not None:
        raise LaminaError("TypeError", "wilcox_test's by names a column of a table: wilcox_test(t, \"col\", by = \"group\").")
    is_paired = flag(paired, "wilcox_test's paired")
    if y is None and is_paired:
        raise LaminaError("TypeError", "wilcox_test with paired = true compares two samples: pass y as well, "
                          "wilcox_test(x, y, paired = true).")
    a = _sample(x, "wilcox_test's x", 1)
    if y is None:
        return _signed_rank(a, f"x ({_values(a.size)})", "true location", **settings)
    b = _sample(y, "wilcox_test's y", 1)
    if not is_paired:
        return _rank_sum(a, b, f"x ({_values(a.size)}) and y ({_values(b.size)})", **settings)
    if a.size != b.size:
        raise LaminaError("ShapeError", f"wilcox_test with paired = true needs x and y of one length (one pair "
                          f"per row), but got {a.size} and {b.size}.")
    return _signed_rank(a - b, f"x and y ({a.size} pair{'s' if a.size != 1 else ''})", "true location shift",
                        **settings)


def _values(n: int) -> str:
    return f"{n} value" + ("s" if n != 1 else "")


def _settings(mu, exact, correct, conf_int, alternative, conf_level) -> dict:
    null = as_float(mu, "wilcox_test's mu")
    if not np.isfinite(null):
        raise LaminaError("ValueError", f"wilcox_test's mu must be finite, not {format_number(null)}.")
    return dict(mu=null, exact=None if exact is None else flag(exact, "wilcox_test's exact"),
                correct=flag(correct, "wilcox_test's correct"), conf_int=flag(conf_int, "wilcox_test's conf_int"),
                alt=_alternative(alternative, "wilcox_test"), level=_level(conf_level, "wilcox_test"))


def _ranks(a: np.ndarray) -> tuple[np.ndarray, float]:
    """The mean ranks of a, and sum(t^3 - t) over the sizes t of its groups of ties."""
    from scipy.stats import rankdata
    r = rankdata(a)
    _, t = np.unique(r, return_counts=True)
    return r, float((t.astype(np.float64) ** 3 - t).sum())


def _normal_p(z: float, alt: str) -> float:
    from scipy.stats import norm
    return {"less": norm.cdf(z), "greater": norm.sf(z), "two-sided": 2 * min(norm.cdf(z), norm.sf(z))}[alt]


def _correction(z: float, alt: str, correct: bool) -> float:
    if not correct:
        return 0.0
    return {"two-sided": 0.5 * np.sign(z), "greater": 0.5, "less": -0.5}[alt]


def _exact_p(probs: np.ndarray, stat: float, alt: str) -> float:
    lower, upper = wilcoxon.tails(probs, stat)
    if alt == "two-sided":
        return min(1.0, 2 * (upper if stat > (probs.size - 1) / 2 else lower))
    return upper if alt == "greater" else lower


def _signed_rank(d: np.ndarray, text: str, null: str, mu, exact, correct, conf_int, alt, level) -> TestResult:
    shifted = d - mu
    zeros = bool((shifted == 0).any())
    kept = shifted[shifted != 0]
    n = kept.size
    if n == 0:
        raise LaminaError("ValueError", f"wilcox_test: every value equals mu = {format_number(mu)}, so "
                          "no value has a sign to rank.")
    r, ties = _ranks(np.abs(kept))
    stat = float(r[kept > 0].sum())
    use_exact = n < 50 if exact is None else exact
    if use_exact and not ties and not zeros and n > SIGNED_RANK_LIMIT:
        raise LaminaError("ValueError", f"wilcox_test with exact = true: {n} values are too many to count the "
                          f"exact distribution in reasonable time; the normal approximation (exact = false) is "
                          f"accurate at this size.")
    method = "Wilcoxon signed rank test"
    ci = estimate = None
    if use_exact and not ties and not zeros:
        method = "Wilcoxon signed rank exact test"
        probs = wilcoxon.signed_rank_null(n)
        p = _exact_p(probs, stat, alt)
        if conf_int:
            x = kept + mu
            walsh = np.sort((x[:, None] + x[None, :])[np.triu_indices(n)] / 2)
            ci, level, estimate = wilcoxon.exact_interval(walsh, probs, alt, level, two_sample=False)
    else:
        z = stat - n * (n + 1) / 4
        sigma = np.sqrt(n * (n + 1) * (2 * n + 1) / 24 - ties / 48)
        method += " with continuity correction" if correct else ""
        p = _normal_p((z - _correction(z, alt, correct)) / sigma, alt)
        _exact_warning(use_exact, ties, zeros)
        if conf_int:
            x = kept + mu
            ci, level, estimate = wilcoxon.normal_interval(_signed_z(x, alt), float(x.min()), float(x.max()),
                                                           alt, level, False, float(np.median(x)))
    return _result(method, text, "V", stat, p, alt, null, mu, ci, level, estimate, "(pseudo)median")


def _signed_z(x: np.ndarray, alt: str):
    """z(d, correct): the normal approximation's z of the signed rank statistic of x - d."""
    def z(d: float, correct: bool) -> float:
        xd = x - d
        xd = xd[xd != 0]
        n = xd.size
        r, ties = _ranks(np.abs(xd))
        sigma = np.sqrt(n * (n + 1) * (2 * n + 1) / 24 - ties / 48)
        if sigma == 0:
            raise LaminaError("ValueError", "wilcox_test: the values are all tied, so the interval "
                              "(conf_int = true) cannot be computed.")
        dz = float(r[xd > 0].sum()) - n * (n + 1) / 4
        return (dz - _correction(dz, alt, correct)) / sigma
    return z


def _rank_sum(a: np.ndarray, b: np.ndarray, text: str, mu, exact, correct, conf_int, alt, level) -> TestResult:
    m, n = a.size, b.size
    r, ties = _ranks(np.concatenate([a - mu, b]))
    stat = float(r[:m].sum() - m * (m + 1) / 2)
    use_exact = (m < 50 and n < 50) if exact is None else exact
    if use_exact and not ties and min(m, n) * m * n > RANK_SUM_LIMIT:
        raise LaminaError("ValueError", f"wilcox_test with exact = true: samples of {m} and {n} values are too "
                          f"large to count the exact distribution in reasonable time; the normal approximation "
                          f"(exact = false) is accurate at this size.")
    method = "Wilcoxon rank sum test"
    ci = estimate = None
    if use_exact and not ties:
        method = "Wilcoxon rank sum exact test"
        probs = wilcoxon.rank_sum_null(m, n)
        p = _exact_p(probs, stat, alt)
        if conf_int:
            diffs = np.sort((a[:, None] - b[None, :]).reshape(-1))
            ci, level, estimate = wilcoxon.exact_interval(diffs, probs, alt, level, two_sample=True)
    else:
        z = stat - m * n / 2
        sigma = np.sqrt(m * n / 12 * ((m + n + 1) - ties / ((m + n) * (m + n - 1))))
        if sigma == 0:
            raise LaminaError("ValueError", "wilcox_test: all the values are equal, so their ranks say nothing.")
        method += " with continuity correction" if correct else ""
        p = _normal_p((z - _correction(z, alt, correct)) / sigma, alt)
        _exact_warning(use_exact, ties, False)
        if conf_int:
            ci, level, estimate = wilcoxon.normal_interval(
                _rank_sum_z(a, b, alt), float(a.min() - b.max()), float(a.max() - b.min()), alt, level, True, 0.0)
    return _result(method, text, "W", stat, p, alt, "true location shift", mu, ci, level, estimate,
                   "difference in location")


def _rank_sum_z(a: np.ndarray, b: np.ndarray, alt: str):
    """z(d, correct): the normal approximation's z of the rank sum statistic of a - d and b."""
    m, n = a.size, b.size

    def z(d: float, correct: bool) -> float:
        r, ties = _ranks(np.concatenate([a - d, b]))
        dz = float(r[:m].sum()) - m * (m + 1) / 2 - m * n / 2
        sigma = np.sqrt(m * n / 12 * ((m + n + 1) - ties / ((m + n) * (m + n - 1))))
        if sigma == 0:
            raise LaminaError("ValueError", "wilcox_test: the values are all tied, so the interval "
                              "(conf_int = true) cannot be computed.")
        return (dz - _correction(dz, alt, correct)) / sigma
    return z


def _exact_warning(asked: bool, ties: float, zeros: bool) -> None:
    for cause, present in (("ties", ties), ("zeroes", zeros)):
        if asked and present:
            warn(f"wilcox_test: cannot compute exact p-value with {cause}; the p-value comes from the "
                 f"normal approximation.", once_key=f"wilcox_test: {cause}")


def _result(method, text, name, stat, p, alt, null, mu, ci, level, estimate, estimate_name) -> TestResult:
    return TestResult(method, text, name, stat, None, float(p), alt, null, mu, ci, level, estimate,
                      (estimate_name,) if estimate is not None else ())


# -- Kruskal-Wallis ---------------------------------------------------------------------------
def kruskal_test(x, g=None, by=None) -> TestResult:
    from scipy.stats import chi2
    from .table import Table
    if isinstance(x, Table):
        name = as_str(g, "kruskal_test's column") if g is not None else None
        labels, groups = _table_groups("kruskal_test", x, name, by, two=False)
        text = f"{name} by {by} ({len(groups)} groups, {sum(v.size for v in groups)} values)"
    elif by is not None:
        raise LaminaError("TypeError", "kruskal_test's by names a column of a table: kruskal_test(t, \"col\", by = \"group\").")
    elif g is None:
        groups = _group_list(x)
        text = f"{len(groups)} groups ({sum(v.size for v in groups)} values)"
    else:
        values = _sample(x, "kruskal_test's x", 1)
        keys = _labels(g, "kruskal_test's g")
        if len(keys) != values.size:
            raise LaminaError("ShapeError", f"kruskal_test(x, g) needs one group label per value, but got "
                              f"{values.size} values and {len(keys)} labels.")
        levels = np.unique(keys)
        groups = [values[keys == level] for level in levels]
        text = f"x by g ({len(groups)} groups, {values.size} values)"
    if len(groups) < 2:
        raise LaminaError("ValueError", "kruskal_test compares groups, but all the values are in one group.")
    values = np.concatenate(groups)
    n = values.size
    r, ties = _ranks(values)
    bounds = np.cumsum([0] + [v.size for v in groups])
    spread = sum(r[lo:hi].sum() ** 2 / (hi - lo) for lo, hi in zip(bounds[:-1], bounds[1:]))
    if ties == n ** 3 - n:
        raise LaminaError("ValueError", "kruskal_test: all the values are equal, so their ranks say nothing.")
    stat = float((12 * spread / (n * (n + 1)) - 3 * (n + 1)) / (1 - ties / (n ** 3 - n)))
    df = len(groups) - 1
    return TestResult("Kruskal-Wallis rank sum test", text, "Kruskal-Wallis chi-squared", stat, float(df),
                      float(chi2.sf(stat, df)), None)


def _group_list(x) -> list[np.ndarray]:
    items = value_of(x)
    if not isinstance(items, list):
        raise LaminaError("TypeError", f"kruskal_test takes a list of groups, kruskal_test([a, b, c]), or values "
                          f"and their group labels, kruskal_test(x, g); not {describe(x)} alone.")
    return [_sample(item, f"kruskal_test's group {i}", 1) for i, item in enumerate(items)]


# -- Shapiro-Wilk -----------------------------------------------------------------------------
def shapiro_test(x) -> TestResult:
    from scipy.stats import shapiro
    a = _sample(x, "shapiro_test's x", 3)
    if a.size > 5000:
        raise LaminaError("ValueError", f"shapiro_test takes 3 to 5000 values (Royston's approximation of the "
                          f"p-value holds there), but x has {a.size}.")
    if constant(a):
        raise LaminaError("ValueError", "shapiro_test: the values are all equal, so W is undefined.")
    w, p = shapiro(a)
    return TestResult("Shapiro-Wilk normality test", f"x ({a.size} values)", "W", float(w), None, float(p), None)


# -- a table's column split by a group column ---------------------------------------------------
def _table_groups(fn: str, t, name: str | None, by, two: bool) -> tuple[list[str], list[np.ndarray]]:
    """The labels and values of each group of rows of t's numeric column `name`, by the values of
    column `by` in sorted order (R's fn(name ~ by, data = t)); exactly two when two is true."""
    from .table import as_table
    table = as_table(t, f"{fn}'s first argument")
    if name is None or by is None:
        raise LaminaError("TypeError", f"{fn} of a table compares a column between groups of rows: "
                          f"{fn}(t, \"col\", by = \"group\").")
    labels, groups = _column_by_group(fn, table, name, as_str(by, f"{fn}'s by"), two)
    return labels, [g.astype(np.float64) for g in groups]
