"""The avg_pool layer: max_pool's windows (max_pool.py) averaged instead, as Keras's
AveragePooling1D / AveragePooling2D (padding is not counted in a window's mean)."""
from __future__ import annotations

from dataclasses import dataclass

from ...nn import pool
from ..layer import register
from .max_pool import Pool, pool_layer


@register
@dataclass(frozen=True)
class AvgPool(Pool):
    kind = "avg_pool"
    example = 'input(6, 6, 2) |> avg_pool(3, stride = 1, padding = "same")'
    op = staticmethod(pool.avg_pool)


def avg_pool_layer(spec, size=None, stride=None, padding="valid", **options):
    return pool_layer(AvgPool, spec, size, stride, padding, **options)
