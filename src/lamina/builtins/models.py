"""Model API builtins: input, compile, fit, predict, evaluate, quick_mlp,
save_model, load_model (the layer forms of dense and dropout are dispatched from
builtins/nn.py; gru, embedding and layer_norm are in builtins/layers.py).
The code is in lamina.models; the schedules' builtins are in lr_schedules.py."""
from __future__ import annotations

import numpy as np

from ..errors import LaminaError, describe_shape
from ..models.compile import compile_model
from ..models.evaluate import evaluate as evaluate_model
from ..models.evaluate import predict as predict_model
from ..models.fit import fit as fit_model
from ..models.quick import quick_mlp as quick_mlp_fn
from ..models.functions import compiler
from ..models.model import Model
from ..models.spec import ModelSpec, input_spec
from ..stats.data import as_matrix, summarize
from ..stats.fitparts import is_fit
from ..stats.intervals import predict as predict_fit
from ..stats.models import LogisticModel
from ..stats.table import Table
from ..values import describe, value_of
from .autodiff import trains
from .registry import Shape, builtin, refuse_tracked

CATEGORY = "Models"
# The model the probes of tests/builtins/test_tracked_arguments.py train, and its float32 twin.
PROBE_NET = 'net = input(2) |> dense(1, activation = "none") |> compile(optimizer = "sgd", loss = "mse", seed = 1)\n'
PROBE_NET32 = PROBE_NET.replace("seed = 1)", 'seed = 1, dtype = "float32")')
XOR = "X = [0.0, 0.0; 0.0, 1.0; 1.0, 0.0; 1.0, 1.0]\nY = [0.0; 1.0; 1.0; 0.0]\n"
NET = (XOR + "net = input(2) |> dense(8, activation = \"tanh\") |> dense(1, activation = \"sigmoid\") |>\n"
       "      compile(optimizer = adam(lr = 0.05), loss = \"binary_cross_entropy\", seed = 1)\n")
MODEL_NOTE = ("A model is an immutable value: fit returns a new one. Its fields: inputs, outputs, "
              "layers (a list of records, each the layer's kind and settings: {kind, units, "
              "activation} for dense, {kind, rate} for dropout, ...), weights (a list with one record "
              "per layer that has weights, named as that layer names them: {w, b} for dense, w in x "
              "units and b the 1 x units bias row; {table} for embedding; {gain, bias} for "
              "layer_norm; gru_init's nine for gru), "
              "loss, seed, optimizer (its current settings, lr included), schedule, epochs, "
              "loss_history and lr_history (one number per epoch over every fit), val_loss_history "
              "(the same, NaN for the epochs of a fit without validation; empty while none was "
              "validated), "
              "and interrupted (true when Ctrl-C stopped the fit that returned it). "
              "print(net) shows a summary like Keras's.")


