"""wilcox_test, kruskal_test and shapiro_test (stats/rank_tests.py) against R's printed output
(R's own examples as tests/Examples/stats-Ex.Rout.save of the R sources records them, the
Hollander & Wolfe results of R's tests/reg-tests-1a.R, and R sessions posted with their data)
and against SciPy's wilcoxon, mannwhitneyu, kruskal and shapiro, through the builtins and the
language."""
import contextlib
import io

import numpy as np
import pytest
import scipy.stats as st

from lamina import warnings as channel
from lamina.errors import LaminaError
from lamina.interpreter import Interpreter
from lamina.stats import rank_tests as R
from lamina.stats.table import Table

ALTERNATIVES = ["two-sided", "less", "greater"]
# Hollander & Wolfe (1973), 29f: Hamilton depression scale, first (x) and second (y) visit
DEPRESSION_X = np.array([1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30])
DEPRESSION_Y = np.array([0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29])
# Hollander & Wolfe (1973), 69f: permeability of the chorioamnion at term (x) and at 12-26 weeks (y)
TERM = np.array([0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46])
EARLY = np.array([1.15, 0.88, 0.90, 0.74, 1.21])
# R's airquality$Ozone without its NAs, by Month (src/library/datasets/data/airquality.tab)
OZONE = {
    5: [41, 36, 12, 18, 28, 23, 19, 8, 7, 16, 11, 14, 18, 14, 34, 6, 30, 11, 1, 11, 4, 32, 23, 45, 115, 37],
    6: [29, 71, 39, 23, 21, 37, 20, 12, 13],
    7: [135, 49, 32, 64, 40, 77, 97, 97, 85, 10, 27, 7, 48, 35, 61, 79, 63, 16, 80, 108, 20, 52, 82, 50, 64, 59],
    8: [39, 9, 16, 78, 35, 66, 122, 89, 110, 44, 28, 65, 22, 59, 23, 31, 44, 21, 9, 45, 168, 73, 76, 118, 84, 85],
    9: [96, 78, 73, 91, 47, 32, 20, 23, 21, 24, 44, 21, 28, 9, 13, 46, 18, 13, 24, 16, 13, 23, 36, 7, 14, 30, 14,
        18, 20],
}
MPG = np.array([21.0, 21.0, 22.8, 21.4, 18.7, 18.1, 14.3, 24.4, 22.8, 19.2, 17.8, 16.4, 17.3, 15.2, 10.4, 10.4,
                14.7, 32.4, 30.4, 33.9, 21.5, 15.5, 15.2, 13.3, 19.2, 27.3, 26.0, 30.4, 15.8, 19.7, 15.0, 21.4])


def r4(p):
    """A p-value as R prints it: 4 significant digits."""
    return float(f"{p:.4g}")


@pytest.fixture
def warnings_seen(capsys):
    """warnings_seen(): the warnings written so far in the test, each warning free to be written."""
    channel.reset()
    yield lambda: capsys.readouterr().err
    channel.reset()


