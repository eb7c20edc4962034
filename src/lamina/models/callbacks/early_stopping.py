"""EarlyStopping: stop when the monitored loss has not improved for `patience` epochs."""
from __future__ import annotations

import math

from . import Callback


class EarlyStopping(Callback):
    """Monitors the validation loss when fit validates, else the training loss.

    An epoch improves when its loss is below the best so far. After `patience`
    epochs without improvement training stops, and the model keeps the weights
    (and optimizer state, and the layers' buffers) of its best epoch, with the learning rate the schedule has reached
    (as Keras restores weights alone); the histories keep every epoch run.
    """

    def __init__(self, patience: int):
        self.patience = patience

    def on_train_begin(self, run) -> None:
        # fit updates run.optimizer in place: the best epoch's is kept as a private copy
        self.best, self.wait, self.best_optimizer, self.best_epoch = math.inf, 0, run.model.optimizer, None
        self.best_buffers = run.buffers        # a tuple of arrays no batch writes into (layer.py)

    def on_epoch_end(self, run, epoch: int, logs: dict) -> None:
        loss = logs.get("val_loss", logs["loss"])
        if loss < self.best:
            self.best, self.wait, self.best_optimizer, self.best_epoch = loss, 0, run.optimizer.private(), epoch
            self.best_buffers = run.buffers
            return
        self.wait += 1
        if self.wait >= self.patience:
            run.stop = True
            # The best epoch's weights and state, at the rate this epoch used: the rate is the
            # schedule's (schedule.py), whose rule takes it next, and whose state goes on.
            run.optimizer = self.best_optimizer.with_hp(lr=run.optimizer.hp["lr"])
            run.buffers = self.best_buffers

    def on_train_end(self, run) -> None:
        if run.stop and self.best_epoch is not None:
            run.changes["weights_epoch"] = self.best_epoch
