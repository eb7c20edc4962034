"""Adam and its relatives: AdamW (decoupled weight decay), NAdam (Nesterov momentum),
Adamax (infinity norm)."""
from __future__ import annotations

import math

import numpy as np

from .base import FRACTION, NONNEGATIVE, Rule, one_step_example

ADAM_SETTINGS = {"lr": (0.001, NONNEGATIVE), "beta1": (0.9, FRACTION), "beta2": (0.999, FRACTION),
                 "eps": (1e-8, NONNEGATIVE)}


def _moments(g, state, hp):
    m = hp["beta1"] * state["m"] + (1.0 - hp["beta1"]) * g
    v = hp["beta2"] * state["v"] + (1.0 - hp["beta2"]) * g * g
    return m, v


def _folded(hp, t):
    """(eps', step) for w -= step * m / (sqrt(v) + eps'), the bias corrections moved out of the
    array passes (as torch.optim.Adam does): eps' = eps*sqrt(1-beta2^t) and
    step = lr*sqrt(1-beta2^t)/(1-beta1^t). Multiplying lr*mh/(sqrt(vh)+eps), with
    mh = m/(1-beta1^t) and vh = v/(1-beta2^t), through by sqrt(1-beta2^t) gives it: the same
    update up to rounding."""
    c2 = math.sqrt(1.0 - hp["beta2"] ** t)
    return hp["eps"] * c2, hp["lr"] * c2 / (1.0 - hp["beta1"] ** t)


def adam_update(w, g, state, hp, t):
    m, v = _moments(g, state, hp)
    eps, step = _folded(hp, t)
    return w - m / (np.sqrt(v) + eps) * step, {"m": m, "v": v}


def adam_in_place(w, g, state, hp, t, scratch, out=None):
    """`adam_update` written into w (or `out`, which may be the scratch), m and v: the same
    operations in the same order (so the same bits), 12 array passes through one scratch
    array of w's shape, no temporaries."""
    b1, b2 = hp["beta1"], hp["beta2"]
    m, v, s = state["m"], state["v"], scratch
    np.multiply(g, 1.0 - b1, out=s)
    m *= b1
    m += s
    np.multiply(g, 1.0 - b2, out=s)
    s *= g
    v *= b2
    v += s
    eps, step = _folded(hp, t)
    np.sqrt(v, out=s)
    s += eps
    np.divide(m, s, out=s)
    s *= step
    np.subtract(w, s, out=w if out is None else out)


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
            "vh = v/(1-beta2^t); w -= lr*mh/(sqrt(vh)+eps), computed as torch.optim.Adam does, "
            "w -= step*m/(sqrt(v)+eps*sqrt(1-beta2^t)) with step = lr*sqrt(1-beta2^t)/(1-beta1^t)", adam_in_place,
            summary="Adam: per-element steps from bias-corrected running means of the gradient and of its square.",
            example=one_step_example("adam", ", lr = 0.05"),
            remark="The same rule as torch.optim.Adam (without weight decay or amsgrad).")
ADAMW = Rule("adamw", {**ADAM_SETTINGS, "weight_decay": (0.01, NONNEGATIVE)}, ("m", "v"), adamw_update,
             "w -= lr*weight_decay*w, then the adam step",
             summary="AdamW: Adam with decoupled weight decay.", example=one_step_example("adamw", ", lr = 0.05"),
             remark="The same rule as torch.optim.AdamW.")
NADAM = Rule("nadam", ADAM_SETTINGS, ("m", "v"), nadam_update,
             "m, v as adam; w -= lr*(beta1*m/(1-beta1^(t+1)) + (1-beta1)*g/(1-beta1^t)) / "
             "(sqrt(v/(1-beta2^t))+eps)",
             summary="NAdam: Adam with Nesterov momentum.", example=one_step_example("nadam", ", lr = 0.05"),
             remark="The momentum factor is the constant beta1 (no momentum schedule), unlike "
                    "torch.optim.NAdam's default momentum_decay, and the default lr is 0.001 where torch's is 0.002.")
ADAMAX = Rule("adamax", {**ADAM_SETTINGS, "lr": (0.002, NONNEGATIVE)}, ("m", "u"), adamax_update,
              "m = beta1*m + (1-beta1)*g; u = max(beta2*u, abs(g)); w -= lr/(1-beta1^t) * m/(u+eps)",
              summary="Adamax: Adam with the infinity norm in place of the root mean square.",
              example=one_step_example("adamax", ", lr = 0.05"),
              remark="eps is added to u in the denominator (torch.optim.Adamax adds it to abs(g) inside the max).")
