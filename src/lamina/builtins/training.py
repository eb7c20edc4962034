"""train_loop: a fixed training loop over a loss function and an optimizer."""
from __future__ import annotations

import math

import numpy as np

from ..autodiff.grad import grad
from ..autodiff.tape import TAPE
from ..errors import LaminaError, shape_str
from ..lang.runtime import call
from ..lang.scope import resolve
from ..optim.base import Optimizer
from ..optim.params import flatten
from ..optim.registry import RULES, get
from ..values import Record, Tracked, as_int, as_str, describe, is_function
from .registry import Shape, builtin

CATEGORY = "Optimizers & training"


def _optimizer(optimizer, params) -> Optimizer:
    """The optimizer to train with, bound to parameters that match `params` in structure."""
    if optimizer is None:
        optimizer = "sgd"
    if isinstance(optimizer, str):
        name = optimizer
        try:
            optimizer = resolve(name, "optimizer")
        except LaminaError:
            optimizer = None
        if not isinstance(optimizer, Optimizer):
            if name not in RULES:
                raise LaminaError("NameError", f"train_loop's optimizer '{name}' names no optimizer "
                                  f"variable and no optimizer (those are {', '.join(RULES)}).")
            optimizer = name        # the family's defaults (its builtin constructor has this name too)
    if not isinstance(optimizer, (Optimizer, str)):
        raise LaminaError("TypeError", f"train_loop's optimizer must be an optimizer (or its variable's "
                          f"name, or an optimizer's name such as \"adam\"), not {describe(optimizer)}.")
    opt = get(optimizer)
    if not opt.bound:
        return opt.bind(params, "train_loop's parameters")
    given, values = flatten(params, "train_loop's parameters")
    if given != opt.structure or any(np.shape(a) != np.shape(b) for a, b in zip(values, opt.params)):
        raise LaminaError("ValueError", f"train_loop's parameters ({_layout(given, values)}) do not "
                          f"match the optimizer's ({_layout(opt.structure, opt.params)}); pass the "
                          f"same parameters the optimizer was made with.")
    return opt


def _layout(structure, values) -> str:
    return f"{structure.describe()}: {', '.join(shape_str(np.shape(v)) for v in values)}"


def _loss_value(loss, epoch: int) -> float:
    v = loss.value if type(loss) is Tracked else loss
    if not isinstance(v, float):
        raise LaminaError("TypeError", f"train_loop's loss function must return a number, but at "
                          f"epoch {epoch} it returned {describe(loss)}; reduce it with sum() or mean().")
    if not math.isfinite(v):
        raise LaminaError("ValueError", f"train_loop stopped at epoch {epoch}: the loss is "
                          f"{'NaN' if v != v else 'Inf'}. A smaller learning rate often helps.")
    if type(loss) is not Tracked:
        raise LaminaError("TapeError", f"train_loop's loss at epoch {epoch} is a plain number that does "
                          f"not depend on the parameters loss_fn was given, so there is nothing to train.")
    return v


@builtin("train_loop", category=CATEGORY,
         shapes=[Shape("train_loop(loss_fn, params, epochs, optimizer = opt)",
                       "function or its name, parameters, epoch count, optimizer or its name",
                       "vector of losses", "Trains and returns the loss of every epoch."),
                 Shape("train_loop(loss_fn, params, epochs, optimizer = opt, returning = \"all\")",
                       "the same", "record {losses, params, optimizer}",
                       "Also returns the trained parameters and the stepped optimizer.")],
         summary="Trains parameters with an optimizer for a number of epochs and returns the vector "
                 "of per-epoch losses. Each epoch evaluates loss_fn(params) on a fresh tape, takes "
                 "the gradient and steps the optimizer.",
         examples=["x = [1.0, 2.0, 3.0, 4.0]\ny_true = [2.0, 4.0, 6.0, 8.0]\nw = param(0.0)\n"
                   "function loss_fn(w)\n    return mean((w * x - y_true) .^ 2)\nend function\n"
                   "opt = sgd(w, 0.01)\nlosses = train_loop(\"loss_fn\", w, 100, optimizer = \"opt\")\n"
                   "print(round(losses[0], 3), \"->\", round(losses[99], 5))",
                   "x = [1.0, 2.0, 3.0]\ny = [3.0, 5.0, 7.0]\n"
                   "p = {w = 0.0, b = 0.0}\n"
                   "r = train_loop(q -> mean((q.w * x + q.b - y) .^ 2), p, 300,\n"
                   "               optimizer = adam(p, lr = 0.1), returning = \"all\")\n"
                   "print(round(r.params.w, 2), round(r.params.b, 2))\n"
                   "print(r.losses[299] < r.losses[0])"],
         notes="loss_fn and optimizer may be given as values or as the names of variables that hold "
               "them. Every epoch resets the tape, wraps the optimizer's current parameter values as "
               "fresh param() leaves in the structure params was given in (one value, a list or a "
               "record), calls loss_fn with them, records the loss, takes grad and steps the "
               "optimizer; losses[0] is the loss before any step. The optimizer's parameter values "
               "are the starting point and params must match them in structure and shapes; an "
               "optimizer made without parameters (or an optimizer's name such as \"adam\", or none "
               "for sgd) starts from params' values. No leaf survives an epoch, so no stale value is "
               "ever reused; the tape is reset once more at the end. The values passed in are not "
               "changed (values are immutable): with returning = \"all\" the result is a record "
               "{losses, params, optimizer} holding the trained parameters (plain values, same "
               "structure) and the stepped optimizer (its _params too). A loss that is not a number, "
               "does not depend on the parameters, or becomes NaN or Inf stops training with an "
               "error that names the epoch.")
def train_loop(loss_fn, params, epochs, optimizer=None, returning="losses"):
    fn = resolve(loss_fn, "loss function")
    if not is_function(fn):
        raise LaminaError("TypeError", f"train_loop's loss function must be a function (or its "
                          f"variable's name), not {describe(fn)}.")
    params = resolve(params, "parameters")
    n = as_int(epochs, "train_loop's epochs", minimum=0)
    returning = as_str(returning, "train_loop's returning")
    if returning not in ("losses", "all"):
        raise LaminaError("ValueError", f"train_loop's returning must be \"losses\" or \"all\", "
                          f"not \"{returning}\".")
    opt = _optimizer(optimizer, params=params)
    losses = np.empty(n)
    for epoch in range(n):
        TAPE.reset()
        leaves = [TAPE.leaf(np.array(v) if isinstance(v, np.ndarray) else v, True) for v in opt.params]
        wrapped = opt.structure.build(leaves)
        loss = call(fn, (wrapped,))
        losses[epoch] = _loss_value(loss, epoch)
        opt = opt.step(grad(loss, wrapped))
    TAPE.reset()
    if returning == "losses":
        return losses
    return Record({"losses": losses, "params": opt.param_values(), "optimizer": opt})
