"""Random draws beyond rand and randn: integers, choices, shuffles, permutations.

All of them draw from the one global generator (random.generator()), so seed(n) repeats them.
"""
from __future__ import annotations

import numpy as np

from ..autodiff import ops, shaping
from ..errors import LaminaError
from ..rng import generator
from ..stats.args import flag, vector
from ..values import Tracked, as_int, describe, dtype_name, float_array, value_of
from .registry import Const, GradCase, Shape, builtin, refuse_tracked

RANDOM = "Random"


def _count(n, what: str) -> int:
    return as_int(n, what, minimum=0)


@builtin("randint", tracked="constant", category=RANDOM,
         probes="its arguments are sizes and counts",
         shapes=[Shape("randint(lo, hi)", "two whole numbers", "number", "One whole number from lo up to hi - 1."),
                 Shape("randint(lo, hi, n)", "two whole numbers, length", "vector", "n of them."),
                 Shape("randint(lo, hi, r, c)", "two whole numbers, rows, columns", "matrix", "An r x c matrix of them.")],
         summary="Draws random whole numbers, each equally likely, from lo up to but not including hi.",
         examples=["seed(3)\nprint(randint(0, 10, 5))\nprint(randint(1, 7, 2, 3))",
                   "seed(1)\nroll = randint(1, 7)\nprint(roll >= 1 and roll <= 6)"],
         notes="Half-open like range and slices: randint(0, 10) never gives 10. The numbers are "
               "float64 like every Lamina number, and whole. Draws from the global generator that "
               "seed(n) resets.")
def randint(lo, hi, r=None, c=None):
    a, b = as_int(lo, "randint's lo"), as_int(hi, "randint's hi")
    if b <= a:
        raise LaminaError("ValueError", f"randint needs lo < hi, but got {a} and {b}.")
    shape = () if r is None else ((_count(r, "randint's count"),) if c is None else
                                  (_count(r, "randint's row count"), _count(c, "randint's column count")))
    draws = generator().integers(a, b, size=shape)
    return float(draws) if shape == () else draws.astype(np.float64)


def _items(xs, what: str):
    """The items to choose among: a list, a vector's elements, a matrix's rows, or range(k) for a
    count k (not an array of k numbers: choice(1e12, 3) draws three)."""
    v = value_of(xs)
    if isinstance(v, list):
        return v
    if isinstance(v, np.ndarray) and v.ndim in (1, 2):
        return float_array(v)          # float32 stays float32; a mask's items are 0/1 (float64)
    if isinstance(v, float) and not isinstance(v, bool):
        return range(as_int(v, what, minimum=1))
    raise LaminaError("TypeError", f"{what} must be a list, a tensor or a count, not {describe(xs)}.")


def _pick(xs, items, idx):
    """The items at positions idx: list items, or a gather of elements or rows (differentiable)."""
    if isinstance(items, list):
        return [items[i] for i in idx]
    if isinstance(items, range):
        return np.asarray(idx, dtype=np.float64)
    if type(xs) is Tracked:
        return shaping.take(xs, idx)
    return np.take(items, idx, axis=0)    # a fresh array already: no second copy of the data


@builtin("choice", category=RANDOM, twice=True,
         shapes=[Shape("choice(xs)", "vector, matrix or list", "one item", "One element (a matrix: one row), chosen uniformly."),
                 Shape("choice(xs, n)", "vector, matrix or list, count", "vector, matrix or list",
                       "n items drawn with replacement."),
                 Shape("choice(xs, n, replace = false)", "items, count", "the same", "n distinct items (no repeats)."),
                 Shape("choice(xs, n, p = weights)", "items, count, probabilities", "the same",
                       "Items drawn with the given probabilities."),
                 Shape("choice(k, n)", "count, count", "vector", "n draws from 0, 1, ..., k - 1.")],
         summary="Draws items at random from a vector, the rows of a matrix, a list, or 0 to k - 1.",
         examples=['seed(2)\nprint(choice(["rock", "paper", "scissors"]))\nprint(choice([10, 20, 30], 5))',
                   "seed(4)\nprint(choice(10, 3, replace = false))\nprint(choice([0, 1], 8, p = [0.9, 0.1]))"],
         notes="With replacement (the default) an item can be drawn more than once; replace = false "
               "draws distinct items, so n may not exceed their number. p holds one probability per "
               "item, summing to 1. Draws from the global generator that seed(n) resets. "
               "Differentiable: each drawn element (or row) passes its gradient back to the item "
               "it was drawn from, and an item drawn twice gets both; the probabilities p get "
               "none (a tracked p is a TypeError).",
         grad=[GradCase(((5,), Const(8.0)), reseed=True), GradCase(((4, 2), Const(3.0)), {"replace": False}, reseed=True),
               GradCase(((5,),), reseed=True), GradCase(((3, 2),), reseed=True)])
