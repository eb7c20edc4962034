"""Layer builtins of the model API: gru, embedding, layer_norm and flatten, each appending its
layer (lamina.models.layers) to a model spec (flatten is a tensor op too). The layer forms of dense and dropout are overloads
of those builtins in nn.py; input, compile, fit and the rest are in models.py."""
from __future__ import annotations

from ..errors import LaminaError
from ..models.layers.custom import custom_layer as custom_layer_of
from ..models.layers.embedding import embedding_layer
from ..models.layers.flatten import flatten_layer, flatten_rows
from ..models.layers.gru import gru_layer
from ..models.layers.layer_norm import layer_norm_layer
from ..values import LibObject
from .registry import GradCase, Shape, builtin

CATEGORY = "Models"
SEQUENCES = ("A batch of sequences is an m x steps x features array, or the m x (steps * features) "
             "matrix of its rows, each row one sequence, its steps one after another: fit, predict "
             "and evaluate read both forms the same way.")


@builtin("gru", pure="a model spec", tracked="constant", category=CATEGORY,
         probes="appends a layer to a model spec; its arguments are sizes and settings",
         shapes=[Shape("spec |> gru(units)", "model spec of sequences, units", "model spec",
                       "Appends a GRU layer that gives each sequence's last hidden state (units "
                       "numbers per example)."),
                 Shape("spec |> gru(units, return_sequences = true)", "the same, true", "model spec",
                       "Gives every step's hidden state, step after step (steps * units numbers "
                       "per example): sequences again, for another gru.")],
         summary="A gated recurrent unit layer: runs a GRU over each example's sequence and gives "
                 "its last hidden state (or all of them). Its input must be sequences, from "
                 "input(steps, features) or an embedding.",
         examples=["spec = input(20, 8) |> gru(32) |> dense(1)\nprint(spec)",
                   "seed(1)\nX = randn(256, 6)                   # 256 sequences of 6 steps, 1 feature\n"
                   "Y = X * ones(6, 1)                  # target: each sequence's sum\n"
                   "net = input(6, 1) |> gru(8) |> dense(1) |> compile(optimizer = adam(lr = 0.03), seed = 2)\n"
                   "net = net.fit(X, Y, epochs = 40, verbose = 0)\n"
                   "print(net.loss_history[39] < 0.05 * net.loss_history[0])\n"
                   "print(size(net.weights[0].wz), size(net.weights[0].uz), size(net.weights[0].bz))"],
         notes="Each step computes the equations of gru_cell and gru_forward (Cho et al. 2014): "
               "z = sigmoid(wz*x + uz*h + bz), r = sigmoid(wr*x + ur*h + br), "
               "hh = tanh(wh*x + uh*(r .* h) + bh) and the new state (1 - z) .* h + z .* hh, "
               "starting from h = 0. " + SEQUENCES + " With input(steps, features) the layer reads "
               "features numbers per step; after embedding(vocab, dim) it reads dim per step. Its "
               "weights are gru_init's nine, in net.weights as a record {wz, uz, bz, wr, ur, br, wh, "
               "uh, bh}: w* units x features and u* units x units Glorot-uniform, b* units x 1 "
               "zeros. The output is m x units (the last state), or m x (steps * units) with "
               "return_sequences = true. The whole batch of sequences is one operation on the tape, "
               "its gradient hand-written backpropagation through time. gru after a layer whose "
               "output is not a sequence (input(n), dense) is a ShapeError that says to start with "
               "input(steps, features). Note that PyTorch's GRU applies r after the product "
               "(r .* (uh*h + b)) and swaps the roles of z and 1 - z, so its weights do not carry "
               "over unchanged.")
def gru(spec, units=None, return_sequences=False, **options):
    return gru_layer(spec, units=units, return_sequences=return_sequences, **options)


