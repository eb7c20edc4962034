"""Adagrad (divide by the root of the summed squared gradients) and Adadelta (its
running-average, unit-corrected descendant)."""
from __future__ import annotations

import numpy as np

from .base import FRACTION, NONNEGATIVE, Rule, one_step_example


def adagrad_update(w, g, state, hp, t):
    G = state["G"] + g * g
    return w - hp["lr"] * g / (np.sqrt(G) + hp["eps"]), {"G": G}


def adadelta_update(w, g, state, hp, t):
    rho, eps = hp["rho"], hp["eps"]
    Eg = rho * state["Eg"] + (1.0 - rho) * g * g
    d = np.sqrt(state["Ed"] + eps) / np.sqrt(Eg + eps) * g
    Ed = rho * state["Ed"] + (1.0 - rho) * d * d
    return w - hp["lr"] * d, {"Eg": Eg, "Ed": Ed}


ADAGRAD = Rule("adagrad", {"lr": (0.01, NONNEGATIVE), "eps": (1e-8, NONNEGATIVE)}, ("G",), adagrad_update,
               "G += g^2; w -= lr*g/(sqrt(G)+eps)",
               summary="Adagrad: steps scaled by the root of the summed squared gradients.",
               example=one_step_example("adagrad", ", lr = 0.05"),
               remark="The same rule as torch.optim.Adagrad (initial accumulator 0, no lr decay); eps is 1e-8 "
                      "where torch's default is 1e-10.")
ADADELTA = Rule("adadelta", {"lr": (1.0, NONNEGATIVE), "rho": (0.95, FRACTION), "eps": (1e-8, NONNEGATIVE)},
                ("Eg", "Ed"), adadelta_update,
                "Eg = rho*Eg + (1-rho)*g^2; d = sqrt(Ed+eps)/sqrt(Eg+eps)*g; "
                "Ed = rho*Ed + (1-rho)*d^2; w -= lr*d",
                summary="Adadelta: steps in units of the parameter from running averages of squared gradients "
                        "and squared steps.",
                example=one_step_example("adadelta"),
                remark="The same rule as torch.optim.Adadelta, but with the defaults of Keras and of Zeiler's paper "
                       "(rho 0.95) and eps 1e-8, where torch has rho 0.9 and eps 1e-6.")
