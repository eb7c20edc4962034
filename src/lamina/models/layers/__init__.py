"""The layer kinds of the model API, one file each; importing this package registers them.

dense.py       dense(units, activation = ...): act(x @ w + b), one fused tape op
dropout.py     dropout(rate): inverted dropout while fit trains
embedding.py   embedding(vocab, dim): tokens -> learnt vectors, step after step
layer_norm.py  layer_norm(): each row to mean 0, variance 1, then a gain and a bias
gru.py         gru(units, return_sequences = false): a GRU over each row's sequence
flatten.py     flatten(): each example (a sequence, an image) as the row of its numbers
custom.py      custom_layer(name, params, forward, init): a layer written in Lamina

Each defines a Layer subclass registered with `@register` (models/layer.py says what a
layer answers) and the function that appends it to a spec, which a builtin calls. Every file
of this folder is imported here, so a new layer's file registers its kind by being there.
"""
import importlib
import pkgutil

for _module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    importlib.import_module(f"{__name__}.{_module}")