@builtin("input", pure="a model spec", tracked="constant", category=CATEGORY,
         probes="its argument is a count of inputs",
         shapes=[Shape("input(n)", "number of features", "model spec",
                       "The start of a model whose examples have n features."),
                 Shape("input(steps, features)", "number of steps, features per step", "model spec",
                       "The start of a model whose examples are sequences: X is m x steps x features, "
                       "or the matrix of steps * features columns, each row one sequence step after step."),
                 Shape("input(height, width, channels)", "an image's sizes", "model spec",
                       "The start of a model whose examples are images, channels last: X is "
                       "m x height x width x channels, or the matrix of their rows (m x 784 for "
                       "input(28, 28, 1)). Any number of sizes gives examples of that shape.")],
         summary="Starts a model spec: the input layer of a network whose examples (rows of X) have "
                 "n features, are sequences of steps steps, or are images. Add layers with "
                 "|> dense(...) and finish with |> compile(...).",
         examples=["spec = input(3) |> dense(4, activation = \"relu\") |> dense(2, activation = \"softmax\")\n"
                   "print(spec.inputs, spec.outputs)\nprint(spec)",
                   "spec = input(20, 8) |> gru(32) |> dense(1)    # X: one row of 20 * 8 numbers per sequence\n"
                   "print(spec.inputs)\nprint(spec)",
                   "seed(1)\nX = randn(200, 6, 2)                       # 200 sequences: 6 steps of 2 features\n"
                   "Y = reshape(X, 200, -1) * ones(12, 1)      # each sequence's sum\n"
                   "net = input(6, 2) |> gru(8) |> dense(1) |> compile(optimizer = adam(lr = 0.03), seed = 2)\n"
                   "net = net.fit(X, Y, epochs = 30, verbose = 0)\n"
                   "print(size(predict(net, X)), all(predict(net, X) == predict(net, reshape(X, 200, -1))))\n"
                   "print(net.loss_history[29] < 0.1 * net.loss_history[0])",
                   "spec = input(28, 28, 1) |> flatten() |> dense(10, activation = \"softmax\")\n"
                   "print(spec.inputs)\nprint(spec)\n"
                   "net = spec |> compile(loss = \"cross_entropy\", seed = 1)\n"
                   "images = rand(5, 28, 28, 1)\n"
                   "print(size(predict(net, images)), all(predict(net, images) == predict(net, reshape(images, 5, 784))))"],
         notes="A model spec is an immutable value with the fields inputs, outputs and layers; each "
               "layer builtin returns a new spec, so one spec can start several models. It has no "
               "weights until compile gives it some. n must be a whole number of at least 1. "
               "With input(steps, features) X is an m x steps x features array (example x step x "
               "feature), or the m x (steps * features) matrix of its rows, reshape(X, m, -1): row i "
               "is sequence i, the features of step 0, then those of step 1, and so on. fit, predict "
               "and evaluate read both forms the same way, with the same numbers; inputs is "
               "steps * features. Any other array is a ShapeError naming input(...) and both shapes, "
               "as is an array for a model made with input(n). Layers that read sequences (gru) need "
               "such an input, or an embedding before them; dense reads the whole example (every "
               "step) at once. input(height, width, channels) takes images channels last, as Keras "
               "does: X is m x height x width x channels, or the m x (height * width * channels) "
               "matrix of its rows (reshape(X, m, -1): row-major, so the channels of a pixel, then "
               "the next pixel of the row); inside the model the batch is the m x height x width x "
               "channels array, which conv2d and max_pool read. Any number of sizes works the same "
               "way (input(4, 4, 4, 2)). Each size must be a whole number of at least 1.")
def input_(*dims):
    return input_spec(*dims)


