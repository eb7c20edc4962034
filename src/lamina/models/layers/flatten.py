"""The flatten layer: each example becomes the row of its numbers, row-major, as Keras's Flatten
(an m x 26 x 26 x 32 batch becomes m x 21632; an image's channels of a pixel, then the next pixel
of its row). No weights; one reshape on the tape (a view forward, its gradient reshaped back).

`flatten(x)` is the same as a tensor op: the first axis kept, the others made one (torch's
flatten(x, 1)); a vector of m becomes m x 1, a matrix stays as it is.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...autodiff.tape import record1
from ...errors import LaminaError
from ...values import format_number, numeric_or_tracked, value_of
from ..layer import DataShape, Layer, no_options, register, reshaped
from ..spec import check_spec


def flatten_rows(x):
    """x (any rank of at least 1) as the matrix of its first axis's slices, each one row (a new
    array, so the result is never a view of x's numbers)."""
    x = numeric_or_tracked(x, "flatten's argument")
    v = value_of(x)
    if np.ndim(v) == 0:
        raise LaminaError("ShapeError", f"flatten keeps the first axis (examples) and makes the rest "
                          f"one, so it needs a tensor, not the number {format_number(v)}.")
    old = v.shape
    rows = v.reshape(old[0], math.prod(old[1:])).copy()     # math.prod: an empty array too
    return record1(rows, x, lambda g: np.reshape(g, old))


@register
@dataclass(frozen=True)
class Flatten(Layer):
    kind = "flatten"
    example = 'input(4, 4, 2) |> flatten()'      # a spec ending with this layer

    def output(self, data: DataShape) -> DataShape:
        return DataShape((data.width,))

    def forward(self, x, params, data, training, rng, logits=False):
        return reshaped(x, (-1, data.width))

    def label(self) -> str:
        return "flatten()"


def flatten_layer(spec, **options):
    """`spec |> flatten()`: the spec with a flatten layer appended."""
    spec = check_spec(spec, "flatten")
    no_options(options, "flatten(spec)")
    return spec.with_layer(Flatten())