@builtin("embedding", pure="a model spec", tracked="constant", category=CATEGORY,
         probes="appends a layer to a model spec; its arguments are sizes and settings",
         shapes=[Shape("spec |> embedding(vocab, dim)", "model spec of tokens, vocabulary size, "
                       "vector size", "model spec",
                       "Appends an embedding: each token becomes a learnt vector of dim numbers.")],
         summary="An embedding layer: turns each token (a whole number from 0 to vocab - 1) into a "
                 "learnt vector of dim numbers, so a row of tokens becomes a sequence that a gru can "
                 "read.",
         examples=["net = input(4) |> embedding(5, 3) |> dense(1) |> compile(seed = 1)\nprint(net)\n"
                   "print(size(net.weights[0].table))",
                   "seed(3)\nX = floor(5 * rand(300, 4))            # 300 rows of 4 tokens from 0 to 4\n"
                   "Y = sum(X == 2, 1) > 0                 # 1 where the row holds the token 2\n"
                   "net = input(4) |> embedding(5, 3) |> gru(8) |> dense(1, activation = \"sigmoid\") |>\n"
                   "      compile(optimizer = adam(lr = 0.05), loss = \"binary_cross_entropy\", seed = 1)\n"
                   "net = net.fit(X, Y, epochs = 20, verbose = 0)\n"
                   "print(evaluate(net, X, Y).accuracy)\n"
                   "print(round(predict(net, [2, 0, 0, 0; 1, 1, 3, 4]), 2))"],
         notes="X holds m rows of tokens, one column per step, and the layer gives an m x (steps * "
               "dim) matrix: each token's row of the vocab x dim table, step after step. "
               + SEQUENCES + " After input(steps, k) each step has k tokens, and the step's "
               "features are their k vectors side by side. The table starts standard normal (as "
               "PyTorch's nn.Embedding) and is net.weights' record {table}; its gradient adds each "
               "output gradient into its token's row (tokens get none). A token that is not a whole "
               "number from 0 to vocab - 1 (negative, too large, fractional, NaN) is a ValueError "
               "naming it and its row and column; fit, predict and evaluate check the whole of X "
               "first. embedding reads the input's tokens, so it is the first layer or a ValueError.")
def embedding(spec, vocab=None, dim=None, **options):
    return embedding_layer(spec, vocab=vocab, dim=dim, **options)


@builtin("layer_norm", pure="a model spec", tracked="constant", category=CATEGORY,
         probes="appends a layer to a model spec; its arguments are sizes and settings",
         shapes=[Shape("spec |> layer_norm()", "model spec", "model spec",
                       "Appends a layer normalisation of each example.")],
         summary="A layer normalisation: each example (row) is shifted and scaled to mean 0 and "
                 "variance 1, then multiplied by a learnt gain and shifted by a learnt bias.",
         examples=["net = input(3) |> layer_norm() |> dense(1) |> compile(seed = 4)\nprint(net)\n"
                   "print(net.weights[0])\n"
                   "print(round(predict(net, [1.0, 2.0, 4.0; 101.0, 102.0, 104.0]), 6))   # the same: "
                   "rows are centred first"],
         notes="Computes (x - mean) / sqrt(var + 1e-5) .* gain + bias over each row, with the "
               "biased variance (divided by the width, as PyTorch's layer_norm does). gain starts as "
               "ones and bias as zeros, each a 1 x width row, in net.weights as {gain, bias}. The "
               "output has the input's shape, and sequences stay sequences (the whole row is "
               "normalised, every step together). The layer is one operation on the tape with a "
               "hand-written gradient.")
def layer_norm(spec, **options):
    return layer_norm_layer(spec, **options)


@builtin("flatten", pure="a value", any_rank=True, category=CATEGORY,
         shapes=[Shape("flatten(x)", "tensor m x ...", "m x n matrix",
                       "Keeps the first axis and makes the others one: row i holds x's slice i, "
                       "row-major."),
                 Shape("spec |> flatten()", "model spec", "model spec",
                       "The layer form: appends a layer that makes each example (a sequence, an "
                       "image, a conv layer's feature maps) one row of numbers, for a dense layer "
                       "after it.")],
         summary="Flattens each example: keeps the first axis (examples) and lays the other axes "
                 "out as one row, as Keras's Flatten and torch's flatten(x, 1) do. As a layer it "
                 "goes between convolutions and a dense layer.",
         examples=["x = reshape(range(1, 13), 2, 3, 2)\nprint(flatten(x))",
                   "spec = input(6, 6, 1) |> flatten() |> dense(3, activation = \"softmax\")\nprint(spec)",
                   "w = param(reshape(range(1, 9), 2, 2, 2))\n"
                   "print(grad(sum(flatten(w) * [1; 2; 3; 4]), wrt = w))\ntape_reset()"],
         notes="On an array of shape m x a x b x ... the result is the m x (a * b * ...) matrix with "
               "the same numbers in the same (row-major) order, so row i is x's slice i, its last "
               "axis fastest: for an image batch n x h x w x c, each pixel's channels, then the "
               "next pixel of the row. A matrix stays as it is, a vector of m becomes the m x 1 "
               "matrix, and a number is a ShapeError. The gradient reshapes back. The layer form "
               "has no weights; its output shape is one number per example, height * width * "
               "channels for an image, and the whole model still takes X in either form (the "
               "m x ... array or the matrix of its rows).",
         grad=[GradCase(((4,),)), GradCase(((3, 2),)), GradCase(((2, 3, 4),)), GradCase(((2, 1, 2, 3),))])
