"""predict and evaluate: the model forward on new data, dropout off, off the tape."""
from __future__ import annotations

import numpy as np

from ..values import Record
from .data import as_given, features
from .fit import check_model, data_of


def predict(model, X) -> np.ndarray:
    """The outputs for each example of X: an m x units matrix (softmax rows are probabilities),
    or m x steps x units for a last layer's sequences when X was an array (data.as_given)."""
    model = check_model(model, "predict")
    return as_given(model.predict(features(X, model.spec, "predict", model.dtype)), X, model.spec)


def evaluate(model, X, Y) -> Record:
    """{loss} for mse and mae; {loss, accuracy} for the classification losses."""
    model = check_model(model, "evaluate")
    x, y = data_of(model, X, Y, "evaluate")
    scores = model.scores(x, model.params, training=False)
    fields = {"loss": float(model.loss.fn(scores, y))}
    if model.loss.builtin == "cross_entropy":
        fields["accuracy"] = _share(scores.argmax(axis=1) == y.argmax(axis=1), scores)
    elif model.loss.builtin == "binary_cross_entropy":
        # scores are logits here: logit >= 0 is probability >= 0.5
        fields["accuracy"] = _share((scores >= 0.0) == (y >= 0.5), scores)
    return Record(fields)


def _share(hits: np.ndarray, scores: np.ndarray) -> float:
    """The share of hits, NaN (as the loss is) where a score is NaN: argmax and >= would read a
    NaN score as a class and count it right or wrong."""
    return float("nan") if np.isnan(scores).any() else float(np.mean(hits))
