"""Metrics against counts worked out by hand."""
import numpy as np
import pytest

from lamina.builtins import metrics as M

Y = np.array([1, 0, 1, 1, 0, 1, 0, 0, 1, 1], dtype=float)
P = np.array([1, 0, 0, 1, 1, 1, 0, 1, 1, 0], dtype=float)
# tp = 4 (positions 0, 3, 5, 8), fp = 2 (4, 7), fn = 2 (2, 9), tn = 2 (1, 6)


def test_binary_metrics_by_hand():
    assert M.accuracy(Y, P) == 6 / 10
    assert M.precision(Y, P) == 4 / 6
    assert M.recall(Y, P) == 4 / 6
    assert M.f1(Y, P) == pytest.approx(2 * 4 / (2 * 4 + 2 + 2))
    # class 0 as the positive one: tp = 2, fp = 2, fn = 2
    assert M.precision(Y, P, positive=0.0) == 2 / 4 and M.recall(Y, P, positive=0.0) == 2 / 4
    np.testing.assert_array_equal(M.confusion_matrix(Y, P), [[2, 2], [2, 4]])


def test_multiclass_metrics_by_hand():
    t = np.array([0, 0, 1, 1, 2, 2, 2], dtype=float)
    p = np.array([0, 1, 1, 1, 2, 0, 1], dtype=float)
    np.testing.assert_array_equal(M.confusion_matrix(t, p), [[1, 1, 0], [0, 2, 0], [1, 1, 1]])
    # per class (tp, fp, fn): 0 (1, 1, 1), 1 (2, 2, 0), 2 (1, 0, 2)
    prec = [1 / 2, 2 / 4, 1 / 1]
    rec = [1 / 2, 2 / 2, 1 / 3]
    f1s = [2 * 1 / (2 + 1 + 1), 2 * 2 / (4 + 2 + 0), 2 * 1 / (2 + 0 + 2)]
    assert M.precision(t, p, average="macro") == pytest.approx(np.mean(prec))
    assert M.recall(t, p, average="macro") == pytest.approx(np.mean(rec))
    assert M.f1(t, p, average="macro") == pytest.approx(np.mean(f1s))
    assert M.precision(t, p, average="micro") == pytest.approx(4 / 7) == M.accuracy(t, p)
    np.testing.assert_array_equal(M.confusion_matrix(t, p, classes=4.0)[3], [0, 0, 0, 0])


def test_scores_and_one_hot_rows():
    scores = np.array([[0.1, 0.9], [0.8, 0.2], [0.3, 0.7]])
    assert M.accuracy(np.array([1.0, 0.0, 0.0]), scores) == 2 / 3
    onehot = np.array([[0, 1], [1, 0], [1, 0]], dtype=float)
    assert M.accuracy(onehot, scores) == 2 / 3
    assert M.accuracy(Y.reshape(-1, 1), P) == 0.6


def test_zero_division_is_zero():
    assert M.precision(np.array([1.0, 0.0]), np.array([0.0, 0.0])) == 0.0
    assert M.f1(np.array([0.0, 0.0]), np.array([0.0, 0.0])) == 0.0


def test_r2_score_by_hand(rng):
    y = np.array([3, -0.5, 2, 7])
    p = np.array([2.5, 0.0, 2, 8])
    ss_res = 0.25 + 0.25 + 0 + 1
    ss_tot = ((y - y.mean()) ** 2).sum()
    assert M.r2_score(y, p) == pytest.approx(1 - ss_res / ss_tot)
    Ym = rng.normal(size=(10, 2))
    Pm = Ym + rng.normal(scale=0.3, size=(10, 2))
    want = np.mean([1 - ((Ym[:, j] - Pm[:, j]) ** 2).sum() / ((Ym[:, j] - Ym[:, j].mean()) ** 2).sum() for j in range(2)])
    assert M.r2_score(Ym, Pm) == pytest.approx(want)
    assert M.r2_score(y, y.reshape(-1, 1)) == 1.0
    assert np.isnan(M.r2_score(np.ones(3), np.ones(3)))


def test_in_a_program(lam):
    assert lam.run("y = [1, 0, 1, 1]\np = [0.9, 0.4, 0.3, 0.8] > 0.5\n"
                   "print(accuracy(y, p), precision(y, p), recall(y, p), confusion_matrix(y, p))") == [
        "0.75 1 0.6666666666666666 [1, 0; 1, 2]"]


@pytest.mark.parametrize("source, kind, start", [
    ("accuracy([1, 0], [1, 0, 1])", "ShapeError", "accuracy needs one prediction per true label"),
    ("precision([0, 1, 2], [0, 1, 2])", "ValueError", "precision with average = \"binary\" needs two classes"),
    ("recall([0, 1], [0, 1], average = \"weighted\")", "ValueError", "recall's average must be"),
    ("confusion_matrix([0, 1.5], [0, 1])", "ValueError", "confusion_matrix needs class labels 0, 1, 2"),
    ("confusion_matrix([0, 2], [0, 1], classes = 2)", "ValueError", "confusion_matrix got classes = 2"),
    ("accuracy([], [])", "ValueError", "accuracy of no examples is undefined"),
    ("r2_score([1, 2, 3], [1, 2])", "ShapeError", "r2_score needs true values and predictions of one shape"),
])
def test_errors(lam, source, kind, start):
    err = lam.error(source)
    assert err.kind == kind and err.message.startswith(start), err.message
