"""compile: a model spec, an optimizer (or schedule), a loss and a seed -> a model.

The seed feeds the model's own NumPy generator (never the global one): the
weights are drawn from it in layer order, each layer's `init` (layer.py) drawing
its own (dense: Glorot-uniform, bias rows zero), and
fit's shuffling, dropout and validation split are seeded from it too, so the
same seed gives the same model. Without a seed, one is drawn from the global
generator, so seed(n) at the top of a program still makes it repeatable. The weights are
drawn in float64 and rounded to compile's dtype, so a float32 model starts from the float64
model's weights, rounded.
"""
from __future__ import annotations

import numpy as np

from ..autodiff.shaping import dtype_of
from ..errors import LaminaError
from ..optim.base import Optimizer
from ..optim.registry import get
from ..rng import generator
from ..values import as_int, describe, is_function
from .callbacks.schedule import Schedule
from .losses import function_loss, get_loss
from .model import Model
from .spec import ModelSpec


def optimizer_of(optimizer) -> tuple[Optimizer, Schedule | None]:
    """(settings-only optimizer, schedule or None) from a name, an optimizer or a schedule."""
    if isinstance(optimizer, Schedule):
        return optimizer.base, optimizer
    if isinstance(optimizer, (str, Optimizer)):
        return get(optimizer), None
    raise LaminaError("TypeError", f"compile's optimizer must be an optimizer's name such as \"adam\", "
                      f"an optimizer value, or a schedule such as lr_plateau(...), not "
                      f"{describe(optimizer)}.")


def compile_model(spec, optimizer="adam", loss="mse", seed=None, dtype="float64") -> Model:
    if not isinstance(spec, ModelSpec):
        what = "a compiled model (compile takes the spec it was made from)" \
            if isinstance(spec, Model) else describe(spec)
        raise LaminaError("TypeError", f"compile needs a model spec, input(n) |> dense(...), not {what}.")
    if is_function(loss):
        kind = function_loss(loss, has_layers(spec).shapes[-1].shape)
    elif isinstance(loss, str):
        kind = loss_for(spec, loss)
    else:
        raise LaminaError("TypeError", f"compile's loss must be a loss's name such as \"mse\", or a "
                          f"function of (prediction, target) that returns a number, not {describe(loss)}.")
    n = int(generator().integers(2**31)) if seed is None else as_int(seed, "compile's seed", minimum=0)
    opt, schedule = optimizer_of(optimizer)
    dt = dtype_of(dtype, "compile's dtype")
    weights = [w.astype(dt) for w in initial_weights(spec, n)]     # drawn in float64, then rounded
    return Model(spec, kind, n, opt.bind(weights, "the model's weights"), schedule,
                 buffers=tuple(b.astype(dt) for b in initial_buffers(spec)))


def loss_for(spec: ModelSpec, loss: str):
    """The loss named, if a model of this spec can be compiled with it (load_model asks too)."""
    check_ends(spec)
    kind = get_loss(loss, spec.layers[-1].activation)
    if kind.name == "cross_entropy" and spec.outputs < 2:
        raise LaminaError("ValueError", "cross_entropy needs a last layer of at least 2 units (one per "
                          "class); for two classes with one unit use binary_cross_entropy.")
    return kind


def has_layers(spec: ModelSpec) -> ModelSpec:
    """A spec with a layer at least (a function loss reads whatever the last one gives)."""
    if not spec.layers:
        raise LaminaError("ValueError", "compile needs a model with a layer at least: input(n) |> "
                          "dense(units, ...) |> compile(...).")
    return spec


def check_ends(spec: ModelSpec) -> None:
    """A model's last layer is its output layer: one with an activation (dense, or a layer whose
    output is its own)."""
    if not spec.layers or spec.layers[-1].activation is None:
        ends = f"; this one ends with {spec.layers[-1].label()}" if spec.layers else ""
        raise LaminaError("ValueError", "compile needs a model that ends with a dense layer (the "
                          "output layer, or another layer with an activation): input(n) |> "
                          f"dense(units, activation = ...) |> compile(...){ends}.")


def initial_weights(spec: ModelSpec, seed: int) -> list:
    """Every layer's fresh weights, layer after layer, from one generator seeded by `seed`."""
    rng = np.random.default_rng(seed)
    weights = []
    for layer, data, shapes in zip(spec.layers, spec.shapes, spec.parameter_shapes()):
        made = layer.init(data, rng)
        if [np.shape(w) for w in made] != list(shapes.values()):
            raise LaminaError("InternalError", f"The layer {layer.label()} made weights of shapes "
                              f"{[np.shape(w) for w in made]}, but its parameters are {shapes}.")
        weights.extend(made)
    return weights


def initial_buffers(spec: ModelSpec) -> list:
    """Every layer's first buffers (layer.py), layer after layer."""
    buffers = []
    for layer, data, shapes in zip(spec.layers, spec.shapes, spec.buffer_shapes()):
        made = layer.init_buffers(data)
        if [np.shape(b) for b in made] != list(shapes.values()):
            raise LaminaError("InternalError", f"The layer {layer.label()} made buffers of shapes "
                              f"{[np.shape(b) for b in made]}, but its buffers are {shapes}.")
        buffers.extend(made)
    return buffers
