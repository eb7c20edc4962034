"""Memory of 1,000 training steps, with tape_reset() after each step and without it.

A Lamina program trains a 32-64-1 relu MLP on a 64 x 32 batch: each step wraps the
weights with param(), computes the mse loss, takes grad and updates the weights. One
run calls tape_reset() at the end of every step, the other never does. The tape used to
keep every step's entries and the arrays their gradient rules saved until a reset; now each
value owns its history (autodiff/tape.py), so a step's arrays go when the next step rebinds
its values, and both runs should stay flat.

Memory is what tracemalloc traces (Python objects and NumPy's array data) above the
level before the first step: after 10, 100 and 1,000 steps, and the peak. Each run is its own process (the
bench runner), so the numbers do not mix.
"""
from __future__ import annotations

import tracemalloc

from lamina.interpreter import Interpreter

STEPS = 1000
SAMPLES = (10, 100, 1000)
SIZES = "1,000 steps, 32-64-1 relu MLP, batch 64, mse"

SETUP = """
seed(0)
X = randn(64, 32)
Y = randn(64, 1)
W1 = randn(32, 64) * 0.1
b1 = zeros(1, 64)
W2 = randn(64, 1) * 0.1
b2 = zeros(1, 1)
"""

STEP = """
w1 = param(W1)
c1 = param(b1)
w2 = param(W2)
c2 = param(b2)
loss = mse(dense(relu(dense(X, w1, c1)), w2, c2), Y)
g = grad(loss, wrt = [w1, c1, w2, c2])
W1 = W1 - 0.01 * g[0]
b1 = b1 - 0.01 * g[1]
W2 = W2 - 0.01 * g[2]
b2 = b2 - 0.01 * g[3]
"""


def train(reset: bool):
    def run() -> dict:
        interp = Interpreter()
        interp.run(SETUP, "<bench setup>")
        step = interp.compile(STEP + ("tape_reset()\n" if reset else ""), "<bench step>")
        for _ in range(20):            # caches, builtins and NumPy paths warmed before tracing
            interp.run_code(step)
        interp.run("tape_reset()", "<bench>")
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        out = {}
        for i in range(1, STEPS + 1):
            interp.run_code(step)
            if i in SAMPLES:
                out[f"after {i:,} steps"] = (tracemalloc.get_traced_memory()[0] - base) / 1e6
        out["peak"] = (tracemalloc.get_traced_memory()[1] - base) / 1e6
        tracemalloc.stop()
        return out
    return run


def cases() -> list[dict]:
    return [{"name": "memory: 1,000 training steps", "sizes": SIZES, "dtype": "float64", "kind": "memory",
             "impls": {"lamina, tape_reset() each step": train(True),
                       "lamina, no tape_reset()": train(False)},
             "notes": ["traced memory (tracemalloc: Python objects and NumPy arrays) above the level "
                       "before the first step."]}]