def flatten(x, **options):
    if isinstance(x, LibObject) and x.type_name == "model spec":
        return flatten_layer(x, **options)
    if options:
        raise LaminaError("TypeError", f"flatten(x) takes no keyword '{next(iter(options))}'.")
    return flatten_rows(x)


@builtin("custom_layer", pure="a model spec", tracked="constant", category=CATEGORY,
         probes="appends a layer to a model spec; its arguments are a name, shapes and functions",
         shapes=[Shape("spec |> custom_layer(name, params = {w = [1, n]}, forward = (p, x) -> ...)",
                       "model spec, name, a record of weight shapes, a function of (weights, batch)",
                       "model spec", "Appends a layer written in Lamina."),
                 Shape("custom_layer(..., params = {w = s -> [s[-1], 8]}, init = {w = \"zeros\"})",
                       "shapes as functions of the input's shape, a record of init rules", "model spec",
                       "A weight whose shape follows the input, and how each weight starts.")],
         summary="A layer written in Lamina: its weights' shapes, how they start, and a forward "
                 "function of the weights and the batch. It trains with fit, predicts, prints and "
                 "saves like a built-in layer.",
         examples=["scale = custom_layer(input(3), \"scale\", params = {w = [1, 3]}, init = {w = \"ones\"},\n"
                   "                     forward = (p, x) -> x .* p.w)\nprint(scale)",
                   "seed(1)\nX = randn(200, 4)\nY = X * [2; -1; 0; 0.5] + 0.5\n"
                   "function affine(p, x)\n    return x * p.w + p.b\nend function\n"
                   "net = input(4) |> custom_layer(\"affine\", params = {w = s -> [s[0], 1], b = [1, 1]},\n"
                   "                               init = {b = \"zeros\"}, forward = affine) |>\n"
                   "      compile(optimizer = adam(lr = 0.1), seed = 2)\n"
                   "net = net.fit(X, Y, epochs = 40, verbose = 0)\n"
                   "print(round(net.weights[0].w, 2), round(net.weights[0].b, 2))",
                   "net = input(2) |> custom_layer(\"square\", forward = (p, x) -> x .^ 2) |> dense(1) |> "
                   "compile(seed = 1)\nsave_model(net, \"square.npz\")\n"
                   "print(predict(load_model(\"square.npz\"), [1, 2; 3, 4]) == predict(net, [1, 2; 3, 4]))"],
         notes="name labels the layer (print(net), net.layers, a saved file). params is a record with "
               "one field per weight: its shape as a vector of sizes, or a function of the shape of one "
               "example the layer receives (a vector, s[-1] the last size) that gives one, as Keras's "
               "build(input_shape) sizes its weights. init says how each starts: \"glorot_uniform\" "
               "(the default, uniform in +-sqrt(6 / (fan_in + fan_out)) with Keras's fans: a vector's "
               "size both ways, a matrix's rows and columns, a kernel's last two sizes times the "
               "others), \"zeros\", \"ones\", \"normal\" (standard deviation 0.05) or a number. forward "
               "is a function (p, x) -> y written in Lamina (or a builtin): p is the record of the "
               "layer's weights, tracked while fit trains, x the batch, m x the input's shape (m x 3 "
               "after input(3), m x 28 x 28 x 1 after input(28, 28, 1)); it returns the batch's "
               "outputs, m x anything, and fit differentiates through it as grad does. Mind the "
               "broadcasting rule: a weight that multiplies each example's features is a 1 x n row "
               "(params = {w = [1, n]}), since a vector acts as a column (one number per example). "
               "When the layer is appended its forward runs once on a batch of two zero examples, "
               "to learn its output shape (each later batch must keep it); an error there is the "
               "function's own. The layer has no activation: a model may end with it, its output "
               "then being what the loss reads. It works in float32 (the output is converted to the "
               "model's dtype) and float64. save_model saves its name, shapes, rules and its "
               "functions' source; a function that reads the program's other variables or functions "
               "cannot be saved (save_model says which), so write a saved layer's functions to use "
               "their parameters and builtins only. load_model compiles them again (see load_model).")
def custom_layer(spec, name=None, params=None, forward=None, init=None, **options):
    return custom_layer_of(spec, name=name, params=params, forward=forward, init=init, **options)
