"""The dropout layer: inverted dropout while fit trains, the identity in predict and evaluate.

The mask is nn.dropout's (the same function dropout(x, rate) uses), drawn from fit's
generator, which the compile seed seeds, so seeded fits repeat.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...autodiff import ops
from ...nn.dropout import check_rate, dropout_mask
from ...values import value_of
from ..layer import Layer, register
from ..spec import check_spec


@register
@dataclass(frozen=True)
class Dropout(Layer):
    rate: float
    kind = "dropout"
    example = 'input(3) |> dropout(0.25)'      # a spec ending with this layer

    @classmethod
    def create(cls, rate) -> Dropout:
        return cls(check_rate(rate, "dropout"))

    def forward(self, x, params, data, training, rng, logits=False):
        """Keep each element with probability 1 - rate and scale by 1/(1 - rate) while fitting."""
        if not training or self.rate == 0.0:
            return x
        v = value_of(x)
        return ops.emul(x, dropout_mask(rng, np.shape(v), self.rate, v.dtype))

    def label(self) -> str:
        return f"dropout({self.rate:g})"


def dropout_layer(spec, rate):
    """`spec |> dropout(rate)`: the spec with a dropout layer appended."""
    return check_spec(spec, "dropout").with_layer(Dropout.create(rate))
