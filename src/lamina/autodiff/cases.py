"""The gradient check's vocabulary: how an op or builtin declares its finite-difference cases.

Operators declare theirs in ops.OPERATORS, builtins beside their registration; gradcheck.py
runs them all.
"""
from __future__ import annotations

from ..fields import Frozen


class Const(Frozen):
    """A fixed, non-differentiated argument in a GradCase."""

    def __init__(self, value: object):
        self.value = value


class GradCase(Frozen):
    """One finite-difference check: arguments as shapes of random tracked inputs.

    Each entry of `args` is a shape tuple — `()` a scalar, `(4,)` a vector,
    `(3, 2)` a matrix — for a random input that is differentiated against, or a
    `Const(value)` passed as it is. `domain` picks the random inputs:
    "real" (standard normal), "positive" (0.5 to 2), "unit" (0.1 to 0.9),
    "away_from_zero" (|x| from 0.5 to 2, random sign), "invertible" (standard normal, and a
    square matrix made diagonally dominant), "spd" (a square matrix symmetric positive definite,
    B B' / n + I; finite differences then move A[i, j] and A[j, i] together, and the gradient must
    be symmetric), "with_nan" (standard normal with the
    first element of each tensor NaN, for skipnan). `reseed`: the function draws random
    numbers, so the global generator is reseeded before each call (every call draws the same).
    `rounds`: the function rounds its result to float32, so the finite differences take a
    larger step and the comparison float32's tolerance (gradcheck.check).
    """

    def __init__(self, args: tuple, kwargs: dict | None = None, domain: str = "real", reseed: bool = False,
                 rounds: bool = False):
        self.args = args
        self.kwargs = {} if kwargs is None else kwargs
        self.domain, self.reseed, self.rounds = domain, reseed, rounds