# -- wilcox_test: R's printed numbers ----------------------------------------------------------
@pytest.mark.parametrize("call, stat, p, method", [
    # stats-Ex.Rout.save: wilcox.test(x, y, paired = TRUE, alternative = "greater"), its formula form
    # (two-sided), wilcox.test(y - x, alternative = "less") and the same with exact = FALSE, correct = FALSE
    (lambda: R.wilcox_test(DEPRESSION_X, DEPRESSION_Y, paired=True, alternative="greater"), 40, 0.01953,
     "Wilcoxon signed rank exact test"),
    (lambda: R.wilcox_test(DEPRESSION_X, DEPRESSION_Y, paired=True), 40, 0.03906, "Wilcoxon signed rank exact test"),
    (lambda: R.wilcox_test(DEPRESSION_Y - DEPRESSION_X, alternative="less"), 5, 0.01953, "Wilcoxon signed rank exact test"),
    (lambda: R.wilcox_test(DEPRESSION_Y - DEPRESSION_X, alternative="less", exact=False, correct=False), 5, 0.01908,
     "Wilcoxon signed rank test"),
    # wilcox.test(x, y, alternative = "g") and the same with exact = FALSE, correct = FALSE
    (lambda: R.wilcox_test(TERM, EARLY, alternative="greater"), 35, 0.1272, "Wilcoxon rank sum exact test"),
    (lambda: R.wilcox_test(TERM, EARLY, alternative="greater", exact=False, correct=False), 35, 0.1103,
     "Wilcoxon rank sum test"),
    # wilcox.test((4:2)/10, (3:1)/10, paired = TRUE): the differences differ in their last bits, no ties
    (lambda: R.wilcox_test(np.array([0.4, 0.3, 0.2]), np.array([0.3, 0.2, 0.1]), paired=True), 6, 0.25,
     "Wilcoxon signed rank exact test"),
])
def test_wilcox_test_prints_r_s_numbers(call, stat, p, method):
    r = call()
    assert r.get("statistic") == stat and r4(r.get("p")) == p and r.get("method") == method
    assert r.field_names() == ["statistic", "p", "method", "alternative"]


@pytest.mark.parametrize("call, stat, p", [
    # stats-Ex.Rout.save: wilcox.test(Ozone ~ Month, data = airquality, subset = Month %in% c(5, 8))
    (lambda: R.wilcox_test(np.array(OZONE[5], float), np.array(OZONE[8], float)), 127.5, 0.0001208),
    # wilcox.test(4:2, 3:1, paired = TRUE)
    (lambda: R.wilcox_test(np.array([4.0, 3.0, 2.0]), np.array([3.0, 2.0, 1.0]), paired=True), 6, 0.1489),
    # R sessions with their data: x <- c(-0.2, -0.05, 0.1, 0.15, 0.2); wilcox.test(x), and
    # wilcox.test(c(1, 2, 2, 4, 5, 3, 0), c(4, 6, 3, 8, 11, 11))
    (lambda: R.wilcox_test(np.array([-0.2, -0.05, 0.1, 0.15, 0.2])), 9.5, 0.6845),
    (lambda: R.wilcox_test(np.array([1.0, 2, 2, 4, 5, 3, 0]), np.array([4.0, 6, 3, 8, 11, 11])), 4, 0.01778),
])
def test_wilcox_test_with_ties_is_r_s_normal_approximation_and_warns(warnings_seen, call, stat, p):
    r = call()
    assert r.get("statistic") == stat and r4(r.get("p")) == p
    assert r.get("method").endswith("test with continuity correction")
    assert warnings_seen() == ("warning: wilcox_test: cannot compute exact p-value with ties; the "
                                        "p-value comes from the normal approximation.\n")


def test_wilcox_test_with_zero_differences_says_so(warnings_seen):
    """R (Bortz, Lienert & Boehnke's example): wilcox.test(x1, x2, paired = TRUE, exact = TRUE) gives
    V = 13, p-value = 0.1436 with warnings for ties and zeroes."""
    x1 = np.array([9.0, 14, 8, 11, 14, 10, 8, 14, 12, 14, 13, 9, 15, 12, 9])
    x2 = np.array([13.0, 15, 9, 12, 16, 10, 8, 13, 12, 16, 9, 10, 16, 12, 9])
    r = R.wilcox_test(x1, x2, paired=True, exact=True)
    assert r.get("statistic") == 13 and r4(r.get("p")) == 0.1436
    written = warnings_seen()
    assert "cannot compute exact p-value with zeroes" in written and "cannot compute exact p-value with ties" in written


def test_wilcox_test_without_exact_asked_does_not_warn(warnings_seen):
    R.wilcox_test(np.array([1.0, 2, 2, 4, 5, 3, 0]), np.array([4.0, 6, 3, 8, 11, 11]), exact=False)
    assert warnings_seen() == ""


