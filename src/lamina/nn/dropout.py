"""dropout(x, rate): train-time inverted dropout on the one global generator."""
from __future__ import annotations

import numpy as np

from ..autodiff.tape import record
from ..errors import LaminaError
from ..rng import generator
from ..values import as_float
from .activations import operand


def dropout(x, rate):
    """Keep each element with probability 1 - rate and scale survivors by 1/(1 - rate)."""
    v = operand(x, "dropout's x")
    rate = as_float(rate, "dropout's rate")
    if not 0.0 <= rate < 1.0:
        raise LaminaError("ValueError", f"dropout's rate must be at least 0 and below 1, not {rate:g}.")
    if rate == 0.0:
        return x
    scale = 1.0 / (1.0 - rate)
    keep = (generator().random(np.shape(v)) >= rate) * scale
    out = v * keep
    if type(out) is not np.ndarray or out.ndim == 0:
        out = float(out)
    return record(out, [x], [lambda g: g * keep if np.ndim(keep) else float(g * keep)])
