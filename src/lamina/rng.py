"""The one global random generator: `seed(n)` resets it, every random builtin draws from it.

Made on first use: importing numpy.random costs start-up about 15 ms.
"""
from __future__ import annotations

from contextlib import contextmanager

import numpy as np

_state = {"rng": None}


def generator() -> np.random.Generator:
    """The global generator (NumPy's PCG64)."""
    if _state["rng"] is None:
        _state["rng"] = np.random.default_rng()
    return _state["rng"]


def reseed(n: int) -> None:
    _state["rng"] = np.random.default_rng(n)


@contextmanager
def isolated():
    """The global generator as it was after the block, whatever the block seeded or drew."""
    saved = _state["rng"]
    try:
        yield
    finally:
        _state["rng"] = saved
