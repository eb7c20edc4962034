"""The layer kinds of the model API, one file each; importing this package registers them.

dense.py       dense(units, activation = ...): act(x @ w + b), one fused tape op
dropout.py     dropout(rate): inverted dropout while fit trains

Each defines a Layer subclass registered with `@register` (models/layer.py says what a
layer answers) and the function that appends it to a spec, which a builtin calls.
"""
from . import dense, dropout  # noqa: F401  (importing registers)
