"""The layer protocol: everything the model API asks of a layer, and the registry of kinds.

A layer is a small frozen value holding its settings only (units, rate, ...); it has
no weights. Like Keras's `Layer.build(input_shape)`, what depends on the data it
receives is asked with that data's `DataShape`, the shape of ONE example as a tuple:
`(784,)` for a row of numbers, `(steps, features)` for a sequence, `(28, 28, 1)` for an
image (height x width x channels, channels last as in Keras). Inside a model a batch
flows as the m x *shape array of its examples: a layer after input(28, 28, 1) receives
an m x 28 x 28 x 1 array, a layer after input(20, 8) an m x 20 x 8 array, whatever form
X was given in (models/data.py reshapes X once, a view, before the first layer).

    output(data)          the DataShape it gives; a LaminaError naming the layer and the
                          shape when it cannot take `data` (ModelSpec.with_layer asks it
                          as the layer is appended, load_model as it reads a file)
    parameters(data)      {name: shape} of its weights, in order (like micrograd's
                          Module.parameters()); each shape a tuple of any rank (a dense w
                          (inputs, units), a conv kernel (h, w, c_in, c_out)); {} for a layer
                          without weights
    init(data, rng)       fresh float64 weights of those shapes in that order, drawn from
                          the compile seed's generator (compile rounds them to its dtype)
    forward(x, params, data, training, rng, logits)
                          the batch's outputs, m x *output(data).shape, from x, the
                          m x *data.shape batch: a tape op with its own VJP
                          (autodiff.tape.record) or built from autodiff.ops; `params` are the
                          weights in order (tracked while fit trains, plain arrays otherwise),
                          `rng` the model's generator (fit only), `logits` true for the last
                          layer when the loss reads its pre-activation. It computes in the
                          dtype of x and the weights (float32 or float64) and keeps it.
    buffers(data)         optional: {name: shape} of arrays it keeps that training does not
                          learn by gradient (running statistics, as PyTorch's buffers and Keras's
                          non-trainable weights); {} for most layers. A layer with buffers has
    init_buffers(data)    their first values, float64 (compile rounds them to its dtype), and
    forward_buffers(x, params, buffers, data, training, rng, logits)
                          in place of forward: (the outputs, the buffers after this batch). fit
                          keeps what a training batch gives (once its step is done: a batch that
                          Ctrl-C drops changes nothing), predict, evaluate and fit's validation
                          pass training = false and the model's buffers, which the layer reads and
                          gives back unchanged. It returns new arrays and never writes into the
                          ones it is given (early stopping keeps an epoch's buffers as they are).
                          save_model writes them, load_model reads them, net.weights shows them
                          after the layer's weights.
    activation            the name of its output activation, or None for a layer without one;
                          compile pairs the last layer's with the loss
    label()               how the summary table and print(net) show it
    kind                  its registered name (net.layers and save files carry it)
    create(**settings)    the layer from Lamina values, each checked (its builtin calls it)
    settings()            its settings as JSON-able fields (save_model writes them)
    from_settings(d)      the layer back from those fields, checked by create (load_model)
    record_fields()       its record in net.layers: {kind, ...settings}
    check_input(x, who)   optional: a check of the whole X when it is the first layer (X as
                          given: m x *shape, or the m x width matrix of its rows)

Counting, splitting the model's flat weight list, compiling, printing, net.weights,
save/load, predict, evaluate and fit ask only these. Adding a layer type (the recipe
"A model layer" of docs/ARCHITECTURE.md):
  1. one file under models/layers/ that defines a frozen dataclass Layer subclass with
     `@register`, its `kind`, `example` (a spec ending with it) and the methods above
     (its tape op's forward and VJP in nn/ when the op is also a builtin);
  2. the builtin that appends it to a spec (builtins/layers.py, or a tape op's builtin that
     dispatches on a model spec as its first argument, as dense does), then `make docs`;
  3. tests: its numbers against PyTorch or NumPy, and a fit, predict, evaluate and
     save_model/load_model round trip in float32 and float64.
The existing layers on examples of rank 2 and more: dense reads the whole example (its
numbers one after another, row-major, as if flattened: w is width x units), as it did before
examples had a shape; dropout keeps the shape; layer_norm normalises the whole example; gru
reads (steps, features); embedding turns (n,) tokens into (n, dim) and (steps, k) tokens
into (steps, k * dim).
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..autodiff.tape import record1
from ..errors import LaminaError
from ..values import describe, value_of


@dataclass(frozen=True)
class DataShape:
    """One example's shape as it flows through a model: `(784,)`, `(steps, features)`,
    `(28, 28, 1)`. A batch of m examples is the m x *shape array."""
    shape: tuple[int, ...]

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def width(self) -> int:
        """Numbers per example (the product of the shape)."""
        return math.prod(self.shape)

    @property
    def steps(self) -> int | None:
        """For a sequence (an example of rank 2, steps x features), its number of steps."""
        return self.shape[0] if len(self.shape) == 2 else None

    @property
    def features(self) -> int:
        """Numbers per step of a sequence, or per position of an image (the last axis)."""
        return self.shape[-1]

    def describe(self) -> str:
        """`3`, `20 steps x 8`, `26 x 26 x 32`."""
        if self.rank == 2:
            return f"{steps_text(self.shape[0])} x {self.shape[1]}"
        return " x ".join(map(str, self.shape))


def steps_text(steps: int) -> str:
    """`20 steps`, `1 step`."""
    return f"{steps} step{'s' * (steps != 1)}"


class Layer:
    """The base of every layer kind; subclasses are frozen dataclasses of their settings."""
    kind: ClassVar[str] = ""
    example: ClassVar[str] = ""     # Lamina code of a spec that ends with this layer (its tests run it)
    activation: str | None = None

    @classmethod
    def create(cls, **settings) -> Layer:
        """The layer from Lamina values, each checked (a LaminaError names the bad one)."""
        return cls(**settings)

    def output(self, data: DataShape) -> DataShape:
        return data

    def parameters(self, data: DataShape) -> dict[str, tuple[int, ...]]:
        return {}

    def init(self, data: DataShape, rng: np.random.Generator) -> list[np.ndarray]:
        return []

    def forward(self, x, params: list, data: DataShape, training: bool, rng, logits: bool = False):
        raise NotImplementedError

    def buffers(self, data: DataShape) -> dict[str, tuple[int, ...]]:
        return {}

    def init_buffers(self, data: DataShape) -> list[np.ndarray]:
        return []

    def forward_buffers(self, x, params: list, buffers: list, data: DataShape, training: bool, rng,
                        logits: bool = False) -> tuple:
        raise NotImplementedError

    def label(self) -> str:
        return self.kind

    def settings(self) -> dict:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    @classmethod
    def from_settings(cls, settings) -> Layer:
        if not isinstance(settings, dict):
            raise LaminaError("ValueError", f"the settings of a {cls.kind} layer are {describe(settings)}, "
                              f"not a record of fields")
        want = [f.name for f in dataclasses.fields(cls)]
        for name in want:
            if name not in settings:
                raise LaminaError("ValueError", f"the {cls.kind} layer's settings lack '{name}'")
        for name in settings:
            if name not in want:
                raise LaminaError("ValueError", f"a {cls.kind} layer has no setting '{name}'")
        return cls.create(**settings)

    def record_fields(self) -> dict:
        return {"kind": self.kind, **{k: float(v) if type(v) is int else v
                                      for k, v in self.settings().items()}}

    def check_input(self, x: np.ndarray, who: str) -> None:
        """Checks the whole X (as given; examples along its first axis) before fit, predict or
        evaluate use it."""


def reshaped(x, shape: tuple):
    """x (tracked or plain) arranged as `shape` (one size may be -1), a view of its numbers in
    row-major order, on the tape when x is tracked: m x *shape batches to the m x width matrix of
    their rows and back. x itself when it has that shape already (no tape entry)."""
    v = value_of(x)
    out = v.reshape(shape)
    if out.shape == v.shape:
        return x
    old = v.shape
    return record1(out, x, lambda g: np.reshape(g, old))


KINDS: dict[str, type[Layer]] = {}


def register(cls: type[Layer]) -> type[Layer]:
    """Class decorator: makes the layer kind known by its name (save/load read it back)."""
    if not cls.kind or cls.kind in KINDS:
        raise ValueError(f"layer kind {cls.kind!r} is empty or registered twice")
    KINDS[cls.kind] = cls
    return cls


def no_options(options: dict, call: str) -> None:
    if options:
        raise LaminaError("TypeError", f"The layer {call} has no keyword '{next(iter(options))}'.")
