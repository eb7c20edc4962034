"""fit's callbacks (the Keras layout): fit is a fixed loop that only fires these hooks.

Each piece is one small class in its own file: History records the per-epoch
numbers, EarlyStopping ends training when the monitored loss stops improving,
ScheduleCallback changes the learning rate between epochs, Progress draws the
bar. A hook receives the `Run` (fit.py), the state of the fit in progress, and
may change it: `run.optimizer` (weights, state and lr), `run.buffers` (the layers'), `run.stop`.
"""
from __future__ import annotations


class Callback:
    """Every hook does nothing unless a callback overrides it."""

    def on_train_begin(self, run) -> None:
        pass

    def on_epoch_begin(self, run, epoch: int) -> None:
        pass

    def on_batch_end(self, run, batch: int, loss: float, size: int) -> None:
        pass

    def on_epoch_end(self, run, epoch: int, logs: dict) -> None:
        pass

    def on_train_end(self, run) -> None:
        pass

    def close(self) -> None:
        """Called when fit ends, also when it ends with an error: release what was opened."""
