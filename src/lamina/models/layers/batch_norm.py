"""The batch_norm layer: each channel (the last axis of an example) normalised over the batch,
then scaled by a learnt gamma and shifted by a learnt beta (Ioffe and Szegedy 2015), as
PyTorch's BatchNorm and Keras's BatchNormalization.

An example of shape (features,) has one channel per feature; (steps, features) and
(h, w, c) have their last axis as channels, averaged over the batch and every other axis.
While fit trains, each batch is normalised with its own mean and biased variance, and the
running statistics move towards them (momentum 0.1, the unbiased variance, as PyTorch);
predict, evaluate and fit's validation normalise with the running statistics. They are the
layer's buffers (models/layer.py): kept in the model, saved and loaded with it, and shown in
net.weights after gamma and beta as {gamma, beta, mean, var}.

The computation is the batch_norm tape op (nn/batch_norm.py), one tape entry.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...errors import LaminaError
from ...nn.batch_norm import EPS, MOMENTUM, batch_norm
from ...values import Record
from ..layer import DataShape, Layer, no_options, register
from ..spec import check_spec


@register
@dataclass(frozen=True)
class BatchNorm(Layer):
    kind = "batch_norm"
    example = 'input(3) |> batch_norm()'      # a spec ending with this layer

    def parameters(self, data: DataShape) -> dict:
        return {"gamma": (data.features,), "beta": (data.features,)}

    def init(self, data: DataShape, rng: np.random.Generator) -> list:
        return [np.ones(data.features), np.zeros(data.features)]

    def buffers(self, data: DataShape) -> dict:
        return {"mean": (data.features,), "var": (data.features,)}

    def init_buffers(self, data: DataShape) -> list:
        return [np.zeros(data.features), np.ones(data.features)]

    def forward_buffers(self, x, params, buffers, data, training, rng, logits=False):
        gamma, beta = params
        running = Record({"mean": buffers[0], "var": buffers[1]})
        if not training:
            return batch_norm(x, gamma, beta, training=False, running=running), buffers
        try:
            out = batch_norm(x, gamma, beta, training=True, running=running, momentum=MOMENTUM, eps=EPS)
        except LaminaError as e:
            if not e.message.startswith("batch_norm in training mode needs more than one value"):
                raise
            raise LaminaError("ValueError", "The batch_norm layer got a training batch of one example, "
                              "which has no variance to normalise by: choose a batch_size that leaves no "
                              "last batch of one (fit splits the rows into batches of batch_size and one "
                              "of the rest).") from None
        stats = out.fields["running"].fields
        return out.fields["y"], [stats["mean"], stats["var"]]

    def label(self) -> str:
        return "batch_norm()"


def batch_norm_layer(spec, **options):
    """`spec |> batch_norm()`: the spec with a batch normalisation layer appended."""
    spec = check_spec(spec, "batch_norm")
    no_options(options, "batch_norm(spec)")
    return spec.with_layer(BatchNorm())
