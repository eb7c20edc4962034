"""RMSprop: divide by a running root mean square of the gradient."""
from __future__ import annotations

import numpy as np

from .base import FRACTION, NONNEGATIVE, Rule, one_step_example


def rmsprop_update(w, g, state, hp, t):
    s = hp["rho"] * state["s"] + (1.0 - hp["rho"]) * g * g
    return w - hp["lr"] * g / (np.sqrt(s) + hp["eps"]), {"s": s}


RMSPROP = Rule("rmsprop", {"lr": (0.001, NONNEGATIVE), "rho": (0.9, FRACTION), "eps": (1e-8, NONNEGATIVE)},
               ("s",), rmsprop_update,
               "s = rho*s + (1-rho)*g^2; w -= lr*g/(sqrt(s)+eps)",
               summary="RMSprop: steps scaled by a running root mean square of the gradient.",
               example=one_step_example("rmsprop", ", lr = 0.05"),
               remark="The same rule as torch.optim.RMSprop with alpha = rho, but with Keras's defaults (lr 0.001, "
                      "rho 0.9) where torch has lr 0.01, alpha 0.99.")
