"""The one training step that fit and train_loop share.

On a fresh tape, the optimizer's current parameter values become trainable leaves; the
caller's `loss_of(leaves)` computes the loss from them (a model's batch loss, or a program's
loss function); `grad` gives one gradient per leaf; the tape is reset again (no leaf
outlives the step, so none is ever used stale) and the optimizer advances once, in place:
`opt` must be one the caller made with `Optimizer.private()` and holds alone (the leaves
wrap its arrays without a copy, and the step writes into them once the gradients are in).
The gradients go to the optimizer as the sweep made them (no defensive copy: the update
only reads them, and nothing else sees them). A Ctrl-C during the update waits until it is
done, so the weights, the optimizer state and the step count are never left half-updated
(models/interrupt.py; fit's own handler does this for its batches).
"""
from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from contextlib import contextmanager

from ..autodiff.grad import leaf_gradients
from ..autodiff.tape import TAPE
from .base import Optimizer


def train_step(opt: Optimizer, loss_of: Callable, held=None, check_finite: bool = True):
    """(the loss, tracked as `loss_of` returned it; the optimizer after one update).

    `held`: a context manager that already holds Ctrl-C back during the update (fit's, see
    models/interrupt.py), used instead of swapping the SIGINT handler for it.
    `check_finite` false: the gradients are not checked for NaN or Inf (grad's warning), for a
    caller that checks each loss and the weights itself (fit)."""
    TAPE.reset()
    frozen = opt.structure.is_frozen
    leaves = [TAPE.leaf(p, not frozen(i)) for i, p in enumerate(opt.params)]
    loss = loss_of(leaves)
    grads = leaf_gradients(loss, leaves, check_finite)
    TAPE.reset()
    with _ctrl_c_held() if held is None else held:
        opt.advance_in_place(grads)
    return loss, opt


@contextmanager
def _ctrl_c_held():
    """A Ctrl-C (SIGINT) during the block is handled when the block ends, by the handler that
    was in place (main thread only, where Python's handlers run; signal masks would not do:
    the kernel hands a process's signal to any thread, NumPy's BLAS threads included)."""
    previous = signal.getsignal(signal.SIGINT)
    if previous is None or threading.current_thread() is not threading.main_thread():
        yield
        return
    pressed = []
    signal.signal(signal.SIGINT, lambda signum, frame: pressed.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if pressed:
            signal.raise_signal(signal.SIGINT)
