"""The one global random generator and the builtins that draw from it."""
from __future__ import annotations

import numpy as np

from ..autodiff.shaping import dtype_of
from ..rng import generator, reseed
from ..values import as_int
from .registry import Shape, builtin

RANDOM = "Random"


def _dims(r, c, name: str) -> tuple:
    if r is None:
        return ()
    rows = as_int(r, f"{name}'s row count", minimum=0)
    if c is None:
        return (rows,)
    return (rows, as_int(c, f"{name}'s column count", minimum=0))


def _draw(shape: tuple, draw, dtype: str, name: str, below_one: bool = False):
    """Draws in float64, then converted: rand(n, dtype = "float32") is float32(rand(n)), but below 1."""
    kind = dtype_of(dtype, f"{name}'s dtype")
    out = draw(shape)
    if shape == ():
        return float(out)
    out = out.astype(kind, copy=False)
    if below_one and kind is np.float32:    # a draw just below 1 rounds up to 1 in float32: keep [0, 1)
        np.minimum(out, np.nextafter(kind(1), kind(0)), out=out)
    return out


@builtin("seed", tracked="constant", category=RANDOM,
         probes="its arguments are sizes and counts",
         shapes=[Shape("seed(n)", "whole number", "no output", "Resets the global generator.")],
         summary="Seeds the one global random generator, so that random results repeat.",
         examples=['seed(42)\na = rand()\nseed(42)\nprint(a == rand())'],
         notes="Lamina has one global generator (NumPy's PCG64). rand, randn, randint, dropout and "
               "every other random builtin draw from it, so one seed at the top makes a whole "
               "program repeatable.")
def seed(n):
    reseed(as_int(n, "seed", minimum=0))


@builtin("rand", tracked="constant", category=RANDOM,
         probes="its arguments are sizes and counts",
         shapes=[Shape("rand()", "no input", "number", "One uniform number in [0, 1)."),
                 Shape("rand(n)", "length", "vector", "n uniform numbers."),
                 Shape("rand(r, c)", "rows, columns", "matrix", "An r x c matrix of uniform numbers."),
                 Shape('rand(r, c, dtype = "float32")', "sizes; dtype name", "vector or matrix",
                       'The same draws in float32 (a number stays a number, float64).')],
         summary="Draws uniform random numbers in [0, 1) from the global generator.",
         examples=['seed(1)\nx = rand(2, 3)\nprint(size(x))\nprint(all(x >= 0) and all(x < 1))'],
         notes="Draws from the generator that seed(n) resets.")
def rand(r=None, c=None, dtype="float64"):
    return _draw(_dims(r, c, "rand"), generator().random, dtype, "rand", below_one=True)


@builtin("randn", tracked="constant", category=RANDOM,
         probes="its arguments are sizes and counts",
         shapes=[Shape("randn()", "no input", "number", "One standard normal number."),
                 Shape("randn(n)", "length", "vector", "n standard normal numbers."),
                 Shape("randn(r, c)", "rows, columns", "matrix", "An r x c standard normal matrix."),
                 Shape('randn(r, c, dtype = "float32")', "sizes; dtype name", "vector or matrix",
                       'The same draws in float32 (a number stays a number, float64).')],
         summary="Draws standard normal random numbers (mean 0, variance 1) from the global generator.",
         examples=['seed(1)\nz = randn(1000)\nprint(abs(mean(z)) < 0.1)'],
         notes="Draws from the generator that seed(n) resets.")
def randn(r=None, c=None, dtype="float64"):
    return _draw(_dims(r, c, "randn"), generator().standard_normal, dtype, "randn")