def test_the_hodges_lehmann_estimates_are_hollander_and_wolfe_s():
    """R's reg-tests-1a.R (Hollander & Wolfe 1999, pp. 40, 53, 111 and 126): y then x."""
    r = R.wilcox_test(DEPRESSION_Y, DEPRESSION_X, paired=True, conf_int=True)
    assert round(r.get("p"), 4) == 0.0391 and round(r.get("estimate"), 3) == -0.46
    np.testing.assert_array_equal(np.round(r.get("ci"), 3), [-0.786, -0.010])
    r = R.wilcox_test(EARLY, TERM, conf_int=True)
    assert round(r.get("p"), 4) == 0.2544 and round(r.get("estimate"), 3) == -0.305
    np.testing.assert_array_equal(np.round(r.get("ci"), 3), [-0.76, 0.15])
    assert r.field_names() == ["statistic", "p", "ci", "estimate", "method", "alternative"]


def test_the_asymptotic_estimate_does_not_depend_on_the_alternative():
    """R's reg-tests-1b.R: the point estimate carries no continuity correction (R < 2.10.1 did)."""
    z = np.array([-2.0, 0, 1, 1, 2, 2, 3, 5, 5, 5, 7])
    x, y = np.array([6.5, 6.8, 7.1, 7.3, 10.2]), np.array([5.8, 5.8, 5.9, 6, 6, 6, 6.3, 6.3, 6.4, 6.5, 6.5])
    for args in ((z,), (x, y)):
        estimates = {R.wilcox_test(*args, conf_int=True, exact=False, alternative=a).get("estimate") for a in ALTERNATIVES}
        assert len(estimates) == 1


def test_wilcox_test_reports_as_r_does(lam):
    out = lam.run("x = [0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46]\n"
                  "print(wilcox_test(x, [1.15, 0.88, 0.90, 0.74, 1.21], conf_int = true))")
    assert out == [
        "Wilcoxon rank sum exact test", "",
        "data: x (10 values) and y (5 values)",
        "W = 35, p-value = 0.2544",
        "alternative hypothesis: true location shift is not equal to 0",
        "95 percent confidence interval:",
        "  -0.15  0.76",
        "sample estimates:",
        "  difference in location",
        "                   0.305"]
    assert lam.run("print(wilcox_test([1.83, 0.50, 1.62], mu = 1))")[2:5] == [
        "data: x (3 values)", "V = 5, p-value = 0.5",
        "alternative hypothesis: true location is not equal to 1"]


# -- wilcox_test against SciPy --------------------------------------------------------------------
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_signed_rank_test_against_scipy(rng, alternative):
    x, y = rng.normal(0.4, 1.0, 23), rng.normal(0.0, 1.0, 23)
    for d, r in ((x - 0.1, R.wilcox_test(x, mu=0.1, alternative=alternative)),
                 (x - y, R.wilcox_test(x, y, paired=True, alternative=alternative))):
        ref = st.wilcoxon(d, alternative=alternative, method="exact")
        assert r.get("p") == pytest.approx(ref.pvalue, rel=1e-10)
        ranks = st.rankdata(np.abs(d))
        assert r.get("statistic") == ranks[d > 0].sum()
    rounded = np.round(x, 1)                                  # ties and zeros: the normal approximation
    for correct in (True, False):
        ref = st.wilcoxon(rounded, alternative=alternative, method="approx", correction=correct, zero_method="wilcox")
        r = R.wilcox_test(rounded, alternative=alternative, correct=correct, exact=False)
        assert r.get("p") == pytest.approx(ref.pvalue, rel=1e-10)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_rank_sum_test_against_scipy(rng, alternative):
    x, y = rng.normal(0.5, 1.0, 14), rng.normal(0.0, 2.0, 31)
    r = R.wilcox_test(x, y, alternative=alternative)
    ref = st.mannwhitneyu(x, y, alternative=alternative, method="exact")
    assert r.get("statistic") == ref.statistic and r.get("p") == pytest.approx(ref.pvalue, rel=1e-10)
    r = R.wilcox_test(x, y, mu=0.3, alternative=alternative)
    assert r.get("p") == pytest.approx(st.mannwhitneyu(x - 0.3, y, alternative=alternative, method="exact").pvalue, rel=1e-10)
    x, y = np.round(x), np.round(y)                           # ties
    for correct in (True, False):
        r = R.wilcox_test(x, y, alternative=alternative, correct=correct)
        ref = st.mannwhitneyu(x, y, alternative=alternative, method="asymptotic", use_continuity=correct)
        assert r.get("statistic") == ref.statistic and r.get("p") == pytest.approx(ref.pvalue, rel=1e-10)


