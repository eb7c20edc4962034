"""A value's history lives as long as the value: the tape itself keeps nothing alive.

The chain is 10,000 tracked operations on 200x200 tensors (320 KB each). Most
steps are `y .* c` and `y + c` with one constant c: their VJPs keep only c (or
nothing), so every intermediate y is freed as soon as the next step replaces it,
yet each step still leaves an entry in the history of the result. Every 100th step is
`y .* y`, whose VJP keeps that y alive: 100 saved arrays, about 32 MB, which the
result's history alone owns. Once the result is gone (no tape_reset() needed), the
memory returns to where it started.
"""
import gc
import tracemalloc
import weakref

import numpy as np
import pytest

from lamina.autodiff import ops
from lamina.autodiff.tape import TAPE

pytestmark = pytest.mark.ownership      # .ci/run runs these on every Python

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


def test_the_history_is_freed_with_the_last_value_that_needs_it():
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
        held = traced()                              # y can still be differentiated: all kept
        del y
        after = traced()                             # no tape_reset(): freed with y
    finally:
        tracemalloc.stop()
    saved = (STEPS // SAVE_EVERY) * N * N * 8
    assert held - start > saved
    assert abs(after - start) <= 0.05 * start, (start, held, after)


def test_a_step_of_a_training_loop_frees_its_activations_after_grad():
    """The arrays a step's VJPs saved die when the step's values are rebound, reset or not."""
    from lamina.autodiff.grad import grad
    from lamina.nn.activations import relu
    from lamina.nn.dense import dense
    from lamina.nn.losses import mse

    rng = np.random.default_rng(0)
    X, Y = rng.standard_normal((16, 4)), rng.standard_normal((16, 1))
    W1, W2 = rng.standard_normal((4, 8)), rng.standard_normal((8, 1))
    saved = []
    for _ in range(3):
        w1, w2 = TAPE.leaf(W1, True), TAPE.leaf(W2, True)
        hidden = relu(dense(X, w1))
        saved.append(weakref.ref(hidden.value))          # kept by the relu's and the mul's VJPs
        loss = mse(dense(hidden, w2), Y)
        g1, g2 = grad(loss, [w1, w2])
        del hidden
        assert saved[-1]() is not None                   # the loss may still be differentiated
        W1, W2 = W1 - 0.01 * g1, W2 - 0.01 * g2
        del loss, w1, w2
        assert saved[-1]() is None                       # nothing else holds the step's history
    assert TAPE.size() > 3 * 5                           # every step was recorded, none reset
