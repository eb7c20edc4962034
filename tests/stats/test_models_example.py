"""examples/models.lam (the wheat trial of docs/models.md) runs on the committed data, prints R
4.2.2's numbers for the same analysis, is shorter than its R and statsmodels versions on that page,
and examples/data/wheat.csv is what make_wheat.py writes."""
from __future__ import annotations

import importlib.util
import pathlib
import re
import shutil
import subprocess
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _run(tmp_path) -> str:
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    r = subprocess.run([sys.executable, "-m", "lamina", "examples/models.lam"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    return r.stdout


def test_the_example_prints_r_s_numbers(tmp_path):
    out = _run(tmp_path)
    words = [line.split() for line in out.splitlines()]
    # R: summary(lm(yield ~ nitrogen * variety, wheat)), its coefficient rows
    assert ["(Intercept)", "2.964667", "0.145180", "20.421", "<", "2e-16", "***"] in words
    assert ["nitrogen:varietyhybrid", "0.007096", "0.002095", "3.386", "0.00108", "**"] in words
    # R: anova(lm(yield ~ nitrogen + variety, wheat), fit)
    assert ["2", "84", "17.705", "2", "2.6777", "6.3521", "0.002698", "**"] in words
    # R: predict(fit, at120, interval = "prediction"): 4.967167 4.031654 5.902679 (a table prints 6 digits)
    assert ["0", "4.96717", "4.03165", "5.90268"] in words
    # R: summary(glm(aphids ~ nitrogen + variety, poisson, wheat)) and anova(..., test = "Chisq")
    assert ["varietyhybrid", "0.3706312", "0.0955862", "3.877", "0.000106", "***"] in words
    assert ["AIC:", "417.26"] in words
    assert ["variety", "2", "44.922", "86", "85.772", "1.759e-10", "***"] in words
    # R: confint.default(aphids)
    assert ["nitrogen", "0.002996079", "0.005910181"] in words
    from test_stats_figures import check_png
    check_png(tmp_path / "wheat_diagnostics.png")


def test_the_example_is_shorter_than_r_and_statsmodels():
    """Statements, not lines: a call continued on the next line (inside its brackets) counts once."""
    def code(text: str) -> list[str]:
        lines = [line for line in text.splitlines() if line.strip() and not line.strip().startswith("#")]
        return [line for line in lines if not line.startswith(" ")]
    lamina = code((ROOT / "examples" / "models.lam").read_text())
    page = (ROOT / "docs" / "models.md").read_text()
    r = code(re.search(r"```r\n(.*?)```", page, re.S).group(1))
    python = code(re.search(r"```python\n(.*?)```", page, re.S).group(1))
    assert len(lamina) == 12 and f"in {len(lamina)} lines of Lamina" in page
    assert len(lamina) < len(r) < len(python)
    assert f"R takes {len(r)}, statsmodels {len(python)} without the figure" in page


def test_the_data_is_what_the_generator_writes():
    spec = importlib.util.spec_from_file_location("make_wheat", ROOT / "examples" / "data" / "make_wheat.py")
    make = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make)
    rows = make.rows(np.random.default_rng(20261207))
    text = (ROOT / "examples" / "data" / "wheat.csv").read_text()
    assert text == "plot,variety,nitrogen,yield,aphids,lodged\n" + "\n".join(rows) + "\n"
    assert len(rows) == 90
