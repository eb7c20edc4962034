"""Normalisation and recurrence builtins: batch_norm (the tape op and the layer), lstm_cell,
lstm_forward and the lstm layer (the math is in lamina.nn.batch_norm and lamina.nn.lstm, the
layers in lamina.models.layers)."""
from __future__ import annotations

import numpy as np

from ..errors import LaminaError
from ..models.layers.batch_norm import batch_norm_layer
from ..models.layers.lstm import lstm_layer
from ..nn import batch_norm as BN
from ..nn import lstm as L
from ..values import LibObject, Record
from .registry import Const, GradCase, Shape, builtin

CATEGORY = "Neural nets"
GATES = ("i = sigmoid(W_ii x + W_hi h + b_i), f = sigmoid(W_if x + W_hf h + b_f), "
         "g = tanh(W_ig x + W_hg h + b_g), o = sigmoid(W_io x + W_ho h + b_o), then "
         "c' = f .* c + i .* g and h' = o .* tanh(c')")
WEIGHTS = ("w_ih is 4H x I and w_hh 4H x H (H the hidden size, I the input size): the four gates' "
           "rows stacked in PyTorch's order input, forget, cell, output, so w_ih[0:H, :] is the input "
           "gate's (PyTorch's weight_ih_l0 and weight_hh_l0 as they are). b is one vector of 4H in the "
           "same order; PyTorch keeps two, b_ih and b_hh, and only their sum counts. b may be left out "
           "(no bias).")
LAYOUT = ("Batch first, features last (PyTorch's batch_first = true, Keras's layout): every axis "
          "before the last is a batch axis, so one example is a vector and a batch is batch x "
          "features (or b1 x b2 x features); a state h or c is batch x hidden, or a vector of H "
          "shared by every example.")
RUNNING = {"mean": np.array([0.5, -1.0, 0.25, 2.0]), "var": np.array([1.5, 0.5, 2.0, 0.8])}


