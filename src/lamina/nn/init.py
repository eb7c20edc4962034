"""Weight initializers."""
from __future__ import annotations

import math

import numpy as np


def glorot_uniform(rng: np.random.Generator, rows: int, cols: int) -> np.ndarray:
    """U(-a, a) with a = sqrt(6 / (fan_in + fan_out)) (Glorot & Bengio 2010); a rows x cols matrix."""
    limit = math.sqrt(6.0 / (rows + cols)) if rows + cols else 0.0
    return rng.uniform(-limit, limit, size=(rows, cols))
