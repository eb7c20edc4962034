"""Benchmark cases for the model API (bench protocol: `cases()` returns case dicts).

One epoch of a 784-H-10 MLP (relu hidden layer, softmax output with cross-entropy,
Adam at lr 0.001, batch 128, shuffled) on the CPU: Lamina's fit against PyTorch
(nn.Linear, ReLU, CrossEntropyLoss, torch.optim.Adam; default thread count) and
against the same training written by hand in NumPy (forward, backward and Adam, no
tape, every update in place), which shows what the model API and the tape add.
Every peer shuffles, gathers each batch's rows, and takes one optimizer step per batch.

Sizes: H = 128 on 60,000 examples (469 steps), H = 512 and 2048 on 16,000 (125 steps),
in float64; and H = 128 in float32, where Lamina's side uses the float32 API
(`compile(..., dtype = "float32")`): without it in this build that row says so.

The data: X standard normal, labels the argmax of a fixed random linear map of X
(so the task is learnable), built on a worker's first call (`lazy`), so each worker
makes only its own case's. `bench/run.py --only mlp` runs this module alone.
"""
from __future__ import annotations

import numpy as np
from peers import lazy, needs, torch_epoch  # bench/peers.py

INPUTS, CLASSES, BATCH, LR = 784, 10, 128, 0.001
NUMPY = "numpy (by hand, no tape)"
ROUNDS_128 = 8


def data(m: int, dtype=np.float64):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((m, INPUTS))
    labels = (X @ rng.standard_normal((INPUTS, CLASSES))).argmax(axis=1)
    return X.astype(dtype, copy=False), labels.astype(dtype)


def sizes(m: int, hidden: int) -> str:
    return f"{m:,} examples, {INPUTS}-{hidden}-{CLASSES}, batch {BATCH}, one epoch"


# -- Lamina -----------------------------------------------------------------------------
def lamina_fit(m: int, hidden: int):
    def setup():
        from lamina.models.compile import compile_model
        from lamina.models.fit import fit
        from lamina.models.layers.dense import dense_layer
        from lamina.models.spec import input_spec
        from lamina.optim.registry import get
        X, y = data(m)
        spec = dense_layer(dense_layer(input_spec(INPUTS), hidden, "relu"), CLASSES, "softmax")
        model = compile_model(spec, get("adam").with_hp(lr=LR), "cross_entropy", 0)
        return lambda: fit(model, X, y, epochs=1, batch_size=BATCH, verbose=0)
    return lazy(setup)


F32_PROGRAM = """
net = input({inputs}) |> dense({hidden}, activation = "relu") |> dense({classes}, activation = "softmax") |>
      compile(optimizer = adam(lr = {lr}), loss = "cross_entropy", seed = 0, dtype = "float32")
"""


def lamina_f32_missing() -> str | None:
    """Why Lamina's float32 row cannot run in this build, or None when it can."""
    from lamina.errors import LaminaError
    from lamina.interpreter import Interpreter
    try:
        Interpreter().run(F32_PROGRAM.format(inputs=3, hidden=2, classes=2, lr=LR), "<bench probe>")
    except LaminaError as e:
        return f"compile(..., dtype = \"float32\") is not in this build ({e.kind})"
    return None


def lamina_fit_f32(m: int, hidden: int):
    def setup():
        from lamina.interpreter import Interpreter
        from lamina.lang.scope import mangle
        X, y = data(m, np.float32)
        interp = Interpreter()
        interp.run(F32_PROGRAM.format(inputs=INPUTS, hidden=hidden, classes=CLASSES, lr=LR), "<bench>")
        interp.namespace[mangle("X")], interp.namespace[mangle("Y")] = X, y
        step = interp.compile(f"trained = fit(net, X, Y, epochs = 1, batch_size = {BATCH}, verbose = 0)",
                              "<bench>")
        return lambda: interp.run_code(step)
    return lazy(setup)