def test_large_samples_use_the_normal_approximation_unless_exact_is_asked(rng):
    x, y = rng.normal(0.3, 1, 60), rng.normal(0, 1, 70)
    r = R.wilcox_test(x, y)
    assert r.get("method") == "Wilcoxon rank sum test with continuity correction"
    assert r.get("p") == pytest.approx(st.mannwhitneyu(x, y, method="asymptotic").pvalue, rel=1e-10)
    r = R.wilcox_test(x, y, exact=True)
    assert r.get("p") == pytest.approx(st.mannwhitneyu(x, y, method="exact").pvalue, rel=1e-9)
    r = R.wilcox_test(x[:55], exact=True)
    assert r.get("p") == pytest.approx(st.wilcoxon(x[:55], method="exact").pvalue, rel=1e-9)


def test_wilcox_test_on_a_table_splits_by_the_group_column(lam, rng):
    a, b = rng.normal(5, 1, 8), rng.normal(6, 1, 6)
    values = np.concatenate([b[:2], a, b[2:]])
    groups = ["b"] * 2 + ["a"] * 8 + ["b"] * 4
    r = lam.eval('wilcox_test(table({v = v, g = g}), "v", by = "g")', v=values, g=groups)
    ref = st.mannwhitneyu(a, b, method="exact")
    assert r.get("statistic") == ref.statistic and r.get("p") == pytest.approx(ref.pvalue, rel=1e-10)
    assert r.describe().splitlines()[2] == "data: v by g (a: 8 values, b: 6 values)"


@pytest.mark.parametrize("call, kind, start", [
    (lambda: R.wilcox_test(np.array([])), "ValueError", "wilcox_test's x needs at least 1 values, but has 0"),
    (lambda: R.wilcox_test(np.array([1.0, np.nan])), "ValueError", "wilcox_test's x contains NaN"),
    (lambda: R.wilcox_test(np.array([1.0, np.inf])), "ValueError", "wilcox_test's x holds Inf"),
    (lambda: R.wilcox_test(np.array([2.0, 2.0]), mu=2.0), "ValueError", "wilcox_test: every value equals mu = 2"),
    (lambda: R.wilcox_test(np.array([1.0, 2.0]), np.array([1.0]), paired=True), "ShapeError",
     "wilcox_test with paired = true needs x and y of one length"),
    (lambda: R.wilcox_test(np.array([1.0, 2.0]), paired=True), "TypeError", "wilcox_test with paired = true compares two"),
    (lambda: R.wilcox_test(np.array([3.0, 3.0]), np.array([3.0, 3.0])), "ValueError", "wilcox_test: all the values are equal"),
    (lambda: R.wilcox_test(np.arange(600.0), np.arange(500.0) + 0.5, exact=True), "ValueError",
     "wilcox_test with exact = true: samples of 600 and 500 values are too large to count"),
    (lambda: R.wilcox_test(np.arange(1.0, 1002.0), exact=True), "ValueError",
     "wilcox_test with exact = true: 1001 values are too many to count"),
    (lambda: R.wilcox_test(np.array([1.0, 2.0]), alternative="two.sided"), "ValueError", "wilcox_test's alternative must be"),
    (lambda: R.wilcox_test(np.array([1.0, 2.0]), exact="yes"), "TypeError", "wilcox_test's exact must be true or false"),
    (lambda: R.wilcox_test(np.array([1.0, 2.0]), mu=np.inf), "ValueError", "wilcox_test's mu must be finite"),
    (lambda: R.wilcox_test(np.array([4.0, 4.0, 4.0]), conf_int=True), "ValueError",
     "wilcox_test: the values are all tied, so the interval"),
    (lambda: R.wilcox_test(Table({"v": np.arange(6.0), "g": ["a", "b", "c"] * 2}), "v", by="g"), "ValueError",
     "wilcox_test(t, \"v\", by = \"g\") compares two groups, but 'g' has 3: a, b, c"),
    (lambda: R.wilcox_test(Table({"v": np.arange(4.0)}), "v"), "TypeError", "wilcox_test of a table compares a column"),
])
def test_wilcox_test_bad_input_is_a_clear_error(call, kind, start):
    with pytest.raises(LaminaError) as info:
        call()
    assert info.value.kind == kind and info.value.message.startswith(start), info.value.message


