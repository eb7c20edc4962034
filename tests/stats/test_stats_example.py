"""examples/analysis.lam runs end to end on the committed data set and saves a real figure;
examples/trial.lam prints what docs/tables.md shows and agrees with NumPy and with its pandas +
statsmodels version there."""
import contextlib
import csv
import io
import pathlib
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest
from scipy import stats

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_analysis_example_runs(tmp_path):
    pytest.importorskip("matplotlib")
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    r = subprocess.run([sys.executable, "-m", "lamina", "examples/analysis.lam"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert out.startswith("table: 160 rows x 7 columns")
    for part in ("Linear regression: price_k ~ area_m2 + rooms + age_years + distance_km  (n = 160)",
                 "Logistic regression (n = 120", "test set: 40 sales, R^2 = ", "confusion matrix",
                 "variance explained by each component:", "saved analysis_prices.png"):
        assert part in out, part
    from test_stats_figures import check_png
    check_png(tmp_path / "analysis_prices.png")


# -- examples/trial.lam: the analysis of docs/tables.md, against NumPy and pandas + statsmodels --
TRIAL_DOC = (ROOT / "docs" / "tables.md").read_text()


def _doc_block(kind: str) -> str:
    blocks = re.findall(rf"```{kind}\n(.*?)```", TRIAL_DOC, re.S)
    assert len(blocks) == 1, kind
    return blocks[0]


def _code_lines(text: str) -> int:
    return sum(1 for line in text.splitlines() if line.strip() and not line.strip().startswith("#"))


def _trial_by_hand():
    """The CSV read with the csv module, rows with an empty or NA cell dropped."""
    with open(ROOT / "examples" / "data" / "trial.csv", newline="") as f:
        rows = [r for r in csv.DictReader(f) if all(v.strip() not in ("", "NA") for v in r.values())]
    num = {k: np.array([float(r[k]) for r in rows]) for k in ("age", "baseline", "change")}
    return rows, num, np.array([r["arm"] for r in rows]), np.array([r["site"] for r in rows])


def test_trial_example_prints_what_the_docs_show():
    r = subprocess.run([sys.executable, "-m", "lamina", "examples/trial.lam"], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert r.stdout == _doc_block("text")
    program = (ROOT / "examples" / "trial.lam").read_text()
    assert program in TRIAL_DOC
    # no more lines of code than the pandas + statsmodels version
    assert _code_lines(program) <= _code_lines(_doc_block("python"))


def test_trial_example_numbers_against_numpy(lam):
    rows, num, arm, site = _trial_by_hand()
    source = (ROOT / "examples" / "trial.lam").read_text().replace("examples/data", str(ROOT / "examples" / "data"))
    source = source.replace("print(aggregate(", "means = (aggregate(").replace("print(linreg(", "fit = (linreg(")
    source = source.replace("print(t_test(", "test = (t_test(")
    lam.run(source)
    get = lam.interp.get
    assert get("trial").nrows == len(rows) == 135
    means = get("means")
    keys = sorted({(s, a) for s, a in zip(site, arm)})
    assert [(s, a) for s, a in zip(means.get("site"), means.get("arm"))] == keys
    for k, (s, a) in enumerate(keys):
        pick = (site == s) & (arm == a)
        assert means.get("change")[k] == pytest.approx(num["change"][pick].mean())
        assert means.get("age")[k] == pytest.approx(num["age"][pick].mean())
    design = np.column_stack([np.ones(len(rows)), (arm == "placebo").astype(float), num["age"], num["baseline"]])
    coef = np.linalg.lstsq(design, num["change"], rcond=None)[0]
    np.testing.assert_allclose(get("fit").coef, coef, rtol=1e-9)
    ref = stats.ttest_ind(num["change"][arm == "drug"], num["change"][arm == "placebo"], equal_var=False)
    test = get("test")
    assert test.statistic == pytest.approx(ref.statistic) and test.p == pytest.approx(ref.pvalue)


def test_trial_example_agrees_with_pandas_and_statsmodels(lam, monkeypatch):
    pytest.importorskip("pandas")
    pytest.importorskip("statsmodels")
    monkeypatch.chdir(ROOT)
    space: dict = {}
    with contextlib.redirect_stdout(io.StringIO()) as out:
        exec(_doc_block("python"), space)
    printed = out.getvalue()
    lamina_out = _doc_block("text")
    assert printed.splitlines()[0] == lamina_out.splitlines()[0] == "135 patients with complete records"
    import statsmodels.formula.api as smf
    fit = smf.ols("change ~ arm + age + baseline", data=space["trial"]).fit()
    for term, value in zip(["(Intercept)", "armplacebo", "age", "baseline"], fit.params):
        line = next(s for s in lamina_out.splitlines() if s.strip().startswith(term))
        assert float(line.split()[1]) == pytest.approx(value, rel=1e-3), term
    ref = stats.ttest_ind(space["drug"], space["placebo"], equal_var=False)
    assert f"t = {ref.statistic:.5g}, df = {ref.df:.5g}, p-value = {ref.pvalue:.4g}" in lamina_out
