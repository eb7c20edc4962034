"""The layer protocol: everything the model API asks of a layer, and the registry of kinds.

A layer is a small frozen value holding its settings only (units, rate, ...); it has
no weights. Like Keras's `Layer.build(input_shape)`, what depends on the data it
receives is asked with that data's `DataShape`:

    output(data)          the DataShape it gives; a LaminaError when it cannot take `data`
    parameters(data)      {name: (rows, cols)} of its weights, in order (like micrograd's
                          Module.parameters()); {} for a layer without weights
    init(data, rng)       fresh weights in that order, drawn from the compile seed's generator
    forward(x, params, data, training, rng, logits)
                          the batch's outputs (rows are examples): a tape op with its own VJP
                          (autodiff.tape.record) or built from autodiff.ops; `params` are the
                          weights in order (tracked while fit trains, plain arrays otherwise),
                          `rng` the model's generator (fit only), `logits` true for the last
                          layer when the loss reads its pre-activation
    activation            the name of its output activation, or None for a layer without one;
                          compile pairs the last layer's with the loss
    label()               how the summary table and print(net) show it
    kind                  its registered name (net.layers and save files carry it)
    create(**settings)    the layer from Lamina values, each checked (its builtin calls it)
    settings()            its settings as JSON-able fields (save_model writes them)
    from_settings(d)      the layer back from those fields, checked by create (load_model)
    record_fields()       its record in net.layers: {kind, ...settings}
    check_input(x, who)   optional: a check of the whole X when it is the first layer (X as
                          given: the m x inputs matrix, or for input(steps, features) possibly
                          the m x steps x features array)

Counting, splitting the model's flat weight list, compiling, printing, net.weights,
save/load, predict, evaluate and fit ask only these. Adding a layer type is one file
that defines a Layer subclass with `@register`, plus the builtin that appends it.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..errors import LaminaError
from ..values import describe


@dataclass(frozen=True)
class DataShape:
    """One example as it flows through a model: a row of `width` numbers and, for a
    sequence, its number of steps (the row is the steps one after another, each
    width / steps features). Inside a model a batch of sequences is always the
    m x (steps * features) matrix of such rows: X given as an m x steps x features
    array becomes it (models/data.py), so a layer reads rows whatever form X came in."""
    width: int
    steps: int | None = None

    @property
    def features(self) -> int:
        """Numbers per step (the whole width for data that is not a sequence)."""
        return self.width // self.steps if self.steps else self.width

    def describe(self) -> str:
        return f"{steps_text(self.steps)} x {self.features}" if self.steps else str(self.width)


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

    def parameters(self, data: DataShape) -> dict[str, tuple[int, int]]:
        return {}

    def init(self, data: DataShape, rng: np.random.Generator) -> list[np.ndarray]:
        return []

    def forward(self, x, params: list, data: DataShape, training: bool, rng, logits: bool = False):
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
