"""Adam and its relatives: AdamW (decoupled weight decay), NAdam (Nesterov momentum),
Adamax (infinity norm)."""
from __future__ import annotations

import numpy as np

from .base import FRACTION, NONNEGATIVE, Rule

ADAM_SETTINGS = {"lr": (0.001, NONNEGATIVE), "beta1": (0.9, FRACTION), "beta2": (0.999, FRACTION),
                 "eps": (1e-8, NONNEGATIVE)}


def _moments(g, state, hp):
    m = hp["beta1"] * state["m"] + (1.0 - hp["beta1"]) * g
    v = hp["beta2"] * state["v"] + (1.0 - hp["beta2"]) * g * g
    return m, v


def adam_update(w, g, state, hp, t):
    m, v = _moments(g, state, hp)
    m_hat = m / (1.0 - hp["beta1"] ** t)
    v_hat = v / (1.0 - hp["beta2"] ** t)
    return w - hp["lr"] * m_hat / (np.sqrt(v_hat) + hp["eps"]), {"m": m, "v": v}


def _moments_in_place(g, state, hp):
    """`_moments` written into state's m and v: the same operations in the same order."""
    m, v = state["m"], state["v"]
    m *= hp["beta1"]
    m += (1.0 - hp["beta1"]) * g
    gg = (1.0 - hp["beta2"]) * g
    gg *= g
    v *= hp["beta2"]
    v += gg
    return m, v, gg


def adam_in_place(w, g, state, hp, t):
    m, v, scratch = _moments_in_place(g, state, hp)
    np.divide(v, 1.0 - hp["beta2"] ** t, out=scratch)       # v_hat
    np.sqrt(scratch, out=scratch)
    scratch += hp["eps"]
    step = m / (1.0 - hp["beta1"] ** t)                      # m_hat
    step *= hp["lr"]
    step /= scratch
    w -= step


def adamw_update(w, g, state, hp, t):
    return adam_update(w - hp["lr"] * hp["weight_decay"] * w, g, state, hp, t)


def nadam_update(w, g, state, hp, t):
    b1 = hp["beta1"]
    m, v = _moments(g, state, hp)
    step = b1 * m / (1.0 - b1 ** (t + 1)) + (1.0 - b1) * g / (1.0 - b1 ** t)
    return (w - hp["lr"] * step / (np.sqrt(v / (1.0 - hp["beta2"] ** t)) + hp["eps"]),
            {"m": m, "v": v})


def adamax_update(w, g, state, hp, t):
    m = hp["beta1"] * state["m"] + (1.0 - hp["beta1"]) * g
    u = np.maximum(hp["beta2"] * state["u"], np.abs(g))
    return w - hp["lr"] / (1.0 - hp["beta1"] ** t) * m / (u + hp["eps"]), {"m": m, "u": u}


ADAM = Rule("adam", ADAM_SETTINGS, ("m", "v"), adam_update,
            "m = beta1*m + (1-beta1)*g; v = beta2*v + (1-beta2)*g^2; mh = m/(1-beta1^t); "
            "vh = v/(1-beta2^t); w -= lr*mh/(sqrt(vh)+eps)", adam_in_place)
ADAMW = Rule("adamw", {**ADAM_SETTINGS, "weight_decay": (0.01, NONNEGATIVE)}, ("m", "v"), adamw_update,
             "w -= lr*weight_decay*w, then the adam step")
NADAM = Rule("nadam", ADAM_SETTINGS, ("m", "v"), nadam_update,
             "m, v as adam; w -= lr*(beta1*m/(1-beta1^(t+1)) + (1-beta1)*g/(1-beta1^t)) / "
             "(sqrt(v/(1-beta2^t))+eps)")
ADAMAX = Rule("adamax", {**ADAM_SETTINGS, "lr": (0.002, NONNEGATIVE)}, ("m", "u"), adamax_update,
              "m = beta1*m + (1-beta1)*g; u = max(beta2*u, abs(g)); w -= lr/(1-beta1^t) * m/(u+eps)")
