"""The lstm layer: a long short-term memory network run over each example's sequence.

Its input is sequences, m x steps x features (input(steps, features), an embedding, another
lstm or gru with return_sequences). Every step computes the equations of lstm_cell and
lstm_forward (PyTorch's, the gates in its order input, forget, cell, output) from h = c = 0:

    i = sigmoid(W_ii x + W_hi h + b_i), f = sigmoid(W_if x + W_hf h + b_f),
    g = tanh(W_ig x + W_hg h + b_g),    o = sigmoid(W_io x + W_ho h + b_o),
    c' = f .* c + i .* g,  h' = o .* tanh(c')

The output is the last hidden state (m x units) or, with return_sequences, every hidden
state (m x steps x units, sequences again). The weights are lstm_forward's three: w_ih
(4 units x features), w_hh (4 units x units), b (4 units). They start much as Keras's LSTM
starts them: each gate's block of w_ih Glorot-uniform, of w_hh orthogonal (Keras draws one
orthogonal matrix for the four blocks together), b zero but for the forget gate's 1
(Jozefowicz et al. 2015: the cell remembers until it learns to forget).

The whole batch of sequences is ONE tape entry: nn.lstm's fused forward, and its
hand-written backpropagation through time, run once per backward sweep.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...errors import LaminaError
from ...nn.init import glorot_uniform
from ...nn.lstm import run
from ..layer import DataShape, register
from .gru import Recurrent


def orthogonal(rng: np.random.Generator, n: int) -> np.ndarray:
    """An n x n orthogonal matrix drawn uniformly (Saxe et al. 2014; the Q of a Gaussian
    matrix's QR with R's signs on its diagonal), as Keras's Orthogonal initializer."""
    q, r = np.linalg.qr(rng.standard_normal((n, n)))
    return q * np.sign(np.diag(r))


def init_weights(rng: np.random.Generator, n_in: int, n_h: int) -> list:
    """[w_ih, w_hh, b]: four Glorot-uniform blocks, four orthogonal blocks, the forget bias 1."""
    w_ih = np.vstack([glorot_uniform(rng, n_h, n_in) for _ in range(4)])
    w_hh = np.vstack([orthogonal(rng, n_h) for _ in range(4)])
    b = np.zeros(4 * n_h)
    b[n_h:2 * n_h] = 1.0
    return [w_ih, w_hh, b]


@register
@dataclass(frozen=True)
class LSTM(Recurrent):
    kind = "lstm"
    example = 'input(3, 2) |> lstm(4, return_sequences = true)'      # a spec ending with this layer

    def output(self, data: DataShape) -> DataShape:
        if data.rank != 2:
            start = (f"{data.width} number{'s' * (data.width != 1)} per example with no steps"
                     if data.rank == 1 else f"{data.describe()} per example")
            raise LaminaError("ShapeError", f"lstm reads sequences (steps x features per example), but "
                              f"its input is {start}: start the model with input(steps, features), or "
                              f"put embedding(vocab, dim) before lstm.")
        return DataShape((data.steps, self.units)) if self.return_sequences else DataShape((self.units,))

    def parameters(self, data: DataShape) -> dict:
        n_in, n_h = data.features, self.units
        return {"w_ih": (4 * n_h, n_in), "w_hh": (4 * n_h, n_h), "b": (4 * n_h,)}

    def init(self, data: DataShape, rng: np.random.Generator) -> list:
        return init_weights(rng, data.features, self.units)

    def forward(self, x, params, data, training, rng, logits=False):
        which = "hs" if self.return_sequences else "h"
        return run(x, *params, None, None, "lstm", results=(which,)).fields[which]


def lstm_layer(spec, units=None, return_sequences=False, **options):
    """`spec |> lstm(units, return_sequences = false)`: the spec with an LSTM layer appended."""
    return LSTM.appended(spec, units, return_sequences, options)
