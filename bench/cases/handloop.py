"""The MLP of bench/cases/mlp.py (784-128-10, 60,000 examples, Adam, batch 128) trained
for one epoch by a Lamina program written by hand: each batch wraps the weights with
param(), computes the loss, takes grad and calls optimizer_step, against the same model
trained by fit (the reference of the issue's goal: the loop within 1.3x of fit in time
and in peak memory).

The loop runs inside a Lamina function, once without tape_reset() (a program that
forgets it: each step's history must go when the step's values are rebound) and once
with it at the top of each step. Like fit, the loop shuffles: each batch gathers its
rows by an index list, X[rows, :], from a permutation drawn once per epoch.

Time: the usual timed case. Memory: the peak resident set (ru_maxrss) of a worker
process that built the data (376 MB of X) and trained one epoch, each in its own process.
`bench/run.py --only handloop` runs this module alone.
"""
from __future__ import annotations

import resource

import numpy as np
from peers import lazy  # bench/peers.py

M, INPUTS, HIDDEN, CLASSES, BATCH, LR = 60_000, 784, 128, 10, 128, 0.001
SIZES = f"{M:,} examples, {INPUTS}-{HIDDEN}-{CLASSES}, batch {BATCH}, one epoch"

LOOP = """
function epoch(X, labels, opt, batch)
    m = size(X, 0)
    order = permutation(m)
    for s = 0 to m - 1 step batch
        {reset}
        rows = order[s:min(s + batch, m)]
        p = opt.params
        w1 = param(p.w1)
        b1 = param(p.b1)
        w2 = param(p.w2)
        b2 = param(p.b2)
        loss = cross_entropy(dense(relu(dense(X[rows, :], w1, b1)), w2, b2), labels[rows])
        opt = optimizer_step(opt, grad(loss, wrt = {{w1 = w1, b1 = b1, w2 = w2, b2 = b2}}))
    end for
    return opt
end function
"""


def data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((M, INPUTS))
    labels = (X @ rng.standard_normal((INPUTS, CLASSES))).argmax(axis=1)
    return X, labels.astype(np.float64)


def start_weights():
    rng = np.random.default_rng(1)
    lim1, lim2 = np.sqrt(6 / (INPUTS + HIDDEN)), np.sqrt(6 / (HIDDEN + CLASSES))
    return {"w1": rng.uniform(-lim1, lim1, (INPUTS, HIDDEN)), "b1": np.zeros((1, HIDDEN)),
            "w2": rng.uniform(-lim2, lim2, (HIDDEN, CLASSES)), "b2": np.zeros((1, CLASSES))}


def hand_loop(reset: bool):
    def setup():
        from lamina.interpreter import Interpreter
        from lamina.lang.scope import mangle
        from lamina.values import Record
        X, y = data()
        interp = Interpreter()
        interp.run(LOOP.format(reset="tape_reset()" if reset else ""), "<bench loop>")
        ns = interp.namespace
        ns[mangle("X")], ns[mangle("labels")], ns[mangle("W")] = X, y, Record(start_weights())
        step = interp.compile(f"opt = epoch(X, labels, adam(W, lr = {LR}), {BATCH})", "<bench>")
        return lambda: interp.run_code(step)
    return lazy(setup)


def lamina_fit():
    def setup():
        from lamina.models.compile import compile_model
        from lamina.models.fit import fit
        from lamina.models.layers.dense import dense_layer
        from lamina.models.spec import input_spec
        from lamina.optim.registry import get
        X, y = data()
        spec = dense_layer(dense_layer(input_spec(INPUTS), HIDDEN, "relu"), CLASSES, "softmax")
        model = compile_model(spec, get("adam").with_hp(lr=LR), "cross_entropy", 0)
        return lambda: fit(model, X, y, epochs=1, batch_size=BATCH, verbose=0)
    return lazy(setup)


def peak_rss(run):
    def measure() -> dict:
        run()
        return {"peak RSS": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
    return measure


def cases() -> list[dict]:
    return [
        {"name": "hand-written loop: param/grad/optimizer_step", "sizes": SIZES, "dtype": "float64",
         "repeat": 4, "goal": {"peer": "fit", "within": 1.3},
         "impls": {"lamina": hand_loop(False), "lamina, tape_reset() each step": hand_loop(True),
                   "fit": lamina_fit()},
         "notes": ["lamina: the loop without tape_reset(); like fit, both loops shuffle and gather "
                   "each batch's rows."]},
        {"name": "hand-written loop: peak memory", "sizes": SIZES, "dtype": "float64", "kind": "memory",
         "impls": {"hand-written loop, no tape_reset()": peak_rss(hand_loop(False)),
                   "hand-written loop, tape_reset() each step": peak_rss(hand_loop(True)),
                   "fit": peak_rss(lamina_fit())},
         "notes": ["peak resident set of the whole worker process (ru_maxrss, MB), data included; "
                   "goal: the loop within 1.3x of fit."]},
    ]
