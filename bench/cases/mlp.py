"""Benchmark cases for the model API (bench protocol: `cases()` returns case dicts).

One epoch of a 784-128-10 MLP (relu hidden layer, softmax output with
cross-entropy, Adam at lr 0.001, batch 128, shuffled) over 60,000 synthetic
examples, float64 on the CPU: Lamina's fit against PyTorch (nn.Linear, ReLU,
CrossEntropyLoss, torch.optim.Adam; default thread count) and against the same
training written by hand in NumPy (forward, backward and Adam, no tape), which
shows what the model API and the tape add. Every peer shuffles, gathers each
batch's rows, and takes one optimizer step per batch: 469 steps an epoch.

The data: X standard normal, labels the argmax of a fixed random linear map of X
(so the task is learnable). `bench/run.py --only mlp` runs this case alone.
"""
from __future__ import annotations

import numpy as np
from peers import lazy, needs  # bench/peers.py

from lamina.models.compile import compile_model
from lamina.models.fit import fit
from lamina.models.layers.dense import dense_layer
from lamina.models.spec import input_spec
from lamina.optim.registry import get

M, INPUTS, HIDDEN, CLASSES, BATCH, LR = 60_000, 784, 128, 10, 128, 0.001
SIZES = f"{M} examples, {INPUTS}-{HIDDEN}-{CLASSES}, batch {BATCH}, one epoch"


def data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((M, INPUTS))
    labels = (X @ rng.standard_normal((INPUTS, CLASSES))).argmax(axis=1)
    return X, labels.astype(np.float64)


def lamina_fit(X, y):
    spec = dense_layer(dense_layer(input_spec(INPUTS), HIDDEN, "relu"), CLASSES, "softmax")
    model = compile_model(spec, get("adam").with_hp(lr=LR), "cross_entropy", 0)

    def run():
        return fit(model, X, y, epochs=1, batch_size=BATCH, verbose=0)
    return run


def numpy_fit(X, y):
    rng = np.random.default_rng(0)
    lim1, lim2 = np.sqrt(6 / (INPUTS + HIDDEN)), np.sqrt(6 / (HIDDEN + CLASSES))
    start = [rng.uniform(-lim1, lim1, (INPUTS, HIDDEN)), np.zeros(HIDDEN),
             rng.uniform(-lim2, lim2, (HIDDEN, CLASSES)), np.zeros(CLASSES)]
    labels = y.astype(np.int64)
    b1, b2, eps = 0.9, 0.999, 1e-8

    def run():
        params = [p.copy() for p in start]
        ms = [np.zeros_like(p) for p in params]
        vs = [np.zeros_like(p) for p in params]
        order = rng.permutation(M)
        for t, s in enumerate(range(0, M, BATCH), start=1):
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
            for p, g, m, v in zip(params, grads, ms, vs):
                m *= b1
                m += (1 - b1) * g
                v *= b2
                v += (1 - b2) * g * g
                p -= step * m / (np.sqrt(v) + eps * np.sqrt(1 - b2 ** t))
        return params
    return run


def torch_fit(X, y):
    return needs("torch") or lazy(lambda: _torch_fit(X, y))


def _torch_fit(X, y):
    import torch
    torch.manual_seed(0)
    Xt, yt = torch.from_numpy(X), torch.from_numpy(y.astype(np.int64))
    net = torch.nn.Sequential(torch.nn.Linear(INPUTS, HIDDEN), torch.nn.ReLU(),
                              torch.nn.Linear(HIDDEN, CLASSES)).double()
    opt = torch.optim.Adam(net.parameters(), lr=LR)
    loss_fn = torch.nn.CrossEntropyLoss()

    def run():
        order = torch.randperm(M)
        for s in range(0, M, BATCH):
            rows = order[s:s + BATCH]
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(net(Xt[rows]), yt[rows])
            loss.backward()
            opt.step()
        return loss
    return run


def cases() -> list[dict]:
    X, y = data()
    return [{"name": "mlp: fit one epoch (Adam, softmax cross-entropy)", "sizes": SIZES,
             "dtype": "float64", "repeat": 4, "allocator": True, "goal": {"peer": "torch", "within": 1.25},
             "impls": {"lamina": lamina_fit(X, y), "torch": torch_fit(X, y),
                       "numpy (by hand, no tape)": numpy_fit(X, y)},
             "notes": ["Lamina's fit checks and one-hot encodes Y once per call (about 2 ms) and "
                       "keeps each optimizer step an immutable value; torch updates in place."]}]