def choice(xs, n=None, replace=True, p=None):
    if type(xs) is Tracked and type(xs.value) is float:
        xs = xs.value                  # a count (choice(k)): what is drawn has no gradient
    items = _items(xs, "choice's items")
    m = len(items)
    if m == 0:
        raise LaminaError("ValueError", "choice needs at least one item to choose from.")
    weights = None
    if p is not None:
        refuse_tracked("choice's p", (p,))
        # float32 probabilities (a float32 softmax) sum to 1 only to float32's precision
        tolerance = 1e-8 if dtype_name(p) != "float32" else float(np.sqrt(np.finfo(np.float32).eps))
        weights = vector(p, "choice's p")
        if weights.size != m or not np.all(weights >= 0) or not abs(weights.sum() - 1) <= tolerance:
            raise LaminaError("ValueError", f"choice's p must hold {m} probabilities (one per item), "
                              f"each at least 0, summing to 1.")
        weights = weights / weights.sum()          # to the float64 sum that NumPy checks
    with_replacement = flag(replace, "choice's replace")
    if n is None:
        i = int(generator().choice(m, p=weights))
        if type(xs) is Tracked:
            return ops.index(xs, (i,) if xs.value.ndim == 1 else (i, slice(None)))
        item = _pick(xs, items, [i])[0]
        return float(item) if isinstance(item, np.floating) else item     # numbers are float64
    count = _count(n, "choice's count")
    if not with_replacement and count > m:
        raise LaminaError("ValueError", f"choice cannot draw {count} distinct items from {m}.")
    if not with_replacement and weights is not None and count > np.count_nonzero(weights):
        raise LaminaError("ValueError", f"choice cannot draw {count} distinct items when p gives only "
                          f"{np.count_nonzero(weights)} of them a probability above 0.")
    idx = generator().choice(m, size=count, replace=with_replacement, p=weights)
    return _pick(xs, items, idx)


@builtin("shuffle", category=RANDOM, twice=True,
         shapes=[Shape("shuffle(v)", "vector", "vector", "The elements in a random order."),
                 Shape("shuffle(m)", "matrix", "matrix", "The rows in a random order."),
                 Shape("shuffle(xs)", "list", "list", "The items in a random order.")],
         summary="Returns the elements of a vector, rows of a matrix or items of a list in a random order.",
         examples=["seed(5)\nprint(shuffle([1, 2, 3, 4, 5]))", 'seed(5)\nprint(shuffle(["a", "b", "c"]))'],
         notes="A new value: the argument is unchanged (values are never changed in place). Every "
               "order is equally likely. To shuffle two matrices the same way (examples and their "
               "labels), draw one order with permutation and index with it row by row, or use "
               "train_test_split. Draws from the global generator that seed(n) resets. "
               "Differentiable: each element (or row) keeps its gradient wherever it lands.",
         grad=[GradCase(((5,),), reseed=True), GradCase(((4, 3),), reseed=True)])
def shuffle(xs):
    if isinstance(value_of(xs), float):
        raise LaminaError("TypeError", "shuffle needs a vector, matrix or list; permutation(n) shuffles 0 to n - 1.")
    items = _items(xs, "shuffle's argument")
    return _pick(xs, items, generator().permutation(len(items)))


@builtin("permutation", elsewhere={"randperm": "MATLAB"},
         tracked="constant", category=RANDOM,
         probes="its arguments are sizes and counts",
         shapes=[Shape("permutation(n)", "count", "vector", "0, 1, ..., n - 1 in a random order.")],
         summary="A random ordering of the indices 0 to n - 1.",
         examples=["seed(6)\nprint(permutation(6))",
                   "seed(6)\norder = permutation(3)\nnames = [\"a\", \"b\", \"c\"]\n"
                   "for i in order\n    print(names[i])\nend for"],
         notes="Use it to reorder several values the same way: index each with the same "
               "permutation. Draws from the global generator that seed(n) resets.")
def permutation(n):
    return generator().permutation(_count(n, "permutation's n")).astype(np.float64)


