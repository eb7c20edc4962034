"""save_model and load_model: one NumPy .npz file holding the arrays and a JSON header.

The header ("meta") names the format and version and holds everything that is
not an array: the shape of one example (a list of sizes), the layers (each its kind and its
settings, as the layer protocol gives them), the loss, the seed, the epochs
trained, the optimizer's name, settings and step count, and the schedule with its
state. The arrays are the weights (param0, param1, ... in the optimizer's order:
layer after layer, each layer's in the order its `parameters` names them), the
optimizer's running state (state0_m, ...), the layers' buffers (buffer0, buffer1, ...:
running statistics, layer after layer in the order each layer's `buffers` names them) and
the three histories; a float32 model's weights, state and buffers are float32 (all of one
dtype, the model's), everything else float64.
Loading gives back a model equal in every number and dtype, so fitting it further goes on
exactly as the saved model would have.

This is version 3 of the format. Version 2 (written before examples had a shape, with
the input's width and, for sequences, its steps in place of the shape) is read as the
version 3 header it stands for (header.py). Version 1 (written before layers were a
protocol, with each layer's settings beside its kind) is not read: loading one is a
ValueError that says so. Everything read is checked (archive.py reads the arrays
without trusting their headers; header.py reads the JSON header field by field;
here the arrays are matched to the layers and the histories to the epochs): each
failure is a ValueError naming the file and the field or array.

model_arrays and model_from_arrays are a file's members without the file, and spec_header and
spec_from_header a spec's part of the header: how cluster/package.py sends a model or spec that
holds Lamina functions to a sweep's workers.

The file is written atomically (lamina.files.write_file): a crash while saving
leaves the previous file or the new one, never a damaged one.
"""
from __future__ import annotations

import json
from dataclasses import replace

import numpy as np

from ..errors import LaminaError, shape_str
from ..files import expand_home, open_read, write_file
from ..values import as_str
from . import layers  # noqa: F401  (registers the layer kinds)
from .archive import TEXT_MEMBER, Bad, read_arrays
from .compile import loss_for
from .functions import rebuild, saved
from .fit import check_model
from .header import FORMAT, VERSION, optimizer, parse, schedule, spec, whole
from .losses import function_loss
from .model import Model
from .spec import ModelSpec

HISTORIES = ("loss_history", "val_loss_history", "lr_history")


def save_model(model, path) -> None:
    model = check_model(model, "save_model")
    path = expand_home(as_str(path, "save_model's path"))
    arrays = model_arrays(model)
    try:
        write_file(path, "save_model", lambda f: np.savez(f, **arrays))
    except OSError as e:
        raise LaminaError("ValueError", f"save_model could not write '{path}': {e.strerror or e}.") from None


def spec_header(model_spec) -> dict:
    """The header's fields that describe a spec: the example's shape, each layer's kind and settings
    (a Lamina function a layer holds as its source, functions.saved)."""
    return {"shape": list(model_spec.example),
            "layers": [{"kind": layer.kind, "settings": layer.settings()} for layer in model_spec.layers]}


def model_arrays(model) -> dict:
    """What a model file holds, by member name: the JSON header (TEXT_MEMBER) and the arrays. A
    LaminaError from functions.saved when the model holds a function that cannot be saved."""
    opt = model.optimizer
    meta = {
        "format": FORMAT, "version": VERSION, **spec_header(model.spec),
        "loss": model.loss.name if model.loss.function is None else saved(
            model.loss.function, f"the model's loss ({model.loss.name})"),
        "seed": model.seed, "epochs": model.epochs,
        "weights_epoch": model.weights_epoch,
        "optimizer": {"name": opt.rule.name, "hp": opt.hp, "t": opt.t},
        "schedule": None if model.schedule is None else {
            "name": model.schedule.kind.name, "settings": model.schedule.settings,
            "base": {"name": model.schedule.base.rule.name, "hp": model.schedule.base.hp},
            "state": model.schedule_state},
    }
    arrays = {TEXT_MEMBER: json.dumps(meta)}
    for i, (w, state) in enumerate(zip(opt.params, opt.state)):
        arrays[f"param{i}"] = w
        arrays.update({f"state{i}_{slot}": np.asarray(v) for slot, v in state.items()})
    arrays.update({f"buffer{i}": b for i, b in enumerate(model.buffers)})
    arrays.update(loss_history=model.loss_history, val_loss_history=model.val_loss_history,
                  lr_history=model.lr_history)
    return arrays


def spec_from_header(meta: dict, compile_fn) -> ModelSpec:
    """The spec that spec_header described, each layer checked as load_model checks it; a Bad
    naming what does not fit."""
    return spec(meta, len(meta["layers"]), compile_fn)


def load_model(path, compile_fn=None) -> Model:
    """The model saved at `path`; `compile_fn(text, name)` compiles the Lamina functions it holds
    (functions.rebuild), None where the caller cannot (a file that holds one is then refused)."""
    path = expand_home(as_str(path, "load_model's path"))
    try:
        with open_read(path, "load_model") as f:
            return model_from_arrays(read_arrays(f), compile_fn)
    except FileNotFoundError:
        raise LaminaError("ValueError", f"load_model: there is no file '{path}'.") from None
    except IsADirectoryError:
        raise LaminaError("ValueError", f"load_model: '{path}' is a folder, not a model file.") from None
    except OSError as e:
        raise LaminaError("ValueError", f"load_model cannot read '{path}': {e.strerror or e}.") from None
    except Bad as e:
        raise LaminaError("ValueError", f"load_model: '{path}' is not a model saved by save_model, or "
                          f"it is damaged: {e}.") from None


