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


def test_nan_class_scores_are_refused_not_read_as_the_largest(lam):
    # argmax reads a NaN as the largest score: row 0 became class 0, "right", accuracy 1
    for name in ("accuracy", "confusion_matrix", "precision"):
        err = lam.error(f"{name}([0, 1], [NaN, 0.5; 0.2, 0.8])")
        assert err.kind == "ValueError" and err.message.startswith(f"{name}'s predictions contains NaN"), err.message
    err = lam.error("accuracy([1, 0; NaN, 1], [0, 1])")
    assert err.kind == "ValueError" and err.message.startswith("accuracy's true labels contains NaN")


def test_a_one_row_score_matrix_is_one_example(lam):
    # predict(net, x') for one example gives a 1 x c row: its largest entry is the label
    P = np.array([[0.1, 0.2, 0.7]])
    assert lam.eval("accuracy([2], P)", P=P) == 1.0
    assert lam.eval("accuracy([1], P)", P=P) == 0.0
    # one-hot rows of one example: class 1 against class 2, accuracy 0 (not 1/3 by entries)
    Y, Q = np.array([[0.0, 1.0, 0.0]]), np.array([[0.0, 0.0, 1.0]])
    assert lam.eval("accuracy(Y, Q)", Y=Y, Q=Q) == 0.0
    np.testing.assert_array_equal(lam.eval("confusion_matrix(Y, Q)", Y=Y, Q=Q),
                                  [[0, 0, 0], [0, 0, 1], [0, 0, 0]])
    # a row of labels (y') is one example then, and the count mismatch says so
    err = lam.error("accuracy([1, 0, 0], y')", y=np.array([1.0, 0.0, 1.0]))
    assert (err.kind, err.message) == ("ShapeError", "accuracy needs one prediction per true label, but got 3 labels "
                                       "and 1 predictions. The predictions are a 1x3 matrix, which counts as one "
                                       "example's class scores; write a row of labels as a column (x') or a vector.")


@pytest.mark.parametrize("source, message", [
    ("precision([2, 5, 5, 2], [2, 5, 2, 2])",
     "precision's positive label is 1, but the labels are 2 and 5; pass positive = one of them."),
    ("recall([0, 1, 1], [0, 1, 0], positive = 3)",
     "recall's positive label is 3, but the labels are 0 and 1; pass positive = one of them."),
    ("f1([0, 1, 1], [0, 1, 0], positive = 0.5)",
     "f1's positive label is 0.5, but the labels are 0 and 1; pass positive = one of them."),
    ("precision([-1, 1], [1, 1], positive = NaN)",
     "precision's positive label is NaN, but the labels are -1 and 1; pass positive = one of them."),
])
def test_a_positive_label_that_is_neither_class_is_an_error(lam, source, message):
    # once silently 0 (scikit-learn: "pos_label=1 is not a valid label")
    err = lam.error(source)
    assert (err.kind, err.message) == ("ValueError", message)


def test_a_positive_label_among_the_labels_still_scores(lam):
    t, p = np.array([2.0, 5, 5, 2]), np.array([2.0, 5, 2, 2])
    assert lam.error("precision(t, p)", t=t, p=p).kind == "ValueError"
    # positive 5: tp = 1, fp = 0, fn = 1; positive 2: tp = 2, fp = 1, fn = 0
    assert lam.eval("precision(t, p, positive = 5)", t=t, p=p) == 1.0
    assert lam.eval("recall(t, p, positive = 5)", t=t, p=p) == 0.5
    assert lam.eval("f1(t, p, positive = 2)", t=t, p=p) == 4 / 5
    # a single class present: nothing to count for class 1 is 0 (0 / 0), as documented
    assert lam.eval("recall([0, 0, 0], [0, 0, 0])") == 0.0


def test_r2_score_scores_a_matrix_by_columns_not_against_a_vector(lam):
    T = np.array([[1.0, 2, 3], [4, 5, 6]])
    err = lam.error("r2_score(T, [1, 2, 3, 4, 5, 7])", T=T)
    assert (err.kind, err.message) == ("ShapeError", "r2_score needs true values and predictions of one shape, "
                                       "but got 2x3 and vector of length 6.")
    err = lam.error("r2_score([1, 2, 3, 4, 5, 7], T)", T=T)
    assert err.kind == "ShapeError" and "vector of length 6 and 2x3" in err.message
    # a vector still agrees with an n x 1 column and with a 1 x n row
    y, p = np.array([1.0, 2.0, 4.0]), np.array([1.0, 2.0, 3.0])
    want = 1 - np.sum((y - p) ** 2) / np.sum((y - y.mean()) ** 2)
    assert lam.eval("r2_score(y', p)", y=y, p=p) == pytest.approx(want, rel=1e-15)
    assert lam.eval("r2_score(reshape(y, 3, 1), p)", y=y, p=p) == pytest.approx(want, rel=1e-15)


@pytest.mark.parametrize("name", ["precision", "recall", "f1"])
@pytest.mark.parametrize("mode", ["macro", "micro"])
def test_positive_with_macro_or_micro_is_an_error_not_ignored(lam, name, mode):
    # once silently ignored: f1(..., average = "macro", positive = 2) was the macro F1
    err = lam.error(f'{name}([0, 1, 2], [0, 1, 1], average = "{mode}", positive = 2)')
    assert (err.kind, err.message) == ("ValueError", f'{name} with average = "{mode}" scores every class, so it '
                                       f'takes no positive label; leave out positive, or pass average = "binary".')
    # without it: macro F1 of classes 0, 1, 2 = (1 + 2/3 + 0) / 3; micro = accuracy 2/3
    want = {"macro": {"precision": (1 + 0.5 + 0) / 3, "recall": (1 + 1 + 0) / 3, "f1": (1 + 2 / 3 + 0) / 3},
            "micro": {"precision": 2 / 3, "recall": 2 / 3, "f1": 2 / 3}}[mode][name]
    assert lam.eval(f'{name}([0, 1, 2], [0, 1, 1], average = "{mode}")') == pytest.approx(want, rel=1e-15)
