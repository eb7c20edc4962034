"""The global_avg_pool layer: each channel's mean over all of an example's spatial axes, as
Keras's GlobalAveragePooling1D / 2D. An h x w x c image (or a steps x c sequence) becomes c
numbers; no weights; one tape entry (nn.pool)."""
from __future__ import annotations

from dataclasses import dataclass

from ...errors import LaminaError
from ...nn import pool
from ..layer import DataShape, Layer, no_options, register
from ..spec import check_spec


@register
@dataclass(frozen=True)
class GlobalAvgPool(Layer):
    kind = "global_avg_pool"
    example = 'input(4, 4, 3) |> global_avg_pool()'

    def output(self, data: DataShape) -> DataShape:
        if data.rank < 2:
            raise LaminaError("ShapeError", f"global_avg_pool averages over the spatial axes of sequences "
                              f"(steps x channels) or images (h x w x channels); its input here is "
                              f"{data.describe()} per example.")
        return DataShape((data.features,))

    def forward(self, x, params, data, training, rng, logits=False):
        return pool.global_avg_pool(x)

    def label(self) -> str:
        return "global_avg_pool()"


def global_avg_pool_layer(spec, **options):
    """`spec |> global_avg_pool()`: the spec with the layer appended."""
    spec = check_spec(spec, "global_avg_pool")
    no_options(options, "global_avg_pool(spec)")
    return spec.with_layer(GlobalAvgPool())
