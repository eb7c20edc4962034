"""Hypothesis tests: t_test, chisq_test and corr_test, computed as R's t.test, chisq.test and
cor.test compute them (and as SciPy does: the tests compare the two).

t_test, for samples x (n, mean m, variance s^2) and y:
    one sample:  t = (m - mu) / (s / sqrt(n)),                        df = n - 1
    paired:      the one-sample test of d = x - y
    Welch:       se^2 = sx^2 / nx + sy^2 / ny,  t = (mx - my - mu) / se,
                 df = se^4 / ((sx^2 / nx)^2 / (nx - 1) + (sy^2 / ny)^2 / (ny - 1))
    equal_var:   sp^2 = ((nx - 1) sx^2 + (ny - 1) sy^2) / (nx + ny - 2),
                 se = sp sqrt(1 / nx + 1 / ny),                       df = nx + ny - 2
and the interval estimate +- q se with q the t quantile (one-sided: one end infinite).
chisq_test: X^2 = sum((O - E)^2 / E), with E = row total * column total / n for a table
(df = (r - 1)(c - 1); Yates' correction |O - E| - 1/2 on a 2 x 2 table) and E = n p for counts
against probabilities p (df = k - 1).
corr_test: t = r sqrt(n - 2) / sqrt(1 - r^2) with df = n - 2, for Pearson's r or Spearman's rho
(Pearson's r of the ranks, ties sharing their mean rank); Pearson's interval is
tanh(atanh(r) +- z / sqrt(n - 3)) (Fisher's z).
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import LaminaError, shape_str
from ..printing import format_number
from ..values import as_float, as_str, describe, value_of
from ..warnings import warn
from .args import data, flag, no_nan, vector
from .htest import ALTERNATIVES, TestResult
from .moments import constant, power_scale
from .tableops import missing


def _alternative(alternative, fn: str) -> str:
    alt = as_str(alternative, f"{fn}'s alternative")
    if alt not in ALTERNATIVES:
        raise LaminaError("ValueError", f"{fn}'s alternative must be \"two-sided\", \"less\" or "
                          f"\"greater\", not \"{alt}\".")
    return alt


def _level(conf_level, fn: str) -> float:
    c = as_float(conf_level, f"{fn}'s conf_level")
    if not 0 < c < 1:
        raise LaminaError("ValueError", f"{fn}'s conf_level must lie between 0 and 1 (0.95 for a 95% "
                          f"interval), not {format_number(c)}.")
    return c


def _sample(x, what: str, at_least: int) -> np.ndarray:
    a = no_nan(vector(x, what), what).astype(np.float64)     # tests compute in float64
    if a.size < at_least:
        raise LaminaError("ValueError", f"{what} needs at least {at_least} values, but has {a.size}.")
    if not np.isfinite(a).all():
        raise LaminaError("ValueError", f"{what} holds Inf; a test needs finite numbers.")
    return a


def _scale(a: np.ndarray) -> float:
    return float(power_scale(a))


def _moments(a: np.ndarray, scale: float) -> tuple[float, float]:
    """The mean of a, and its sample variance in units of scale (squared), 0 when a is constant
    (its spread only rounding)."""
    b = a / scale
    mean = float(b.mean() * scale)
    if a.size < 2 or constant(a):
        return mean, 0.0
    return mean, float(b.var(ddof=1))


def _p_and_ci(dist, stat: float, est: float, se: float, alt: str, level: float):
    """The p-value of `stat` under `dist` and the interval for `est` with standard error `se`."""
    if alt == "two-sided":
        p = 2 * dist.sf(abs(stat))
        q = dist.ppf(1 - (1 - level) / 2)
        return min(1.0, float(p)), np.array([est - q * se, est + q * se])
    q = dist.ppf(level)
    if alt == "less":
        return float(dist.cdf(stat)), np.array([-math.inf, est + q * se])
    return float(dist.sf(stat)), np.array([est - q * se, math.inf])


# -- t test ---------------------------------------------------------------------------------
def t_test(x, y=None, mu=0.0, paired=False, equal_var=False, alternative="two-sided",
           conf_level=0.95, groups=None) -> TestResult:
    """groups: (column, by, first group, second group) when x and y are the two groups of a
    table's column (t_test_by)."""
    from scipy import stats
    alt, level = _alternative(alternative, "t_test"), _level(conf_level, "t_test")
    null = as_float(mu, "t_test's mu")
    if not math.isfinite(null):
        raise LaminaError("ValueError", f"t_test's mu must be finite, not {format_number(null)}.")
    is_paired, same_var = flag(paired, "t_test's paired"), flag(equal_var, "t_test's equal_var")
    if y is None and (is_paired or same_var):
        raise LaminaError("TypeError", "t_test with paired = true or equal_var = true compares two "
                          "samples: pass y as well, t_test(x, y, ...).")
    a = _sample(x, "t_test's x", 1 if y is not None and not is_paired else 2)
    extra = {}
    if y is None or is_paired:
        if is_paired:
            b = _sample(y, "t_test's y", 2)
            if a.size != b.size:
                raise LaminaError("ShapeError", f"t_test with paired = true needs x and y of one length "
                                  f"(one pair per row), but got {a.size} and {b.size}.")
            a = a - b
            what, data_text = "true mean difference", f"x and y ({a.size} pairs)"
            method, est_names = "Paired t-test", ("mean difference",)
        else:
            what, data_text = "true mean", f"x ({a.size} values)"
            method, est_names = "One Sample t-test", ("mean of x",)
        n, scale = a.size, _scale(a)
        est, v = _moments(a, scale)
        se = math.sqrt(v / n) * scale
        df, estimate = n - 1.0, est
    else:
        b = _sample(y, "t_test's y", 1)
        nx, ny = a.size, b.size
        if nx + ny < 3 or (not same_var and (nx < 2 or ny < 2)):
            raise LaminaError("ValueError", f"t_test needs at least 2 values in each sample (Welch) or 3 "
                              f"in all (equal_var = true), but x has {nx} and y has {ny}.")
        scale = max(_scale(a), _scale(b))       # variances in its units neither underflow nor overflow
        (mx, vx), (my, vy) = _moments(a, scale), _moments(b, scale)
        vx, vy = vx / nx, vy / ny
        if same_var:
            df = nx + ny - 2.0
            pooled = ((nx - 1) * (vx * nx) + (ny - 1) * (vy * ny)) / df
            se = math.sqrt(pooled * (1 / nx + 1 / ny))
            method = "Two Sample t-test"
        else:
            se = math.sqrt(vx + vy)
            df = (vx + vy) ** 2 / (vx ** 2 / (nx - 1) + vy ** 2 / (ny - 1)) if se > 0 else math.nan
            method = "Welch Two Sample t-test"
        se *= scale
        est = mx - my
        estimate = np.array([mx, my])
        what = "true difference in means"
        if groups is None:
            data_text, est_names = f"x ({nx} values) and y ({ny} values)", ("mean of x", "mean of y")
        else:
            column, by, first, second = groups
            what = f"true difference in means between group {first} and group {second}"
            data_text = f"{column} by {by} ({first}: {nx} values, {second}: {ny} values)"
            est_names = (f"mean in group {first}", f"mean in group {second}")
    if not se > 0:
        raise LaminaError("ValueError", "t_test: the data are constant (or differ by rounding alone, "
                          "so their standard error is 0), and t is undefined.")
    stat = (est - null) / se
    p, ci = _p_and_ci(stats.t(df), stat, est, se, alt, level)
    extra["stderr"] = se
    return TestResult(method, data_text, "t", float(stat), float(df), p, alt, what, null, ci, level,
                      estimate, est_names, extra)


