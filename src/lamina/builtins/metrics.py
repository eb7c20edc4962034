"""Metrics builtins: accuracy, precision, recall, f1, confusion_matrix, r2_score."""
from __future__ import annotations

from ..stats import metrics as MT
from .registry import WHOLE_NUMBERS, GradCase, Shape, builtin

CATEGORY = "Statistics"
LABELS = ("Labels are whole numbers: a fraction among the predictions (or true labels) is a "
          "ValueError, since a probability compared with a label would never be equal and the "
          "score would be silently wrong; turn probabilities into labels first (p > 0.5). A matrix "
          "with more than one column counts as class scores (or one-hot targets), one row per "
          "example, and stands for the index of each row's largest entry, so a classifier's output "
          "can be scored as it is.")


def _binary(name: str, what: str, formula: str, example: str):
    return dict(category=CATEGORY,
                shapes=[Shape(f"{name}(y_true, y_pred)", "two label vectors of one length", "number",
                              f"The {what} of the positive class 1."),
                        Shape(f"{name}(y_true, y_pred, positive = k)", "labels, label", "number",
                              "Another label as the positive class."),
                        Shape(f"{name}(y_true, y_pred, average = \"macro\")", "multi-class labels", "number",
                              "The mean over classes (\"micro\": from the pooled counts).")],
                summary=f"The {what} of a classifier: {formula}.",
                examples=[example],
                notes=f"{formula[0].upper() + formula[1:]}, counting true positives (tp), false "
                      f"positives (fp) and false negatives (fn) for the positive class. A ratio with "
                      f"nothing to count (0 / 0) is 0, as in scikit-learn. With average = \"binary\" "
                      f"(the default) the labels may hold at most two classes, and when they hold two, "
                      f"positive must be one of them (a ValueError otherwise); \"macro\" averages the "
                      f"per-class scores with equal weight, \"micro\" pools the counts; both score every "
                      f"class, so positive is an error with them. " + LABELS)


EXAMPLE = "y = [1, 0, 1, 1, 0, 1]\npred = [1, 0, 0, 1, 1, 1]\n"


@builtin("accuracy", pure="a number", tracked="constant", category=CATEGORY,
         probes=["accuracy([1, 0, 1, 1], c)", "accuracy(c, [1, 0, 0, 1])"],
         shapes=[Shape("accuracy(y_true, y_pred)", "two label vectors of one length", "number",
                       "The fraction of predictions equal to the truth."),
                 Shape("accuracy(Y, P)", "two n x c matrices", "number", "Rows compared by their largest entry.")],
         summary="The fraction of examples whose predicted label equals the true label.",
         examples=[EXAMPLE + "print(accuracy(y, pred))",
                   "probs = [0.9, 0.2, 0.6, 0.4]\nprint(accuracy([1, 0, 1, 1], probs > 0.5))",
                   "P = [0.7, 0.2, 0.1; 0.1, 0.3, 0.6]\nprint(accuracy([0, 1], P))"],
         notes="mean(y_true == y_pred). " + LABELS)
def accuracy(y_true, y_pred):
    return MT.accuracy(y_true, y_pred=y_pred)


@builtin("precision", pure="a number", tracked="constant", probes=["precision([1, 0, 1, 1], c)", "precision(c, [1, 0, 0, 1])"],
         **_binary("precision", "precision", "tp / (tp + fp), the share of predicted "
                   "positives that are right", EXAMPLE + "print(precision(y, pred))"))
def precision(y_true, y_pred, positive=None, average="binary"):
    return MT.precision(y_true, y_pred=y_pred, positive=positive, average=average)


@builtin("recall", pure="a number", tracked="constant", probes=["recall([1, 0, 1, 1], c)", "recall(c, [1, 0, 0, 1])"],
         **_binary("recall", "recall", "tp / (tp + fn), the share of true positives "
                   "that are found", EXAMPLE + "print(recall(y, pred), recall(y, pred, positive = 0))"))
def recall(y_true, y_pred, positive=None, average="binary"):
    return MT.recall(y_true, y_pred=y_pred, positive=positive, average=average)


@builtin("f1", pure="a number", tracked="constant", probes=["f1([1, 0, 1, 1], c)", "f1(c, [1, 0, 0, 1])"],
         **_binary("f1", "F1 score", "2 tp / (2 tp + fp + fn), the harmonic mean of "
                   "precision and recall",
                   EXAMPLE + "print(f1(y, pred))\nprint(round(f1([0, 1, 2, 2], [0, 2, 2, 1], average = \"macro\"), 4))"))
def f1(y_true, y_pred, positive=None, average="binary"):
    return MT.f1(y_true, y_pred=y_pred, positive=positive, average=average)


@builtin("confusion_matrix", pure="a value", tracked="constant", category=CATEGORY,
         probes=["confusion_matrix([1, 0, 1, 1], c)"],
         float64_results=(WHOLE_NUMBERS, ("result",)),
         shapes=[Shape("confusion_matrix(y_true, y_pred)", "two vectors of labels 0, 1, ...", "k x k matrix",
                       "Counts: row = true class, column = predicted class."),
                 Shape("confusion_matrix(y_true, y_pred, classes = k)", "labels, count", "k x k matrix",
                       "With k classes even if some never occur.")],
         summary="Counts each pair of (true class, predicted class): entry [i, j] is how many "
                 "examples of class i were predicted as j.",
         examples=[EXAMPLE + "print(confusion_matrix(y, pred))",
                   "print(confusion_matrix([0, 1, 2, 2], [0, 2, 2, 1]))"],
         notes="Classes are the labels 0, 1, ..., k - 1 with k one more than the largest label "
               "(or classes). The diagonal holds the correct predictions, so "
               "sum of the diagonal / n is the accuracy. Rows are true classes, columns "
               "predictions (scikit-learn's layout). " + LABELS)
def confusion_matrix(y_true, y_pred, classes=None):
    return MT.confusion_matrix(y_true, y_pred=y_pred, classes=classes)


@builtin("r2_score", pure="a number", category=CATEGORY,
         shapes=[Shape("r2_score(y_true, y_pred)", "two vectors of one length", "number",
                       "1 - (residual sum of squares) / (total sum of squares)."),
                 Shape("r2_score(Y, P)", "two n x k matrices", "number", "The mean of each column's R^2.")],
         summary="The coefficient of determination R^2 of predictions: 1 is perfect, 0 is no better "
                 "than predicting the mean, and it is negative when worse.",
         examples=["print(r2_score([3, -0.5, 2, 7], [2.5, 0, 2, 8]))",
                   "x = [1, 2, 3, 4]\ny = [2, 4.1, 5.9, 8.2]\nfit = linreg(x, y)\n"
                   "print(round(r2_score(y, x * fit.weights[0] + fit.intercept), 6) == round(fit.r2, 6))"],
         notes="R^2 = 1 - sum((y - pred) .^ 2) / sum((y - mean(y)) .^ 2). It is NaN when y is "
               "constant (no variance to explain). For matrices each column is scored and the "
               "scores averaged (scikit-learn's 'uniform_average'). A vector and an n x 1 matrix "
               "agree. NaN in either argument is a ValueError, as in the other metrics (drop_missing "
               "removes those rows first). Differentiable in both arguments.",
         grad=[GradCase(((6,), (6,))), GradCase(((5, 2), (5, 2))), GradCase(((4, 1), (4,)))])
def r2_score(y_true, y_pred):
    return MT.r2_score(y_true, y_pred=y_pred)
