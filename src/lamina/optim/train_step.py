"""The one training step that fit and train_loop share.

On a fresh tape, the optimizer's current parameter values become trainable leaves; the
caller's `loss_of(leaves)` computes the loss from them (a model's batch loss, or a program's
loss function); `grad` gives one gradient per leaf; the tape is reset again (no leaf
outlives the step, so none is ever used stale) and the optimizer advances once.
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
    grads = grad(loss, leaves)
    TAPE.reset()
    return loss, opt.advance(grads)
