"""quick_mlp: input, hidden dense layers, an output layer, compile and fit in one call.

The output layer follows the loss: "none" for mse and mae, softmax for
cross_entropy (one unit per class), sigmoid for binary_cross_entropy. The
defaults (16 tanh units, Adam at 0.05, 300 full-batch-sized epochs) fit small
problems such as XOR quickly and repeatably.
"""
from __future__ import annotations

import numpy as np

from ..errors import LaminaError
from ..values import as_int, as_str, as_tensor, describe
from .callbacks.schedule import make
from .compile import compile_model, optimizer_of
from .fit import fit
from .layers.dense import dense_layer
from .spec import input_spec

OUTPUT_ACTIVATION = {"mse": "none", "mae": "none", "cross_entropy": "softmax",
                     "binary_cross_entropy": "sigmoid"}


def _hidden(hidden) -> list[int]:
    v = hidden.value if hasattr(hidden, "value") else hidden
    if isinstance(v, np.ndarray):
        if v.ndim != 1:
            raise LaminaError("TypeError", f"quick_mlp's hidden must be a number or a vector of layer "
                              f"widths, not {describe(hidden)}.")
        return [as_int(float(u), "quick_mlp's hidden widths", minimum=1) for u in v]
    return [as_int(hidden, "quick_mlp's hidden", minimum=1)]


def _outputs(Y, loss: str) -> int:
    """One unit per column of Y; for cross_entropy, a vector or one column of class indices (as
    fit reads them, models/data.py) has one unit per class."""
    y = as_tensor(Y, "quick_mlp's Y")
    if loss == "cross_entropy" and (y.ndim == 1 or (y.ndim == 2 and y.shape[1] == 1)):
        return int(np.max(y)) + 1 if y.size and np.all(np.isfinite(y)) else 2
    return y.shape[1] if y.ndim == 2 else 1


def _with_lr(optimizer, lr):
    """The optimizer (a name, an optimizer value or a schedule) starting at the rate lr."""
    opt, schedule = optimizer_of(optimizer)
    if schedule is None:
        return opt.with_hp(lr=lr)
    settings = {k: v for k, v in schedule.settings.items() if k != "lr"}
    return make(schedule.kind.name, lr=lr, base=opt, **settings)


DEFAULT_LR = 0.05


def quick_mlp(X, Y, seed=0, hidden=16, epochs=300, activation="tanh", loss="mse", optimizer="adam",
              lr=None, batch_size=32, verbose=1, dtype="float64"):
    loss = as_str(loss, "quick_mlp's loss")
    if loss not in OUTPUT_ACTIVATION:
        raise LaminaError("ValueError", f"quick_mlp has no loss \"{loss}\"; the losses are "
                          f"{', '.join(OUTPUT_ACTIVATION)}.")
    x = as_tensor(X, "quick_mlp's X")
    spec = input_spec(float(x.shape[1]) if x.ndim == 2 else 1.0)
    for units in _hidden(hidden):
        spec = dense_layer(spec, float(units), activation)
    spec = dense_layer(spec, float(_outputs(Y, loss)), OUTPUT_ACTIVATION[loss])
    if isinstance(optimizer, str) and optimizer == "adam" and lr is None:
        lr = DEFAULT_LR                      # a quick fit wants a livelier rate than Adam's 0.001
    opt = optimizer if lr is None else _with_lr(optimizer, lr)
    model = compile_model(spec, opt, loss, seed, dtype=dtype)
    return fit(model, X, Y, epochs=epochs, batch_size=batch_size, verbose=verbose)