def t_test_by(t, column, by, **settings) -> TestResult:
    """The two-sample test of a table's numeric column between the two groups of column `by`
    (R's t.test(column ~ by, data = t)); the groups come in sorted order."""
    from .table import as_table
    table = as_table(t, "t_test's first argument")
    name = as_str(column, "t_test's column")
    if by is None:
        raise LaminaError("TypeError", f"t_test of a table compares a column between two groups and "
                          f"needs by = \"group column\": t_test(t, \"{name}\", by = \"group\").")
    group = as_str(by, "t_test's by")
    labels, groups = _column_by_group("t_test", table, name, group, two=True)
    if settings.get("paired") is True:
        raise LaminaError("TypeError", "t_test(t, column, by = ...) compares independent groups; for "
                          "paired data pass the two columns: t_test(t.before, t.after, paired = true).")
    x, y = groups
    return t_test(x, y, groups=(name, group) + tuple(labels), **settings)


def _column_by_group(fn: str, table, name, group: str, two: bool) -> tuple[list[str], list[np.ndarray]]:
    """The labels and values of each group of rows of the table's numeric column `name`, by the
    values of column `group` in sorted order (R's fn(name ~ group, data = t)); exactly two when
    `two` is true. `fn` names the test in the messages."""
    values = table.get(name)
    if not isinstance(values, np.ndarray):
        raise LaminaError("TypeError", f"{fn} needs a numeric column, but '{name}' holds text.")
    if np.isnan(values).any():
        raise LaminaError("ValueError", f"{fn}'s column '{name}' contains NaN; drop those rows first with "
                          f"drop_missing(t).")
    if np.isinf(values).any():
        raise LaminaError("ValueError", f"{fn}'s column '{name}' holds Inf; a test needs finite numbers.")
    if missing(table.get(group)).any():
        raise LaminaError("ValueError", f"{fn}'s by column '{group}' has missing values; drop those rows "
                          f"first with drop_missing(t).")
    keys = np.asarray(table.get(group), dtype=object)
    levels = sorted(set(keys.tolist()), key=lambda k: (k != k, k))
    if two and len(levels) != 2:
        raise LaminaError("ValueError", f"{fn}(t, \"{name}\", by = \"{group}\") compares two groups, but "
                          f"'{group}' has {len(levels)}: " + ", ".join(_level_text(k) for k in levels[:6])
                          + ("..." if len(levels) > 6 else "") + "; filter the table to two groups first.")
    return [_level_text(k) for k in levels], [values[keys == level] for level in levels]


