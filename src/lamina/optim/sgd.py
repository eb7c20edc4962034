"""Stochastic gradient descent, plain (with optional momentum) and Nesterov."""
from __future__ import annotations

import numpy as np

from .base import FRACTION, NONNEGATIVE, Rule


def sgd_update(w, g, state, hp, t):
    v = hp["momentum"] * state["v"] + g
    return w - hp["lr"] * v, {"v": v}


def sgd_in_place(w, g, state, hp, t, scratch):
    v = state["v"]
    v *= hp["momentum"]
    v += g
    np.multiply(v, hp["lr"], out=scratch)
    w -= scratch


def nesterov_update(w, g, state, hp, t):
    v = hp["momentum"] * state["v"] + g
    return w - hp["lr"] * (g + hp["momentum"] * v), {"v": v}


SGD = Rule("sgd", {"lr": (0.01, NONNEGATIVE), "momentum": (0.0, FRACTION)}, ("v",), sgd_update,
           "v = momentum*v + g; w -= lr*v", sgd_in_place)
NESTEROV_SGD = Rule("nesterov_sgd", {"lr": (0.01, NONNEGATIVE), "momentum": (0.9, FRACTION)}, ("v",),
                    nesterov_update,
                    "v = momentum*v + g; w -= lr*(g + momentum*v)")
