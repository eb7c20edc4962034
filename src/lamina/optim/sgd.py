"""Stochastic gradient descent, plain (with optional momentum) and Nesterov."""
from __future__ import annotations

import numpy as np

from .base import FRACTION, NONNEGATIVE, Rule, one_step_example


def sgd_update(w, g, state, hp, t):
    v = hp["momentum"] * state["v"] + g
    return w - hp["lr"] * v, {"v": v}


def sgd_in_place(w, g, state, hp, t, scratch, out=None):
    """`sgd_update` written into w (or `out`, which may be the scratch) and v."""
    v = state["v"]
    v *= hp["momentum"]
    v += g
    np.multiply(v, hp["lr"], out=scratch)
    np.subtract(w, scratch, out=w if out is None else out)


def nesterov_update(w, g, state, hp, t):
    v = hp["momentum"] * state["v"] + g
    return w - hp["lr"] * (g + hp["momentum"] * v), {"v": v}


SGD = Rule("sgd", {"lr": (0.01, NONNEGATIVE), "momentum": (0.0, FRACTION)}, ("v",), sgd_update,
           "v = momentum*v + g; w -= lr*v", sgd_in_place,
           summary="Stochastic gradient descent, with optional momentum.",
           example="x = [1.0, 2.0, 3.0, 4.0]\ny = [2.0, 4.0, 6.0, 8.0]\nopt = sgd(0.0, 0.01)\n"
                   "for t = 0 to 49\n    tape_reset()\n    w = param(opt.params)\n"
                   "    loss = mean((w * x - y) .^ 2)\n    opt = optimizer_step(opt, grad(loss, wrt = w))\n"
                   "end for\nprint(round(opt.params, 4))",
           remark="The same rule as torch.optim.SGD with dampening 0; the default lr is 0.01 (torch's is 0.001).")
NESTEROV_SGD = Rule("nesterov_sgd", {"lr": (0.01, NONNEGATIVE), "momentum": (0.9, FRACTION)}, ("v",),
                    nesterov_update,
                    "v = momentum*v + g; w -= lr*(g + momentum*v)",
                    summary="Stochastic gradient descent with Nesterov momentum.",
                    example=one_step_example("nesterov_sgd", ", lr = 0.05, momentum = 0.9"),
                    remark="The same rule as torch.optim.SGD(nesterov = True); the defaults (lr 0.01, momentum 0.9) "
                           "are Lamina's (torch's lr is 0.001 and its momentum must be given).")
