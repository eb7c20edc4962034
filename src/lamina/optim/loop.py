"""train_loop: each epoch one shared training step (train_step.py) on a loss function."""
from __future__ import annotations

import math

import numpy as np

from ..autodiff.tape import TAPE
from ..errors import LaminaError, shape_str
from ..values import Record, Tracked, as_int, as_str, describe
from .base import Optimizer
from .params import flatten
from .registry import RULES, get
from .train_step import train_step


def train_loop(loss_fn, params, epochs, optimizer=None, returning="losses"):
    """Train `params` with `optimizer` (a value, a family's name, or none for sgd) for `epochs`
    epochs; the vector of per-epoch losses, or with returning = "all" a record
    {losses, params, optimizer}."""
    n = as_int(epochs, "train_loop's epochs", minimum=0)
    returning = as_str(returning, "train_loop's returning")
    if returning not in ("losses", "all"):
        raise LaminaError("ValueError", f"train_loop's returning must be \"losses\" or \"all\", "
                          f"not \"{returning}\".")
    opt = _optimizer(optimizer, params).private(scratch=True)     # trained in place (train_step.py)
    losses = np.empty(n)
    for epoch in range(n):
        def loss_of(leaves, epoch=epoch):
            gen = TAPE.gen
            loss = loss_fn(opt.structure.build(leaves))
            reset_by = None if TAPE.gen == gen else TAPE.reset_cause(gen) or ""
            losses[epoch] = _loss_value(loss, epoch, reset_by)
            return loss
        _, opt = train_step(opt, loss_of)
    if returning == "losses":
        return losses
    opt = opt.without_scratch()
    return Record({"losses": losses, "params": opt.param_values(), "optimizer": opt})


def _optimizer(optimizer, params) -> Optimizer:
    """The optimizer to train with, bound to parameters that match `params` in structure."""
    if optimizer is None:
        optimizer = "sgd"
    if isinstance(optimizer, str) and optimizer not in RULES:
        raise LaminaError("NameError", f"train_loop's optimizer '{optimizer}' names no optimizer "
                          f"variable and no optimizer (those are {', '.join(RULES)}).")
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


def _loss_value(loss, epoch: int, reset_by: str | None) -> float:
    """The loss as a number, checked; `reset_by`: who reset the tape inside loss_fn ("" when not
    known; the parameters it was given went stale), or None."""
    v = loss.value if type(loss) is Tracked else loss
    if not isinstance(v, float):
        raise LaminaError("TypeError", f"train_loop's loss function must return a number, but at "
                          f"epoch {epoch} it returned {describe(loss)}; reduce it with sum() or mean().")
    if not math.isfinite(v):
        raise LaminaError("ValueError", f"train_loop stopped at epoch {epoch}: the loss is "
                          f"{'NaN' if v != v else 'Inf'}. A smaller learning rate often helps.")
    if type(loss) is not Tracked and reset_by is not None:
        by = f" ({reset_by})" if reset_by else ""
        raise LaminaError("TapeError", f"train_loop's loss function reset the tape{by} while it computed "
                          f"the loss at epoch {epoch}, so the parameters it was given went stale and "
                          f"the loss does not depend on them; call tape_reset, fit and train_loop "
                          f"outside the loss function.")
    if type(loss) is not Tracked:
        raise LaminaError("TapeError", f"train_loop's loss at epoch {epoch} is a plain number that does "
                          f"not depend on the parameters loss_fn was given, so there is nothing to train.")
    return v