@builtin("compile", pure="a model", tracked="constant", category=CATEGORY,
         probes="takes a model spec",
         shapes=[Shape("compile(spec, optimizer = \"adam\", loss = \"mse\", seed = n)",
                       "model spec, optimizer name, loss name, seed", "model",
                       "Weights drawn from the seed; defaults adam and mse."),
                 Shape("compile(spec, optimizer = adam(lr = 0.01), ...)", "an optimizer value",
                       "model", "Its settings (lr, betas, ...) are used."),
                 Shape("compile(spec, optimizer = lr_plateau(lr = 0.1, patience = 5), ...)",
                       "a schedule", "model", "The rate changes between epochs."),
                 Shape("compile(spec, ..., dtype = \"float32\")", "\"float32\" or \"float64\"", "model",
                       "Weights, optimizer state and training in single precision."),
                 Shape("compile(spec, loss = my_loss, ...)", "a function (prediction, target) -> number",
                       "model", "Your own loss, written in Lamina (or a builtin such as mae).")],
         summary="Turns a model spec into a model: draws the weights from the seed, and fixes the "
                 "optimizer (a name, an optimizer value or a learning-rate schedule) and the loss "
                 "(mse, mae, cross_entropy or binary_cross_entropy).",
         examples=["net = input(2) |> dense(4, activation = \"relu\") |> dense(1, activation = \"none\") |>\n"
                   "      compile(optimizer = \"adam\", loss = \"mse\", seed = 7)\nprint(net)\n"
                   "w = net.weights[0]\nprint(size(w.w), w.b)",
                   "spec = input(2) |> dense(3, activation = \"softmax\")\n"
                   "a = compile(spec, loss = \"cross_entropy\", seed = 5)\n"
                   "b = compile(spec, loss = \"cross_entropy\", seed = 5)\n"
                   "print(a.weights[0].w == b.weights[0].w)",
                   "spec = input(2) |> dense(3, activation = \"softmax\")\n"
                   "net = compile(spec, loss = \"cross_entropy\", seed = 5, dtype = \"float32\")\n"
                   "print(net.dtype, dtype(net.weights[0].w))",
                   "seed(1)\nX = randn(64, 2)\nY = X * [1; -1] + 0.3 * (randn(64, 1) .^ 3)      # a few outliers\n"
                   "function huber(p, y)\n    d = abs(p - y)\n"
                   "    return mean((d < 1) .* 0.5 .* d .^ 2 + (d >= 1) .* (d - 0.5))\nend function\n"
                   "net = input(2) |> dense(1) |> compile(optimizer = adam(lr = 0.1), loss = huber, seed = 3)\n"
                   "net = net.fit(X, Y, epochs = 30, verbose = 0)\n"
                   "print(net.loss, round(net.weights[0].w, 1))\nprint(round(evaluate(net, X, Y).loss, 3))"],
         notes="Weights are drawn layer by layer from the model's own NumPy generator seeded by "
               "seed, each layer drawing its own: a dense layer's w is Glorot-uniform, uniform in "
               "+-sqrt(6 / (in + units)), and its bias a 1 x units row of zeros (one per unit) (the "
               "other layers' pages say how they start). So the same seed gives the same model. "
               "Without a seed one is drawn from the global generator (so seed(n) at the top of a "
               "program still makes it repeatable). An optimizer given by name uses that optimizer's "
               "defaults (adam: lr 0.001); an optimizer value contributes its settings only (its "
               "parameters and running state are not used); a schedule contributes its base "
               "optimizer and starting rate. cross_entropy needs a last layer with activation "
               "softmax (at least 2 units) and binary_cross_entropy one with sigmoid; both are then "
               "computed from the layer's pre-activation, stably (with activation \"none\" the "
               "outputs are taken as raw scores). Any other pairing, an unknown loss or optimizer "
               "name, or a spec that does not end with a dense layer (a layer with an activation) is "
               "an error here, before any training. dtype = \"float32\" makes a single-precision "
               "model: its weights are drawn as in float64 and rounded, and fit, predict and "
               "evaluate convert X and Y to float32 and compute in it (optimizer state included); "
               "predictions are float32, and net.dtype says which a model is. loss may be a "
               "function of (prediction, target) that returns the batch's loss, one number: written in "
               "Lamina (function f(p, y) ... end function, or (p, y) -> ...) or a builtin such as mae. "
               "prediction is the model's output for a batch, m x units (m x steps x units, and so "
               "on, for outputs of higher rank), after the last layer's activation, tracked while fit "
               "trains so that fit differentiates through the function; target is the batch's rows "
               "of Y in the same shape. evaluate gives {loss} for it, net.loss is the function, and "
               "print(net) names it. save_model saves the function's source with the model (a "
               "function that reads the program's other variables or functions cannot be saved, and "
               "says which it reads), and load_model compiles it again. " + MODEL_NOTE)
def compile_(spec, optimizer="adam", loss="mse", seed=None, dtype="float64"):
    return compile_model(spec, optimizer=optimizer, loss=loss, seed=seed, dtype=dtype)


