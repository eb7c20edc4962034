"""tape_reset() frees what the tape holds: traced memory returns to where it started.

The chain is 10,000 tracked operations on 200x200 tensors (320 KB each). Most
steps are `y .* c` and `y + c` with one constant c: their VJPs keep only c (or
nothing), so every intermediate y is freed as soon as the next step replaces it,
yet each step still leaves an entry on the tape. Every 100th step is `y .* y`,
whose VJP keeps that y alive: 100 saved arrays, about 32 MB, which the tape
alone owns. Peak memory stays near 40 MB while the growth is unmistakable.
"""
import gc
import tracemalloc

import numpy as np

from lamina.autodiff import ops
from lamina.autodiff.tape import TAPE

N, STEPS, SAVE_EVERY = 200, 10_000, 100


def build_chain(x, c):
    y = x
    for i in range(STEPS):
        if i % SAVE_EVERY == 0:
            y = ops.emul(y, y)
        elif i % 2:
            y = ops.emul(y, c)
        else:
            y = ops.add(y, c)
    return y


def traced() -> int:
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


def test_tape_reset_returns_memory_to_where_it_started():
    c = np.full((N, N), 1e-3)
    tracemalloc.start()
    try:
        TAPE.reset()
        build_chain(TAPE.leaf(np.ones((N, N)), True), c)      # warm Python's free lists and caches
        TAPE.reset()
        x = TAPE.leaf(np.ones((N, N)), True)
        start = traced()

        y = build_chain(x, c)
        assert TAPE.size() == STEPS + 1
        del y
        held = traced()

        TAPE.reset()
        after = traced()
    finally:
        tracemalloc.stop()
    saved = (STEPS // SAVE_EVERY) * N * N * 8
    assert held - start > saved                      # without a reset the tape keeps it all
    assert abs(after - start) <= 0.05 * start, (start, held, after)
