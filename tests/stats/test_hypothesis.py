"""t_test, chisq_test and corr_test against SciPy (ttest_1samp, ttest_ind, ttest_rel,
chi2_contingency, chisquare, pearsonr, spearmanr), through the builtins and the language."""
import ast
import contextlib
import importlib
import inspect
import io
import pathlib
import pkgutil
import re

import numpy as np
import pytest
import scipy.stats as st

import lamina.stats
from lamina import warnings as channel
from lamina.builtins import hypothesis as H
from lamina.builtins.registry import load_all, spec_of
from lamina.errors import LaminaError
from lamina.interpreter import Interpreter
from lamina.stats import htest
from lamina.stats.columns import MISSING_WORDS, TextColumn
from lamina.stats.summary import joint
from lamina.stats.table import Table

ALTERNATIVES = ["two-sided", "less", "greater"]
RECIPE = "docs/ARCHITECTURE.md, recipe 'A hypothesis test'"


def same(result, ref, ci=None, df=None):
    assert result.get("statistic") == pytest.approx(ref.statistic, rel=1e-10)
    assert result.get("p") == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-300)
    if df is not None:
        assert result.get("df") == pytest.approx(df, rel=1e-12)
    if ci is not None:
        np.testing.assert_allclose(result.get("ci"), ci, rtol=1e-9)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_one_sample_and_paired_t_tests(rng, alternative):
    x, y = rng.normal(0.3, 1.0, 17), rng.normal(0.0, 1.0, 17)
    ref = st.ttest_1samp(x, 0.2, alternative=alternative)
    r = H.t_test(x, mu=0.2, alternative=alternative, conf_level=0.9)
    same(r, ref, ci=ref.confidence_interval(0.9), df=16)
    assert r.get("estimate") == pytest.approx(x.mean()) and r.get("method") == "One Sample t-test"
    ref = st.ttest_rel(x, y, alternative=alternative)
    r = H.t_test(x, y, paired=True, alternative=alternative)
    same(r, ref, ci=ref.confidence_interval(), df=16)
    assert r.get("estimate") == pytest.approx((x - y).mean())


@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("equal_var", [False, True])
def test_two_sample_t_tests(rng, alternative, equal_var):
    x, y = rng.normal(1.0, 1.0, 12), rng.normal(0.2, 2.5, 20)
    ref = st.ttest_ind(x, y, equal_var=equal_var, alternative=alternative)
    r = H.t_test(x, y, equal_var=equal_var, alternative=alternative)
    same(r, ref, ci=ref.confidence_interval(), df=ref.df)
    np.testing.assert_allclose(r.get("estimate"), [x.mean(), y.mean()])
    assert r.get("method") == ("Two Sample t-test" if equal_var else "Welch Two Sample t-test")


def test_t_test_on_a_table_splits_by_the_group_column(lam, rng):
    x, y = rng.normal(5, 1, 9), rng.normal(6, 1, 7)
    values = np.concatenate([y[:3], x, y[3:]])
    groups = ["b"] * 3 + ["a"] * 9 + ["b"] * 4
    r = lam.eval('t_test(table({v = v, g = g}), "v", by = "g")', v=values, g=groups)
    ref = st.ttest_ind(x, y, equal_var=False)
    same(r, ref, ci=ref.confidence_interval(), df=ref.df)
    assert "mean in group a  mean in group b" in r.describe()


@pytest.mark.parametrize("correct", [True, False])
@pytest.mark.parametrize("shape", [(2, 2), (3, 4)])
def test_chisq_test_of_a_table(rng, shape, correct):
    M = rng.integers(5, 40, size=shape).astype(float)
    stat, p, dof, expected = st.chi2_contingency(M, correction=correct)
    r = H.chisq_test(M, correct=correct)
    assert r.get("statistic") == pytest.approx(stat, rel=1e-12) and r.get("p") == pytest.approx(p, rel=1e-10)
    assert r.get("df") == dof
    np.testing.assert_allclose(r.get("expected"), expected)
    np.testing.assert_allclose(r.get("residuals"), (M - expected) / np.sqrt(expected))
    assert ("Yates" in r.get("method")) == (correct and shape == (2, 2))


def test_chisq_test_of_two_label_variables_counts_their_pairs(lam):
    a = ["x", "y", "x", "x", "y", "z", "z", "x", "y", "z"] * 3
    b = [1, 0, 1, 1, 0, 0, 1, 0, 0, 1] * 3
    table = np.zeros((3, 2))
    for u, v in zip(a, b):
        table[["x", "y", "z"].index(u), v] += 1
    r = lam.eval("chisq_test(a, b)", a=a, b=np.array(b, dtype=float))
    stat, p, dof, _ = st.chi2_contingency(table)
    np.testing.assert_array_equal(r.get("observed"), table)
    assert r.get("statistic") == pytest.approx(stat) and r.get("p") == pytest.approx(p) and r.get("df") == dof