@builtin("fit", any_rank=True, pure="a new model", tracked="refuses", category=CATEGORY,
         probes=[PROBE_NET + "fit(net, q, [1; 1; 2; 0])"],
         float32_probes=[PROBE_NET32 + "fit(net, q, float32([1; 1; 2; 0]))"],
         shapes=[Shape("fit(model, X, Y, epochs = n)", "model, m x inputs matrix, targets, epochs",
                       "model", "Trains and returns a new model; rows are examples."),
                 Shape("net.fit(X, Y, epochs = n, batch_size = 32, shuffle = true)", "the same, as "
                       "a method", "model", "Mini-batches of batch_size rows, reshuffled each epoch."),
                 Shape("fit(model, X, Y, validation_split = 0.2)", "a fraction", "model",
                       "Holds out a random, seeded part of the rows; fills val_loss_history."),
                 Shape("fit(model, X, Y, validation_data = [Xv, Yv])", "a list of two", "model",
                       "Validates on the given rows instead."),
                 Shape("fit(model, X, Y, early_stopping = patience)", "epochs", "model",
                       "Stops after patience epochs without improvement; keeps the best weights."),
                 Shape("fit(model, X, Y, verbose = 0)", "0, 1 or 2", "model",
                       "0 (or false) silent; 1 (or true) a progress bar on a terminal; 2 a line "
                       "per epoch.")],
         summary="Trains a model on the rows of X and Y with mini-batches and returns the trained "
                 "model, whose loss_history holds one loss per epoch; the model it was called on is "
                 "unchanged.",
         examples=[NET + "net = net.fit(X, Y, epochs = 300, batch_size = 4)\n"
                   "n = length(net.loss_history)\n"
                   "print(n, net.loss_history[n - 1] < 0.1 * net.loss_history[0])\n"
                   "print(round(predict(net, X)))",
                   "seed(0)\nX = randn(200, 2)\nY = X * [1.5; -2.0] + 0.5\n"
                   "net = input(2) |> dense(1, activation = \"none\") |> compile(optimizer = adam(lr = 0.05), seed = 3)\n"
                   "net = net.fit(X, Y, epochs = 100, validation_split = 0.25, early_stopping = 5)\n"
                   "print(length(net.val_loss_history) == net.epochs, net.val_loss_history[net.epochs - 1] < 0.001)\n"
                   "print(round(net.weights[0].w, 2), round(net.weights[0].b, 2))"],
         notes="Each epoch shuffles the rows (unless shuffle = false) and walks them in batches of "
               "batch_size (default 32; the last may be smaller). Each batch resets the tape (like "
               "train_loop: tracked values made before fit are stale afterwards), runs the model "
               "forward with one fused operation per layer, takes the gradient and steps the "
               "optimizer. loss_history[e] is the mean of epoch e's batch losses, weighted by batch "
               "size, with dropout on (so with one batch per epoch, loss_history[0] is the loss "
               "before the first step); val_loss_history[e] is the loss on the validation rows "
               "after epoch e, dropout off (NaN for an epoch of a fit without validation, once "
               "any epoch was validated; empty before). lr_history[e] is the rate epoch e used. Histories and "
               "epochs accumulate over repeated fits, and the optimizer's state carries over. "
               "validation_split holds out round(m * fraction) rows chosen at random from a "
               "generator seeded by the compile seed (the same rows on every fit of that model): "
               "unlike Keras, which takes the last rows before shuffling and so surprises users "
               "whose data are sorted. early_stopping = p watches the validation loss (the training "
               "loss without validation), stops after p epochs without a new best, and returns the "
               "weights of the best epoch (the learning rate a schedule reached stays). Shuffling, "
               "dropout and the split use generators seeded by the compile seed, each epoch's by "
               "the seed and the epoch's number counted over every fit, so the same seed, data and "
               "options give the same model and loss_history on every run, and fit(epochs = 2) "
               "then fit(epochs = 1) trains exactly as fit(epochs = 3), as a PyTorch DataLoader "
               "draws epoch after epoch from one generator. X and Y may be tables of numeric columns "
               "(t[:, [\"a\", \"b\"]], made into a matrix once, in the model's dtype; predict and "
               "evaluate take them too). For a model made with input(steps, features) X may be the "
               "m x steps x features array (see input). Shapes are checked first: X needs the input's columns, "
               "Y one column per output unit (a vector of m when there is one unit; for "
               "cross_entropy a vector of class indices also works, and trains exactly as its "
               "one-hot rows do without ever making the m x units matrix), and both the same number of "
               "rows; errors name both shapes. A loss that becomes NaN or Inf stops fit with a "
               "ValueError naming the epoch and batch, or the row of X or Y that holds NaN or Inf "
               "(or a number beyond float32 in a float32 model) when there is one; validation_data "
               "must be finite. Ctrl-C (or interrupting a notebook's kernel) "
               "while fit trains stops it after the current batch, as Keras does, and the program "
               "goes on: fit returns the model trained so far, with the weights of every completed "
               "batch, the epochs and histories of the completed epochs, and interrupted = true "
               "(false when fit ran to the end), and a one-line warning says so whatever verbose is; a "
               "second Ctrl-C drops the batch in progress. Ctrl-C anywhere else interrupts the program as always.")
def fit(model, X, Y, epochs=1, batch_size=32, shuffle=True, validation_split=0.0,
        validation_data=None, early_stopping=None, verbose=1):
    refuse_tracked("fit", (X, Y, validation_data))
    with trains("fit"):
        return fit_model(model, X=_matrix(X, model, "fit's X"), Y=_matrix(Y, model, "fit's Y"), epochs=epochs, batch_size=batch_size, shuffle=shuffle,
                         validation_split=validation_split, validation_data=validation_data,
                         early_stopping=early_stopping, verbose=verbose)


