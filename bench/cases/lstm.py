"""Benchmark cases for the LSTM (bench protocol: `cases()` returns case dicts).

Forward + backward of one LSTM layer, input 32, hidden 128, sequence 100, batch 32, on the
CPU: Lamina's lstm_forward on the tape and grad() for the three weights, against
torch.nn.LSTM (batch_first, default thread count) and against the NumPy kernel Lamina itself
runs (lamina.nn.lstm_core, no tape), which shows what the tape adds. Two losses: the sum of
every hidden state (a sequence-to-sequence model) and the sum of the last hidden state only
(a sequence classifier). Both compute the same equations, PyTorch's, with the gates in its
order. `bench/run.py --only lstm` runs these cases alone.
"""
from __future__ import annotations

import numpy as np
from peers import lazy, needs  # bench/peers.py

from lamina.autodiff import reductions
from lamina.autodiff.grad import grad
from lamina.autodiff.tape import TAPE
from lamina.nn import lstm_core
from lamina.nn.lstm import lstm_forward

INPUT, HIDDEN, SEQ, BATCH = 32, 128, 100, 32
SIZES = f"input {INPUT}, hidden {HIDDEN}, seq {SEQ}, batch {BATCH}"
NOTE = ("torch.nn.LSTM on the CPU runs oneDNN's fused LSTM kernel (its profile: "
        "mkldnn_rnn_layer 4.1 ms and mkldnn_rnn_layer_backward 7.0 ms of 11.8 ms on an Intel Xeon); "
        "with oneDNN off (the third peer) torch runs the steps op by op, as its GRU does. Lamina cuts "
        "the batch into one chunk per BLAS thread and runs each chunk's recurrence and BPTT in a "
        "thread of its own (OpenBLAS held to one thread). On the AMD EPYC (Zen 5) of 2026-12-08, "
        "with OpenBLAS's SkylakeX kernels (src/lamina/blas_tuning.py): the pass's matrix products "
        "alone, in the same shapes, 5.2 ms (7.7 ms with the Haswell kernels OpenBLAS picks by "
        "itself); Lamina's NumPy core 9.5 - 14.8 ms; torch 7 - 8 ms. The other 5 - 7 ms of Lamina's "
        "pass is NumPy's elementwise work, a call per operation (17 a step, 1,700 a pass, each on "
        "an array of 16 x 512 numbers at most) and the backward's factors computed ahead for all "
        "steps, which oneDNN does inside its fused kernel; with the products this fast the two "
        "chunks' threads gain nothing over one chunk (the calls hold Python's lock).")


def data(dtype):
    rng = np.random.default_rng(0)
    bound = 1 / np.sqrt(HIDDEN)           # torch's initialisation
    return {"w_ih": rng.uniform(-bound, bound, (4 * HIDDEN, INPUT)).astype(dtype),
            "w_hh": rng.uniform(-bound, bound, (4 * HIDDEN, HIDDEN)).astype(dtype),
            "b": rng.uniform(-bound, bound, 4 * HIDDEN).astype(dtype),
            "X": rng.standard_normal((BATCH, SEQ, INPUT)).astype(dtype)}


def lamina_lstm(d, all_states: bool):
    def run():
        TAPE.reset()
        w = [TAPE.leaf(d[k], True) for k in ("w_ih", "w_hh", "b")]
        out = lstm_forward(d["X"], *w)
        loss = reductions.sum(out.fields["hs" if all_states else "h"])
        grads = grad(loss, w)
        TAPE.reset()
        return grads
    return run


def numpy_lstm(d, all_states: bool):
    zeros = np.zeros((BATCH, HIDDEN), dtype=d["X"].dtype)
    ones = np.ones((BATCH, SEQ, HIDDEN), dtype=d["X"].dtype)

    def run():
        passed = lstm_core.forward(d["X"], zeros, zeros, d["w_ih"], d["w_hh"], d["b"])
        dhs, dh_last = (ones, None) if all_states else (None, ones[:, 0])
        return lstm_core.backward(passed, dhs, dh_last, None, d["X"], d["w_ih"], d["w_hh"], need_x=False)
    return run


def torch_lstm(d, all_states: bool, onednn: bool = True):
    return needs("torch") or lazy(lambda: _torch_lstm(d, all_states, onednn))


def _torch_lstm(d, all_states: bool, onednn: bool):
    import torch
    torch.backends.mkldnn.enabled = onednn     # this peer's process only
    lstm = torch.nn.LSTM(INPUT, HIDDEN, batch_first=True).to(getattr(torch, d["X"].dtype.name))
    with torch.no_grad():
        lstm.weight_ih_l0.copy_(torch.from_numpy(d["w_ih"]))
        lstm.weight_hh_l0.copy_(torch.from_numpy(d["w_hh"]))
        lstm.bias_ih_l0.copy_(torch.from_numpy(d["b"]))
        lstm.bias_hh_l0.zero_()
    x = torch.from_numpy(d["X"])

    def run():
        lstm.zero_grad(set_to_none=True)
        out, (h_last, _) = lstm(x)
        (out.sum() if all_states else h_last.sum()).backward()
        return lstm.weight_hh_l0.grad
    return run


def cases() -> list[dict]:
    """Both losses in float32, against torch float32 (the goal: within 1x); the sequence loss
    in float64 too, against torch float64, for the record, with the goal that the tape adds
    little to Lamina's own kernel (it once added 90%: grad's finiteness check woke OpenBLAS's
    threads, which then spun through the next pass's chunks)."""
    out = []
    for dtype, losses in (("float32", (True, False)), ("float64", (True,))):
        d = data(np.dtype(dtype))
        peer = f"torch {dtype}"
        for all_states in losses:
            which = "sum of all states" if all_states else "sum of the last state"
            case = {"name": f"lstm: forward + backward ({which})" + (", float64" if dtype == "float64" else ""),
                    "sizes": SIZES, "dtype": dtype, "repeat": 20,
                    "impls": {"lamina": lamina_lstm(d, all_states), peer: torch_lstm(d, all_states),
                              "numpy (lstm_core, no tape)": numpy_lstm(d, all_states)}}
            if dtype == "float64":        # the tape's own cost: float64 has no fused peer to race
                case["goal"] = {"peer": "numpy (lstm_core, no tape)", "within": 1.15}
            if dtype == "float32":
                case["goal"] = {"peer": peer, "within": 1.0}
                if all_states:
                    case["impls"][f"{peer}, oneDNN off"] = torch_lstm(d, all_states, onednn=False)
                    case["notes"] = [NOTE]
            out.append(case)
    return out
