"""The one global random generator and the builtins that draw from it."""
from __future__ import annotations

import numpy as np

from ..autodiff.shaping import dtype_of, sizes
from ..rng import generator, reseed
from ..values import as_int
from .registry import Shape, builtin

RANDOM = "Random"


def _dims(dims: tuple, name: str) -> tuple:
    # rand(n)'s one size has always been its "row count" in messages (tests/cluster expects it)
    return sizes(dims, lambda word: f"{name}'s {'row count' if word == 'length' else word}")


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


@builtin("seed", elsewhere={"manual_seed": "PyTorch"},
         tracked="constant", category=RANDOM,
         probes="its arguments are sizes and counts",
         shapes=[Shape("seed(n)", "whole number", "no output", "Resets the global generator.")],
         summary="Seeds the one global random generator, so that random results repeat.",
         examples=['seed(42)\na = rand()\nseed(42)\nprint(a == rand())'],
         notes="Lamina has one global generator (NumPy's PCG64). rand, randn, randint, dropout and "
               "every other random builtin draw from it, so one seed at the top makes a whole "
               "program repeatable.")
def seed(n):
    reseed(as_int(n, "seed", minimum=0))


def _draw_doc(name: str, what: str, summary: str, example: str) -> dict:
    """The page of rand and randn: sizes as numbers or as one vector of them."""
    return dict(
        category=RANDOM, tracked="constant", probes="its arguments are sizes and counts",
        shapes=[Shape(f"{name}()", "no input", "number", f"One {what} number."),
                Shape(f"{name}(n)", "length", "vector", f"n {what} numbers."),
                Shape(f"{name}(r, c)", "rows, columns", "matrix", f"An r x c matrix of {what} numbers."),
                Shape(f"{name}(d0, d1, d2, ...)", "sizes", "array",
                      f"An array of that shape: {name}(2, 3, 4) is 2 x 3 x 4."),
                Shape(f"{name}(dims)", "vector of sizes", "tensor",
                      f"The shape given as a vector: {name}(size(a)) is shaped like a."),
                Shape(f'{name}(r, c, dtype = "float32")', "sizes; dtype name", "tensor",
                      'The same draws in float32 (a number stays a number, float64).')],
        summary=summary, examples=[example],
        notes="Draws from the generator that seed(n) resets, in row-major order (the last axis "
              f"fastest), so {name}(2, 3, 4) holds the same numbers as reshape({name}(24), 2, 3, 4) "
              f"after the same seed. Sizes are whole numbers, 0 or more, given one by one or as one "
              f"vector (MATLAB takes both); the empty vector (size of a number) gives one number.")


@builtin("rand", elsewhere={"runif": "R"},
         **_draw_doc("rand", "uniform", "Draws uniform random numbers in [0, 1) from the "
                             "global generator.",
                             'seed(1)\nx = rand(2, 3)\nprint(size(x))\nprint(all(x >= 0) and all(x < 1))\n'
                             'print(size(rand(2, 3, 4)))'))
def rand(*dims, dtype="float64"):
    return _draw(_dims(dims, "rand"), generator().random, dtype, "rand", below_one=True)


@builtin("randn", elsewhere={"rnorm": "R"},
         **_draw_doc("randn", "standard normal", "Draws standard normal random numbers (mean "
                              "0, variance 1) from the global generator.",
                              'seed(1)\nz = randn(1000)\nprint(abs(mean(z)) < 0.1)\n'
                              'print(size(randn(size(zeros(2, 3, 4)))))'))
def randn(*dims, dtype="float64"):
    return _draw(_dims(dims, "randn"), generator().standard_normal, dtype, "randn")