@builtin("predict", any_rank=True, pure="a value", tracked="refuses", category=CATEGORY,
         probes=[PROBE_NET + "predict(net, q)", "predict(linreg([1, 2, 3, 4], [2, 4, 5, 8]), p)"],
         float32_probes=[PROBE_NET32 + "predict(net, q)"],
         shapes=[Shape("predict(model, X)", "model, m x inputs matrix", "m x outputs matrix",
                       "The model's outputs for each row."),
                 Shape("net.predict(X)", "the same, as a method", "m x outputs matrix",
                       "Method-call form."),
                 Shape("predict(fit, X)", "a linreg or logreg result, predictors", "vector",
                       "Fitted values (linreg) or probabilities of class 1 (logreg) for each row."),
                 Shape("predict(fit, newdata)", "a model fitted from a formula, a table", "vector",
                       "Predictions for the table's rows, its columns read as the formula reads the data's."),
                 Shape("predict(fit, newdata, interval = \"prediction\", level = 0.95)",
                       "linear model, new rows, \"confidence\" or \"prediction\"", "table {fit, lower, upper}",
                       "With the confidence interval of the mean, or the prediction interval of a new observation."),
                 Shape("predict(glmfit, newdata, type = \"response\", se = true)",
                       "GLM, new rows, \"link\" or \"response\", bool", "table {fit, se}",
                       "A GLM's linear predictor (type \"link\", the default) or mean, with standard errors."),
                 Shape("predict(fit)", "linear model or GLM", "vector", "The predictions at the fit's own rows.")],
         summary="Runs a model forward on new rows: one row of outputs per row of X (probabilities "
                 "for a softmax or sigmoid output layer); for a fitted linear model or GLM its "
                 "predictions, with confidence or prediction intervals or standard errors.",
         examples=[NET + "net = net.fit(X, Y, epochs = 300, batch_size = 4)\n"
                   "p = predict(net, X)\nprint(size(p))\nprint(round(p))",
                   "x = [1.2, 2.0, 2.9, 4.1, 5.0, 6.2, 6.8, 8.1, 9.0, 9.8]\n"
                   "y = [2.3, 3.1, 5.8, 6.2, 8.9, 9.7, 12.8, 13.1, 15.9, 16.2]\nfit = linreg(x, y)\n"
                   "print(predict(fit, [5; 12], interval = \"prediction\"))",
                   "t = table({yield = [3.0, 3.23, 4.19, 4.41, 5.63, 3.44, 4.67, 5.68, 5.51, 7.01],\n"
                   "           nitrogen = [0, 40, 80, 120, 160, 0, 40, 80, 120, 160],\n"
                   "           variety = [\"a\", \"a\", \"a\", \"a\", \"a\", \"b\", \"b\", \"b\", \"b\", \"b\"]})\n"
                   "fit = linreg(t, \"yield ~ nitrogen + variety\")\n"
                   "print(predict(fit, table({nitrogen = [100, 100], variety = [\"a\", \"b\"]}), interval = \"confidence\"))"],
         notes="A network's result is always a matrix with one column per output unit, also for one "
               "unit (m x 1), with dropout off. The "
               "computation is off the tape (plain NumPy), so it does not disturb tracked values. "
               "X is checked as in fit: it needs as many columns as input(n) said, or for input(steps, "
               "features) it may be the m x steps x features array (the same numbers come out). For the result of "
               "linreg or logreg, predict gives one number per row: X * weights + intercept, passed "
               "through the logistic function for logreg. A model fitted from a formula takes its new "
               "data as a table holding the columns the formula reads, built into model rows as the "
               "fit's were (the same factor levels; a level the fit never saw, or a missing column, is "
               "a ValueError); one fitted from a matrix takes a matrix of its predictor columns. "
               "interval = \"confidence\" gives fit +- q se, the interval of the mean at those rows, "
               "and \"prediction\" fit +- q sqrt(se^2 + sigma^2), that of one new observation, with "
               "q the t quantile on the residual degrees of freedom and se = sigma sqrt(x0'(X'X)^-1 x0), "
               "as R's predict.lm; se = true adds the column se. A GLM predicts on the link scale "
               "(type = \"link\", the default, as R) or the response scale (type = \"response\", "
               "the mean); se = true gives the table {fit, se}, se on the response scale by the delta "
               "method, as R's predict.glm(se.fit = TRUE). Without newdata: the fit's own rows. "
               "Agrees with statsmodels' get_prediction().summary_frame().")