def model_from_arrays(arrays: dict, compile_fn) -> Model:
    """The model that model_arrays (or a file's read_arrays) gives the members of; a Bad naming
    what does not fit."""
    if TEXT_MEMBER not in arrays:
        raise Bad(f"it has no '{TEXT_MEMBER}' header")
    meta = parse(arrays[TEXT_MEMBER])
    model_spec = spec(meta, sum(k.startswith("param") for k in arrays), compile_fn)
    try:
        if isinstance(meta["loss"], dict):
            loss = function_loss(rebuild(meta["loss"], compile_fn, "its header's loss"), model_spec.shapes[-1].shape)
        else:
            loss = loss_for(model_spec, meta["loss"]) if isinstance(meta["loss"], str) else None
    except LaminaError as e:
        raise Bad(e.message.rstrip(".") if e.message.startswith("its header's loss")
                  else f"its header's loss: {e.message.rstrip('.')}") from None
    if loss is None:
        raise Bad(f"its header's loss is {meta['loss']!r}, not a loss's name or a saved function")
    seed, epochs = whole(meta["seed"], "seed"), whole(meta["epochs"], "epochs")
    held = meta["weights_epoch"]
    if held is not None and whole(held, "weights_epoch") >= epochs:
        raise Bad(f"its header's weights_epoch is {held}, but only {epochs} epochs were trained")
    opt = optimizer(meta["optimizer"], "optimizer")
    t = whole(meta["optimizer"]["t"], "optimizer.t")
    sched, sched_state = schedule(meta["schedule"], opt)
    expected = [(i, name, shape) for i, shapes in enumerate(model_spec.parameter_shapes())
                for name, shape in shapes.items()]
    kept = [(i, name, shape) for i, shapes in enumerate(model_spec.buffer_shapes())
            for name, shape in shapes.items()]
    known = {TEXT_MEMBER, *HISTORIES, *(f"param{k}" for k in range(len(expected))),
             *(f"state{k}_{s}" for k in range(len(expected)) for s in opt.rule.slots),
             *(f"buffer{k}" for k in range(len(kept)))}
    extra = sorted(k for k in arrays if k not in known)
    if extra:
        weights = f"its layers have {len(expected)} weights" + (
            f" and {len(kept)} buffer{'s' * (len(kept) != 1)}" if kept else "") + f", and {opt.rule.name} keeps " + (
            ", ".join(opt.rule.slots) if opt.rule.slots else "no state")
        raise Bad(f"it holds an array '{extra[0]}' that its model does not have ({weights})")
    params = []
    for k, (i, name, shape) in enumerate(expected):
        where = f"param{k} (the weight '{name}' of layer {i}, {model_spec.layers[i].label()})"
        params.append(_weight(arrays, f"param{k}", shape, where, params[0].dtype if params else None))
    opt = opt.bind(params, "the saved weights")
    state = tuple({s: _weight(arrays, f"state{k}_{s}", params[k].shape, f"state{k}_{s}", params[k].dtype)
                   for s in opt.rule.slots} for k in range(len(params)))
    opt = replace(opt, state=state, t=t)
    dtype = params[0].dtype if params else None
    buffers = tuple(_weight(arrays, f"buffer{k}", shape, f"buffer{k} (the buffer '{name}' of layer {i}, "
                            f"{model_spec.layers[i].label()})", dtype) for k, (i, name, shape) in enumerate(kept))
    histories = [_history(arrays, name, epochs) for name in HISTORIES]
    return Model(model_spec, loss, seed, opt, sched, sched_state, epochs, *histories, weights_epoch=held,
                 buffers=buffers)


def _weight(arrays: dict, key: str, shape: tuple, where: str, dtype=None) -> np.ndarray:
    """The array `key` of `shape` (and of `dtype`, the model's, when given)."""
    if key not in arrays:
        raise Bad(f"{where} is missing")
    a = arrays[key]
    if dtype is not None and a.dtype != dtype:
        raise Bad(f"{where} is {a.dtype.name}, but the model's weights are {np.dtype(dtype).name}")
    if a.ndim != len(shape):             # a layer's weight may have any rank (a conv kernel: 4)
        kind = {1: "a vector", 2: "a matrix"}.get(len(shape), f"an array of rank {len(shape)}")
        raise Bad(f"{where} is {'one number' if a.ndim == 0 else shape_str(a.shape)}, not {kind}")
    if a.shape != shape:
        raise Bad(f"the weights' shapes do not match the layers: {where} is {shape_str(a.shape)}, "
                  f"but it must be {shape_str(shape)}")
    return a


def _history(arrays: dict, name: str, epochs: int) -> np.ndarray:
    """A vector of one number per epoch (the validation loss: none, or one per epoch validated)."""
    if name not in arrays:
        raise Bad(f"its {name} is missing")
    a = arrays[name]
    if a.ndim != 1:
        raise Bad(f"its {name} is {'one number' if a.ndim == 0 else shape_str(a.shape)}, not a vector")
    if (a.size > epochs) if name == "val_loss_history" else (a.size != epochs):
        raise Bad(f"its {name} has {a.size} entries, but its header says {epochs} epochs were trained")
    return a.astype(np.float64, copy=False)