# -- NumPy by hand ----------------------------------------------------------------------
def numpy_fit(m: int, hidden: int, dtype=np.float64):
    def setup():
        X, y = data(m, dtype)
        rng = np.random.default_rng(0)
        lim1, lim2 = np.sqrt(6 / (INPUTS + hidden)), np.sqrt(6 / (hidden + CLASSES))
        start = [rng.uniform(-lim1, lim1, (INPUTS, hidden)), np.zeros(hidden),
                 rng.uniform(-lim2, lim2, (hidden, CLASSES)), np.zeros(CLASSES)]
        start = [p.astype(dtype) for p in start]
        labels = y.astype(np.int64)
        b1, b2, eps = 0.9, 0.999, 1e-8

        def run():
            params = [p.copy() for p in start]
            ms = [np.zeros_like(p) for p in params]
            vs = [np.zeros_like(p) for p in params]
            order = rng.permutation(m)
            for t, s in enumerate(range(0, m, BATCH), start=1):
                rows = order[s:s + BATCH]
                xb, yb = X[rows], labels[rows]
                W1, c1, W2, c2 = params
                h = xb @ W1
                h += c1
                np.maximum(h, 0.0, out=h)
                z = h @ W2
                z += c2
                z -= z.max(axis=1, keepdims=True)
                np.exp(z, out=z)
                z /= z.sum(axis=1, keepdims=True)                  # softmax probabilities
                z[np.arange(len(rows)), yb] -= 1.0
                z /= len(rows)                                     # d loss / d logits
                dh = z @ W2.T
                dh *= h > 0
                grads = [xb.T @ dh, dh.sum(axis=0), h.T @ z, z.sum(axis=0)]
                step = LR * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)
                for p, g, mo, v in zip(params, grads, ms, vs):
                    mo *= b1
                    mo += (1 - b1) * g
                    v *= b2
                    v += (1 - b2) * g * g
                    p -= step * mo / (np.sqrt(v) + eps * np.sqrt(1 - b2 ** t))
            return params
        return run
    return lazy(setup)


# -- PyTorch ----------------------------------------------------------------------------
def torch_fit(m: int, hidden: int, dtype: str = "float64"):
    return needs("torch") or lazy(lambda: _torch_fit(m, hidden, dtype))


def _torch_fit(m: int, hidden: int, dtype: str):
    import torch
    torch.manual_seed(0)
    X, y = data(m, np.float32 if dtype == "float32" else np.float64)
    Xt, yt = torch.from_numpy(X), torch.from_numpy(y.astype(np.int64))
    net = torch.nn.Sequential(torch.nn.Linear(INPUTS, hidden), torch.nn.ReLU(),
                              torch.nn.Linear(hidden, CLASSES)).to(getattr(torch, dtype))
    return torch_epoch(net, Xt, yt, LR, BATCH)


def cases() -> list[dict]:
    out = []
    for m, hidden in [(60_000, 128), (16_000, 512), (16_000, 2048)]:
        case = {"name": f"mlp: fit one epoch, hidden {hidden}", "sizes": sizes(m, hidden),
                "dtype": "float64", "repeat": 4, "goal": {"peer": NUMPY, "within": 1.05},
                "impls": {"lamina": lamina_fit(m, hidden), "torch": torch_fit(m, hidden),
                          NUMPY: numpy_fit(m, hidden)}}
        if hidden == 128:
            # With two BLAS threads an epoch here takes about 0.8 s or 1.2 s depending on the
            # process, on every side (bench/NOTES.md): eight processes per peer, one run each.
            case.update(allocator=True, repeat=ROUNDS_128, rounds=ROUNDS_128)
            case["notes"] = ["Lamina's fit checks and one-hot encodes Y once per call (about 2 ms); "
                             "its optimizer value stays immutable, and fit trains a private copy "
                             "of it in place."]
        out.append(case)
    m, hidden = 60_000, 128
    missing = lamina_f32_missing()
    out.append({"name": f"mlp: fit one epoch, hidden {hidden}, float32", "sizes": sizes(m, hidden),
                "dtype": "float32", "repeat": ROUNDS_128, "rounds": ROUNDS_128, "goal": {"peer": "torch float32", "within": 1.0},
                "impls": {"lamina": missing or lamina_fit_f32(m, hidden),
                          "torch float32": torch_fit(m, hidden, "float32"),
                          "numpy float32 (by hand)": numpy_fit(m, hidden, np.float32)}})
    return out
