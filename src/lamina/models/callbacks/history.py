"""History: one training loss, validation loss and learning rate per epoch."""
from __future__ import annotations

import numpy as np

from . import Callback


class History(Callback):
    """Appends this fit's epochs to the model's histories (so they cover every fit)."""

    def on_train_begin(self, run) -> None:
        self.loss, self.val_loss, self.lr = [], [], []
        self.stepped = False         # a batch changed the weights (Ctrl-C may end fit before an epoch does)

    def on_batch_end(self, run, batch: int, loss: float, size: int) -> None:
        self.stepped = True

    def on_epoch_end(self, run, epoch: int, logs: dict) -> None:
        self.lr.append(logs["lr"])
        self.loss.append(logs["loss"])
        self.val_loss.append(logs.get("val_loss", np.nan))

    def on_train_end(self, run) -> None:
        old = run.model
        run.changes.update(
            epochs=old.epochs + len(self.loss),
            loss_history=np.concatenate([old.loss_history, self.loss]),
            val_loss_history=_validation_losses(old.val_loss_history, old.epochs, self.val_loss),
            lr_history=np.concatenate([old.lr_history, self.lr]),
            weights_epoch=None if self.stepped else old.weights_epoch)


def _validation_losses(old: np.ndarray, old_epochs: int, new: list) -> np.ndarray:
    """The validation loss of every epoch, NaN for an epoch of a fit without validation; empty
    while no epoch was validated. So val_loss_history[e] is always epoch e's."""
    if not old.size and all(np.isnan(new)):
        return old
    # An old history shorter than its epochs: epochs before validation began (or a file saved
    # before histories were aligned), which were not validated.
    earlier = np.full(old_epochs - old.size, np.nan)
    return np.concatenate([earlier, old, new])
