"""fisher_test and prop_test (stats/count_tests.py) against R's printed output (R's own examples, as
tests/Examples/stats-Ex.Rout.save of the R sources records them) and against SciPy and
statsmodels (fisher_exact, odds_ratio, chi2_contingency, proportions_ztest, proportion_confint)."""
import contextlib
import io
import math

import numpy as np
import pytest
import scipy.stats as st
from scipy.stats.contingency import odds_ratio
from statsmodels.stats.proportion import confint_proportions_2indep, proportion_confint, proportions_ztest

from lamina import warnings as channel
from lamina.errors import LaminaError
from lamina.interpreter import Interpreter
from lamina.stats import count_tests as C
from lamina.stats.summary import joint

ALTERNATIVES = ["two-sided", "less", "greater"]
TEA = np.array([[3.0, 1.0], [1.0, 3.0]])               # Fisher's tea tasting (Agresti 1990, p. 61)
CONVICTIONS = np.array([[2.0, 15.0], [10.0, 3.0]])     # Fisher (1962): twins' convictions


def _r_digits(x, digits=7):
    return float(f"{x:.{digits}g}")


# -- Fisher's exact test --------------------------------------------------------------------
@pytest.mark.parametrize("table, alternative, level, p, ci, estimate", [
    # R: fisher.test(TeaTasting) / (..., alternative = "greater") / Convictions, "less", two-sided,
    # and its $conf.int at 0.95 and 0.99, as R prints them
    (TEA, "two-sided", 0.95, 0.4857, ["0.2117329", "621.9337505"], 6.408309),
    (TEA, "greater", 0.95, 0.2429, ["0.3135693", "Inf"], 6.408309),
    (CONVICTIONS, "less", 0.95, 0.0004652, ["0.0000000", "0.2849601"], 0.04693661),
    (CONVICTIONS, "two-sided", 0.95, 0.0005367, ["0.003325764", "0.363182271"], 0.04693661),
    (CONVICTIONS, "two-sided", 0.99, 0.0005367, ["0.001386333", "0.578851645"], 0.04693661),
])
def test_fisher_test_prints_r_s_numbers(table, alternative, level, p, ci, estimate):
    r = C.fisher_test(table, alternative=alternative, conf_level=level)
    assert _r_digits(r.get("p"), 4) == p
    assert joint(r.get("ci"), 7) == ci
    assert _r_digits(r.get("estimate")) == estimate
    assert r.get("method") == "Fisher's Exact Test for Count Data"


def test_fisher_test_reports_as_r_does(lam):
    assert lam.run("print(fisher_test([3, 1; 1, 3]))") == [
        "Fisher's Exact Test for Count Data", "",
        "data: a 2x2 table of counts (n = 8)",
        "p-value = 0.4857",
        "alternative hypothesis: true odds ratio is not equal to 1",
        "95 percent confidence interval:",
        "  0.2117329  621.9337505",
        "sample estimates:",
        "  odds ratio",
        "    6.408309"]
    assert lam.eval("fisher_test([3, 1; 1, 3])").field_names() == ["p", "ci", "estimate", "observed", "method",
                                                                  "alternative"]


def _within_r_tolerance(ours, exact):
    """R's uniroot stops within about 1.2e-4 of the zero: of psi itself below 1, of 1 / psi above."""
    if math.isinf(exact) or exact == 0:
        return ours == exact
    return abs(ours - exact) <= 1.3e-4 if exact <= 1 else abs(1 / ours - 1 / exact) <= 1.3e-4


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_fisher_test_against_scipy(rng, alternative):
    for _ in range(25):
        table = rng.integers(0, 15, size=(2, 2)).astype(float)
        if (table.sum(axis=0) == 0).any() or (table.sum(axis=1) == 0).any():
            continue
        r = C.fisher_test(table, alternative=alternative)
        assert r.get("p") == pytest.approx(st.fisher_exact(table, alternative=alternative).pvalue, rel=1e-9)
        ref = odds_ratio(table.astype(int), kind="conditional")
        ci = ref.confidence_interval(0.95, alternative)
        assert _within_r_tolerance(r.get("estimate"), ref.statistic), (table, r.get("estimate"), ref.statistic)
        assert _within_r_tolerance(r.get("ci")[0], ci.low) and _within_r_tolerance(r.get("ci")[1], ci.high), table


def test_fisher_test_at_the_edges_of_the_support():
    r = C.fisher_test(np.array([[0.0, 5.0], [4.0, 2.0]]))         # first cell at its least: odds ratio 0
    assert r.get("estimate") == 0.0 and r.get("ci")[0] == 0.0
    r = C.fisher_test(np.array([[5.0, 0.0], [2.0, 4.0]]))         # at its most: infinite
    assert r.get("estimate") == math.inf and r.get("ci")[1] == math.inf
    assert r.get("p") == pytest.approx(st.fisher_exact([[5, 0], [2, 4]]).pvalue, rel=1e-12)