def predict(model, X=None, interval="none", level=0.95, type=None, se=False):
    refuse_tracked("predict", (X,))
    rows = value_of(X)
    if (is_fit(model) or isinstance(model, LogisticModel)) and isinstance(rows, np.ndarray) and rows.ndim > 2:
        raise LaminaError("ShapeError", f"predict of {describe(model)} takes its new rows as a matrix "
                          f"or a table, not {describe_shape(rows.shape)}.")
    if is_fit(model):
        return predict_fit(model, newdata=X, interval=interval, level=level, type=type, se=se)
    if X is None:
        raise LaminaError("TypeError", f"predict of {describe(model)} needs the rows to predict: "
                          f"predict(model, X).")
    if isinstance(model, LogisticModel):
        return model.predict(X)
    return predict_model(model, X=_matrix(X, model, "predict's X"))


@builtin("evaluate", any_rank=True, pure="a record", tracked="refuses", category=CATEGORY,
         probes=[PROBE_NET + "evaluate(net, q, [1; 1; 2; 0])"],
         float32_probes=[PROBE_NET32 + "evaluate(net, q, float32([1; 1; 2; 0]))"],
         shapes=[Shape("evaluate(model, X, Y)", "model, inputs, targets", "record {loss}",
                       "The loss on these rows (mse, mae)."),
                 Shape("evaluate(model, X, Y)", "classification model", "record {loss, accuracy}",
                       "Also the share of rows classified right.")],
         summary="The model's loss on some rows, dropout off; for cross_entropy and "
                 "binary_cross_entropy also the accuracy. Returns a record.",
         examples=[NET + "net = net.fit(X, Y, epochs = 300, batch_size = 4)\n"
                   "r = evaluate(net, X, Y)\nprint(r.accuracy, r.loss < 0.1)"],
         notes="Returns {loss} for mse and mae, and {loss, accuracy} for the classification "
               "losses. Accuracy with cross_entropy is the share of rows whose largest output is "
               "the target's class (its index, or the largest entry of a one-hot or probability "
               "row); with binary_cross_entropy the share of outputs on the same side of 0.5 as "
               "the target. X and Y are checked and shaped as in fit (X may be the m x steps x features "
               "array of a model made with input(steps, features)).")
def evaluate(model, X, Y):
    refuse_tracked("evaluate", (X, Y))
    return evaluate_model(model, X=_matrix(X, model, "evaluate's X"), Y=_matrix(Y, model, "evaluate's Y"))


def _matrix(x, model, who: str):
    """A table as the matrix of its numeric columns, made once in the model's dtype (fit, predict
    and evaluate then use it without another copy); anything else as it is."""
    if isinstance(x, Table):
        return as_matrix(x, dtype=getattr(model, "dtype", np.float64), who=who)
    return x


@builtin("quick_mlp", pure="a model", tracked="refuses", category=CATEGORY,
         probes=["quick_mlp(q, [1; 1; 2; 0], epochs = 2)"],
         float32_probes=['quick_mlp(q, float32([1; 1; 2; 0]), epochs = 2, dtype = "float32")'],
         shapes=[Shape("quick_mlp(X, Y, seed = n)", "inputs, targets, seed", "model",
                       "A fitted MLP with one hidden layer of 16 tanh units."),
                 Shape("quick_mlp(X, Y, seed = n, hidden = [32, 16], epochs = 500)",
                       "layer widths, epochs", "model", "More or wider hidden layers, longer."),
                 Shape("quick_mlp(X, Y, loss = \"cross_entropy\")", "a loss", "model",
                       "A classifier: the output layer follows the loss."),
                 Shape("quick_mlp(X, Y, dtype = \"float32\")", "\"float32\" or \"float64\"", "model",
                       "A single-precision model (compile's dtype).")],
         summary="Builds, compiles and fits a small multilayer perceptron in one call, with defaults "
                 "that fit small problems, and returns the fitted model.",
         examples=["X = [0.0, 0.0; 0.0, 1.0; 1.0, 0.0; 1.0, 1.0]\nY = [0.0; 1.0; 1.0; 2.0]\n"
                   "m = quick_mlp(X, Y, seed = 3)\nn = length(m.loss_history)\n"
                   "print(n, m.loss_history[n - 1] < 0.001)\nprint(round(predict(m, X), 1))",
                   "X = [0.0, 0.0; 0.0, 1.0; 1.0, 0.0; 1.0, 1.0]\n"
                   "m = quick_mlp(X, [0, 1, 1, 0], loss = \"cross_entropy\", seed = 1, epochs = 200)\n"
                   "print(evaluate(m, X, [0, 1, 1, 0]).accuracy)"],
         notes="The same as input(columns of X) |> dense(16, activation = \"tanh\") (one per width "
               "in hidden) |> an output layer |> compile(optimizer = adam(lr = 0.05), loss, seed) "
               "|> fit(X, Y, epochs = 300, batch_size = 32). The output layer has one unit per "
               "column of Y (or per class, for cross_entropy with class indices) and the "
               "activation the loss pairs with: none for mse and mae, softmax for cross_entropy, "
               "sigmoid for binary_cross_entropy. Keywords: seed (default 0), hidden, epochs, "
               "activation, loss (default mse), optimizer (a name, value or schedule; then lr "
               "applies only if given), lr, batch_size and verbose, as in compile and fit, and "
               "dtype (default \"float64\"), as in compile.")