def test_chisq_goodness_of_fit(rng):
    counts = rng.integers(10, 50, size=5).astype(float)
    probs = np.array([0.1, 0.2, 0.3, 0.25, 0.15])
    ref = st.chisquare(counts, counts.sum() * probs)
    same(H.chisq_test(counts, p=probs), ref, df=4)
    same(H.chisq_test(counts), st.chisquare(counts), df=4)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_pearson_corr_test(rng, alternative):
    x = rng.normal(size=25)
    y = 0.4 * x + rng.normal(size=25)
    ref = st.pearsonr(x, y, alternative=alternative)
    r = H.corr_test(x, y, alternative=alternative, conf_level=0.9)
    assert r.get("estimate") == pytest.approx(ref.statistic, rel=1e-12)
    assert r.get("p") == pytest.approx(ref.pvalue, rel=1e-9)
    ci = ref.confidence_interval(0.9)
    np.testing.assert_allclose(r.get("ci"), [ci.low, ci.high], rtol=1e-9)
    assert r.get("df") == 23
    assert r.get("statistic") == pytest.approx(ref.statistic * np.sqrt(23 / (1 - ref.statistic ** 2)))


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_spearman_corr_test_with_ties(rng, alternative):
    x = np.round(rng.normal(size=30), 1)
    y = np.round(x + rng.normal(size=30), 0)          # many ties
    ref = st.spearmanr(x, y, alternative=alternative)
    r = H.corr_test(x, y, method="spearman", alternative=alternative)
    assert r.get("estimate") == pytest.approx(ref.statistic, rel=1e-12)
    assert r.get("p") == pytest.approx(ref.pvalue, rel=1e-9)
    assert "ci" not in r.field_names()


def test_the_report_prints_like_r(lam):
    out = lam.run("print(t_test([5.1, 4.9, 5.6, 5.8, 6.0], [6.2, 5.8, 6.4, 6.9, 6.1]))")
    ref = st.ttest_ind([5.1, 4.9, 5.6, 5.8, 6.0], [6.2, 5.8, 6.4, 6.9, 6.1], equal_var=False)
    lo, hi = ref.confidence_interval()
    assert out == [
        "Welch Two Sample t-test", "",
        "data: x (5 values) and y (5 values)",
        f"t = {ref.statistic:.5g}, df = {ref.df:.5g}, p-value = {ref.pvalue:.4g}",
        "alternative hypothesis: true difference in means is not equal to 0",
        "95 percent confidence interval:",
        "  -1.4409495  -0.1590505",     # R: format(c(lo, hi), digits = 7), one number of decimals
        "sample estimates:",
        "  mean of x  mean of y",
        "       5.48       6.28"]
    assert (round(lo, 7), round(hi, 7)) == (-1.4409495, -0.1590505)


@pytest.mark.parametrize("values, printed", [
    # what R's format(values, digits = 7) prints (print(c(1.123456789, 123.456789)) is R's own example)
    ([1.123456789, 123.456789], ["1.123457", "123.456789"]),
    ([-1.4680963, -0.3128569], ["-1.4680963", "-0.3128569"]),
    ([0.5, 100.123456789], ["0.5000", "100.1235"]),
    ([4.125, 5.348], ["4.125", "5.348"]),
    ([2.0, 3.0], ["2", "3"]),
    ([-0.0, 0.25], ["0.00", "0.25"]),
    ([float("nan"), 2.5], ["NaN", "2.5"]),
])
def test_numbers_printed_together_share_their_decimals_as_in_r(values, printed):
    assert joint(values, 7) == printed


def test_reports_have_html_for_notebooks():
    r = H.chisq_test(np.array([[10.0, 20.0], [30.0, 25.0]]))
    html = r.html()
    assert "<b>Pearson&#x27;s Chi-squared test with Yates&#x27; continuity correction</b>" in html
    assert "X-squared = " in html
    t = H.t_test(np.array([1.0, 2.0, 4.0]))
    assert "sample estimates" in t.html() and "mean of x" in t.html()