@pytest.mark.parametrize("table, kind, start", [
    (np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), "ShapeError", "fisher_test takes a 2 x 2 table of counts, not a 2x3"),
    (np.array([1.0, 2.0, 3.0, 4.0]), "ShapeError", "fisher_test takes a 2 x 2 table of counts, not a vector of 4"),
    (np.array([[1.0, -2.0], [3.0, 4.0]]), "ValueError", "fisher_test needs whole counts of at least 0, but the table's [0, 1] is -2"),
    (np.array([[1.0, 2.5], [3.0, 4.0]]), "ValueError", "fisher_test needs whole counts of at least 0, but the table's [0, 1] is 2.5"),
    (np.array([[1.0, np.nan], [3.0, 4.0]]), "ValueError", "fisher_test's table contains NaN"),
])
def test_fisher_test_refuses_what_is_not_a_2_by_2_table_of_counts(table, kind, start):
    with pytest.raises(LaminaError) as info:
        C.fisher_test(table)
    assert info.value.kind == kind and info.value.message.startswith(start), info.value.message


# -- proportions -------------------------------------------------------------------------------
SMOKERS, PATIENTS = np.array([83.0, 90.0, 129.0, 70.0]), np.array([86.0, 93.0, 136.0, 82.0])


def test_prop_test_of_four_groups_prints_r_s_report(lam):
    """R: prop.test(smokers, patients), Fleiss (1981), p. 139."""
    out = lam.run("print(prop_test([83, 90, 129, 70], [86, 93, 136, 82]))")
    assert out == [
        "4-sample test for equality of proportions without continuity correction", "",
        "data: 4 groups: 83 out of 86, 90 out of 93, 129 out of 136, 70 out of 82",
        "X-squared = 12.6, df = 3, p-value = 0.005585",
        "alternative hypothesis: two-sided",
        "sample estimates:",
        "     prop 1     prop 2     prop 3     prop 4",
        "  0.9651163  0.9677419  0.9485294  0.8536585"]
    r = C.prop_test(SMOKERS, PATIENTS)
    stat, p, df, expected = st.chi2_contingency(np.column_stack([SMOKERS, PATIENTS - SMOKERS]), correction=False)
    assert r.get("statistic") == pytest.approx(stat, rel=1e-12) and r.get("p") == pytest.approx(p, rel=1e-10)
    assert r.get("df") == df == 3
    np.testing.assert_allclose(r.get("expected"), expected, rtol=1e-12)


@pytest.mark.parametrize("correct, stat, p, ci, method", [
    # R: heads = 52; prop.test(heads, 100) and prop.test(heads, 100, correct = FALSE)
    (True, 0.09, 0.7642, [0.4183183, 0.6201278], "1-sample proportions test with continuity correction"),
    (False, 0.16, 0.6892, [0.4231658, 0.6153545], "1-sample proportions test without continuity correction"),
])
def test_prop_test_of_one_proportion_prints_r_s_numbers(correct, stat, p, ci, method):
    r = C.prop_test(52.0, 100.0, correct=correct)
    assert _r_digits(r.get("statistic"), 5) == stat and _r_digits(r.get("p"), 4) == p
    assert [_r_digits(c) for c in r.get("ci")] == ci and r.get("estimate") == 0.52
    assert r.get("method") == method and r.get("df") == 1


def _newcombe(x, n, z):
    """Wilson's score interval with continuity correction, Newcombe (1998), method 4, as published."""
    p = x / n
    lo = (2 * n * p + z * z - 1 - z * math.sqrt(z * z - 2 - 1 / n + 4 * p * (n * (1 - p) + 1))) / (2 * (n + z * z))
    hi = (2 * n * p + z * z + 1 + z * math.sqrt(z * z + 2 - 1 / n + 4 * p * (n * (1 - p) - 1))) / (2 * (n + z * z))
    return [0.0 if p == 0 else lo, 1.0 if p == 1 else hi]


@pytest.mark.parametrize("x, n, p0", [(13.0, 40.0, 0.5), (7.0, 25.0, 0.2), (88.0, 90.0, 0.9), (0.0, 12.0, 0.3)])
def test_prop_test_of_one_proportion_against_statsmodels_and_newcombe(x, n, p0):
    plain = C.prop_test(x, n, p=p0, correct=False)
    z, p = proportions_ztest(x, n, value=p0, prop_var=p0)
    assert plain.get("statistic") == pytest.approx(z * z, rel=1e-12) and plain.get("p") == pytest.approx(p, rel=1e-10)
    np.testing.assert_allclose(plain.get("ci"), proportion_confint(x, n, 0.05, method="wilson"), rtol=1e-12)
    corrected = C.prop_test(x, n, p=p0)
    yates = min(0.5, abs(x - n * p0))
    assert corrected.get("statistic") == pytest.approx((abs(x - n * p0) - yates) ** 2 / (n * p0 * (1 - p0)), rel=1e-12)
    np.testing.assert_allclose(corrected.get("ci"), _newcombe(x, n, st.norm.isf(0.025)), rtol=1e-12, atol=1e-15)
    for alternative in ("less", "greater"):
        _, p = proportions_ztest(x, n, value=p0, prop_var=p0, alternative="smaller" if alternative == "less" else "larger")
        assert C.prop_test(x, n, p=p0, correct=False, alternative=alternative).get("p") == pytest.approx(p, rel=1e-10)


