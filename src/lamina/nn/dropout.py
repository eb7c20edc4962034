"""Inverted dropout: one mask function, used by dropout(x, rate) on the one global
generator and by the model API's dropout layer on the model's own generator. Its gradient is
the same mask times g, a constant factor, so it is differentiable twice (autodiff/tape.py)."""
from __future__ import annotations

import numpy as np

from ..autodiff.indexing import masked
from ..autodiff.ops import emul
from ..autodiff.tape import TAPE, record, second_order
from ..errors import LaminaError
from ..rng import generator
from ..values import as_float, numeric


def dropout_mask(rng: np.random.Generator, shape: tuple, rate: float, dtype=np.float64) -> np.ndarray:
    """1/(1 - rate) where an element is kept (one uniform draw per element, kept when it is at
    least rate, so with probability 1 - rate) and 0 where it is dropped, as `dtype`."""
    return ((rng.random(shape) >= rate) * (1.0 / (1.0 - rate))).astype(dtype, copy=False)


def check_rate(rate, who: str) -> float:
    r = as_float(rate, f"{who}'s rate")
    if not 0.0 <= r < 1.0:
        raise LaminaError("ValueError", f"{who}'s rate must be at least 0 and below 1, not {r:g}.")
    return r


@second_order
def dropout(x, rate):
    """Keep each element with probability 1 - rate and scale survivors by 1/(1 - rate)."""
    v = numeric(x, "dropout's x")
    rate = check_rate(rate, "dropout")
    if rate == 0.0:
        return x
    keep = dropout_mask(generator(), np.shape(v), rate, v.dtype if type(v) is np.ndarray else np.float64)
    out = v * keep
    if type(out) is not np.ndarray or out.ndim == 0:
        out = float(out)
    return record(out, [x], [lambda g: _kept(g, keep) if TAPE.keeping
                             else g * keep if np.ndim(keep) else float(g * keep)])


def _kept(g, keep: np.ndarray):
    """The mask times g on the tape."""
    return masked(g, keep) if np.ndim(keep) else emul(g, float(keep))
