"""The conv2d layer (and the base it shares with conv1d): a convolution over each example's
spatial axes, channels last, with a bias per filter and an activation, as Keras's Conv2D.

Its input is images, h x w x channels (input(28, 28, 1), or another conv or pooling layer's
output); it gives h' x w' x filters, h' and w' by the stride and padding ("valid": no
padding, "same": TensorFlow's rule, a number: that many on every side). The kernel w is
kh x kw x (channels / groups) x filters and b a vector of filters numbers, in net.weights as
{w, b}. The whole batch is one tape entry: nn.conv's im2col and matrix product, the
activation fused into it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ...errors import LaminaError
from ...nn.activation_table import ACTIVATIONS
from ...nn.conv import conv
from ...nn.windows import per_axis, windows
from ...values import as_int, as_str
from ..layer import DataShape, Layer, no_options, register
from ..spec import check_spec

INPUTS = {1: "sequences (steps x channels): start the model with input(steps, channels)",
          2: "images (h x w x channels): start the model with input(h, w, channels)"}


def padding_setting(op: str, padding, dims: int):
    """"valid", "same", or the padding per spatial axis as a tuple of whole numbers."""
    if isinstance(padding, str):
        if padding not in ("valid", "same"):
            raise LaminaError("ValueError", f"{op}'s padding is \"valid\", \"same\" or a whole number, "
                              f"not \"{padding}\".")
        return padding
    return per_axis(padding, dims, f"{op}'s padding", 0)


def json_settings(settings: dict) -> dict:
    """Settings with each per-axis tuple as a list (what JSON writes and create reads back)."""
    return {k: list(v) if isinstance(v, tuple) else v for k, v in settings.items()}


def lamina_fields(kind: str, settings: dict) -> dict:
    """A layer's record in net.layers: numbers as floats, per-axis lists as vectors."""
    def value(v):
        return np.array(v, dtype=float) if isinstance(v, list) else float(v) if type(v) is int else v
    return {"kind": kind, **{k: value(v) for k, v in settings.items()}}


def axes_text(values: tuple) -> str:
    """A per-axis setting as a call writes it: `3` when every axis agrees, else `[3, 2]`."""
    return str(values[0]) if len(set(values)) == 1 else f"[{', '.join(map(str, values))}]"


@dataclass(frozen=True)
class Conv(Layer):
    """conv1d and conv2d: the same layer over one or two spatial axes."""
    filters: int
    kernel: tuple
    stride: tuple
    padding: str | tuple
    dilation: tuple
    groups: int
    activation: str
    dims: ClassVar[int] = 2

    @classmethod
    def create(cls, filters, kernel, stride=1.0, padding="valid", dilation=1.0, groups=1.0,
               activation="none") -> Conv:
        op, dims = cls.kind, cls.dims
        act = as_str(activation if activation is not None else "none", f"{op}'s activation")
        if act not in ACTIVATIONS:
            raise LaminaError("ValueError", f"{op} has no activation \"{act}\"; the activations are "
                              f"{', '.join(ACTIVATIONS)}.")
        filters, groups = as_int(filters, f"{op}'s filters", 1), as_int(groups, f"{op}'s groups", 1)
        if filters % groups:
            raise LaminaError("ValueError", f"{op}'s groups = {groups} must divide its {filters} filters.")
        return cls(filters, per_axis(kernel, dims, f"{op}'s kernel size", 1),
                   per_axis(stride, dims, f"{op}'s stride", 1), padding_setting(op, padding, dims),
                   per_axis(dilation, dims, f"{op}'s dilation", 1), groups, act)

    def _windows(self, data: DataShape):
        if data.rank != self.dims + 1:
            raise LaminaError("ShapeError", f"{self.kind} reads {INPUTS[self.dims]}; its input here is "
                              f"{data.describe()} per example.")
        if data.features % self.groups:
            raise LaminaError("ShapeError", f"{self.label()} splits its input's {data.features} channels "
                              f"into {self.groups} groups, which does not divide them.")
        return windows(self.kind, (1, *data.shape), self.kernel, self.stride, self.padding, self.dilation,
                       shown=f"{data.describe()} per example")

    def output(self, data: DataShape) -> DataShape:
        return DataShape((*self._windows(data).out, self.filters))

    def parameters(self, data: DataShape) -> dict:
        return {"w": (*self.kernel, data.features // self.groups, self.filters), "b": (self.filters,)}

    def init(self, data: DataShape, rng: np.random.Generator) -> list:
        """Glorot-uniform kernel as Keras's (fan_in = kernel positions x channels per group,
        fan_out = kernel positions x filters), zero bias."""
        shape = self.parameters(data)["w"]
        receptive = math.prod(self.kernel)
        limit = math.sqrt(6.0 / (receptive * (shape[-2] + shape[-1])))
        return [rng.uniform(-limit, limit, shape), np.zeros(self.filters)]

    def forward(self, x, params, data, training, rng, logits=False):
        w, b = params
        return conv(self.kind, self.dims, x, w, b, self.stride, self.padding, self.dilation, self.groups,
                    "none" if logits else self.activation)

    def settings(self) -> dict:
        return json_settings(super().settings())

    def record_fields(self) -> dict:
        return lamina_fields(self.kind, self.settings())

    def label(self) -> str:
        parts = [str(self.filters), axes_text(self.kernel)]
        defaults = {"stride": (1,) * self.dims, "padding": "valid", "dilation": (1,) * self.dims, "groups": 1}
        for name, default in defaults.items():
            value = getattr(self, name)
            if value != default:
                shown = f"\"{value}\"" if isinstance(value, str) else axes_text(value) if isinstance(
                    value, tuple) else str(value)
                parts.append(f"{name} = {shown}")
        if self.activation != "none":
            parts.append(f"activation = \"{self.activation}\"")
        return f"{self.kind}({', '.join(parts)})"


@register
@dataclass(frozen=True)
class Conv2D(Conv):
    kind = "conv2d"
    example = 'input(6, 6, 2) |> conv2d(4, 3, padding = "same", activation = "relu")'
    dims = 2


def conv_layer(cls, spec, filters=None, kernel=None, **settings):
    """`spec |> conv2d(filters, kernel, ...)` (or conv1d): the spec with the layer appended."""
    spec = check_spec(spec, cls.kind)
    allowed = ("stride", "padding", "dilation", "groups", "activation")
    no_options({k: v for k, v in settings.items() if k not in allowed},
               f"{cls.kind}(spec, filters, kernel, stride, padding, dilation, groups, activation)")
    if filters is None or kernel is None:
        raise LaminaError("TypeError", f"The layer {cls.kind}(spec, filters, kernel, ...) needs the number "
                          f"of filters and the kernel size.")
    return spec.with_layer(cls.create(filters, kernel, **settings))


def conv2d_layer(spec, filters=None, kernel=None, **settings):
    return conv_layer(Conv2D, spec, filters, kernel, **settings)
