"""Classification and regression metrics on labels and predictions.

Labels are numbers (usually whole: 0, 1, ... for classes). A matrix with more
than one column counts as one row of class scores (or one-hot targets) per
example and becomes the index of its largest entry, so network outputs can be
scored directly.
"""
from __future__ import annotations

import numpy as np

from ..autodiff.tape import record
from ..errors import LaminaError, shape_str
from ..printing import format_number
from ..values import as_float, as_int, as_str, value_of
from .args import data, no_nan, shaped_like


def labels(y, what: str) -> np.ndarray:
    a = data(y, what)
    if a.ndim == 2 and a.shape[1] == 0:
        raise LaminaError("ShapeError", f"{what} is a {shape_str(a.shape)} matrix, with no columns to "
                          f"read labels from.")
    no_nan(a, what)     # before argmax, which would read a NaN score as the largest
    if a.ndim == 2:
        a = a.reshape(-1) if a.shape[1] == 1 else a.argmax(axis=1).astype(np.float64)
    return a


def pair(y_true, y_pred, name: str):
    t, p = labels(y_true, f"{name}'s true labels"), labels(y_pred, f"{name}'s predictions")
    if t.size != p.size:
        raise LaminaError("ShapeError", f"{name} needs one prediction per true label, but got "
                          f"{t.size} labels and {p.size} predictions." + _row_note(y_true, y_pred))
    if t.size == 0:
        raise LaminaError("ValueError", f"{name} of no examples is undefined.")
    return t, p


def _row_note(y_true, y_pred) -> str:
    """Why a 1 x k matrix gave one label, for a mismatch in counts."""
    for y, what in ((y_true, "true labels"), (y_pred, "predictions")):
        shape = np.shape(value_of(y))
        if len(shape) == 2 and shape[0] == 1 and shape[1] > 1:
            return (f" The {what} are a {shape_str(shape)} matrix, which counts as one example's class "
                    f"scores; write a row of labels as a column (x') or a vector.")
    return ""


def class_labels(y_true, y_pred, name: str):
    """pair(), for a score that compares class labels: each must be a whole number. A fraction is
    most often a probability (a sigmoid's output), which compared with a label is never equal."""
    t, p = pair(y_true, y_pred, name)
    for a, what in ((p, "predictions"), (t, "true labels")):
        wrong = ~np.isfinite(a) | (a != np.round(a))
        if wrong.any():
            raise LaminaError("ValueError", f"{name}'s {what} hold {format_number(float(a[wrong][0]))}, which "
                              f"is not a class label (labels are whole numbers). " + to_labels(a[wrong]))
    return t, p


def to_labels(bad: np.ndarray) -> str:
    """How to turn what was passed into labels."""
    if np.all((bad >= 0) & (bad <= 1)):
        return ("These look like probabilities: turn them into labels first, with p > 0.5 for a column "
                "of probabilities of class 1 (a sigmoid output); a matrix of class scores (one column "
                "per class) is read by each row's largest entry.")
    return "Round them, or map each value to its class, before scoring."


def accuracy(y_true, y_pred) -> float:
    t, p = class_labels(y_true, y_pred, "accuracy")
    return float(np.mean(t == p))


def _ratio(a: float, b: float) -> float:
    return a / b if b else 0.0


def _per_class(t, p, c):
    tp = float(np.sum((p == c) & (t == c)))
    return tp, float(np.sum((p == c) & (t != c))), float(np.sum((p != c) & (t == c)))


