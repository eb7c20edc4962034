"""examples/analysis.lam runs end to end on the committed data set and saves a real figure."""
import pathlib
import shutil
import subprocess
import sys

import pytest

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
