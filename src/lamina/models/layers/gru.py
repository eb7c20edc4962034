"""The gru layer: a gated recurrent unit run over each example's sequence, batch-major.

Its input is sequences (input(steps, features), or an embedding): the batch is the
m x steps x features array, one sequence per example. Every step computes
(Cho et al. 2014, the equations of gru_cell and gru_forward)

    z = sigmoid(wz*x + uz*h + bz),  r = sigmoid(wr*x + ur*h + br)
    hh = tanh(wh*x + uh*(r .* h) + bh),  h' = (1 - z) .* h + z .* hh

from h = 0. The output is the last state (m x units) or, with return_sequences, every
state (m x steps x units, sequences again, for another gru). The
weights are gru_init's nine: w* units x features, u* units x units, b* units x 1.

The whole batch of sequences is ONE tape entry: nn.gru_core's fused forward, and its
hand-written backpropagation through time, run once per backward sweep for all ten
VJPs (the input and the nine weights).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...autodiff.tape import is_live, record_fused
from ...errors import LaminaError
from ...nn import gru_core
from ...nn.gru import FIELDS, GATES, init_weights
from ...values import as_int, describe, value_of
from ..layer import DataShape, Layer, no_options, register
from ..spec import check_spec


def gru_sequences(x, weights: list, return_sequences: bool):
    """The GRU over each sequence of x (m x steps x features) from a zero state, as one tape
    entry; weights are the nine of FIELDS in order (each tracked or plain)."""
    xv = value_of(x)
    w = dict(zip(FIELDS, (value_of(v) for v in weights)))
    m, steps, n_in = xv.shape
    n_h = w["uz"].shape[0]
    W = np.vstack([w["w" + gate] for gate in GATES])                  # (3H, I)
    U = np.vstack([w["u" + gate] for gate in GATES])                  # (3H, H)
    b = np.concatenate([w["b" + gate].reshape(-1) for gate in GATES])  # (3H,)
    xs = np.ascontiguousarray(xv.transpose(1, 0, 2))                   # (T, m, I)
    hs, gates = gru_core.forward(xs, np.zeros((m, n_h)), W, U, b)
    if return_sequences:
        out = np.ascontiguousarray(hs[1:].transpose(1, 0, 2))          # (m, T, H)
    else:
        out = hs[steps].copy()
    need_x = is_live(x)

    def all_grads(g):
        if return_sequences:
            per_step = np.reshape(g, (m, steps, n_h))
            step_grad = lambda t: per_step[:, t, :]
        else:
            step_grad = lambda t: g if t == steps - 1 else None
        dxs, _, dW, dU, db = gru_core.backward(step_grad, xs, W, U, hs, gates, need_x)
        grads = {}
        for i, gate in enumerate(GATES):
            rows = slice(i * n_h, (i + 1) * n_h)
            grads["w" + gate], grads["u" + gate] = dW[rows], dU[rows]
            grads["b" + gate] = db[rows].reshape(n_h, 1)
        dx = np.ascontiguousarray(dxs.transpose(1, 0, 2)) if need_x else None
        return [dx] + [grads[f] for f in FIELDS]

    return record_fused(out, [x, *weights], all_grads)



@dataclass(frozen=True)
class Recurrent(Layer):
    """What the recurrent layers (gru here, lstm) share: their settings, how they are made from a
    builtin's arguments, labelled, and appended to a spec."""
    units: int
    return_sequences: bool = False

    @classmethod
    def create(cls, units, return_sequences=False) -> Recurrent:
        if not isinstance(return_sequences, bool):
            raise LaminaError("TypeError", f"{cls.kind}'s return_sequences must be true or false, not "
                              f"{describe(return_sequences)}.")
        return cls(as_int(units, f"{cls.kind}'s units", minimum=1), return_sequences)

    @classmethod
    def appended(cls, spec, units, return_sequences, options: dict):
        """`spec |> kind(units, return_sequences)`: the spec with this layer appended."""
        spec = check_spec(spec, cls.kind)
        no_options(options, f"{cls.kind}(spec, units, return_sequences = false)")
        if units is None:
            raise LaminaError("TypeError", f"The layer {cls.kind}(spec, units) needs the number of units "
                              f"(the size of the hidden state).")
        return spec.with_layer(cls.create(units, return_sequences))

    def label(self) -> str:
        return f"{self.kind}({self.units}" + (", return_sequences = true)" if self.return_sequences else ")")


@register
@dataclass(frozen=True)
class GRU(Recurrent):
    kind = "gru"
    example = 'input(3, 1) |> gru(2, return_sequences = true)'      # a spec ending with this layer

    def output(self, data: DataShape) -> DataShape:
        if data.rank == 1:
            raise LaminaError("ShapeError", f"gru reads sequences, but its input is {data.width} "
                              f"number{'s' * (data.width != 1)} per example with no steps: start the "
                              f"model with input(steps, features) (X then has steps * features "
                              f"columns, step after step), or put embedding(vocab, dim) before gru.")
        if data.rank > 2:
            raise LaminaError("ShapeError", f"gru reads sequences (steps x features per example), "
                              f"but its input is {data.describe()} per example.")
        return DataShape((data.steps, self.units)) if self.return_sequences \
            else DataShape((self.units,))

    def parameters(self, data: DataShape) -> dict:
        n_in, n_h = data.features, self.units
        return {f: {"w": (n_h, n_in), "u": (n_h, n_h), "b": (n_h, 1)}[f[0]] for f in FIELDS}

    def init(self, data: DataShape, rng: np.random.Generator) -> list:
        """gru_init's weights: w* and u* Glorot-uniform, b* zeros."""
        return list(init_weights(rng, data.features, self.units).values())

    def forward(self, x, params, data, training, rng, logits=False):
        return gru_sequences(x, params, self.return_sequences)


def gru_layer(spec, units=None, return_sequences=False, **options):
    """`spec |> gru(units, return_sequences = false)`: the spec with a GRU layer appended."""
    return GRU.appended(spec, units, return_sequences, options)
