"""The embedding layer: each token (a whole number from 0 to vocab - 1) becomes a learnt
row of `dim` numbers, looked up in a vocab x dim table.

An example is a row of tokens, one per step (for input(steps, k), k tokens per step);
each becomes its table row, so m x steps tokens become an m x steps x dim array of
sequences, `steps` steps of `dim` features (of k * dim, the k rows side by side, for k
tokens per step), which a gru layer reads step by step. (An example of rank 3 or more,
h x w x k tokens, becomes h x w x (k * dim) the same way: the last axis's rows side by side.) The table starts
standard normal, as PyTorch's nn.Embedding does. The layer is one primitive on the
tape: the table's gradient adds each output gradient into its token's row (a
scatter-add); tokens get no gradient.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...autodiff.tape import record
from ...errors import LaminaError
from ...values import as_int, format_number, value_of
from ..layer import DataShape, Layer, no_options, register
from ..spec import check_spec


def tokens_of(x: np.ndarray, vocab: int, where: str) -> np.ndarray:
    """x (a matrix, or an m x steps x k array as X may be given) as an int64 array of tokens,
    or a ValueError naming the first bad one and its place."""
    bad = ~np.isfinite(x) | (x != np.floor(x)) | (x < 0) | (x >= vocab)
    if np.any(bad):
        at = tuple(int(i) for i in np.argwhere(bad)[0])
        place = f"at row {at[0]}, column {at[1]} (both counted from 0)" if len(at) == 2 \
            else f"at [{', '.join(map(str, at))}] (counted from 0)"
        raise LaminaError("ValueError", f"embedding with vocab {vocab} needs tokens that are whole "
                          f"numbers from 0 to {vocab - 1}, but {where} holds {format_number(x[at])} "
                          f"{place}.")
    return x.astype(np.int64)


def embed(tokens: np.ndarray, table, shape: tuple):
    """The rows table[tokens[...]] arranged as m x *shape (shape: the output's DataShape's), one
    tape entry."""
    tv = value_of(table)
    vocab, dim = tv.shape
    out = tv[tokens].reshape(tokens.shape[0], *shape)

    def d_table(g):
        d = np.zeros((vocab, dim), dtype=tv.dtype)
        np.add.at(d, tokens.reshape(-1), np.reshape(g, (-1, dim)))
        return d

    return record(out, [table], [d_table])


@register
@dataclass(frozen=True)
class Embedding(Layer):
    vocab: int
    dim: int
    kind = "embedding"
    example = 'input(3) |> embedding(4, 2)'      # a spec ending with this layer

    @classmethod
    def create(cls, vocab, dim) -> Embedding:
        return cls(as_int(vocab, "embedding's vocab", minimum=1), as_int(dim, "embedding's dim", minimum=1))

    def output(self, data: DataShape) -> DataShape:
        """(n,) tokens give (n, dim); (..., k) tokens give (..., k * dim)."""
        if data.rank == 1:
            return DataShape((data.width, self.dim))
        return DataShape((*data.shape[:-1], data.features * self.dim))

    def parameters(self, data: DataShape) -> dict:
        return {"table": (self.vocab, self.dim)}

    def init(self, data: DataShape, rng: np.random.Generator) -> list:
        return [rng.standard_normal((self.vocab, self.dim))]

    def check_input(self, x: np.ndarray, who: str) -> None:
        tokens_of(x, self.vocab, f"{who}'s X")

    def forward(self, x, params, data, training, rng, logits=False):
        return embed(tokens_of(value_of(x), self.vocab, "its input"), params[0], self.output(data).shape)

    def label(self) -> str:
        return f"embedding({self.vocab}, {self.dim})"


def embedding_layer(spec, vocab=None, dim=None, **options):
    """`spec |> embedding(vocab, dim)`: the spec with an embedding appended."""
    spec = check_spec(spec, "embedding")
    no_options(options, "embedding(spec, vocab, dim)")
    if vocab is None or dim is None:
        raise LaminaError("TypeError", "The layer embedding(spec, vocab, dim) needs the number of "
                          "tokens (vocab) and the size of each token's vector (dim).")
    if spec.layers:     # another layer's output is numbers, never tokens: predict would refuse it
        raise LaminaError("ValueError", f"embedding reads tokens, so it must come right after input(), "
                          f"not after {spec.layers[-1].label()}.")
    return spec.with_layer(Embedding.create(vocab, dim))
