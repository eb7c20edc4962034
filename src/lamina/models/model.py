"""The compiled model value, and running it forward (predict, evaluate, fit's batches).

A model is immutable: fit returns a new one. Its weights live in its optimizer
(a bound optimizer value, whose parameters are the flat list of every layer's
weights, layer after layer, each layer's in the order its `parameters` names them),
together with the optimizer's running state, so that a second fit continues where
the first stopped. The flat list is split per layer through the layer protocol
(layer.py) only.

Fields a program reads (`net.loss_history`, ...):
    inputs, outputs      the input width and the last layer's units
    layers               a list of records, {kind, ...the layer's settings}: e.g.
                         {kind = "dense", units, activation} or {kind = "dropout", rate}
    weights              a list with one record per layer that has weights, in order,
                         with that layer's names: {w, b} for dense (w is in x units, b
                         the 1 x units bias row), {table} for embedding, {gain, bias}
                         for layer_norm, {wz, uz, bz, wr, ur, br, wh, uh, bh} for gru;
                         a layer's buffers (running statistics) follow its weights
    loss                 the loss's name, or compile(loss = f)'s function f
    seed, optimizer, schedule (none without one)
    dtype                "float32" or "float64": the weights' precision, which fit, predict and
                         evaluate compute in (X and Y are converted to it)
    epochs               epochs trained so far (over every fit)
    loss_history         one training loss per epoch (over every fit)
    val_loss_history     one validation loss per epoch, NaN for an epoch of a fit without
                         validation (empty while no epoch was validated)
    lr_history           the learning rate each epoch used
    interrupted          whether Ctrl-C stopped the fit that made it (fit.py); not saved
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from ..optim.base import Optimizer
from ..values import LibObject, Record, value_of
from .layer import reshaped
from .losses import Loss
from .spec import ModelSpec, Summary

EMPTY = np.zeros(0)


@dataclass(frozen=True, eq=False)
class Model(LibObject):
    spec: ModelSpec
    loss: Loss
    seed: int
    optimizer: Optimizer              # bound to the flat weights; holds them and their state
    schedule: LibObject | None = None
    schedule_state: dict = field(default_factory=dict)
    epochs: int = 0
    loss_history: np.ndarray = field(default_factory=lambda: EMPTY)
    val_loss_history: np.ndarray = field(default_factory=lambda: EMPTY)
    lr_history: np.ndarray = field(default_factory=lambda: EMPTY)
    weights_epoch: int | None = None     # the epoch whose weights it holds; None: the last one
    interrupted: bool = False            # Ctrl-C stopped the fit that returned it
    buffers: tuple = ()                  # every layer's buffers (layer.py), flat, in the weights' dtype

    type_name = "model"

    def field_names(self) -> list[str]:
        return ["inputs", "outputs", "layers", "weights", "loss", "dtype", "seed", "optimizer", "schedule",
                "epochs", "loss_history", "val_loss_history", "lr_history", "interrupted"]

    def get(self, name: str):
        if name in ("inputs", "outputs", "layers"):
            return self.spec.get(name)
        if name == "weights":
            return [Record({**{k: p.copy() for k, p in zip(names, ps)}, **{k: b.copy() for k, b in zip(bnames, bs)}})
                    for names, ps, bnames, bs in zip(self.spec.parameter_shapes(), self.layer_params(),
                                                     self.spec.buffer_shapes(), self.layer_buffers())
                    if ps or bs]
        if name == "loss":
            return self.loss.name if self.loss.function is None else self.loss.function
        if name == "dtype":
            return np.dtype(self.dtype).name
        if name in ("seed", "epochs"):
            return float(getattr(self, name))
        if name == "interrupted":
            return self.interrupted
        if name in ("loss_history", "val_loss_history", "lr_history"):
            return getattr(self, name).copy()
        return super().get(name)

    # -- weights --------------------------------------------------------------
    @property
    def params(self) -> tuple:
        return self.optimizer.params

    @property
    def dtype(self):
        """The weights' dtype (compile's dtype), which fit, predict and evaluate compute in."""
        for p in self.params:
            if isinstance(p, np.ndarray):
                return p.dtype.type
        return np.float64

    def layer_params(self, params=None) -> list[list]:
        """The flat weights split per layer, as many as each layer's `parameters` names."""
        flat = list(self.params if params is None else params)
        return [flat[part] for part in self.spec.parameter_slices]

    def layer_buffers(self) -> list[tuple]:
        """The flat buffers split per layer, as many as each layer's `buffers` names."""
        return [self.buffers[part] for part in self.spec.buffer_slices]

    def evolve(self, **changes) -> Model:
        return replace(self, **changes)

    # -- running forward ---------------------------------------------------------
    @property
    def fused_logits(self) -> bool:
        """Whether the loss reads the last layer's pre-activation (see losses.py)."""
        return self.loss.logits_of is not None

    def forward(self, x, params, training: bool, rng=None, logits: bool = False, buffers=None):
        """The outputs for a batch x (m x *spec.example, examples along the first axis), m x *the
        last layer's shape, on the tape when params are tracked.

        logits = true leaves out the last layer's activation (for the fused losses). `buffers`: a
        list of the flat buffers to use instead of the model's; a training pass writes each
        layer's new buffers into it (fit's, see layer.py)."""
        h = x
        spec = self.spec
        last = len(spec.layers) - 1
        flat = self.buffers if buffers is None else buffers
        for i, (layer, p) in enumerate(zip(spec.layers, self.layer_params(params))):
            part = spec.buffer_slices[i]
            if part.start == part.stop:
                h = layer.forward(h, p, spec.shapes[i], training=training, rng=rng,
                                  logits=logits and i == last)
                continue
            h, new = layer.forward_buffers(h, p, list(flat[part]), spec.shapes[i], training=training,
                                           rng=rng, logits=logits and i == last)
            if training and buffers is not None:
                buffers[part] = new
        return h

    def predict(self, x: np.ndarray) -> np.ndarray:
        return self.forward(x, self.params, training=False)

    def scores(self, x, params, training: bool, rng=None, buffers=None):
        """What the loss reads for a batch x: the m x width matrix of the outputs' rows (the
        pre-activations for a fused loss)."""
        return reshaped(self.forward(x, params, training, rng, logits=self.fused_logits, buffers=buffers),
                        (-1, self.spec.outputs))

    def batch_loss(self, x, y, params, training: bool, rng=None, buffers=None):
        """The loss on one batch (a tracked number when params are tracked); y is fit's, checked
        and shaped by data.py; `buffers` as forward takes them."""
        out = self.scores(x, params, training, rng, buffers)
        checked = self.loss.of_checked
        if checked is not None and np.shape(value_of(out)) == y.shape:
            return checked(out, y)
        return self.loss.fn(out, y)

    # -- printing ---------------------------------------------------------------
    def describe(self) -> str:
        return self.summary().describe()

    def html(self) -> str:
        return self.summary().html()

    def summary(self) -> Summary:
        return Summary(self.spec, *self._report())

    def _report(self) -> tuple[str, str]:
        """The heading (input, outputs, loss, optimizer, seed) and the line about training."""
        opt = self.optimizer
        how = (self.schedule.describe() if self.schedule is not None
               else f"{opt.rule.name}(lr = {opt.hp['lr']:g})")
        outputs = self.spec.outputs
        head = (f"Model: {self.spec.input_text()} -> {outputs} output{'s' * (outputs != 1)}, "
                f"loss {self.loss.name}, optimizer {how}, seed {self.seed}")
        if not self.epochs:
            return head, "interrupted (Ctrl-C) in its first epoch" if self.interrupted else "not trained yet"
        held = self.epochs - 1 if self.weights_epoch is None else self.weights_epoch
        tail = f"trained {self.epochs} epoch{'s' * (self.epochs != 1)}: loss " \
               f"{_fmt(self.loss_history[0])} -> {_fmt(self.loss_history[held])}"
        if self.val_loss_history.size > held and not np.isnan(self.val_loss_history[held]):
            tail += f", validation loss {_fmt(self.val_loss_history[held])}"
        if held != self.epochs - 1:
            tail += f" (the weights of epoch {held}, kept by early stopping)"
        if self.interrupted:
            tail += "; fit was interrupted (Ctrl-C)"
        return head, tail


def _fmt(x: float) -> str:
    from ..printing import format_number
    return format_number(float(f"{x:.4g}"))
