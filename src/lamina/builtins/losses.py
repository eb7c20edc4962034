"""Loss builtins: mse, mae, cross_entropy, binary_cross_entropy (the math is in lamina.nn.losses)."""
from __future__ import annotations

import numpy as np

from ..nn import losses as L
from .registry import Const, GradCase, Shape, builtin

CATEGORY = "Neural nets"
S, R3, R4 = (), (2, 3, 4), (2, 1, 2, 3)
EPS_NOTE = (f"Probabilities are clipped to [{L.PROB_EPS:g}, 1 - {L.PROB_EPS:g}] before the log, so "
            f"a probability of exactly 0 or 1 gives a large finite loss rather than Inf or NaN; "
            f"where the clip is active the gradient is 0.")
SWAP_NOTE = ("Losses take (prediction, target) and metrics (truth, prediction): when the prediction "
             "holds only 0/1 labels (a 1 among them) and the target a value strictly between 0 and "
             "1, a warning asks whether the arguments were given in a metric's order (the loss is "
             "still that of the arguments as given).")


@builtin("mse", twice=True, pure="a number", any_rank=True, category=CATEGORY,
         shapes=[Shape("mse(pred, target)", "two tensors of one shape, any rank", "number",
                       "The mean of (pred - target) .^ 2 over all elements.")],
         summary="Mean squared error: the average of the squared differences. Differentiable in "
                 "both arguments.",
         examples=["print(mse([1.0, 2.0, 3.0], [1.0, 2.0, 5.0]))",
                   "pred = param([0.5; 1.5])\nloss = mse(pred, [0.0; 1.0])\n"
                   "print(loss, grad(loss, wrt = pred))\ntape_reset()"],
         notes="The shapes must agree, except that a number stretches to the other's shape and a "
               "vector of length m agrees with an m x 1 matrix (the vector acts as a column); any rank, "
               "the mean over every element. The "
               "gradient for pred is 2 * (pred - target) / n, n the element count.",
         grad=[GradCase((S, S)), GradCase(((4,), (4,))), GradCase(((3, 2), (3, 2))),
               GradCase(((3,), (3, 1))), GradCase((R3, R3)), GradCase((R4, R4)), GradCase((R3, S))])
def mse(pred, target):
    return L.mse(pred, target=target)


@builtin("mae", twice=True, pure="a number", any_rank=True, category=CATEGORY,
         shapes=[Shape("mae(pred, target)", "two tensors of one shape", "number",
                       "The mean of abs(pred - target) over all elements.")],
         summary="Mean absolute error: the average of the absolute differences. Differentiable in "
                 "both arguments (except where they are equal).",
         examples=["print(mae([1.0, 2.0, 3.0], [2.0, 2.0, 5.0]))"],
         notes="Shapes as for mse. The gradient for pred is sign(pred - target) / n, taken as 0 "
               "where pred equals target.",
         grad=[GradCase(((4,), Const(np.zeros(4))), domain="away_from_zero"),
               GradCase(((3, 2), Const(np.zeros((3, 2)))), domain="away_from_zero"),
               GradCase((R3, Const(np.zeros(R3))), domain="away_from_zero"),
               GradCase((R4, Const(np.zeros(R4))), domain="away_from_zero")])
def mae(pred, target):
    return L.mae(pred, target=target)


@builtin("cross_entropy", twice=True, pure="a number", category=CATEGORY,
         shapes=[Shape("cross_entropy(logits, classes)", "m x c scores, vector of m class indices",
                       "number", "Softmax cross-entropy, averaged over the m examples."),
                 Shape("cross_entropy(logits, targets)", "m x c scores, m x c probabilities",
                       "number", "The same with one-hot (or soft) target rows."),
                 Shape("cross_entropy(probs, targets, from = \"probs\")", "m x c probabilities, targets",
                       "number", "From probabilities that are already normalized.")],
         summary="Cross-entropy of class scores against targets, the mean over examples of "
                 "-sum(t .* log(p)) per row. From logits (the default) or from probabilities.",
         examples=["logits = [2.0, 0.5, -1.0; 0.1, 0.2, 3.0]\n"
                   "print(round(cross_entropy(logits, [0, 2]), 4))\n"
                   "print(round(cross_entropy(logits, [1, 0, 0; 0, 0, 1]), 4))",
                   "probs = softmax_rows([2.0, 0.5, -1.0])\n"
                   "print(round(cross_entropy(probs, [1, 0, 0], from = \"probs\"), 4))"],
         notes="Rows are examples and columns classes; a vector of scores is one example. The "
               "targets are either a vector of class indices (whole numbers from 0, one per "
               "example) or a matrix of the scores' shape holding one-hot or soft target rows. "
               "From logits (the default) the log-probabilities are log_softmax_rows of the "
               "scores, stable for any size of score, and the gradient is (softmax - t) / m. With "
               "from = \"probs\" the scores are taken as probabilities. " + EPS_NOTE + " " + SWAP_NOTE,
         grad=[GradCase(((3, 4), Const(np.array([0.0, 3.0, 1.0])))),
               GradCase(((2, 3), Const(np.array([[0.0, 1.0, 0.0], [0.2, 0.3, 0.5]])))),
               GradCase(((3,), Const(np.array([0.0, 0.0, 1.0])))),
               GradCase(((2, 3), Const(np.array([2.0, 0.0]))), {"from": "probs"}, domain="unit")])
def cross_entropy(scores, targets, **options):
    return L.cross_entropy(scores, targets=targets, **options)


@builtin("binary_cross_entropy", twice=True, pure="a number", any_rank=True, category=CATEGORY,
         shapes=[Shape("binary_cross_entropy(p, y)", "probabilities, 0/1 labels (same shape)",
                       "number", "The mean of -(y log p + (1 - y) log(1 - p))."),
                 Shape("binary_cross_entropy(z, y, from = \"logits\")", "scores, labels", "number",
                       "The same with p = sigmoid(z), computed stably.")],
         summary="Binary cross-entropy between probabilities (the default) or logits and 0/1 "
                 "labels, averaged over all elements.",
         examples=["print(round(binary_cross_entropy([0.9, 0.2], [1, 0]), 4))\n"
                   "print(round(binary_cross_entropy([2.0, -1.0], [1, 0], from = \"logits\"), 4))",
                   "print(binary_cross_entropy([1.0, 0.0], [0, 1]) < 100)   # clipped, not Inf"],
         notes="Shapes as for mse; the labels may also be soft (between 0 and 1; a label outside that is a ValueError). From logits the "
               "loss is computed as max(z, 0) - z .* y + log(1 + exp(-abs(z))), which never "
               "overflows, with gradient (sigmoid(z) - y) / n. " + EPS_NOTE + " " + SWAP_NOTE,
         grad=[GradCase(((4,), Const(np.array([1.0, 0.0, 1.0, 0.0]))), domain="unit"),
               GradCase(((3, 2), (3, 2)), domain="unit"),
               GradCase(((4,), Const(np.array([1.0, 0.0, 0.3, 1.0]))), {"from": "logits"}),
               GradCase((R3, R3), domain="unit"), GradCase((R4, Const(np.ones(R4))), {"from": "logits"})])
def binary_cross_entropy(pred, y, **options):
    return L.binary_cross_entropy(pred, y=y, **options)

