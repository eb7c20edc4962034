"""The model API: a Keras-like way to build, train and use small networks.

    net = input(2) |> dense(4, activation = "relu") |> dense(1, activation = "none") |>
          compile(optimizer = "adam", loss = "mse", seed = 7)
    net = net.fit(X, Y, epochs = 60)          # a new model; loss_history has 60 numbers

spec.py       ModelSpec and input(n): the input width and the layers, no weights yet
layers.py     Dense (one fused tape op per layer: act(x @ w + b)) and Dropout; the
              activations; dense_layer and dropout_layer, which append to a spec
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

The builtins that expose these are in lamina.builtins.models and
lamina.builtins.lr_schedules; dense(spec, units, ...) dispatches from
lamina.builtins.nn.
"""
