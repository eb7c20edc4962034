"""The conv1d layer: conv2d's layer (conv2d.py) over one spatial axis, as Keras's Conv1D.

Its input is sequences, steps x channels (input(steps, channels), or another conv1d or
pooling layer's output); it gives steps' x filters. The kernel w is k x (channels / groups) x
filters and b a vector of filters numbers, in net.weights as {w, b}.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..layer import register
from .conv2d import Conv, conv_layer


@register
@dataclass(frozen=True)
class Conv1D(Conv):
    kind = "conv1d"
    example = 'input(10, 2) |> conv1d(4, 3, stride = 2, activation = "tanh")'
    dims = 1


def conv1d_layer(spec, filters=None, kernel=None, **settings):
    return conv_layer(Conv1D, spec, filters, kernel, **settings)