# -- kruskal_test -------------------------------------------------------------------------------------
HW_GROUPS = [np.array([2.9, 3.0, 2.5, 2.6, 3.2]), np.array([3.8, 2.7, 4.0, 2.4]), np.array([2.8, 3.4, 3.7, 2.2, 2.0])]


def test_kruskal_test_prints_r_s_report(lam):
    """stats-Ex.Rout.save: kruskal.test(list(x, y, z)) (Hollander & Wolfe 1973, 116) and
    kruskal.test(Ozone ~ Month, data = airquality)."""
    out = lam.run("print(kruskal_test([[2.9, 3.0, 2.5, 2.6, 3.2], [3.8, 2.7, 4.0, 2.4], [2.8, 3.4, 3.7, 2.2, 2.0]]))")
    assert out == ["Kruskal-Wallis rank sum test", "", "data: 3 groups (14 values)",
                   "Kruskal-Wallis chi-squared = 0.77143, df = 2, p-value = 0.68"]
    ozone = np.concatenate([np.array(v, float) for v in OZONE.values()])
    month = np.concatenate([np.full(len(v), float(m)) for m, v in OZONE.items()])
    r = lam.eval('kruskal_test(table({ozone = ozone, month = month}), "ozone", by = "month")', ozone=ozone, month=month)
    assert r.describe().splitlines()[2:] == ["data: ozone by month (5 groups, 116 values)",
                                             "Kruskal-Wallis chi-squared = 29.267, df = 4, p-value = 6.901e-06"]
    assert r.field_names() == ["statistic", "df", "p", "method"]


def test_kruskal_test_against_scipy(rng):
    groups = [np.round(rng.normal(mu, 1.0, n), 1) for mu, n in ((0, 7), (0.5, 12), (1.0, 9), (0.2, 4))]
    ref = st.kruskal(*groups)
    r = R.kruskal_test(groups)
    assert r.get("statistic") == pytest.approx(ref.statistic, rel=1e-12) and r.get("p") == pytest.approx(ref.pvalue, rel=1e-10)
    assert r.get("df") == 3
    labels = sum(([name] * len(g) for name, g in zip("dcab", groups)), [])
    values = np.concatenate(groups)
    order = rng.permutation(values.size)
    r = R.kruskal_test(values[order], [labels[i] for i in order])
    assert r.get("statistic") == pytest.approx(ref.statistic, rel=1e-12)
    r = R.kruskal_test(values, np.concatenate([np.full(len(g), float(i)) for i, g in enumerate(groups)]))
    assert r.get("statistic") == pytest.approx(ref.statistic, rel=1e-12)