def _score(name: str, y_true, y_pred, positive, average, combine) -> float:
    t, p = class_labels(y_true, y_pred, name)
    mode = as_str(average, f"{name}'s average")
    if mode == "binary":
        pos = 1.0 if positive is None else as_float(positive, f"{name}'s positive label")
        classes = np.union1d(t, p)
        if classes.size > 2:
            raise LaminaError("ValueError", f"{name} with average = \"binary\" needs two classes, but "
                              f"the labels hold {classes.size}; pass average = \"macro\" or \"micro\".")
        if classes.size == 2 and pos not in classes:
            raise LaminaError("ValueError", f"{name}'s positive label is {format_number(pos)}, but the "
                              f"labels are {format_number(classes[0])} and {format_number(classes[1])}; "
                              f"pass positive = one of them.")
        return combine(*_per_class(t, p, pos))
    if mode in ("macro", "micro") and positive is not None:
        raise LaminaError("ValueError", f"{name} with average = \"{mode}\" scores every class, so it "
                          f"takes no positive label; leave out positive, or pass average = \"binary\".")
    if mode == "macro":
        return float(np.mean([combine(*_per_class(t, p, c)) for c in np.union1d(t, p)]))
    if mode == "micro":
        counts = np.array([_per_class(t, p, c) for c in np.union1d(t, p)]).sum(axis=0)
        return combine(*counts)
    raise LaminaError("ValueError", f"{name}'s average must be \"binary\", \"macro\" or \"micro\", not \"{mode}\".")


def precision(y_true, y_pred, positive=None, average="binary") -> float:
    return _score("precision", y_true, y_pred, positive, average, lambda tp, fp, fn: _ratio(tp, tp + fp))


def recall(y_true, y_pred, positive=None, average="binary") -> float:
    return _score("recall", y_true, y_pred, positive, average, lambda tp, fp, fn: _ratio(tp, tp + fn))


def f1(y_true, y_pred, positive=None, average="binary") -> float:
    return _score("f1", y_true, y_pred, positive, average, lambda tp, fp, fn: _ratio(2 * tp, 2 * tp + fp + fn))


def confusion_matrix(y_true, y_pred, classes=None) -> np.ndarray:
    t, p = pair(y_true, y_pred, "confusion_matrix")
    both = np.concatenate([t, p])
    wrong = ~np.isfinite(both) | (both < 0) | (both != np.round(both))
    if wrong.any():
        bad = both[wrong][0]
        raise LaminaError("ValueError", f"confusion_matrix needs class labels 0, 1, 2, ..., but got "
                          f"{format_number(bad)}." + (" " + to_labels(both[wrong]) if bad >= 0 else ""))
    k = int(both.max()) + 1
    if classes is not None:
        given = as_int(classes, "confusion_matrix's classes", minimum=1)
        if given < k:
            raise LaminaError("ValueError", f"confusion_matrix got classes = {given}, but a label is {k - 1}.")
        k = given
    m = np.zeros((k, k))
    np.add.at(m, (t.astype(int), p.astype(int)), 1.0)
    return m


def r2_score(y_true, y_pred):
    """The mean over columns of 1 - R / T, R = sum((t - p)^2) and T = sum((t - mean(t))^2); its
    gradient is 2 (t - p) / (k T) for p and, for t, -2 (t - p) / (k T) + 2 R (t - mean(t)) / (k T^2)."""
    t = no_nan(data(y_true, "r2_score's true values"), "r2_score's true values")
    p = no_nan(data(y_pred, "r2_score's predictions"), "r2_score's predictions")
    if t.shape != p.shape and t.size == p.size and all(a.ndim == 1 or 1 in a.shape for a in (t, p)):
        t, p = t.reshape(-1), p.reshape(-1)
    if t.shape != p.shape:
        raise LaminaError("ShapeError", f"r2_score needs true values and predictions of one shape, "
                          f"but got {shape_str(t.shape)} and {shape_str(p.shape)}.")
    if t.size == 0:
        raise LaminaError("ValueError", "r2_score of no examples is undefined.")
    t2, p2 = t.reshape(t.shape[0], -1), p.reshape(p.shape[0], -1)
    ss_res = ((t2 - p2) ** 2).sum(axis=0)
    centred = t2 - t2.mean(axis=0)
    ss_tot = (centred ** 2).sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        scores = np.where(ss_tot > 0, 1 - ss_res / ss_tot, np.nan)
        per_pred = np.where(ss_tot > 0, 2 * (t2 - p2) / (t2.shape[1] * ss_tot), np.nan)
        per_true = np.where(ss_tot > 0, 2 * ss_res * centred / (t2.shape[1] * ss_tot ** 2), np.nan)
    return record(float(scores.mean()), (y_true, y_pred),
                  (lambda g: shaped_like(g * (per_true - per_pred), y_true),
                   lambda g: shaped_like(g * per_pred, y_pred)))
