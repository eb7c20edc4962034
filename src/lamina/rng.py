"""The one global random generator: `seed(n)` resets it, every random builtin draws from it.

Made on first use: importing numpy.random costs start-up about 15 ms.
"""
from __future__ import annotations

import numpy as np

_state = {"rng": None}


def generator() -> np.random.Generator:
    """The global generator (NumPy's PCG64)."""
    if _state["rng"] is None:
        _state["rng"] = np.random.default_rng()
    return _state["rng"]


def reseed(n: int) -> None:
    _state["rng"] = np.random.default_rng(n)
