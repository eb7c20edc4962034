"""save_model and load_model: one NumPy .npz file holding the arrays and a JSON header.

The header ("meta") names the format and version and holds everything that is
not an array: the input's width and steps, the layers (each its kind and its
settings, as the layer protocol gives them), the loss, the seed, the epochs
trained, the optimizer's name, settings and step count, and the schedule with its
state. The arrays are the weights (param0, param1, ... in the optimizer's order:
layer after layer, each layer's in the order its `parameters` names them), the
optimizer's running state (state0_m, ...) and the three histories. Loading gives
back a model equal in every number, so fitting it further goes on exactly as the
saved model would have.

This is version 2 of the format. Version 1 (written before layers were a protocol,
with each layer's settings beside its kind) is not read: loading one is a
ValueError that says so. Everything read is checked (a layer kind that is not
registered, settings a layer does not accept, weights or optimizer state of the
wrong shape, a malformed header): each is a ValueError naming the file and the part.
"""
from __future__ import annotations

import json
import zipfile
from dataclasses import replace

import numpy as np

from ..errors import LaminaError, shape_str
from ..optim.registry import get
from ..values import as_str, describe
from . import layers  # noqa: F401  (registers the layer kinds)
from .callbacks.schedule import KINDS as SCHEDULES
from .callbacks.schedule import Schedule
from .fit import check_model
from .layer import kind_named
from .losses import LOSSES
from .model import Model
from .spec import ModelSpec

FORMAT, VERSION = "lamina-model", 2


def save_model(model, path) -> None:
    model = check_model(model, "save_model")
    path = as_str(path, "save_model's path")
    opt = model.optimizer
    meta = {
        "format": FORMAT, "version": VERSION, "inputs": model.spec.inputs, "steps": model.spec.steps,
        "layers": [{"kind": layer.kind, "settings": layer.settings()} for layer in model.spec.layers],
        "loss": model.loss.name, "seed": model.seed, "epochs": model.epochs,
        "optimizer": {"name": opt.rule.name, "hp": opt.hp, "t": opt.t},
        "schedule": None if model.schedule is None else {
            "name": model.schedule.kind.name, "settings": model.schedule.settings,
            "base": {"name": model.schedule.base.rule.name, "hp": model.schedule.base.hp},
            "state": model.schedule_state},
    }
    arrays = {"meta": np.array(json.dumps(meta))}
    for i, (w, state) in enumerate(zip(opt.params, opt.state)):
        arrays[f"param{i}"] = w
        arrays.update({f"state{i}_{slot}": np.asarray(v) for slot, v in state.items()})
    arrays.update(loss_history=model.loss_history, val_loss_history=model.val_loss_history,
                  lr_history=model.lr_history)
    try:
        with open(path, "wb") as f:
            np.savez(f, **arrays)
    except OSError as e:
        raise LaminaError("ValueError", f"save_model could not write '{path}': {e.strerror}.") from None


def load_model(path) -> Model:
    path = as_str(path, "load_model's path")
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
    except FileNotFoundError:
        raise LaminaError("ValueError", f"load_model: there is no file '{path}'.") from None
    except IsADirectoryError:
        raise LaminaError("ValueError", f"load_model: '{path}' is a folder, not a model file.") from None
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as e:
        raise _corrupt(path, f"it is not a NumPy .npz file ({e})") from None
    try:
        return _rebuild(arrays)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, json.JSONDecodeError) as e:
        raise _corrupt(path, f"a part is missing or malformed ({type(e).__name__}: {e})") from None
    except LaminaError as e:
        raise _corrupt(path, e.message.rstrip(".")) from None


def _corrupt(path: str, why: str) -> LaminaError:
    return LaminaError("ValueError", f"load_model: '{path}' is not a model saved by save_model, or "
                       f"it is damaged: {why}.")


def _bad(why: str) -> LaminaError:
    return LaminaError("ValueError", why)