@builtin("batch_norm", pure="a value", any_rank=True, category=CATEGORY,
         shapes=[Shape("batch_norm(x, gamma, beta)", "x n x c (or n x ... x c), gamma and beta per "
                       "channel", "record {y, running}",
                       "Training mode: normalises each channel over the batch; returns y and the "
                       "running statistics updated from their start (mean 0, variance 1)."),
                 Shape("batch_norm(x, gamma, beta, running = stats)", "the same, running {mean, var}",
                       "record {y, running}", "Training mode, moving the given running statistics."),
                 Shape("batch_norm(x, gamma, beta, training = false, running = stats)",
                       "the same, running {mean, var}", "y, x's shape",
                       "Inference mode: normalises with the running statistics."),
                 Shape("spec |> batch_norm()", "model spec", "model spec",
                       "The layer form: appends a batch normalisation layer (gamma and beta learnt, the "
                       "running statistics kept in the model).")],
         summary="Batch normalisation (Ioffe and Szegedy 2015), as PyTorch's BatchNorm: each channel "
                 "(the last axis) normalised to mean 0 and variance 1 over the batch, then scaled by "
                 "gamma and shifted by beta. Differentiable for x, gamma and beta.",
         examples=["x = [1.0, 2.0; 3.0, 6.0; 5.0, 10.0]            # 3 examples, 2 channels\n"
                   "out = batch_norm(x, [1.0, 1.0], [0.0, 0.0])\nprint(round(out.y, 4))\n"
                   "print(round(out.running.mean, 4), round(out.running.var, 4))",
                   "# a loop written by hand keeps the running statistics by passing them back in\n"
                   "seed(1)\nopt = adam({gamma = ones(3), beta = zeros(3)}, lr = 0.05)\n"
                   "stats = {mean = zeros(3), var = ones(3)}\n"
                   "for step = 1 to 100\n"
                   "    x = randn(16, 3) .* [1.0, 2.0, 0.5]' + [5.0, -1.0, 0.0]'\n"
                   "    p = param(opt.params)\n"
                   "    out = batch_norm(x, p.gamma, p.beta, running = stats)\n"
                   "    stats = out.running\n"
                   "    loss = mean((out.y - [1.0, 2.0, 3.0]') .^ 2)\n"
                   "    opt = optimizer_step(opt, grad(loss, wrt = p))\n"
                   "    tape_reset()\n"
                   "end for\n"
                   "print(round(stats.mean, 1), round(stats.var, 1))\n"
                   "p = opt.params\n"
                   "print(round(batch_norm([5.0, -1.0, 0.0]', p.gamma, p.beta, training = false, "
                   "running = stats), 2))",
                   "# the layer: features of very different scales, the running statistics kept in the model\n"
                   "seed(3)\nX = randn(200, 4) .* [1.0, 10.0, 100.0, 0.1]' + [0.0, 5.0, 0.0, 1.0]'\n"
                   "Y = X * [1.0; 0.1; 0.01; 10.0]\n"
                   "net = input(4) |> batch_norm() |> dense(1) |> compile(optimizer = adam(lr = 0.05), seed = 1)\n"
                   "net = net.fit(X, Y, epochs = 30, verbose = 0)\n"
                   "w = net.weights[0]\nprint(keys(w))\nprint(round(w.mean, 1), round(sqrt(w.var), 1))\n"
                   "print(net.loss_history[29] < 0.01 * net.loss_history[0])"],
         notes="x is batch x channels, or an array with the channels last (n x t x c for sequences, "
               "n x h x w x c for images, as Keras lays them out); every axis but the last is "
               "averaged over, m values per channel. gamma and beta are numbers or vectors of c "
               "(a 1 x c row works too). In training mode (the default) y = (x - mean) / sqrt(var + "
               "eps) .* gamma + beta with the batch's mean and biased variance (divided by m), and "
               "the result is a record {y, running}: running = {mean, var} is the running "
               "statistics moved towards the batch's, (1 - momentum) * running + momentum * batch, "
               "with the unbiased variance (divided by m - 1), exactly as PyTorch updates "
               "running_mean and running_var. Pass it back in as running = out.running on the next "
               "step (without it they start at mean 0 and variance 1, as PyTorch's do). With "
               "training = false the result is y alone, normalised with the running statistics "
               "given. The running statistics are constants, never tracked (a tracked one is a "
               "TypeError): no gradient flows through them, as through PyTorch's buffers. "
               "momentum = 0.1 and eps = 1e-5 by default. Training mode needs more than one value "
               "per channel (a batch of one has no variance). To compare with PyTorch's BatchNorm2d "
               "(channels first), permute x with permute(x, [0, 3, 1, 2]).\n\n"
               "The layer form spec |> batch_norm() normalises the last axis of each example (each "
               "feature of input(n), each channel of input(h, w, c)). Its gamma and beta start at "
               "ones and zeros and are learnt; its running mean and variance are kept in the model "
               "(net.weights shows {gamma, beta, mean, var}) and saved with it. fit normalises each "
               "batch with its own statistics and moves the running ones (momentum 0.1, eps 1e-5, as "
               "PyTorch's defaults); predict, evaluate and fit's validation normalise with the "
               "running ones.",
         grad=[GradCase(((4, 3), (3,), (3,)), {"momentum": 0.0}),
               GradCase(((5, 2), (1, 2), ()), {"momentum": 0.0}),
               GradCase(((2, 3, 4), (4,), (4,)), {"momentum": 0.0}),
               GradCase(((2, 2, 3, 2), (2,), (2,)), {"momentum": 0.0, "eps": 0.1}),
               GradCase(((3, 2, 4), (4,), (4,)), {"training": False, "running": Const(Record(RUNNING))}),
               GradCase(((2, 1, 2, 4), (), (4,)), {"training": False, "running": Const(Record(RUNNING))})])
def batch_norm(x, gamma=None, beta=None, training=True, running=None, momentum=BN.MOMENTUM, eps=BN.EPS):
    if isinstance(x, LibObject) and x.type_name == "model spec":
        # The layer overload batch_norm(model_spec) (lamina.models.layers.batch_norm).
        given = [name for name, v, default in (("gamma", gamma, None), ("beta", beta, None),
                                               ("training", training, True), ("running", running, None),
                                               ("momentum", momentum, BN.MOMENTUM), ("eps", eps, BN.EPS))
                 if v is not default]
        if given:
            raise LaminaError("TypeError", f"The layer batch_norm(spec) takes no {given[0]}: fit normalises "
                              f"with each batch's statistics and keeps the running ones itself; the "
                              f"arguments belong to the tape op batch_norm(x, gamma, beta, ...).")
        return batch_norm_layer(x)
    return BN.batch_norm(x, gamma=gamma, beta=beta, training=training, running=running,
                         momentum=momentum, eps=eps)


H, I = 2, 3
W_IH, W_HH, B = (4 * H, I), (4 * H, H), (4 * H,)


