"""The model API: a Keras-like way to build, train and use small networks.

    net = input(2) |> dense(4, activation = "relu") |> dense(1, activation = "none") |>
          compile(optimizer = "adam", loss = "mse", seed = 7)
    net = net.fit(X, Y, epochs = 60)          # a new model; loss_history has 60 numbers

spec.py       ModelSpec, input(n) and input(steps, features): the input's shape and the
              layers, no weights yet
layer.py      the layer protocol (what a layer answers: its output shape, its weights'
              names and shapes, init, forward, activation, label, settings) and the
              registry of layer kinds; nothing else asks a layer anything else
layers/       one file per layer kind (dense, dropout, ...), each with the function
              that appends it to a spec
losses.py     the losses a model compiles with, and the output activation each pairs with
compile.py    spec + optimizer (name, value or schedule) + loss + seed -> Model
model.py      Model: the immutable compiled value, its fields, forward, summary
data.py       checking and shaping X and Y (rows are examples)
fit.py        fit: the fixed epoch/batch loop that only fires callbacks
callbacks/    History, EarlyStopping, schedules (lr_plateau, lr_adaptive, lr_step,
              lr_cosine) and their callback, Progress (tqdm bar / verbose lines)
evaluate.py   predict and evaluate
save.py       save_model / load_model (.npz with a JSON header)
quick.py      quick_mlp: build, compile and fit in one call

The builtins that expose these are in lamina.builtins.models, lamina.builtins.layers
and lamina.builtins.lr_schedules; dense(spec, units, ...) and dropout(spec, rate)
dispatch from lamina.builtins.nn. The activations are nn/activation_table.py's.
"""