@pytest.mark.parametrize("call, kind, start", [
    (lambda: R.kruskal_test([np.array([1.0, 2.0])]), "ValueError", "kruskal_test compares groups, but all the values are in one group"),
    (lambda: R.kruskal_test([np.array([1.0, 2.0]), np.array([])]), "ValueError", "kruskal_test's group 1 needs at least 1 values"),
    (lambda: R.kruskal_test([np.array([1.0, 2.0]), np.array([np.nan])]), "ValueError", "kruskal_test's group 1 contains NaN"),
    (lambda: R.kruskal_test(np.array([1.0, 2.0, 3.0])), "TypeError", "kruskal_test takes a list of groups"),
    (lambda: R.kruskal_test(np.array([1.0, 2.0, 3.0]), ["a", "b"]), "ShapeError", "kruskal_test(x, g) needs one group label per value"),
    (lambda: R.kruskal_test(np.array([1.0, 2.0, 3.0]), ["a", "NA", "b"]), "ValueError", "kruskal_test's g contains missing text"),
    (lambda: R.kruskal_test([np.array([2.0, 2.0]), np.array([2.0])]), "ValueError", "kruskal_test: all the values are equal"),
    (lambda: R.kruskal_test(np.array([1.0, 2.0]), by="g"), "TypeError", "kruskal_test's by names a column of a table"),
])
def test_kruskal_test_bad_input_is_a_clear_error(call, kind, start):
    with pytest.raises(LaminaError) as info:
        call()
    assert info.value.kind == kind and info.value.message.startswith(start), info.value.message


# -- shapiro_test -------------------------------------------------------------------------------------
def test_shapiro_test_of_mtcars_mpg_prints_r_s_report(lam):
    """R: shapiro.test(mtcars$mpg) gives W = 0.94756, p-value = 0.1229."""
    r = lam.eval("shapiro_test(mpg)", mpg=MPG)
    assert r.describe().splitlines() == ["Shapiro-Wilk normality test", "", "data: x (32 values)",
                                         "W = 0.94756, p-value = 0.1229"]
    assert r.field_names() == ["statistic", "p", "method"]


@pytest.mark.parametrize("n", [3, 4, 11, 200, 5000])
def test_shapiro_test_against_scipy(rng, n):
    x = rng.gamma(2.0, size=n)
    ref = st.shapiro(x)
    r = R.shapiro_test(x)
    assert r.get("statistic") == pytest.approx(ref.statistic, rel=1e-12) and r.get("p") == pytest.approx(ref.pvalue, rel=1e-10)


@pytest.mark.parametrize("x, start", [
    (np.array([1.0, 2.0]), "shapiro_test's x needs at least 3 values, but has 2"),
    (np.arange(5001.0), "shapiro_test takes 3 to 5000 values (Royston's approximation of the p-value holds there), but x has 5001"),
    (np.array([4.0, 4.0, 4.0, 4.0]), "shapiro_test: the values are all equal"),
    (np.array([1.0, np.nan, 3.0, 4.0]), "shapiro_test's x contains NaN"),
])
def test_shapiro_test_bad_input_is_a_clear_error(x, start):
    with pytest.raises(LaminaError) as info:
        R.shapiro_test(x)
    assert info.value.kind == "ValueError" and info.value.message.startswith(start), info.value.message


def test_tracked_values_are_refused(lam):
    for call in ("wilcox_test(param([1, 2, 3]))", "kruskal_test([param([1, 2]), [3, 4, 5]])",
                 "shapiro_test(param([1, 2, 4]))"):
        err = lam.error(call)
        assert err.kind == "TypeError" and "does not take tracked values" in err.message, call


def test_the_warnings_name_the_lamina_line():
    channel.reset()
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        Interpreter().run("a = 1\nr = wilcox_test([1, 2, 2, 3, 5])\n", "s.lam")
    channel.reset()
    assert err.getvalue() == ("warning: wilcox_test: cannot compute exact p-value with ties; the p-value comes "
                              "from the normal approximation. (s.lam:2)\n")