def _rebuild(arrays: dict) -> Model:
    meta = json.loads(str(arrays["meta"]))
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise _bad("its header does not name the lamina-model format")
    if meta.get("version") == 1:
        raise _bad(f"it is version 1 of the format, written by an earlier Lamina, and this Lamina "
                   f"reads version {VERSION} only; build, fit and save the model again")
    if meta.get("version") != VERSION:
        raise _bad(f"it is version {meta.get('version')}, and this Lamina reads version {VERSION}")
    spec = _spec(meta)
    expected = [(i, name, shape) for i, shapes in enumerate(spec.parameter_shapes())
                for name, shape in shapes.items()]
    extra = sorted(k for k in arrays if k.startswith("param") and k[5:].isdigit()
                   and int(k[5:]) >= len(expected))
    if extra:
        raise _bad(f"it holds {extra[0]}, but its layers have only {len(expected)} weights")
    params = []
    for k, (i, name, shape) in enumerate(expected):
        where = f"param{k} (the weight '{name}' of layer {i}, {spec.layers[i].label()})"
        params.append(_weight(arrays, f"param{k}", shape, where))
    o = meta["optimizer"]
    opt = get(o["name"]).with_hp(**o["hp"]).bind(params, "the saved weights")
    state = tuple({s: _weight(arrays, f"state{k}_{s}", params[k].shape, f"state{k}_{s}")
                   for s in opt.rule.slots} for k in range(len(params)))
    opt = replace(opt, state=state, t=int(o["t"]))
    schedule, s_state = None, {}
    if meta["schedule"] is not None:
        s = meta["schedule"]
        base = get(s["base"]["name"]).with_hp(**s["base"]["hp"])
        schedule = Schedule(SCHEDULES[s["name"]], base, {k: float(v) for k, v in s["settings"].items()})
        s_state = {k: float(v) for k, v in s["state"].items()}
    return Model(spec, LOSSES[meta["loss"]], int(meta["seed"]), opt, schedule, s_state,
                 int(meta["epochs"]), _vector(arrays["loss_history"]),
                 _vector(arrays["val_loss_history"]), _vector(arrays["lr_history"]))


def _spec(meta: dict) -> ModelSpec:
    """The model spec the header describes, every layer checked as its builtin checks it."""
    inputs, steps, described = meta["inputs"], meta.get("steps"), meta["layers"]
    if type(inputs) is not int or inputs < 1 or not (steps is None or (type(steps) is int and
                                                      steps >= 1 and inputs % steps == 0)):
        raise _bad(f"its input is {inputs!r} numbers in {steps!r} steps, which is no model's input")
    if not isinstance(described, list):
        raise _bad(f"its layers are {describe(described)}, not a list")
    spec = ModelSpec(inputs, (), steps)
    for i, d in enumerate(described):
        if not isinstance(d, dict) or set(d) != {"kind", "settings"}:
            raise _bad(f"layer {i} is {d!r}, not a record of a kind and settings")
        try:
            spec = spec.with_layer(kind_named(d["kind"]).from_settings(d["settings"]))
        except LaminaError as e:
            raise _bad(f"layer {i} ({d['kind']!r}): {e.message.rstrip('.')}") from None
    return spec


def _weight(arrays: dict, key: str, shape: tuple, where: str) -> np.ndarray:
    if key not in arrays:
        raise _bad(f"{where} is missing")
    a = arrays[key]
    if not isinstance(a, np.ndarray) or a.dtype != np.float64 or a.ndim != 2:
        raise _bad(f"{where} is {describe(a)} of {getattr(a, 'dtype', '?')}, not a float matrix")
    if a.shape != shape:
        raise _bad(f"the weights' shapes do not match the layers: {where} is {shape_str(a.shape)}, "
                   f"but it must be {shape_str(shape)}")
    return a


def _vector(a) -> np.ndarray:
    if a.dtype != np.float64 or a.ndim != 1:
        raise ValueError("a history is not a float vector")
    return a
