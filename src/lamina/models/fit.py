"""fit: a fixed loop over epochs and batches that only fires callbacks.

Each batch: reset the tape, wrap the optimizer's current weights as fresh
param() leaves, run the model forward (each layer one fused tape op, the whole
batch at once), take the loss's gradient and step the optimizer. Everything
else (histories, early stopping, learning-rate schedules, the progress bar) is
a callback in models/callbacks/.

Ctrl-C stops fit after the current batch (interrupt.py): the model it returns has the
weights of every completed batch, the epochs and histories of every completed epoch, and
`interrupted` true; the program goes on from there, after a one-line warning that says so
(whatever `verbose` is).

Randomness comes from generators seeded by the compile seed, never from the
global one: the validation split from [seed, 1] (the same split on every fit of
the model), each epoch's shuffling and dropout from [seed, 2, epoch] (the epoch counted
over every fit of the model). So the same seed, data and options give the same model and
the same loss_history on every run, and fit(epochs = 2) then fit(epochs = 1) trains exactly
as one fit(epochs = 3).
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import LaminaError
from ..nn.losses import one_hot
from ..optim.base import Optimizer
from ..optim.train_step import train_step as shared_step
from ..values import as_float, as_int, describe, format_number
from ..warnings import warn
from .callbacks.early_stopping import EarlyStopping
from .callbacks.history import History
from .callbacks.progress import Progress
from .callbacks.schedule import ScheduleCallback
from .data import features, refuse_nonfinite, targets
from .interrupt import StopRequest
from .model import Model
from .spec import ModelSpec

SPLIT_STREAM, SHUFFLE_STREAM = 1, 2


class Run:
    """The state of one fit in progress, which callbacks read and change."""

    def __init__(self, model: Model):
        self.model = model               # the model fit started from (never changed)
        # The current weights, optimizer state and lr: a private copy, which each batch
        # updates in place (the model fit was given, and every snapshot, stays as it is),
        # with scratch arrays for the update's temporaries (dropped from the model fit returns).
        self.optimizer = model.optimizer.private(scratch=True)
        self.buffers = model.buffers     # the layers' buffers after the last completed batch
        self.first_epoch = model.epochs  # epochs count over every fit of the model
        self.stop = False                # a callback sets it to end training after this epoch
        self.interrupted = False         # Ctrl-C: training ended in the middle of an epoch or after it
        self.changes: dict = {}          # fields of the new model, set by callbacks at the end


def check_model(model, who: str) -> Model:
    if isinstance(model, ModelSpec):
        raise LaminaError("TypeError", f"{who} needs a compiled model; this is a model spec: "
                          f"compile it first, spec |> compile(optimizer = \"adam\", loss = \"mse\").")
    if not isinstance(model, Model):
        raise LaminaError("TypeError", f"{who} needs a model (made by input, layers and compile), "
                          f"not {describe(model)}.")
    return model


def data_of(model: Model, X, Y, who: str, indices: bool = False):
    """(x, y) checked and shaped for `model` (models/data.py); `indices`: class indices stay
    a vector of int64s."""
    x = features(X, model.spec, who, model.dtype)
    return x, targets(Y, x.shape[0], model.spec.shapes[-1], model.loss, who, model.dtype, indices)


def fit(model, X, Y, epochs=1, batch_size=32, shuffle=True, validation_split=0.0,
        validation_data=None, early_stopping=None, verbose=1):
    model = check_model(model, "fit")
    x, y = data_of(model, X, Y, "fit", indices=True)
    data = [(X, x, "X"), (Y, y, "Y")]      # what _blame_data looks at
    n_epochs = as_int(epochs, "fit's epochs", minimum=0)
    size = as_int(batch_size, "fit's batch_size", minimum=1)
    if not isinstance(shuffle, bool):
        raise LaminaError("TypeError", f"fit's shuffle must be true or false, not {describe(shuffle)}.")
    # true and false read as 1 and 0, as in Keras (and as an if reads them).
    level = int(verbose) if isinstance(verbose, bool) else as_int(verbose, "fit's verbose", minimum=0)
    if level > 2:
        raise LaminaError("ValueError", f"fit's verbose must be 0, 1 or 2, not {level}.")
    (x, y), val = _validation(model, x, y, validation_split, validation_data)

    callbacks = [History()]
    if early_stopping is not None:
        callbacks.append(EarlyStopping(as_int(early_stopping, "fit's early_stopping (a patience in "
                                              "epochs)", minimum=1)))
    if model.schedule is not None:
        callbacks.append(ScheduleCallback(model.schedule))
    callbacks.append(Progress(level, n_epochs, x.shape[0]))

    run = Run(model)
    batches = Batches(x, y, model.spec.outputs)
    m = x.shape[0]
    try:
        with StopRequest() as ctrl_c:
            held = ctrl_c.update()
            _fire(callbacks, "on_train_begin", run)
            for e in range(n_epochs):
                epoch = run.first_epoch + e
                _fire(callbacks, "on_epoch_begin", run, epoch)
                rng = np.random.default_rng([model.seed, SHUFFLE_STREAM, epoch])
                logs = {"lr": run.optimizer.hp["lr"]}
                order = rng.permutation(m) if shuffle else None
                total = 0.0
                for b, start in enumerate(range(0, m, size)):
                    if ctrl_c.requested:
                        run.interrupted = True
                        break
                    xb, yb = batches.get(order, start, min(start + size, m))
                    try:
                        loss, optimizer, buffers = train_step(model, run.optimizer, xb, yb, rng, held=held,
                                                              buffers=run.buffers)
                    except KeyboardInterrupt:    # a second Ctrl-C (or one fit could not catch): the batch is dropped
                        run.interrupted = True
                        break
                    run.optimizer, run.buffers = optimizer, buffers
                    if not math.isfinite(loss):
                        _blame_data(data)
                        raise LaminaError("ValueError", f"fit stopped in epoch {epoch}, batch {b} (both "
                                          f"counted from 0): the loss is {'NaN' if math.isnan(loss) else 'Inf'}. "
                                          f"A smaller learning rate, or standardized X, often helps.")
                    total += loss * xb.shape[0]
                    _fire(callbacks, "on_batch_end", run, b, loss, xb.shape[0])
                else:
                    _check_weights(run.optimizer, epoch, data)
                    logs["loss"] = total / m
                    if val is not None:
                        logs["val_loss"] = _validation_loss(model, val, run, epoch, data)
                    _fire(callbacks, "on_epoch_end", run, epoch, logs)
                # a Ctrl-C in the epoch's last batch (or after it) stops before the next epoch
                run.interrupted = run.interrupted or (ctrl_c.requested and e < n_epochs - 1)
                if run.stop or run.interrupted:
                    break
            _fire(callbacks, "on_train_end", run)
    finally:
        for cb in callbacks:
            cb.close()
    if run.interrupted:     # whatever verbose says: what the program prints next is half-trained
        done = run.changes.get("epochs", model.epochs) - model.epochs
        warn(f"fit stopped by Ctrl-C after {done} complete epoch{'s' * (done != 1)}; it returns the model "
             f"trained so far (interrupted = true).")
    return model.evolve(optimizer=run.optimizer.without_scratch(), interrupted=run.interrupted,
                        buffers=run.buffers, **run.changes)


def train_step(model: Model, opt: Optimizer, xb, yb, rng, held=None, buffers=()):
    """One batch: (the batch's loss, the optimizer after one step, the layers' buffers after it);
    `held` guards the update against Ctrl-C (StopRequest.update). `buffers` is left as it is (a
    batch that does not complete changes none)."""
    # The gradients are not checked for NaN or Inf: one with a finite loss makes the next
    # batch's loss (checked) or the weights at the epoch's end (checked) non-finite.
    after = list(buffers)
    loss, opt = shared_step(opt, lambda leaves: model.batch_loss(xb, yb, leaves, training=True, rng=rng,
                                                                 buffers=after),
                            held, check_finite=False)
    return loss.value, opt, tuple(after)


def _blame_data(data: list) -> None:
    """Raises if the data hold NaN or Inf (models/data.py), once a loss or the weights are no
    longer finite: such data are the cause then, not the learning rate."""
    for given, converted, what in data:
        refuse_nonfinite(given, converted, what, "fit")


def _check_weights(opt: Optimizer, epoch: int, data: list) -> None:
    for p in opt.params:
        if not np.isfinite(p).all():
            _blame_data(data)
            raise LaminaError("ValueError", f"fit stopped at the end of epoch {epoch} (counted from 0): "
                              f"the weights are no longer finite (a gradient held NaN or Inf although "
                              f"the loss was finite). A smaller learning rate, or standardized X, often helps.")


def _validation_loss(model: Model, val, run: Run, epoch: int, data: list) -> float:
    loss = float(model.batch_loss(*val, run.optimizer.params, training=False, buffers=list(run.buffers)))
    if not math.isfinite(loss):
        _blame_data(data)
        # The weights and the validation rows are finite: the loss overflowed. A NaN would pass
        # early stopping's and the schedules' comparisons as "no improvement" without a word.
        raise LaminaError("ValueError", f"fit stopped at the end of epoch {epoch} (counted from 0): "
                          f"the validation loss is {format_number(loss)}. A smaller learning rate, "
                          f"or standardized X, often helps.")
    return loss


class Batches:
    """A batch's rows of x and y, gathered into arrays reused from batch to batch (one pair
    for full batches, one for the shorter last one). A batch is used only by its own step:
    the step's tracked values, whose VJPs read it, are gone when train_step returns.
    A y of class indices (a vector) gives each batch its one-hot rows, `units` wide."""

    def __init__(self, x: np.ndarray, y: np.ndarray, units: int):
        self.x, self.y, self.units = x, y, units
        self.buffers: dict = {}       # rows -> (x rows, y rows)
        self.one_hots: dict = {}      # rows -> one-hot rows, for a y of class indices

    def get(self, order, start: int, stop: int):
        n = stop - start
        if order is None:                      # no shuffling: the rows in place, as views
            xb, yb = self.x[start:stop], self.y[start:stop]
        else:
            if n not in self.buffers:
                self.buffers[n] = (np.empty((n, *self.x.shape[1:]), self.x.dtype),
                                   np.empty((n, *self.y.shape[1:]), self.y.dtype))
            xb, yb = self.buffers[n]
            rows = order[start:stop]
            # mode "clip": with the default "raise", take writes through a temporary copy when
            # given `out` (which tripled its time); the rows come from a permutation, so none is
            # clipped.
            np.take(self.x, rows, axis=0, out=xb, mode="clip")
            np.take(self.y, rows, axis=0, out=yb, mode="clip")
        if yb.ndim == 2:
            return xb, yb
        if n not in self.one_hots:
            self.one_hots[n] = np.empty((n, self.units), self.x.dtype)
        return xb, one_hot(yb, self.units, out=self.one_hots[n])


def _fire(callbacks, hook: str, *args) -> None:
    for cb in callbacks:
        getattr(cb, hook)(*args)


def _validation(model: Model, x, y, split, data):
    """((training x, y), (validation x, y) or None)."""
    fraction = as_float(split, "fit's validation_split")
    if data is not None:
        if fraction:
            raise LaminaError("ValueError", "fit takes validation_split or validation_data, not both.")
        if not isinstance(data, list):
            raise LaminaError("TypeError", f"fit's validation_data must be a list [Xv, Yv], not "
                              f"{describe(data)}.")
        if len(data) != 2:
            raise LaminaError("ValueError", f"fit's validation_data must be a list of two items, "
                              f"[Xv, Yv], not of {len(data)}.")
        xv, yv = data_of(model, data[0], data[1], "fit's validation_data")
        # checked up front, unlike the training rows: a loss through tanh or sigmoid can stay
        # finite on an infinite input, where training's gradient could not
        refuse_nonfinite(data[0], xv, "X", "fit's validation_data")
        refuse_nonfinite(data[1], yv, "Y", "fit's validation_data")
        return (x, y), (xv, yv)
    if not fraction:
        return (x, y), None
    if not 0.0 < fraction < 1.0:
        raise LaminaError("ValueError", f"fit's validation_split must be above 0 and below 1, "
                          f"not {format_number(fraction)}.")
    m = x.shape[0]
    n_val = int(round(m * fraction))
    if not 1 <= n_val < m:
        raise LaminaError("ValueError", f"fit's validation_split of {fraction:g} leaves "
                          f"{'no' if n_val < 1 else 'every'} example of {m} for validation; "
                          f"it needs at least one on each side.")
    perm = np.random.default_rng([model.seed, SPLIT_STREAM]).permutation(m)
    held, kept = np.sort(perm[:n_val]), np.sort(perm[n_val:])
    y_held = y[held]
    if y_held.ndim == 1:                     # class indices (fit's y): the loss takes one-hot rows
        y_held = one_hot(y_held, model.spec.outputs, x.dtype)
    return (x[kept], y[kept]), (x[held], y_held)
