"""History: one training loss, validation loss and learning rate per epoch."""
from __future__ import annotations

import numpy as np

from . import Callback


class History(Callback):
    """Appends this fit's epochs to the model's histories (so they cover every fit)."""

    def on_train_begin(self, run) -> None:
        self.loss, self.val_loss, self.lr = [], [], []

    def on_epoch_end(self, run, epoch: int, logs: dict) -> None:
        self.lr.append(logs["lr"])
        self.loss.append(logs["loss"])
        if "val_loss" in logs:
            self.val_loss.append(logs["val_loss"])

    def on_train_end(self, run) -> None:
        old = run.model
        run.changes.update(
            epochs=old.epochs + len(self.loss),
            loss_history=np.concatenate([old.loss_history, self.loss]),
            val_loss_history=np.concatenate([old.val_loss_history, self.val_loss]),
            lr_history=np.concatenate([old.lr_history, self.lr]),
            weights_epoch=None if self.loss else old.weights_epoch)
