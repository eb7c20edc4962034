"""Learning-rate schedule builtins, each usable as compile's optimizer (lamina.models.callbacks.schedule)."""
from __future__ import annotations

import math

from ..errors import LaminaError
from ..models.callbacks.schedule import make
from ..values import format_number
from .registry import Shape, builtin

CATEGORY = "Optimizers & training"
COMMON = ("The value only describes the schedule; give it to compile(optimizer = ...). fit then "
          "starts at lr and, after each epoch, sets the rate of the next one; epochs are counted "
          "over every fit of the model, and the model's lr_history records the rate each epoch used. "
          "base is the optimizer whose steps are taken (a name such as \"adam\", or an optimizer "
          "value for its other settings); without lr, base's own rate is the start. A setting out "
          "of its range is a ValueError. ")
SETUP = ("X = [0.0, 0.0; 0.0, 1.0; 1.0, 0.0; 1.0, 1.0]\nY = [0.0; 1.0; 1.0; 2.0]\n"
         "spec = input(2) |> dense(4, activation = \"relu\") |> dense(1, activation = \"none\")\n")


def _within(schedule, low="min_lr", high="lr"):
    """The schedule, once its setting `low` is found at most `high`: a rate that only ever falls
    (or, for lr_adaptive, stays within [min_lr, max_lr]) cannot start below its floor."""
    s = schedule.settings
    if s[low] > s[high]:
        name = schedule.kind.name
        raise LaminaError("ValueError", f"{name}'s {low} ({format_number(s[low])}) must be at most its "
                          f"{high} ({format_number(s[high])}).")
    return schedule


def _shapes(name, args, description):
    return [Shape(f"{name}({args})", "rate and settings", "schedule", description),
            Shape(f"compile(spec, optimizer = {name}(...))", "the schedule", "model",
                  "How a schedule is used.")]


@builtin("lr_plateau", pure="a value", tracked="constant", category=CATEGORY,
         probes="its arguments are settings of a schedule",
         shapes=_shapes("lr_plateau", "lr, patience, base = \"adam\", factor = 0.5, min_lr = 0",
                        "Multiply the rate by factor when the loss stops improving."),
         summary="Reduce on plateau: multiplies the learning rate by factor after patience epochs "
                 "without a new best loss (the validation loss when fit validates).",
         examples=[SETUP + "net = spec |> compile(optimizer = lr_plateau(lr = 0.1, patience = 5, base = \"adam\"),\n"
                   "                      loss = \"mse\", seed = 7)\n"
                   "net = net.fit(X, Y, epochs = 60)\nprint(net.lr_history[0], min(net.lr_history) <= 0.1)\n"
                   "print(lr_plateau(lr = 0.1, patience = 5))"],
         notes="An epoch is a new best when its loss is below best * (1 - 1e-4); after patience "
               "epochs (default 5) without one, the rate becomes max(lr * factor, min_lr) and the "
               "count starts again. Like Keras's ReduceLROnPlateau (without cooldown). Ranges: "
               "patience a whole number of at least 1, factor above 0 and at most 1, min_lr at "
               "least 0 and at most lr. " + COMMON)
def lr_plateau(lr=None, patience=5, base="adam", factor=0.5, min_lr=0.0):
    return _within(make("lr_plateau", lr=lr, base=base, patience=patience, factor=factor, min_lr=min_lr))


@builtin("lr_adaptive", pure="a value", tracked="constant", category=CATEGORY,
         probes="its arguments are settings of a schedule",
         shapes=_shapes("lr_adaptive", "lr, base = \"adam\", grow = 1.05, cut = 0.5, min_lr = 0, max_lr = Inf",
                        "The bold driver: grow after a better epoch, cut after a worse one."),
         summary="The bold driver: multiplies the learning rate by grow after an epoch that lowered "
                 "the training loss and by cut after one that raised it.",
         examples=[SETUP + "net = spec |> compile(optimizer = lr_adaptive(lr = 0.05), loss = \"mse\", seed = 7)\n"
                   "net = net.fit(X, Y, epochs = 60)\nn = length(net.loss_history)\n"
                   "print(net.loss_history[n - 1] < net.loss_history[0])\n"
                   "print(net.lr_history[1] == 0.05 * 1.05 or net.lr_history[1] == 0.05 * 0.5)"],
         notes="After each epoch the training loss is compared with the previous epoch's: lower "
               "multiplies the rate by grow (default 1.05, at least 1), higher by cut (default 0.5, "
               "above 0 and at most 1), equal leaves it; the result is kept within [min_lr, max_lr], "
               "which must hold lr. "
               "The first epoch of a model has nothing to compare with. The classic bold driver "
               "also undoes a step that raised the loss; this one only changes the rate. " + COMMON)
def lr_adaptive(lr=None, base="adam", grow=1.05, cut=0.5, min_lr=0.0, max_lr=math.inf):
    schedule = make("lr_adaptive", lr=lr, base=base, grow=grow, cut=cut, min_lr=min_lr, max_lr=max_lr)
    return _within(_within(schedule), "lr", "max_lr")


@builtin("lr_step", pure="a value", tracked="constant", category=CATEGORY,
         probes="its arguments are settings of a schedule",
         shapes=_shapes("lr_step", "lr, every, base = \"adam\", factor = 0.5, min_lr = 0",
                        "Multiply the rate by factor every `every` epochs."),
         summary="Step decay: the learning rate is lr * factor ^ floor(epoch / every), so it drops by "
                 "factor every `every` epochs.",
         examples=[SETUP + "net = spec |> compile(optimizer = lr_step(lr = 0.1, every = 2, factor = 0.5), seed = 7)\n"
                   "net = net.fit(X, Y, epochs = 6)\nprint(net.lr_history)"],
         notes="Epoch e (from 0) uses max(lr * factor ^ floor(e / every), min_lr), as PyTorch's "
               "StepLR with gamma = factor. every is a whole number of at least 1 (default 10); "
               "factor above 0 and at most 1; min_lr at most lr. " + COMMON)
def lr_step(lr=None, every=10, base="adam", factor=0.5, min_lr=0.0):
    return _within(make("lr_step", lr=lr, base=base, every=every, factor=factor, min_lr=min_lr))


@builtin("lr_cosine", pure="a value", tracked="constant", category=CATEGORY,
         probes="its arguments are settings of a schedule",
         shapes=_shapes("lr_cosine", "lr, epochs, base = \"adam\", min_lr = 0",
                        "Anneal the rate along half a cosine over `epochs` epochs."),
         summary="Cosine annealing: the learning rate falls from lr to min_lr along half a cosine "
                 "over the given number of epochs, then stays at min_lr.",
         examples=[SETUP + "net = spec |> compile(optimizer = lr_cosine(lr = 0.1, epochs = 4), seed = 7)\n"
                   "net = net.fit(X, Y, epochs = 6)\nprint(round(net.lr_history, 4))"],
         notes="Epoch e (from 0) uses min_lr + (lr - min_lr) * (1 + cos(pi * min(e, epochs) / "
               "epochs)) / 2, as PyTorch's CosineAnnealingLR with T_max = epochs (without "
               "restarts). epochs is a whole number of at least 1 (default 100). " + COMMON)
def lr_cosine(lr=None, epochs=100, base="adam", min_lr=0.0):
    return make("lr_cosine", lr=lr, base=base, epochs=epochs, min_lr=min_lr)
