"""Learning-rate schedules: values made by lr_plateau, lr_adaptive, lr_step, lr_cosine,
usable as compile's optimizer, and the callback that applies them between epochs.

A schedule is a base optimizer's settings, a starting rate and a pure rule
    rule(settings, lr, epoch, loss, state) -> (lr for the next epoch, new state)
called after each epoch (counted over every fit of the model, from 0) with that
epoch's monitored loss. `state` is a small dict of numbers that the model keeps,
so a second fit continues the schedule.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from ...errors import LaminaError
from ...optim.base import Optimizer
from ...optim.registry import get
from ...values import LibObject, Range, as_float, describe, format_number
from . import Callback

PLATEAU_THRESHOLD = 1e-4    # an epoch improves on the best when below best * (1 - this)
COUNT = Range(1.0, whole=True)                              # patience, every, epochs
SHRINK = Range(0.0, 1.0, low_open=True, high_open=False)    # factor, cut: above 0, at most 1
GROW = Range(1.0, high_open=False)                          # grow: at least 1
AT_LEAST_0 = Range(0.0, high_open=False)                    # min_lr
ABOVE_0 = Range(0.0, low_open=True, high_open=False)        # max_lr (Inf: no cap)


def plateau(s: dict, lr: float, epoch: int, loss: float, state: dict):
    best, wait = state.get("best", math.inf), state.get("wait", 0.0)
    if loss < best * (1.0 - PLATEAU_THRESHOLD) or best == math.inf:
        return lr, {"best": loss, "wait": 0.0}
    wait += 1
    if wait >= s["patience"]:
        return max(lr * s["factor"], s["min_lr"]), {"best": best, "wait": 0.0}
    return lr, {"best": best, "wait": wait}


def adaptive(s: dict, lr: float, epoch: int, loss: float, state: dict):
    prev = state.get("prev")
    if prev is not None and loss < prev:
        lr = lr * s["grow"]
    elif prev is not None and loss > prev:
        lr = lr * s["cut"]
    return min(max(lr, s["min_lr"]), s["max_lr"]), {"prev": loss}


def step(s: dict, lr: float, epoch: int, loss: float, state: dict):
    return max(s["lr"] * s["factor"] ** ((epoch + 1) // s["every"]), s["min_lr"]), state


def cosine(s: dict, lr: float, epoch: int, loss: float, state: dict):
    done = min(epoch + 1, s["epochs"]) / s["epochs"]
    return s["min_lr"] + (s["lr"] - s["min_lr"]) * 0.5 * (1.0 + math.cos(math.pi * done)), state


@dataclass(frozen=True)
class Kind:
    name: str
    rule: Callable
    monitors: str          # "validation" (val_loss when fit validates, else loss) or "training"
    meaning: str
    settings: dict         # each setting besides lr -> the Range it accepts
    state: tuple = ()      # the names of the numbers the rule keeps between epochs


KINDS = {
    "lr_plateau": Kind("lr_plateau", plateau, "validation", "multiplied by factor after patience "
                       "epochs without improvement",
                       {"patience": COUNT, "factor": SHRINK, "min_lr": AT_LEAST_0}, ("best", "wait")),
    "lr_adaptive": Kind("lr_adaptive", adaptive, "training", "times grow after an epoch that lowered "
                        "the loss, times cut after one that raised it",
                        {"grow": GROW, "cut": SHRINK, "min_lr": AT_LEAST_0, "max_lr": ABOVE_0}, ("prev",)),
    "lr_step": Kind("lr_step", step, "training", "multiplied by factor every `every` epochs",
                    {"every": COUNT, "factor": SHRINK, "min_lr": AT_LEAST_0}),
    "lr_cosine": Kind("lr_cosine", cosine, "training", "follows half a cosine from lr down to min_lr "
                      "over `epochs` epochs", {"epochs": COUNT, "min_lr": AT_LEAST_0}),
}


@dataclass(frozen=True, eq=False)
class Schedule(LibObject):
    kind: Kind
    base: Optimizer        # settings only; its lr is the schedule's starting rate
    settings: dict         # lr and the kind's own numbers

    type_name = "schedule"

    def field_names(self) -> list[str]:
        return ["name", "base", *self.settings]

    def get(self, name: str):
        if name == "name":
            return self.kind.name
        if name in self.settings:
            return self.settings[name]
        return super().get(name)

    def describe(self) -> str:
        from ...printing import format_number
        parts = ", ".join(f"{k} = {format_number(v)}" for k, v in self.settings.items())
        return f"{self.kind.name}({parts}, base = \"{self.base.rule.name}\")"

    def next_lr(self, lr: float, epoch: int, loss: float, state: dict):
        return self.kind.rule(self.settings, lr, epoch, loss, state)


def make(name: str, lr, base, **settings) -> Schedule:
    """A schedule with its settings checked against its kind's ranges (load_model reads a
    saved schedule back through here too)."""
    if isinstance(base, Schedule):
        raise LaminaError("TypeError", f"{name}'s base must be an optimizer or its name, not another "
                          f"schedule.")
    if not isinstance(base, (str, Optimizer)):
        raise LaminaError("TypeError", f"{name}'s base must be an optimizer's name such as \"adam\" or "
                          f"an optimizer value, not {describe(base)}.")
    opt = get(base)
    rate = opt.hp["lr"] if lr is None else as_float(lr, f"{name}'s lr")
    if not 0.0 < rate < math.inf:
        raise LaminaError("ValueError", f"{name}'s lr must be finite and above 0, not {format_number(rate)}.")
    kind = KINDS[name]
    checked = {"lr": rate}
    for key, value in settings.items():
        checked[key] = kind.settings[key].check(value, f"{name}'s {key}")
    return Schedule(kind, opt.with_hp(lr=rate), checked)


class ScheduleCallback(Callback):
    """After each epoch, sets the optimizer's lr to what the schedule says for the next one."""

    def __init__(self, schedule: Schedule):
        self.schedule = schedule

    def on_train_begin(self, run) -> None:
        self.state = dict(run.model.schedule_state)

    def on_epoch_end(self, run, epoch: int, logs: dict) -> None:
        monitored = logs.get("val_loss", logs["loss"]) if self.schedule.kind.monitors == "validation" \
            else logs["loss"]
        lr, self.state = self.schedule.next_lr(run.optimizer.hp["lr"], epoch, monitored, self.state)
        run.optimizer = run.optimizer.with_hp(lr=lr)

    def on_train_end(self, run) -> None:
        run.changes["schedule_state"] = self.state
