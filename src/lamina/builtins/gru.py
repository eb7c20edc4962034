"""GRU builtins: gru_init, gru_cell, gru_forward (the math is in lamina.nn.gru)."""
from __future__ import annotations

import numpy as np

from ..nn import gru as G
from ..rng import generator
from ..values import Record
from .registry import Const, GradCase, Shape, builtin

CATEGORY = "Neural nets"
EQUATIONS = ("z = sigmoid(wz*x + uz*h + bz), r = sigmoid(wr*x + ur*h + br), "
             "hh = tanh(wh*x + uh*(r .* h) + bh), and the new state (1 - z) .* h + z .* hh")


def _weights(n_in, n_h, seed):
    """Fixed, varied weights for the gradient checks (no generator: numpy.random stays out of start-up)."""
    out = {}
    for k, f in enumerate(G.FIELDS):
        shape = (n_h, 1 if f[0] == "b" else n_in if f[0] == "w" else n_h)
        out[f] = 0.5 * np.sin(np.arange(1.0, 1.0 + shape[0] * shape[1]) * (1.3 + 0.7 * k + seed)).reshape(shape)
    return Record(out)


@builtin("gru_init", pure="a record", tracked="constant", category=CATEGORY,
         probes="its arguments are sizes",
         shapes=[Shape("gru_init(input_size, hidden_size, seed = n)", "two sizes, a seed", "record",
                       "The nine GRU weights, Glorot-uniform from a generator seeded by n."),
                 Shape("gru_init(input_size, hidden_size)", "two sizes", "record",
                       "The same, drawn from the global generator.")],
         summary="Creates the weights of a GRU layer as a record {wz, uz, bz, wr, ur, br, wh, uh, bh}: "
                 "w* are hidden x input, u* hidden x hidden, b* hidden x 1 zeros.",
         examples=["w = gru_init(2, 3, seed = 1)\nprint(size(w.wz), size(w.uz), size(w.bz))\n"
                   "print(all(w.wz == gru_init(2, 3, seed = 1).wz))   # same seed, same weights"],
         notes="Each w* and u* is drawn uniformly from [-a, a] with a = sqrt(6 / (fan_in + fan_out)) "
               "(Glorot and Bengio 2010), in the order wz, uz, wr, ur, wh, uh, from a NumPy generator "
               "of its own seeded by `seed`, so the same seed gives the same weights and the global "
               "generator is untouched. Without a seed the weights come from the global generator "
               "that seed(n) resets. The biases start at zero. Wrap the fields with param() to train "
               "them.")
def gru_init(input_size, hidden_size, seed=None):
    return G.gru_init(input_size, hidden_size=hidden_size, seed=seed,
                      generator=None if seed is not None else generator())


@builtin("gru_cell", pure="a value", category=CATEGORY,
         shapes=[Shape("gru_cell(x, h, w)", "input, hidden state, weight record", "new hidden state",
                       "One GRU step (Cho et al. 2014).")],
         summary="One step of a gated recurrent unit: the new hidden state from the input x, the "
                 "previous state h and the weights w (a record as gru_init makes).",
         examples=["w = {wz=0.5, uz=0.5, bz=0.0, wr=0.3, ur=0.3, br=0.0, wh=0.2, uh=0.2, bh=0.0}\n"
                   "print(round(gru_cell([1.0], [1.0], w), 4))",
                   "w = gru_init(2, 3, seed = 1)\nh = gru_cell([0.5, 0.2], [0.0, 0.0, 0.0], w)\n"
                   "print(round(h, 4))"],
         notes=f"Computes {EQUATIONS}. A weight may be a number (a multiple of the identity, so "
               "input and hidden sizes must then agree), and a bias a number, a vector or a hidden "
               "x 1 matrix. Columns of a matrix x or h are a batch of examples. The result has h's "
               "shape, except that it is a hidden x batch matrix whenever x or a bias is a matrix "
               "(as the formula's broadcasting gives: with gru_init's hidden x 1 biases a vector h "
               "gives a hidden x 1 state). It is the one-step case of gru_forward's fused "
               "computation, with the same hand-written gradient.",
         grad=[GradCase(((2,), (3,), Const(_weights(2, 3, 0)))),
               GradCase(((2, 4), (3, 4), Const(_weights(2, 3, 1))))])
def gru_cell(x, h, w):
    return G.gru_cell(x, h=h, w=w)


@builtin("gru_forward", pure="a value", category=CATEGORY,
         shapes=[Shape("gru_forward(X, h0, w)", "input x steps matrix, hidden state, weights",
                       "list of hidden x 1 states", "Runs the GRU over the columns of X."),
                 Shape("gru_forward(Xs, h0, w)", "list of input x batch matrices, hidden x batch h0, "
                       "weights", "list of hidden x batch states",
                       "Runs a batch of sequences; item t of the list is step t.")],
         summary="Runs a GRU over a sequence and returns the list of hidden states, one per step. "
                 "Differentiable with respect to X, h0 and every weight.",
         examples=["raw = gru_init(2, 3, seed = 1)\nX = [0.5, -0.3, 0.8; 0.2, 0.4, -0.1]   # 3 steps\n"
                   "hs = gru_forward(X, [0.0, 0.0, 0.0], raw)\nprint(length(hs), size(hs[0]))\n"
                   "print(round(hs[length(hs) - 1], 4))",
                   "w = gru_init(1, 4, seed = 2)\nwz = param(w.wz)\nw.wz = wz\n"
                   "Xs = [[0.1, 0.2]', [0.3, 0.4]', [0.5, 0.6]']   # 3 steps, 1 feature, batch of 2\n"
                   "hs = gru_forward(Xs, [0.0, 0.0, 0.0, 0.0], w)\nprint(size(hs[2]))\n"
                   "g = grad(sum(hs[2] .^ 2), wrt = wz)\nprint(size(g))\ntape_reset()"],
         notes=f"Each step computes {EQUATIONS}. With one sequence, column t of X is the input at "
               "step t (a vector X acts as a column: one step) and h0 is a vector or a hidden x 1 "
               "matrix; each state is hidden x 1. For a batch, pass the steps as a list of input x "
               "batch matrices; h0 is then hidden x batch, or a vector or hidden x 1 matrix shared "
               "by every sequence. The whole sequence is one fused computation: the input side of "
               "every gate for every step is one matrix product, and the gradient is hand-written "
               "backpropagation through time in NumPy, run once however many of the states the "
               "loss uses.",
         grad=[GradCase(((2, 4), (3,), Const(_weights(2, 3, 2)))),
               GradCase(((2, 3), (3, 1), Const(_weights(2, 3, 3))))])
def gru_forward(X, h0, w):
    return G.gru_forward(X, h0=h0, w=w)