def _level_text(k) -> str:
    return format_number(k) if isinstance(k, float) else str(k)


# -- chi-squared test -------------------------------------------------------------------
def chisq_test(x, y=None, p=None, correct=True) -> TestResult:
    from scipy import stats
    yates = flag(correct, "chisq_test's correct")
    if y is not None:
        if p is not None:
            raise LaminaError("TypeError", "chisq_test(x, y) cross-tabulates two variables; p belongs "
                              "to chisq_test(counts, p = probabilities).")
        observed, text = _cross_table(x, y)
    else:
        observed = no_nan(data(x, "chisq_test's counts"), "chisq_test's counts").astype(np.float64)
        if observed.ndim == 2 and 1 in observed.shape:
            observed = observed.reshape(-1)
        _check_counts(observed)
        if observed.ndim == 1:
            return _goodness_of_fit(observed, p, stats)
        if p is not None:
            raise LaminaError("TypeError", "chisq_test's p (probabilities) goes with a vector of counts; "
                              f"a {shape_str(observed.shape)} table is tested for independence.")
        text = f"a {shape_str(observed.shape)} table of counts (n = {format_number(float(observed.sum()))})"
    n = observed.sum()
    rows, cols = observed.sum(axis=1), observed.sum(axis=0)
    for what, sums in (("row", rows), ("column", cols)):
        if (sums == 0).any():
            raise LaminaError("ValueError", f"chisq_test: {what} {int(np.argmax(sums == 0))} of the table has "
                              f"no counts, so its expected counts are 0; drop it.")
    expected = np.outer(rows, cols) / n
    df = (observed.shape[0] - 1) * (observed.shape[1] - 1)
    method = "Pearson's Chi-squared test"
    dev = np.abs(observed - expected)
    if yates and observed.shape == (2, 2):
        dev = dev - min(0.5, float(dev.min()))
        method += " with Yates' continuity correction"
    stat = float((dev ** 2 / expected).sum())
    return _chisq_result(method, text, stat, df, observed, expected, stats)


def _check_counts(observed: np.ndarray) -> None:
    if observed.ndim == 2 and min(observed.shape) < 2:
        raise LaminaError("ShapeError", f"chisq_test needs a table of at least 2 x 2 counts, not "
                          f"{shape_str(observed.shape)}.")
    if not np.isfinite(observed).all() or (observed < 0).any():
        bad = observed[~np.isfinite(observed) | (observed < 0)][0]
        raise LaminaError("ValueError", f"chisq_test's counts must be finite and at least 0, but one is "
                          f"{format_number(float(bad))}.")


def _goodness_of_fit(observed: np.ndarray, p, stats) -> TestResult:
    k = observed.size
    if k < 2:
        raise LaminaError("ValueError", "chisq_test of counts needs at least 2 categories.")
    if p is None:
        probs = np.full(k, 1 / k)
    else:
        probs = no_nan(vector(p, "chisq_test's p"), "chisq_test's p")
        # float32 probabilities are each rounded: their sum may miss 1 by k float32 roundings
        tol = math.sqrt(np.finfo(float).eps) + k * (np.finfo(np.float32).eps if probs.dtype == np.float32 else 0)
        probs = probs.astype(np.float64)
        if probs.size != k:
            raise LaminaError("ShapeError", f"chisq_test needs one probability per count, but got {k} "
                              f"counts and {probs.size} probabilities.")
        if (probs < 0).any():
            raise LaminaError("ValueError", f"chisq_test's p must be probabilities (at least 0), but "
                              f"p[{int(np.argmax(probs < 0))}] is {format_number(float(probs[probs < 0][0]))}.")
        if abs(probs.sum() - 1) > tol:
            raise LaminaError("ValueError", f"chisq_test's p must be probabilities (at least 0) that sum "
                              f"to 1, but they sum to {format_number(float(probs.sum()))}; divide them "
                              f"by their sum.")
    n = observed.sum()
    if n == 0:
        raise LaminaError("ValueError", "chisq_test: the counts are all 0.")
    expected = n * probs
    if (expected == 0).any():
        raise LaminaError("ValueError", "chisq_test: a category has probability 0, so its expected count "
                          "is 0; drop it.")
    stat = float(((observed - expected) ** 2 / expected).sum())
    text = f"{k} counts (n = {format_number(float(n))})"
    return _chisq_result("Chi-squared test for given probabilities", text, stat, k - 1, observed,
                         expected, stats)


