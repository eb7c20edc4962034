"""The positional_embedding layer: a learnt vector per position, added to each step of a sequence.

Attention treats a sequence as a set: nothing in it knows which step came first. This layer
adds row i of a learnt max_len x dim table to step i of every example (steps x dim), as GPT-2
and keras_nlp's PositionEmbedding do, so the steps that follow can tell positions apart:

    input(8) |> embedding(10, 32) |> positional_embedding(8, 32) |> transformer_block(...)

It comes after the embedding of the tokens (or after any layer that gives steps x dim), rather
than replacing it: the token table and the position table are two layers' weights, each in
net.weights, and a sequence of numbers (input(steps, features)) takes positions too. max_len
may exceed the steps (the rows past them get no gradient and stay as drawn), so one table
size serves sequences of several lengths; dim must equal the features per step. The table
starts Glorot-uniform, as keras_nlp's does. One tape entry: y = x + table[0:steps], whose
gradient for the table is the sum of g over the batch in its first rows.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...autodiff.tape import record
from ...errors import LaminaError
from ...values import as_int, value_of
from ..layer import DataShape, Layer, no_options, register
from ..spec import check_spec
from .attention import check_sequences


def add_positions(x, table):
    """x (m x t x dim) plus the first t rows of table (max_len x dim), as one tape entry."""
    xv, tv = value_of(x), value_of(table)
    t = xv.shape[1]

    def d_table(g):
        d = np.zeros_like(tv)
        d[:t] = np.sum(g, axis=0)
        return d

    return record(xv + tv[:t], (x, table), (lambda g: g, d_table))


@register
@dataclass(frozen=True)
class PositionalEmbedding(Layer):
    max_len: int
    dim: int
    kind = "positional_embedding"
    example = 'input(5) |> embedding(10, 4) |> positional_embedding(8, 4)'      # a spec ending with it

    @classmethod
    def create(cls, max_len, dim) -> PositionalEmbedding:
        return cls(as_int(max_len, "positional_embedding's max_len", minimum=1),
                   as_int(dim, "positional_embedding's dim", minimum=1))

    def output(self, data: DataShape) -> DataShape:
        check_sequences(data, "positional_embedding")
        steps, features = data.shape
        if features != self.dim:
            raise LaminaError("ShapeError", f"positional_embedding({self.max_len}, {self.dim}) adds a vector "
                              f"of {self.dim} to each step, but its input has {features} features per step "
                              f"({data.describe()}): give it dim = {features}.")
        if steps > self.max_len:
            raise LaminaError("ShapeError", f"positional_embedding({self.max_len}, {self.dim}) has positions "
                              f"for {self.max_len} steps, but its input has {steps} ({data.describe()}): "
                              f"give it max_len = {steps} or more.")
        return data

    def parameters(self, data: DataShape) -> dict:
        return {"table": (self.max_len, self.dim)}

    def init(self, data: DataShape, rng: np.random.Generator) -> list:
        limit = math.sqrt(6.0 / (self.max_len + self.dim))
        return [rng.uniform(-limit, limit, (self.max_len, self.dim))]

    def forward(self, x, params, data, training, rng, logits=False):
        return add_positions(x, params[0])

    def label(self) -> str:
        return f"positional_embedding({self.max_len}, {self.dim})"


def positional_embedding_layer(spec, max_len=None, dim=None, **options):
    """`spec |> positional_embedding(max_len, dim)`: the spec with a position table appended."""
    spec = check_spec(spec, "positional_embedding")
    no_options(options, "positional_embedding(spec, max_len, dim)")
    if max_len is None or dim is None:
        raise LaminaError("TypeError", "The layer positional_embedding(spec, max_len, dim) needs the "
                          "longest sequence it takes (max_len) and the features per step (dim).")
    return spec.with_layer(PositionalEmbedding.create(max_len, dim))