@pytest.mark.parametrize("call, kind, start", [
    (lambda: H.t_test(np.array([1.0])), "ValueError", "t_test's x needs at least 2 values"),
    (lambda: H.t_test(np.array([2.0, 2.0, 2.0])), "ValueError", "t_test: the data are constant"),
    (lambda: H.t_test(np.array([1.0, np.nan, 3.0])), "ValueError", "t_test's x contains NaN"),
    (lambda: H.t_test(np.array([1.0, 2.0]), np.array([1.0, 2.0, 3.0]), paired=True), "ShapeError",
     "t_test with paired = true needs x and y of one length"),
    (lambda: H.t_test(np.array([1.0, 2.0]), alternative="bigger"), "ValueError", "t_test's alternative must be"),
    (lambda: H.t_test(np.array([1.0, 2.0]), conf_level=95.0), "ValueError", "t_test's conf_level must lie"),
    (lambda: H.chisq_test(np.array([[1.0, -2.0], [3.0, 4.0]])), "ValueError", "chisq_test's counts must be finite"),
    (lambda: H.chisq_test(np.array([[0.0, 0.0], [3.0, 4.0]])), "ValueError", "chisq_test: row 0 of the table has no counts"),
    (lambda: H.chisq_test(np.array([5.0, 6.0]), p=np.array([0.5, 0.6])), "ValueError", "chisq_test's p must be"),
    (lambda: H.corr_test(np.array([1.0, 2.0]), np.array([2.0, 1.0])), "ValueError", "corr_test's x needs at least 3"),
    (lambda: H.corr_test(np.array([1.0, 1.0, 1.0]), np.array([1.0, 2.0, 3.0])), "ValueError", "corr_test: x is constant"),
    (lambda: H.corr_test(np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.0, 3.0]), method="kendall"), "ValueError",
     "corr_test's method must be"),
])
def test_bad_input_is_a_clear_error(call, kind, start):
    with pytest.raises(LaminaError) as info:
        call()
    assert info.value.kind == kind and info.value.message.startswith(start), info.value.message


def test_chisq_test_warns_when_expected_counts_are_small():
    channel.reset()
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        Interpreter().run("r = chisq_test([3, 1; 1, 4])\nr = chisq_test([30, 10; 10, 40])\n", "s.lam")
    channel.reset()
    assert err.getvalue().splitlines() == ["warning: chisq_test: some expected counts are below 5, so the "
                                           "chi-squared approximation may be poor. (s.lam:1)"]


# -- missing values: one rule for every test and metric ---------------------------------------
HYPOTHESIS_TESTS = sorted(name for name, spec in load_all().items()
                          if spec.fn.__module__ in ("lamina.builtins.hypothesis", "lamina.builtins.metrics"))
_NUMBERS = np.array([5.1, 4.9, 5.6, 5.8, 6.0, 5.4, 5.2, 5.9, 6.3, 5.0])
_OTHERS = np.array([6.2, 5.8, 6.4, 6.9, 6.1, 6.6, 7.0, 5.7, 6.8, 6.0])
_LETTERS = ["a", "b", "a", "c", "b", "a", "c", "b", "a", "c"]
_WORDS = ["x", "y", "y", "x", "x", "y", "y", "x", "y", "x"]
_CODES = np.array([1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0])
CLEAN_CALLS = [
    ((_NUMBERS,), {}), ((_NUMBERS, _OTHERS), {}), ((_NUMBERS, _OTHERS), {"paired": True}),
    ((_LETTERS, _WORDS), {}), ((_LETTERS, _CODES), {}), ((_CODES, _NUMBERS), {}), ((_CODES, _CODES[::-1]), {}),
    ((np.array([[12.0, 5.0], [7.0, 16.0]]),), {}), ((_NUMBERS,), {"p": np.full(10, 0.1)}),
    ((Table({"v": _NUMBERS, "g": _WORDS}), "v"), {"by": "g"}),
]


def _spoiled(value):
    """The value with one element missing, in each way that element can be missing."""
    if isinstance(value, np.ndarray):
        v = value.copy()
        v.flat[2] = np.nan
        return [v]
    if isinstance(value, (list, TextColumn)):
        value = list(value)
        return [value[:2] + [word] + value[3:] for word in sorted(MISSING_WORDS)]
    if isinstance(value, Table):
        return [Table({**value.columns, name: c}) for name in value.names for c in _spoiled(value.columns[name])]
    return []


def _missing_value_cases():
    for name in HYPOTHESIS_TESTS:
        fn = spec_of(name).fn
        for args, kwargs in CLEAN_CALLS:
            try:
                inspect.signature(fn).bind(*args, **kwargs)
            except TypeError:
                continue
            spoils = [(args[:i] + (s,) + args[i + 1:], kwargs) for i, a in enumerate(args) for s in _spoiled(a)]
            spoils += [(args, {**kwargs, k: s}) for k, a in kwargs.items() for s in _spoiled(a)]
            for spoiled in spoils:
                yield pytest.param(fn, (args, kwargs), spoiled, id=f"{name}-{len(args)}args-{sorted(kwargs)}")