def quick_mlp(X, Y, seed=0, hidden=16, epochs=300, activation="tanh", loss="mse", optimizer="adam",
              lr=None, batch_size=32, verbose=1, dtype="float64"):
    refuse_tracked("quick_mlp", (X, Y))
    with trains("quick_mlp"):
        return quick_mlp_fn(X, Y=Y, seed=seed, hidden=hidden, epochs=epochs, activation=activation,
                            loss=loss, optimizer=optimizer, lr=lr, batch_size=batch_size, verbose=verbose,
                            dtype=dtype)


@builtin("summary", pure="a summary", tracked="constant", category=CATEGORY,
         probes="takes a model or a model spec, a fitted model or a table",
         shapes=[Shape("summary(net)", "model or model spec", "model summary",
                       "Each layer with the shape of its output and its parameter count, and the total."),
                 Shape("summary(fit)", "linear, generalized linear, logistic or likelihood fit", "the fit",
                       "The fit itself, which prints as R's summary(fit) prints."),
                 Shape("summary(t)", "table", "table", "describe(t): each numeric column's statistics.")],
         summary="A model's summary, as Keras's model.summary() shows it: each layer, the shape of "
                 "its output for a batch of m examples, its number of parameters, and the total.",
         examples=["net = input(8, 8, 1) |> flatten() |> dense(16, activation = \"relu\") |>\n"
                   "      dense(3, activation = \"softmax\") |> compile(loss = \"cross_entropy\", seed = 1)\n"
                   "print(summary(net))\n"
                   "s = summary(net)\nprint(s.parameters, s.total)\nprint(s.layer[2], s.output[2])",
                   "print(summary(input(20, 8) |> gru(16, return_sequences = true) |> gru(4) |> dense(1)))"],
         notes="summary(net) shows what print(net) shows: the heading (inputs, outputs, loss, optimizer, "
               "seed), one row per layer, the input first, and the total, then how far the model has "
               "trained; for a model spec, the same without the training. The output shape is written "
               "as Lamina writes shapes, m x 26 x 26 x 32 for a batch of m images of 26 x 26 with 32 "
               "channels (Keras writes (None, 26, 26, 32)): it is the shape of what the layer gives when "
               "the model runs on m examples, predict's for the last layer. A layer's parameters count "
               "every number of its weights (net.weights). At the prompt or as a notebook cell's last "
               "line the summary shows itself; its fields are layer (each row's label, input(...) "
               "first), output (each row's shape of one example, a vector), parameters (a vector, 0 for "
               "the input) and total. summary of a fitted linreg, glm, logreg or mle model is the "
               "fit itself, whose printout is R's summary(fit) (so summary(fit) prints as in R, and "
               "its fields are the fit's); summary of a table is describe(t), the statistics of each "
               "numeric column.")
