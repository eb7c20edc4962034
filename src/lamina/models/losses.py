"""The losses a model compiles with, and which output activation each pairs with.

cross_entropy and binary_cross_entropy are computed from the last layer's
pre-activation ("logits") when that layer ends in softmax or sigmoid: the same
number, without ever taking log of 0, and the gradient is simply p - y. With the
activation "none" the outputs themselves are taken as logits (as PyTorch's
CrossEntropyLoss does). Any other output activation with them is an error.

compile(loss = f) takes a Lamina function of (prediction, target) returning the batch's loss, a
number: prediction is the model's output for a batch (m x units, or m x *shape for outputs of
rank 2 and more), tracked while fit trains, and target Y's rows in the same shape. It reads the
last layer's output after its activation, and fit takes its gradient as the language's.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..errors import LaminaError
from ..lang.runtime import call
from ..nn import losses as L
from ..values import describe, value_of
from .functions import label
from .layer import reshaped


@dataclass(frozen=True)
class Loss:
    name: str
    fn: Callable                # (scores, targets) -> scalar loss (tracked when scores are)
    logits_of: str | None       # the output activation whose pre-activation the loss reads
    classification: bool
    # (scores, targets) -> the same loss, for targets that models/data.py made (an m x units
    # matrix of the scores' dtype) and scores of that shape: what fit's batches use
    of_checked: Callable | None = None
    function: object = None     # compile(loss = f): the Lamina function (its name is `name`)

    @property
    def builtin(self) -> str | None:
        """The built-in loss's name, None for a function's."""
        return self.name if self.function is None else None


LOSSES = {
    "mse": Loss("mse", L.mse, None, False),
    "mae": Loss("mae", L.mae, None, False),
    "cross_entropy": Loss("cross_entropy", lambda s, t: L.cross_entropy(s, t, **{"from": "logits"}),
                          "softmax", True, L.cross_entropy_of_rows),
    "binary_cross_entropy": Loss("binary_cross_entropy",
                                 lambda s, t: L.binary_cross_entropy(s, t, **{"from": "logits"}),
                                 "sigmoid", True),
}


def get_loss(name: str, last_activation: str) -> Loss:
    loss = LOSSES.get(name)
    if loss is None:
        raise LaminaError("ValueError", f"compile has no loss \"{name}\"; the losses are "
                          f"{', '.join(LOSSES)}.")
    if loss.logits_of and last_activation not in (loss.logits_of, "none"):
        raise LaminaError("ValueError", f"The loss \"{name}\" needs the last layer's activation to be "
                          f"\"{loss.logits_of}\" (or \"none\", for raw scores), but it is "
                          f"\"{last_activation}\".")
    return loss


def function_loss(fn, shape: tuple) -> Loss:
    """The loss of compile(loss = fn), for a model whose last layer gives examples of `shape`."""
    name = label(fn)
    who = "compile's loss (an anonymous function)" if name == "the anonymous function" else f"compile's loss {name}"

    def of(scores, targets):
        prediction = reshaped(scores, (-1, *shape))
        loss = call(fn, (prediction, targets.reshape(value_of(prediction).shape)))
        v = value_of(loss)
        if type(v) is not float and not (hasattr(v, "shape") and v.shape == () and not isinstance(v, bool)):
            raise LaminaError("TypeError", f"{who} must return one number (the batch's loss), but it "
                              f"returned {describe(loss)}.")
        return loss

    return Loss(name, of, None, False, function=fn)
