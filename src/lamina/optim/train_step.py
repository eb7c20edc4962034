"""The one training step that fit and train_loop share.

On a fresh tape, the optimizer's current parameter values become trainable leaves; the
caller's `loss_of(leaves)` computes the loss from them (a model's batch loss, or a program's
loss function); `grad` gives one gradient per leaf; the tape is reset again (no leaf
outlives the step, so none is ever used stale) and the optimizer advances once, in place:
`opt` must be one the caller made with `Optimizer.private()` and holds alone (the leaves
wrap its arrays without a copy, and the step writes into them once the gradients are in).
The gradients go to the optimizer as the sweep made them (no defensive copy: the update
only reads them, and nothing else sees them).
"""
from __future__ import annotations

from collections.abc import Callable

from ..autodiff.grad import grad
from ..autodiff.tape import TAPE
from .base import Optimizer


def train_step(opt: Optimizer, loss_of: Callable):
    """(the loss, tracked as `loss_of` returned it; the optimizer after one update)."""
    TAPE.reset()
    leaves = [TAPE.leaf(p, True) for p in opt.params]
    loss = loss_of(leaves)
    grads = grad(loss, leaves, fresh=False)
    TAPE.reset()
    return loss, opt.advance_in_place(grads)