@builtin("lstm_cell", pure="a record", any_rank=True, category=CATEGORY,
         shapes=[Shape("lstm_cell(x, h, c, w_ih, w_hh, b)", "input, hidden and cell states, weights",
                       "record {h, c}", "One LSTM step: the new hidden and cell states."),
                 Shape("lstm_cell(x, h, c, w_ih, w_hh)", "the same without a bias", "record {h, c}",
                       "One step with no bias.")],
         summary="One step of a long short-term memory cell (PyTorch's LSTMCell): the new hidden "
                 "state h and cell state c from the input x and the previous h and c. "
                 "Differentiable with respect to every argument.",
         examples=["w_ih = reshape(range(24), 8, 3) / 24 - 0.5    # hidden 2, input 3\n"
                   "w_hh = reshape(range(16), 8, 2) / 16 - 0.5\n"
                   "s = lstm_cell([1.0, 0.5, -2.0], [0.0, 0.0], [0.0, 0.0], w_ih, w_hh, zeros(8))\n"
                   "print(round(s.h, 4), round(s.c, 4))",
                   "# a batch of 4 examples (rows), one step after another\n"
                   "seed(2)\nw_ih = param(randn(12, 5) * 0.3)\nw_hh = param(randn(12, 3) * 0.3)\n"
                   "b = param(zeros(12))\ns = {h = zeros(4, 3), c = zeros(4, 3)}\n"
                   "for t = 1 to 6\n    s = lstm_cell(randn(4, 5), s.h, s.c, w_ih, w_hh, b)\nend for\n"
                   "print(size(s.h))\ng = grad(sum(s.h), wrt = w_hh)\nprint(size(g))\ntape_reset()"],
         notes=f"Computes {GATES} (Hochreiter and Schmidhuber 1997, with the forget gate; the "
               f"equations of PyTorch's LSTMCell). {WEIGHTS} {LAYOUT} The result is a record {{h, c}} "
               "of the new states, batch x hidden. It is the one-step case of lstm_forward's fused "
               "computation, with the same hand-written gradient; for a whole sequence, lstm_forward "
               "is much faster than a loop of lstm_cell.",
         grad=[GradCase(((I,), (H,), (H,), W_IH, W_HH, B)),
               GradCase(((4, I), (4, H), (H,), W_IH, W_HH, B)),
               GradCase(((3, I), (3, H), (3, H), W_IH, W_HH, Const(None))),
               GradCase(((2, 2, I), (2, 2, H), (2, 2, H), W_IH, W_HH, B)),
               GradCase(((2, 1, 2, I), (H,), (2, 1, 2, H), W_IH, W_HH, B))])
def lstm_cell(x, h=None, c=None, w_ih=None, w_hh=None, b=None):
    return L.lstm_cell(x, h=h, c=c, w_ih=w_ih, w_hh=w_hh, b=b)


@builtin("lstm_forward", pure="a record", any_rank=True, category=CATEGORY,
         shapes=[Shape("lstm_forward(X, w_ih, w_hh, b)", "X steps x features or batch x steps x "
                       "features, weights", "record {hs, h, c}",
                       "Runs the LSTM over each sequence from zero states."),
                 Shape("lstm_forward(X, w_ih, w_hh, b, h0, c0)", "the same, first states",
                       "record {hs, h, c}", "From the given first states.")],
         summary="Runs a long short-term memory network over sequences (PyTorch's nn.LSTM with "
                 "batch_first = true, one layer) and returns every hidden state and the last hidden "
                 "and cell states. Differentiable with respect to X, every weight and the first states.",
         examples=["w_ih = reshape(range(24), 8, 3) / 24 - 0.5    # hidden 2, input 3\n"
                   "w_hh = reshape(range(16), 8, 2) / 16 - 0.5\n"
                   "X = [1.0, 0.5, -2.0; 0.0, 1.0, 0.5; -0.5, 0.0, 1.0; 1.0, 1.0, 1.0]   # 4 steps\n"
                   "out = lstm_forward(X, w_ih, w_hh, zeros(8))\nprint(round(out.hs, 4))\n"
                   "print(round(out.h, 4), round(out.c, 4))",
                   "# a batch of 8 sequences of 20 steps, 5 features; a loss on the last state\n"
                   "seed(3)\nX = randn(8, 20, 5)\nw_ih = param(randn(16, 5) * 0.3)\n"
                   "w_hh = param(randn(16, 4) * 0.3)\nb = param(zeros(16))\n"
                   "out = lstm_forward(X, w_ih, w_hh, b)\nprint(size(out.hs), size(out.h))\n"
                   "g = grad(sum(out.h .^ 2), wrt = [w_ih, w_hh, b])\nprint(size(g[1]), size(g[2]))\n"
                   "tape_reset()"],
         notes=f"Each step computes {GATES}. {WEIGHTS} X is batch x steps x features (every axis "
               "before the last two a batch axis; a steps x features matrix is one sequence). h0 and "
               "c0 are batch x hidden, or vectors of H shared by every sequence, or left out (zeros). "
               "The result is a record {hs, h, c}: hs is every hidden state, batch x steps x hidden "
               "(PyTorch's output), and h and c the last hidden and cell states, batch x hidden "
               "(PyTorch's h_n and c_n). The whole sequence is one fused computation: the input side "
               "of every gate for every step is one matrix product, each step one product with w_hh "
               "and a handful of elementwise operations, and the gradient is hand-written "
               "backpropagation through time in NumPy, run once however many of the results the "
               "loss uses. (gru_forward, older, takes one sequence as features x steps columns.)",
         grad=[GradCase(((4, I), W_IH, W_HH, B)),
               GradCase(((2, 3, I), W_IH, W_HH, B, (2, H), (2, H))),
               GradCase(((3, 2, I), W_IH, W_HH, Const(None), (H,), (3, H))),
               GradCase(((2, 2, 3, I), W_IH, W_HH, B, (H,), (2, 2, H)))])
