"""train_loop: a fixed training loop over a loss function and an optimizer (lamina.optim.loop)."""
from __future__ import annotations

from ..errors import LaminaError
from ..lang.runtime import call
from ..optim.base import Optimizer
from ..optim.loop import train_loop as run_train_loop
from ..values import describe, is_function
from .autodiff import trains
from .registry import Shape, builtin

CATEGORY = "Optimizers & training"


@builtin("train_loop", tracked="constant", category=CATEGORY, scoped=True, any_rank=True,
         probes=["train_loop(w -> sum((w - 1) .^ 2), p, 2, optimizer = sgd(lr = 0.1))"],
         float32_probes=['train_loop(w -> sum((w - 1) .^ 2), p, 2, optimizer = sgd(lr = 0.1), returning = "all")'],
         float64_results=("its losses are numbers", ("result.losses",)),
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
         notes="loss_fn, params and optimizer may be given as values or as the names of top-level "
               "variables that hold them (looked up in the program's own scope; a variable local to "
               "a function is not visible by name, so pass its value). Every epoch resets the tape, wraps the optimizer's current parameter values as "
               "fresh param() leaves in the structure params was given in (one value, a list or a "
               "record, of numbers and tensors of any rank), calls loss_fn with them, records the loss, takes grad and steps the "
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
def train_loop(scope, /, loss_fn, params, epochs, optimizer=None, returning="losses"):
    if isinstance(optimizer, str) and scope.defines(optimizer):
        found = scope.lookup(optimizer, "optimizer")
        optimizer = found if isinstance(found, Optimizer) else optimizer   # else a family's name
    fn = scope.resolve(loss_fn, "loss function")
    if not is_function(fn):
        raise LaminaError("TypeError", f"train_loop's loss function must be a function (or its "
                          f"variable's name), not {describe(fn)}.")
    with trains("train_loop"):
        return run_train_loop(lambda p: call(fn, (p,)), params=scope.resolve(params, "parameters"),
                              epochs=epochs, optimizer=optimizer, returning=returning)