def _chisq_result(method, text, stat, df, observed, expected, stats) -> TestResult:
    if (expected < 5).any():
        warn("chisq_test: some expected counts are below 5, so the chi-squared approximation may "
             "be poor.", once_key="chisq_test: small counts")
    extra = {"observed": observed.copy(), "expected": expected,
             "residuals": (observed - expected) / np.sqrt(expected)}
    return TestResult(method, text, "X-squared", stat, float(df), float(stats.chi2.sf(stat, df)),
                      None, extra=extra)


def _cross_table(x, y) -> tuple[np.ndarray, str]:
    """The table of counts of two variables (numbers or strings) of one length: a row per value of
    x and a column per value of y, each in sorted order."""
    a, b = _labels(x, "chisq_test's x"), _labels(y, "chisq_test's y")
    if len(a) != len(b):
        raise LaminaError("ShapeError", f"chisq_test(x, y) needs one y per x, but got {len(a)} and {len(b)}.")
    ra, ia = np.unique(a, return_inverse=True)
    rb, ib = np.unique(b, return_inverse=True)
    if ra.size < 2 or rb.size < 2:
        raise LaminaError("ValueError", f"chisq_test(x, y) needs at least 2 different values in each "
                          f"variable, but x has {ra.size} and y has {rb.size}.")
    table = np.zeros((ra.size, rb.size))
    np.add.at(table, (ia, ib), 1.0)
    return table, f"x and y ({len(a)} pairs, a {shape_str(table.shape)} table)"


def _labels(x, what: str) -> np.ndarray:
    v = value_of(x)
    if isinstance(v, list) and all(isinstance(s, str) for s in v):
        gone = missing(v)
        if gone.any():
            raise LaminaError("ValueError", f"{what} contains missing text (\"{v[int(np.argmax(gone))]}\"); "
                              "remove those rows first (drop_missing(t) for a table).")
        return np.array(v, dtype=object).astype(str)
    if isinstance(v, np.ndarray):
        return no_nan(vector(x, what), what)
    raise LaminaError("TypeError", f"{what} must be a vector or a list of strings (one label per "
                      f"example), not {describe(x)}.")


# -- correlation test -----------------------------------------------------------------------
def corr_test(x, y, method="pearson", alternative="two-sided", conf_level=0.95) -> TestResult:
    from scipy import stats
    kind = as_str(method, "corr_test's method")
    if kind not in ("pearson", "spearman"):
        raise LaminaError("ValueError", f"corr_test's method must be \"pearson\" or \"spearman\", not \"{kind}\".")
    alt, level = _alternative(alternative, "corr_test"), _level(conf_level, "corr_test")
    a, b = _sample(x, "corr_test's x", 3), _sample(y, "corr_test's y", 3)
    if a.size != b.size:
        raise LaminaError("ShapeError", f"corr_test needs one y per x, but got {a.size} and {b.size}.")
    for name, v in (("x", a), ("y", b)):
        if constant(v):
            raise LaminaError("ValueError", f"corr_test: {name} is constant, so its correlation is undefined.")
    if kind == "spearman":
        a, b = stats.rankdata(a), stats.rankdata(b)
    n = a.size
    a, b = a / _scale(a), b / _scale(b)         # r does not change; tiny squares do not underflow
    da, db = a - a.mean(), b - b.mean()
    r = float(np.clip(da @ db / math.sqrt((da @ da) * (db @ db)), -1.0, 1.0))
    df = n - 2.0
    with np.errstate(divide="ignore"):
        stat = float(r * math.sqrt(df) / math.sqrt(1 - r * r)) if abs(r) < 1 else math.copysign(math.inf, r)
    p, _ = _p_and_ci(stats.t(df), stat, 0.0, 0.0, alt, level)
    ci = None
    if kind == "pearson":
        ci = np.full(2, math.nan)
        if n > 3:
            z = math.atanh(r) if abs(r) < 1 else math.copysign(math.inf, r)
            _, zci = _p_and_ci(stats.norm(), 0.0, z, 1 / math.sqrt(n - 3), alt, level)
            ci = np.tanh(zci)
    names = ("Pearson's product-moment correlation", "true correlation", ("cor",)) if kind == "pearson" \
        else ("Spearman's rank correlation rho", "true rho", ("rho",))
    return TestResult(names[0], f"x and y ({n} pairs)", "t", stat, df, p, alt, names[1], 0.0, ci,
                      level, r, names[2])