@pytest.mark.parametrize("fn, clean, spoiled", list(_missing_value_cases()))
def test_every_hypothesis_test_and_metric_refuses_a_missing_value(fn, clean, spoiled):
    """A call that succeeds on complete data is, with one value missing (NaN, or missing text as
    drop_missing counts it), a ValueError that says how to drop the missing rows: never a
    missing category counted, never NaN carried into a statistic."""
    before = channel.set_enabled(False)
    try:
        try:
            fn(*clean[0], **clean[1])
        except LaminaError:
            return                  # this form does not apply to this test
        try:
            fn(*spoiled[0], **spoiled[1])
            error = "no error"
        except LaminaError as err:
            error = f"{err.kind}: {err.message}"
    finally:
        channel.set_enabled(before)
    assert error.startswith("ValueError") and "drop_missing" in error, \
        (f"{fn.__lamina_builtin__} with a missing value gives {error!r}; it must be a ValueError that "
         f"names drop_missing (stats/args.py's no_nan; {RECIPE}, step 1)")


@pytest.mark.parametrize("name", HYPOTHESIS_TESTS)
def test_the_missing_value_probes_reach_every_hypothesis_test_and_metric(name):
    fn, reached = spec_of(name).fn, 0
    before = channel.set_enabled(False)
    for args, kwargs in CLEAN_CALLS:
        with contextlib.suppress(LaminaError, TypeError):
            fn(*args, **kwargs)
            reached += 1
    channel.set_enabled(before)
    assert reached, f"no call in CLEAN_CALLS suits {name}: add one it takes ({RECIPE}, step 4)"


# -- the recipe 'A hypothesis test' (docs/ARCHITECTURE.md): each step's omission fails here -------
TESTS = sorted(name for name, spec in load_all().items() if spec.fn.__module__ == H.__name__)


def _test_entry_points():
    """(module, name) of each public function of a stats module that builds test results."""
    for info in pkgutil.iter_modules(lamina.stats.__path__):
        module = importlib.import_module(f"lamina.stats.{info.name}")
        if getattr(module, "TestResult", None) is not htest.TestResult or module is htest:
            continue
        for name, value in vars(module).items():
            if inspect.isfunction(value) and value.__module__ == module.__name__ and not name.startswith("_"):
                yield info.name, name


@pytest.mark.parametrize("module, function", list(_test_entry_points()))
def test_every_test_of_the_stats_modules_is_a_builtin_of_builtins_hypothesis(module, function):
    callers = [name for name in TESTS if re.search(rf"\b{function}\(", inspect.getsource(spec_of(name).fn))]
    assert callers, (f"stats/{module}.py's {function} is called by no builtin of builtins/hypothesis.py: "
                     f"register the test there ({RECIPE}, step 2)")


# R's print.htest: the method, a blank line, "data: ...", "t = 1.5, df = 9, p-value = 0.17" (the
# statistic and df where the test has them: "V = 40, p-value = 0.03906", "p-value = 0.4857")
HTEST_LAYOUT = re.compile(r"^(?P<method>\S.*)\n\ndata: .+\n(\S[^=\n]* = \S+, )?(df = \S+, )?p-value [=<] \S+$", re.M)


@pytest.mark.parametrize("name", TESTS)
def test_every_hypothesis_test_prints_r_s_htest_report_in_an_example(lam, name):
    spec = spec_of(name)
    assert spec.pure == "a test result", \
        f"{name} must declare pure=\"a test result\" on its @builtin ({RECIPE}, step 2)"
    printed = ["\n".join(lam.run(example)) for example in spec.examples]
    assert any(HTEST_LAYOUT.search(out) for out in printed), \
        (f"no example of {name} prints a report in R's htest layout (method, data, statistic, df, "
         f"p-value): return stats/htest.py's TestResult ({RECIPE}, step 1) and print(r) it in an "
         f"example ({RECIPE}, step 2)")


def _test_files() -> list[pathlib.Path]:
    """This module, and tests/stats/test_<module>.py of each stats module of tests beside hypothesis.py."""
    here = pathlib.Path(__file__)
    modules = sorted({module for module, _ in _test_entry_points()} - {"hypothesis"})
    return [here] + [path for path in (here.with_name(f"test_{m}.py") for m in modules) if path.exists()]


def _scipy_comparisons() -> set[str]:
    """The names of the builtins that a test of _test_files() calls and checks against scipy.stats."""
    compared = set()
    for node in (node for path in _test_files() for node in ast.parse(path.read_text()).body):
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
            names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
            if "st" in names:
                text = ast.unparse(node)
                compared |= {name for name in TESTS if re.search(rf"\b{name}\(", text)}
    return compared


@pytest.mark.parametrize("name", TESTS)
def test_every_hypothesis_test_is_compared_with_scipy(name):
    assert name in _scipy_comparisons(), \
        (f"no test of tests/stats/test_hypothesis.py, nor of the test module of the stats module that computes "
         f"it, calls {name} and checks it against scipy.stats: "
         f"add one that compares its statistic, df, p, ci and estimate ({RECIPE}, step 4)")