def lstm_forward(X, w_ih=None, w_hh=None, b=None, h0=None, c0=None):
    return L.lstm_forward(X, w_ih=w_ih, w_hh=w_hh, b=b, h0=h0, c0=c0)


@builtin("lstm", pure="a model spec", tracked="constant", category="Models",
         probes="appends a layer to a model spec; its arguments are sizes and settings",
         shapes=[Shape("spec |> lstm(units)", "model spec of sequences, units", "model spec",
                       "Appends an LSTM layer that gives each sequence's last hidden state (units "
                       "numbers per example)."),
                 Shape("spec |> lstm(units, return_sequences = true)", "the same, true", "model spec",
                       "Gives every step's hidden state (steps x units per example): sequences "
                       "again, for another lstm.")],
         summary="A long short-term memory layer: runs an LSTM over each example's sequence and "
                 "gives its last hidden state (or all of them). Its input must be sequences, from "
                 "input(steps, features), an embedding or another recurrent layer.",
         examples=["spec = input(20, 8) |> lstm(32) |> dense(1)\nprint(spec)",
                   "seed(1)\nX = randn(256, 8, 1)                # 256 sequences of 8 steps, 1 feature\n"
                   "Y = sum(X, axis = 1)[:, :, 0] .* (X[:, 0, :] > 0)  # the sum when the first step is positive\n"
                   "net = input(8, 1) |> lstm(16) |> dense(1) |> compile(optimizer = adam(lr = 0.02), seed = 2)\n"
                   "net = net.fit(X, Y, epochs = 40, verbose = 0)\n"
                   "print(net.loss_history[39] < 0.1 * net.loss_history[0])\n"
                   "print(size(net.weights[0].w_ih), size(net.weights[0].w_hh), size(net.weights[0].b))"],
         notes="Each step computes the equations of lstm_cell and lstm_forward (PyTorch's, the gates "
               f"in its order input, forget, cell, output): {GATES}, from h = c = 0. The input is m x "
               "steps x features (or the m x (steps * features) matrix of its rows); the output is m "
               "x units, the last hidden state, or m x steps x units with return_sequences = true. "
               "Its weights, in net.weights as a record {w_ih, w_hh, b}, are lstm_forward's: w_ih 4 "
               "units x features, w_hh 4 units x units, b 4 units, so they carry over to and from "
               "PyTorch's weight_ih_l0 and weight_hh_l0 unchanged (PyTorch's two biases summed). They "
               "start much as Keras's LSTM starts them: each gate's block of w_ih Glorot-uniform, of "
               "w_hh orthogonal, and b zero but for the forget gate's 1 (Jozefowicz et al. 2015). The whole "
               "batch of sequences is one operation on the tape, lstm_forward's fused computation and "
               "its hand-written backpropagation through time. lstm after a layer whose output is not "
               "a sequence is a ShapeError that says to start with input(steps, features).")
def lstm(spec, units=None, return_sequences=False, **options):
    return lstm_layer(spec, units=units, return_sequences=return_sequences, **options)
