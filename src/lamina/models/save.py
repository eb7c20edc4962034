"""save_model and load_model: one NumPy .npz file holding the arrays and a JSON header.

The header ("meta") names the format and version and holds everything that is
not an array: the input width, the layers, the loss, the seed, the epochs
trained, the optimizer's name, settings and step count, and the schedule with
its state. The arrays are the weights (param0, param1, ... in the optimizer's
order), the optimizer's running state (state0_m, ...) and the three histories.
Loading gives back a model equal in every number, so fitting it further goes on
exactly as the saved model would have.
"""
from __future__ import annotations

import json
import zipfile
from dataclasses import replace

import numpy as np

from ..errors import LaminaError
from ..optim.registry import get
from ..values import as_str, describe
from .callbacks.schedule import KINDS, Schedule
from .fit import check_model
from .layers import LAYER_KINDS
from .losses import LOSSES
from .model import Model
from .spec import ModelSpec

FORMAT, VERSION = "lamina-model", 1


def save_model(model, path) -> None:
    model = check_model(model, "save_model")
    path = as_str(path, "save_model's path")
    opt = model.optimizer
    meta = {
        "format": FORMAT, "version": VERSION, "inputs": model.spec.inputs,
        "layers": [{"kind": layer.kind, **{k: v for k, v in vars(layer).items()}}
                   for layer in model.spec.layers],
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
    except (KeyError, TypeError, ValueError, IndexError, json.JSONDecodeError) as e:
        raise _corrupt(path, f"a part is missing or malformed ({type(e).__name__}: {e})") from None
    except LaminaError as e:
        raise _corrupt(path, e.message) from None


def _corrupt(path: str, why: str) -> LaminaError:
    return LaminaError("ValueError", f"load_model: '{path}' is not a model saved by save_model, or "
                       f"it is damaged: {why}.")


def _rebuild(arrays: dict) -> Model:
    meta = json.loads(str(arrays["meta"]))
    if meta.get("format") != FORMAT:
        raise ValueError("its header does not name the lamina-model format")
    if meta.get("version") != VERSION:
        raise ValueError(f"it is version {meta.get('version')}, and this Lamina reads version {VERSION}")
    layers = tuple(LAYER_KINDS[d.pop("kind")](**d) for d in meta["layers"])
    spec = ModelSpec(int(meta["inputs"]), layers)
    o = meta["optimizer"]
    count = sum(2 for layer in layers if layer.kind == "dense")
    params = [_matrix(arrays[f"param{i}"]) for i in range(count)]
    widths = spec.widths()
    shapes = [s for i, layer in enumerate(layers) if layer.kind == "dense"
              for s in ((widths[i], layer.units), (1, layer.units))]
    if [p.shape for p in params] != shapes:
        raise ValueError("the weights' shapes do not match the layers")
    opt = get(o["name"]).with_hp(**o["hp"]).bind(params, "the saved weights")
    slots = opt.rule.slots
    state = tuple({s: _matrix(arrays[f"state{i}_{s}"]) for s in slots} for i in range(count))
    opt = replace(opt, state=state, t=int(o["t"]))
    schedule, s_state = None, {}
    if meta["schedule"] is not None:
        s = meta["schedule"]
        base = get(s["base"]["name"]).with_hp(**s["base"]["hp"])
        schedule = Schedule(KINDS[s["name"]], base, {k: float(v) for k, v in s["settings"].items()})
        s_state = {k: float(v) for k, v in s["state"].items()}
    return Model(spec, LOSSES[meta["loss"]], int(meta["seed"]), opt, schedule, s_state,
                 int(meta["epochs"]), _vector(arrays["loss_history"]),
                 _vector(arrays["val_loss_history"]), _vector(arrays["lr_history"]))


def _matrix(a) -> np.ndarray:
    if not isinstance(a, np.ndarray) or a.dtype != np.float64 or a.ndim != 2:
        raise ValueError(f"an array is {describe(a)} of {getattr(a, 'dtype', '?')}, not a float matrix")
    return a


def _vector(a) -> np.ndarray:
    if a.dtype != np.float64 or a.ndim != 1:
        raise ValueError("a history is not a float vector")
    return a
