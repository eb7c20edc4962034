"""Review 3 of evaluate: its accuracy where a score is NaN."""
import math

import numpy as np

from lamina.models.evaluate import evaluate, predict


def test_nan_scores_give_nan_accuracy_not_a_count(build):
    # a NaN input row gives NaN scores; argmax read them as class 0 and counted row 0 right
    x = np.array([[np.nan, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    net = build([(3, "softmax")], loss="cross_entropy", seed=2)
    assert np.isnan(predict(net, x)[0]).all()
    r = evaluate(net, x, np.array([0.0, 1.0, 2.0, 1.0])).fields
    assert math.isnan(r["loss"]) and math.isnan(r["accuracy"])
    net = build([(1, "sigmoid")], loss="binary_cross_entropy", seed=2)
    r = evaluate(net, x, np.array([0.0, 1.0, 1.0, 0.0])).fields
    assert math.isnan(r["loss"]) and math.isnan(r["accuracy"])