@pytest.mark.parametrize("x, n", [([15.0, 25.0], [50.0, 50.0]), ([30.0, 12.0], [41.0, 33.0]), ([9.0, 9.0], [20.0, 30.0])])
def test_prop_test_of_two_proportions_against_scipy_and_statsmodels(x, n):
    x, n = np.array(x), np.array(n)
    table = np.column_stack([x, n - x])
    for correct in (True, False):
        r = C.prop_test(x, n, correct=correct)
        stat, p, _, _ = st.chi2_contingency(table, correction=correct)
        assert r.get("statistic") == pytest.approx(stat, rel=1e-10, abs=1e-12) and r.get("p") == pytest.approx(p, rel=1e-9)
        np.testing.assert_allclose(r.get("estimate"), x / n)
    wald = confint_proportions_2indep(x[0], n[0], x[1], n[1], method="wald", compare="diff")
    np.testing.assert_allclose(C.prop_test(x, n, correct=False).get("ci"), wald, rtol=1e-12)
    widened = C.prop_test(x, n).get("ci")
    yates = min(0.5, abs(x[0] / n[0] - x[1] / n[1]) / (1 / n).sum()) * (1 / n).sum()
    np.testing.assert_allclose(widened, [max(wald[0] - yates, -1), min(wald[1] + yates, 1)], rtol=1e-12)
    _, p = proportions_ztest(x, n, alternative="larger")
    assert C.prop_test(x, n, correct=False, alternative="greater").get("p") == pytest.approx(p, rel=1e-10)


def test_prop_test_takes_a_matrix_of_successes_and_failures_and_given_probabilities():
    matrix = np.column_stack([SMOKERS, PATIENTS - SMOKERS])
    a, b = C.prop_test(matrix), C.prop_test(SMOKERS, PATIENTS)
    assert a.get("statistic") == b.get("statistic") and a.get("p") == b.get("p")
    probs = np.array([0.95, 0.95, 0.9, 0.9])
    r = C.prop_test(SMOKERS, PATIENTS, p=probs)
    expected = np.column_stack([PATIENTS * probs, PATIENTS * (1 - probs)])
    stat = st.chisquare(matrix.reshape(-1), expected.reshape(-1))
    assert r.get("statistic") == pytest.approx(stat.statistic, rel=1e-12) and r.get("df") == 4
    assert r.get("p") == pytest.approx(st.chi2.sf(stat.statistic, 4), rel=1e-10)
    assert r.get("method") == "4-sample test for given proportions without continuity correction"
    assert "null probabilities 0.95, 0.95, 0.9, 0.9" in r.describe()


def test_prop_test_warns_when_expected_counts_are_small():
    channel.reset()
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        Interpreter().run("r = prop_test(3, 8)\nr = prop_test(30, 100)\n", "s.lam")
    channel.reset()
    assert err.getvalue().splitlines() == ["warning: prop_test: some expected counts are below 5, so the "
                                           "chi-squared approximation may be poor. (s.lam:1)"]


@pytest.mark.parametrize("call, kind, start", [
    (lambda: C.prop_test(np.array([5.0, 12.0]), np.array([10.0, 10.0])), "ValueError",
     "prop_test's x (successes) must not exceed n (trials), but x[1] = 12 and n[1] = 10"),
    (lambda: C.prop_test(3.0, 0.0), "ValueError", "prop_test's n must be positive and finite, but x[0] = 3 and n[0] = 0"),
    (lambda: C.prop_test(-1.0, 5.0), "ValueError", "prop_test's x must be at least 0, but x[0] = -1"),
    (lambda: C.prop_test(np.array([1.0, 2.0]), np.array([5.0, 5.0, 5.0])), "ShapeError", "prop_test needs one n (trials) per x"),
    (lambda: C.prop_test(np.array([]), np.array([])), "ValueError", "prop_test needs at least one count, but x is empty"),
    (lambda: C.prop_test(np.array([1.0, np.nan]), np.array([5.0, 5.0])), "ValueError", "prop_test's x contains NaN"),
    (lambda: C.prop_test(3.0, 10.0, p=1.0), "ValueError", "prop_test's p must lie strictly between 0 and 1, but one is 1"),
    (lambda: C.prop_test(3.0, 10.0, p=np.array([0.2, 0.3])), "ShapeError", "prop_test needs one p per group"),
    (lambda: C.prop_test(SMOKERS, PATIENTS, alternative="less"), "ValueError",
     "prop_test's alternative = \"less\" needs one proportion, or two compared with each other; a test of 4"),
    (lambda: C.prop_test(np.array([3.0, 4.0])), "TypeError", "prop_test needs the number of trials"),
    (lambda: C.prop_test(3.0, 10.0, conf_level=95.0), "ValueError", "prop_test's conf_level must lie"),
])
def test_prop_test_bad_input_is_a_clear_error(call, kind, start):
    with pytest.raises(LaminaError) as info:
        call()
    assert info.value.kind == kind and info.value.message.startswith(start), info.value.message
