"""The max_pool layer (and the base it shares with avg_pool): each channel of each example
pooled over windows of its spatial axes, as Keras's MaxPooling1D / MaxPooling2D.

Its input is sequences (steps x channels: 1-D pooling) or images (h x w x channels: 2-D); the
windows are `size` long on each spatial axis (a number, or one per axis), slide by `stride`
(by default the size, so that they tile the input) over the input padded as `padding` says
("valid", "same" or a number), and the output keeps the channels. No weights; one tape entry
(nn.pool).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...errors import LaminaError
from ...nn import pool
from ...nn.windows import windows
from ...values import as_int
from ..layer import DataShape, Layer, no_options, register
from ..spec import check_spec
from .conv2d import axes_text, json_settings, lamina_fields, padding_setting


def per_axis_setting(value, what: str, minimum: int):
    """A number (every spatial axis) as an int, or one per axis (a vector or list) as a tuple."""
    if value is None:
        return None
    if isinstance(value, (list, tuple)) or getattr(value, "ndim", 0) == 1:
        return tuple(as_int(v, what, minimum) for v in list(value))
    return as_int(value, what, minimum)


@dataclass(frozen=True)
class Pool(Layer):
    """max_pool and avg_pool: the same windows, a different reduction."""
    size: int | tuple
    stride: int | tuple | None
    padding: str | int | tuple
    op: ClassVar = None

    @classmethod
    def create(cls, size, stride=None, padding="valid") -> Pool:
        name = cls.kind
        padding = (padding_setting(name, padding, 0) if isinstance(padding, str)
                   else per_axis_setting(padding, f"{name}'s padding", 0))
        return cls(per_axis_setting(size, f"{name}'s size", 1), per_axis_setting(stride, f"{name}'s stride", 1),
                   padding)

    def _windows(self, data: DataShape):
        if data.rank not in (2, 3):
            raise LaminaError("ShapeError", f"{self.kind} pools sequences (steps x channels) or images "
                              f"(h x w x channels); its input here is {data.describe()} per example.")
        return windows(self.kind, (1, *data.shape), self.size, self.size if self.stride is None else self.stride,
                       self.padding, pool=True, shown=f"{data.describe()} per example")

    def output(self, data: DataShape) -> DataShape:
        return DataShape((*self._windows(data).out, data.features))

    def forward(self, x, params, data, training, rng, logits=False):
        return type(self).op(x, self.size, self.stride, self.padding)

    def settings(self) -> dict:
        return json_settings(super().settings())

    def record_fields(self) -> dict:
        return lamina_fields(self.kind, self.settings())

    def label(self) -> str:
        def shown(v):
            return f"\"{v}\"" if isinstance(v, str) else axes_text(v) if isinstance(v, tuple) else str(v)
        parts = [shown(self.size)]
        if self.stride is not None:
            parts.append(f"stride = {shown(self.stride)}")
        if self.padding != "valid":
            parts.append(f"padding = {shown(self.padding)}")
        return f"{self.kind}({', '.join(parts)})"


@register
@dataclass(frozen=True)
class MaxPool(Pool):
    kind = "max_pool"
    example = 'input(6, 6, 2) |> max_pool(2)'
    op = staticmethod(pool.max_pool)


def pool_layer(cls, spec, size=None, stride=None, padding="valid", **options):
    """`spec |> max_pool(size, stride, padding)` (or avg_pool): the spec with the layer appended."""
    spec = check_spec(spec, cls.kind)
    no_options(options, f"{cls.kind}(spec, size, stride, padding)")
    if size is None:
        raise LaminaError("TypeError", f"The layer {cls.kind}(spec, size, ...) needs the window's size.")
    return spec.with_layer(cls.create(size, stride, padding))


def max_pool_layer(spec, size=None, stride=None, padding="valid", **options):
    return pool_layer(MaxPool, spec, size, stride, padding, **options)
