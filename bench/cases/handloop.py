"""The MLP of bench/cases/mlp.py (784-128-10, 60,000 examples, Adam, batch 128) trained
for one epoch by a Lamina program written by hand: each batch wraps the weights with
param(), computes the loss, takes grad and calls optimizer_step, against the same model
trained by fit (the reference of the issue's goal: the loop within 1.3x of fit in time
and in peak memory).

The loop runs inside a Lamina function, once without tape_reset() (a program that
forgets it: each step's history must go when the step's values are rebound) and once
with it at the top of each step. Like fit, the loop shuffles: each batch gathers its
rows by an index list, X[rows, :], from a permutation drawn once per epoch.

The second pair of cases is the loop as users write it (issue 36): each epoch shuffles the
rows of the data with its labels, `A = shuffle(hcat(X, y))`, each batch is a slice of A, and
each step resets the tape, wraps the optimizer's parameters as a record with param() and steps
with grad of the loss. Those two copies of the data (hcat's and shuffle's, 377 MB each) are
the program's own; its memory goal is the peak less them, against fit's peak.

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

USER_LOOP = """
function epoch(X, y, opt, batch)
    m = size(X, 0)
    A = shuffle(hcat(X, y))
    for s = 0 to m - 1 step batch
        tape_reset()
        B = A[s:min(s + batch, m), :]
        ps = opt._params
        q = param({W1 = ps[0], b1 = ps[1], W2 = ps[2], b2 = ps[3]})
        loss = cross_entropy(dense(relu(dense(B[:, 0:784], q.W1, q.b1)), q.W2, q.b2), B[:, 784])
        opt = optimizer_step(opt, grad(loss, wrt = q))
    end for
    return opt
end function
"""
COPIES = "shuffle(hcat(X, y)) alone"
DATA_COPIES_MB = 2 * M * (INPUTS + 1) * 8 / 2 ** 20     # hcat(X, y) and its shuffle


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


def user_loop():
    def setup():
        from lamina.interpreter import Interpreter
        from lamina.lang.scope import mangle
        from lamina.values import Record
        X, y = data()
        interp = Interpreter()
        interp.run(USER_LOOP, "<bench user loop>")
        ns = interp.namespace
        weights = start_weights()
        ns[mangle("X")], ns[mangle("y")] = X, y
        ns[mangle("W")] = Record({"W1": weights["w1"], "b1": weights["b1"], "W2": weights["w2"],
                                  "b2": weights["b2"]})
        step = interp.compile(f"opt = epoch(X, y, adam(W, lr = {LR}), {BATCH})", "<bench>")
        return lambda: interp.run_code(step)
    return lazy(setup)


def data_copies():
    """The program's own per-epoch copies alone, `A = shuffle(hcat(X, y))`: subtracted from the
    user loop's time to compare the training with fit's."""
    def setup():
        from lamina.interpreter import Interpreter
        from lamina.lang.scope import mangle
        X, y = data()
        interp = Interpreter()
        ns = interp.namespace
        ns[mangle("X")], ns[mangle("y")] = X, y
        step = interp.compile("A = shuffle(hcat(X, y))\nA = 0", "<bench>")
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


def peak_rss(run, own_copies_mb: float | None = None):
    """The worker's peak RSS; with `own_copies_mb` (0 for a peer that makes none), also the peak
    less the copies of the data the program itself makes."""
    def measure() -> dict:
        run()
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        if own_copies_mb is None:
            return {"peak RSS": peak}
        return {"peak RSS": peak, "less the program's data copies": peak - own_copies_mb}
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
        {"name": "hand-written loop as users write it: shuffle(hcat(X, y)), slices, param(record)",
         "sizes": SIZES, "dtype": "float64", "repeat": 4,
         "goal": {"peer": "fit", "within": 1.3, "less": COPIES},
         "impls": {"lamina": user_loop(), "fit": lamina_fit(), COPIES: data_copies()},
         "notes": ["each epoch A = shuffle(hcat(X, y)); each batch B = A[s:e, :], tape_reset(), "
                   "q = param({W1 = ps[0], ...}) from opt._params, grad, optimizer_step. The goal "
                   "is the loop's median less the program's own copies' (the third peer's) within "
                   "1.3x of fit's."]},
        {"name": "hand-written loop as users write it: peak memory", "sizes": SIZES, "dtype": "float64",
         "kind": "memory",
         "impls": {"hand-written loop": peak_rss(user_loop(), DATA_COPIES_MB), "fit": peak_rss(lamina_fit(), 0.0)},
         "notes": [f"peak resident set (ru_maxrss, MB), data included; the loop's second row "
                   f"subtracts the two copies of the data the program itself makes (hcat and "
                   f"shuffle, {DATA_COPIES_MB:.0f} MB): goal within 1.3x of fit."]},
    ]
