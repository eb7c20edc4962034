"""The layer kinds of the model API, one file each; importing this package registers them.

dense.py       dense(units, activation = ...): act(x @ w + b), one fused tape op
dropout.py     dropout(rate): inverted dropout while fit trains
embedding.py   embedding(vocab, dim): tokens -> learnt vectors, step after step
layer_norm.py  layer_norm(): each row to mean 0, variance 1, then a gain and a bias
gru.py         gru(units, return_sequences = false): a GRU over each row's sequence
flatten.py     flatten(): each example (a sequence, an image) as the row of its numbers
custom.py      custom_layer(name, params, forward, init): a layer written in Lamina
conv1d.py, conv2d.py          conv1d / conv2d(filters, kernel, ...): convolutions, channels last
max_pool.py, avg_pool.py      max_pool / avg_pool(size, ...): 1-D on sequences, 2-D on images
global_avg_pool.py            global_avg_pool(): the mean over the spatial axes, per channel
batch_norm.py  batch_norm(): per channel, with running statistics kept as buffers
lstm.py        lstm(units, return_sequences = false): an LSTM over each example's steps
attention.py   attention(heads, key_dim, causal = false): multi-head self-attention
transformer_block.py          transformer_block(heads, key_dim, ff_units, dropout): pre-norm
positional_embedding.py       positional_embedding(max_len, dim): tokens plus learnt positions

Each defines a Layer subclass registered with `@register` (models/layer.py says what a
layer answers) and the function that appends it to a spec, which a builtin calls. Every file
of this folder is imported here, so a new layer's file registers its kind by being there.
"""
import importlib
import pkgutil

for _module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    importlib.import_module(f"{__name__}.{_module}")
