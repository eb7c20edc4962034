"""examples/project: four files, run as a command with arguments, trained to the least-squares fit."""
from __future__ import annotations

import pathlib
import re
import subprocess
import sys

import numpy as np

ROOT = pathlib.Path(__file__).parents[2]
TRAIN = "examples/project/train.lam"


def lamina(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "lamina", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)


def test_training_converges_to_the_least_squares_fit():
    # The training rows are Lamina's seeded split (the same draw for the row numbers as for the
    # feature matrix); the fit they should reach is computed here with NumPy.
    rows = lamina("-e", 'print(join(train_test_split(range(160), range(160), test = 0.25, seed = 7).Y_train, ","))')
    train = np.array([int(float(v)) for v in rows.stdout.split(",")])
    table = np.genfromtxt(ROOT / "examples/data/houses.csv", delimiter=",", names=True, dtype=None, encoding="utf-8")
    X = np.column_stack([table[c] for c in ("area_m2", "rooms", "age_years", "distance_km")]).astype(float)
    y = table["price_k"].astype(float)
    test = np.setdiff1d(np.arange(len(y)), train)
    design = np.column_stack([np.ones(len(y)), X])
    coef, *_ = np.linalg.lstsq(design[train], y[train], rcond=None)
    train_rmse = np.sqrt(np.mean((design[train] @ coef - y[train]) ** 2))
    test_rmse = np.sqrt(np.mean((design[test] @ coef - y[test]) ** 2))

    r = lamina(TRAIN, "--epochs", "3000", "--lr", "0.3", "--seed", "7")
    assert (r.returncode, r.stderr) == (0, "")
    lines = r.stdout.splitlines()
    assert lines[0] == "160 sales from examples/data/houses.csv: 120 to train on, 40 held out"
    found = re.fullmatch(r"after 3000 epochs at lr 0.3: training rmse (\S+)k, test rmse (\S+)k", lines[1])
    assert found, lines[1]
    assert float(found.group(1)) == round(train_rmse, 1)
    assert float(found.group(2)) == round(test_rmse, 1)


def test_bad_options_print_the_usage_and_exit_2():
    r = lamina(TRAIN, "--lr", "5")
    assert r.returncode == 2
    assert r.stdout.splitlines() == [
        "train.lam: --lr must be between 1e-06 and 1, got 5",
        "usage: lamina examples/project/train.lam [DATA.csv] [--epochs N] [--lr RATE] [--seed N]"]
    r = lamina(TRAIN, "--epochs")
    assert (r.returncode, r.stdout.splitlines()[0]) == (2, "train.lam: --epochs needs a value after it")


def test_a_missing_data_file_is_reported_and_exits_1():
    r = lamina(TRAIN, "no_such.csv", "--epochs", "1")
    assert (r.returncode, r.stdout) == (1, 'train.lam: cannot use no_such.csv: read_csv cannot read "no_such.csv": '
                                           "No such file or directory.\n")


def test_a_diverging_rate_warns_once_with_the_line():
    r = lamina(TRAIN, "--lr", "1", "--epochs", "5")
    assert r.returncode == 0
    assert r.stderr == "warning: the training loss went up (lr = 1 may be too large) (examples/project/train.lam:43)\n"
