"""Benchmark cases for the GRU (bench protocol: `cases()` returns case dicts).

Forward + backward of a GRU layer, input 32, hidden 128, sequence 100, batch 32,
float64 (and float32 for all states) on the CPU: Lamina's gru_forward on the tape and grad() for all nine
weights and h0, against torch.nn.GRU (default thread count) and against the
NumPy kernel Lamina itself runs (lamina.nn.gru_core, no tape), which shows what
the tape adds. Two losses: the sum of every hidden state (a sequence-to-sequence
model) and the sum of the last state only (a sequence classifier).

torch's candidate state is tanh(W_h x + b_ih + r * (U_h h + b_hh)); Lamina's (Cho
et al. 2014, as LIBRARY.md) is tanh(W_h x + U_h (r .* h) + b_h). The sizes and the
work are the same. `bench/run.py --only gru` runs these cases alone.
"""
from __future__ import annotations

import numpy as np
from peers import lazy, needs  # bench/peers.py

from lamina.autodiff import ops, reductions
from lamina.autodiff.grad import grad
from lamina.autodiff.tape import TAPE
from lamina.nn import gru_core
from lamina.nn.gru import FIELDS, gru_forward, gru_init
from lamina.values import Record

INPUT, HIDDEN, SEQ, BATCH = 32, 128, 100, 32
SIZES = f"input {INPUT}, hidden {HIDDEN}, seq {SEQ}, batch {BATCH}"


def data(dtype=np.float64):
    rng = np.random.default_rng(0)
    w = gru_init(float(INPUT), float(HIDDEN), seed=0.0)
    return {"w": Record({f: v.astype(dtype) for f, v in w.fields.items()}),
            "xs": [rng.standard_normal((INPUT, BATCH)).astype(dtype) for _ in range(SEQ)],
            "h0": (rng.standard_normal((HIDDEN, BATCH)) * 0.1).astype(dtype)}


def lamina_gru(d, all_states: bool):
    def run():
        TAPE.reset()
        w = Record({f: TAPE.leaf(d["w"].fields[f], True) for f in FIELDS})
        h0 = TAPE.leaf(d["h0"], True)
        hs = gru_forward(d["xs"], h0, w)
        if all_states:
            loss = reductions.sum(hs[0])
            for h in hs[1:]:
                loss = ops.add(loss, reductions.sum(h))
        else:
            loss = reductions.sum(hs[-1])
        grads = grad(loss, [w, h0])
        TAPE.reset()
        return grads
    return run


def numpy_gru(d, all_states: bool):
    w = d["w"].fields
    W = np.vstack([w["wz"], w["wr"], w["wh"]])
    U = np.vstack([w["uz"], w["ur"], w["uh"]])
    b = np.concatenate([w["bz"], w["br"], w["bh"]]).ravel()
    xs = np.stack([x.T for x in d["xs"]])
    h0 = np.ascontiguousarray(d["h0"].T)
    ones = np.ones((BATCH, HIDDEN), dtype=h0.dtype)

    def run():
        hs, gates = gru_core.forward(xs, h0, W, U, b)
        step_grad = (lambda t: ones) if all_states else (lambda t: ones if t == SEQ - 1 else None)
        return gru_core.backward(step_grad, xs, W, U, hs, gates, need_x=False)
    return run


def torch_gru(all_states: bool, dtype: str = "float64"):
    return needs("torch") or lazy(lambda: _torch_gru(all_states, dtype))


def _torch_gru(all_states: bool, dtype: str):
    import torch
    torch.manual_seed(0)
    kind = getattr(torch, dtype)
    gru = torch.nn.GRU(INPUT, HIDDEN).to(kind)
    x = torch.randn(SEQ, BATCH, INPUT, dtype=kind)
    h0 = (torch.randn(1, BATCH, HIDDEN, dtype=kind) * 0.1).requires_grad_()

    def run():
        gru.zero_grad(set_to_none=True)
        h0.grad = None
        out, h_last = gru(x, h0)
        (out.sum() if all_states else h_last.sum()).backward()
        return h0.grad
    return run


def cases() -> list[dict]:
    d = data()
    out = []
    for all_states, which in ((True, "sum of all states"), (False, "sum of the last state")):
        out.append({"name": f"gru: forward + backward ({which})", "sizes": SIZES, "dtype": "float64",
                    "repeat": 20, "allocator": True, "goal": {"peer": "torch", "within": 3.0},
                    "impls": {"lamina": lamina_gru(d, all_states), "torch": torch_gru(all_states),
                              "numpy (gru_core, no tape)": numpy_gru(d, all_states)},
                    "notes": ["torch.nn.GRU applies r to (U_h h + b_hh), Lamina's GRU (Cho et al. "
                              "2014) applies U_h to r .* h: same sizes and work."]})
    d32 = data(np.float32)
    out.append({"name": "gru: forward + backward (sum of all states), float32", "sizes": SIZES,
                "dtype": "float32", "repeat": 20, "goal": {"peer": "torch float32", "within": 1.0},
                "impls": {"lamina": lamina_gru(d32, True), "torch float32": torch_gru(True, "float32"),
                          "numpy (gru_core, no tape)": numpy_gru(d32, True)}})
    return out