def summary(net):
    if isinstance(net, (Model, ModelSpec)):
        return net.summary()
    from ..stats.mle import MaximumLikelihoodFit      # (8 ms to import: only when a summary asks)
    if is_fit(net) or isinstance(net, (LogisticModel, MaximumLikelihoodFit)):
        return net               # R's summary(fit): the fit prints it
    if isinstance(net, Table):
        return summarize(net)    # R's summary of a data frame
    raise LaminaError("TypeError", f"summary takes a model or a model spec (input(n) |> layers "
                      f"|> compile(...)), a fitted model (linreg, glm, logreg, mle) or a table, not "
                      f"{describe(net)}.")


@builtin("save_model", any_rank=True, tracked="constant", category=CATEGORY,
         probes="takes a model and a path",
         shapes=[Shape("save_model(model, path)", "model, file path", "no output",
                       "Writes the model to one .npz file.")],
         summary="Saves a model (spec, weights, optimizer state, schedule and histories) to a file "
                 "that load_model reads back exactly.",
         examples=[NET + "net = net.fit(X, Y, epochs = 50, batch_size = 4)\n"
                   "save_model(net, \"xor_model.npz\")\nsame = load_model(\"xor_model.npz\")\n"
                   "print(predict(same, X) == predict(net, X), same.epochs)"],
         notes="The file is a NumPy .npz archive (a zip of .npy arrays) written to exactly the path "
               "given: the weights and the optimizer's running averages in the model's dtype (float64, "
               "or float32 for a float32 model, which loads back as float32), the histories as "
               "float64 arrays, and a JSON header for the rest (layers, loss, seed, optimizer settings and "
               "step count, schedule and its state). Whether the fit that made the model was "
               "interrupted is not saved: a loaded model's interrupted is false, and its epochs and "
               "histories say how far it trained. An existing file is replaced atomically: the "
               "archive is written to a temporary file in the same folder (named .NAME.PID-RANDOM."
               "lamina-tmp), flushed to disk, and then renamed over the old file, so a crash or a "
               "kill at any moment leaves the old model or the new one, never a damaged file. A "
               "temporary file left by a killed process is removed by the next save to that path. "
               "A path that cannot be written is a ValueError; under lamina --allow-write or "
               "--sandbox, one outside the allowed folders is a PermissionError.")
def save_model(model, path):
    from ..models.save import (
        save_model as save,  # zipfile and json: loaded on first use
    )
    save(model, path)


@builtin("load_model", any_rank=True, pure="a model", tracked="constant", category=CATEGORY,
         probes="takes a path", scoped=True,
         shapes=[Shape("load_model(path)", "file path", "model", "The model save_model wrote.")],
         summary="Reads a model saved by save_model: every weight, setting and history exactly as "
                 "saved, so predictions match and further fitting continues the same way.",
         examples=[NET + "save_model(net, \"untrained.npz\")\n"
                   "print(load_model(\"untrained.npz\").weights[1].w == net.weights[1].w)"],
         notes="Everything read is checked before a model is made. A missing file, or one that is "
               "not a model saved by save_model, is a ValueError naming the path and what is wrong: "
               "not an .npz archive (a lone .npy array, any other file, a damaged zip or a failed "
               "checksum), an array that is not float64 or float32 numbers (Python objects are never "
               "read), weights of more than one dtype, an "
               "array header that does not match its data, a header that is not a JSON record, a "
               "header field that is missing, unknown or out of range (named by its path, such as "
               "epochs, optimizer.hp.lr or layers[1].settings.units: a layer kind, activation, "
               "optimizer, schedule or loss this Lamina does not have, a count that is not a whole "
               "number, NaN or Infinity where a number must be finite), weights or optimizer state "
               "whose shapes (or dtypes) do not fit the layers, or histories that do not match the epochs. Files "
               "are version 3 of the format (the example's shape, each layer's kind and settings); "
               "version 2 files (written before input took shapes of any rank) are read as well; files "
               "of version 1, written by earlier versions of Lamina, are not read: fit and save the "
               "model again. A model whose loss (compile(loss = f)) or custom layer holds Lamina "
               "functions holds their source: each must parse as exactly one definition of its "
               "function, nothing else in it runs, and the functions run with no permission to read "
               "or write files. "
               "Under lamina --allow-read or --sandbox, a file outside the allowed folders is a "
               "PermissionError.")
def load_model(scope, /, path):
    from ..models.save import (
        load_model as load,  # zipfile and json: loaded on first use
    )
    host = scope.host if scope is not None else None
    return load(path, compiler(host, f"read from {path}") if host is not None else None)
