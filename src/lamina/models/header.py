"""The JSON header of a model file, read field by field.

Each reader takes what json.loads gave (anything: a list, a number, a string, NaN,
Infinity, a record with fields missing or extra) and returns the checked value, or
raises a `Bad` whose sentence names the field by its path in the header
(`epochs`, `optimizer.hp.lr`, `layers[1].settings.units`) and what it holds.
"""
from __future__ import annotations

import json

from ..errors import LaminaError
from ..optim.base import Optimizer
from ..optim.registry import RULES, get
from .archive import Bad
from .functions import rebuild
from .callbacks.schedule import KINDS as SCHEDULES
from .callbacks.schedule import Schedule, make
from .layer import KINDS as LAYERS
from .layer import DataShape, Layer
from .spec import ModelSpec

FORMAT, VERSION = "lamina-model", 3
FIELDS = ("format", "version", "shape", "layers", "loss", "seed", "epochs", "weights_epoch",
          "optimizer", "schedule")
# Version 2 (before examples had a shape) held the input as its width and, for sequences, steps.
FIELDS_2 = ("format", "version", "inputs", "steps", *FIELDS[3:])
MAX_RANK = 8        # the most axes an example's shape may have in a file


def shown(value) -> str:
    """A header value as the file writes it (JSON), cut short."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def parse(text: str) -> dict:
    """The header as a record with exactly the fields of this version."""
    try:
        meta = json.loads(text)
    except json.JSONDecodeError as e:
        raise Bad(f"its header is not JSON ({e.msg} at character {e.pos})") from None
    except RecursionError:
        raise Bad("its header is nested too deeply to be a model's header") from None
    if not isinstance(meta, dict):
        raise Bad(f"its header is {shown(meta)}, not a record of fields")
    if meta.get("format") != FORMAT:
        raise Bad(f"its header's format is {shown(meta.get('format'))}; it does not name the "
                  f"{FORMAT} format")
    version = meta.get("version")
    if version == 1:
        raise Bad("it is version 1 of the format, written by an earlier Lamina, and this Lamina "
                  "reads versions 2 and 3; build, fit and save the model again")
    if version == 2:
        return _from_version_2(record(meta, "", FIELDS_2))
    if version != VERSION:
        raise Bad(f"it is version {shown(version)}, and this Lamina reads versions 2 and {VERSION}")
    return record(meta, "", FIELDS)


def _from_version_2(meta: dict) -> dict:
    """A version 2 header as version 3's fields: its inputs and steps as the example's shape."""
    inputs, steps = whole(meta["inputs"], "inputs", 1), meta["steps"]
    if steps is None:
        shape = [inputs]
    elif inputs % whole(steps, "steps", 1) != 0:
        raise Bad(f"its header's inputs ({inputs}) is not a whole number of steps ({steps})")
    else:
        shape = [steps, inputs // steps]
    return {"format": FORMAT, "version": VERSION, "shape": shape,
            **{name: meta[name] for name in FIELDS[3:]}}


def record(value, field: str, fields) -> dict:
    """A JSON object with exactly these fields."""
    where = f"its header's {field}" if field else "its header"
    if not isinstance(value, dict):
        raise Bad(f"{where} is {shown(value)}, not a record of fields")
    for name in fields:
        if name not in value:
            raise Bad(f"{where} lacks the field '{name}'")
    for name in value:
        if name not in fields:
            raise Bad(f"{where} has a field '{name}' that it never has (its fields are "
                      f"{', '.join(fields)})")
    return value


def whole(value, field: str, minimum: int = 0) -> int:
    if type(value) is not int or value < minimum:
        raise Bad(f"its header's {field} is {shown(value)}, not a whole number of at least {minimum}")
    return value


def number(value, field: str) -> float:
    if type(value) not in (int, float):
        raise Bad(f"its header's {field} is {shown(value)}, not a number")
    return float(value)


def name_in(value, field: str, names, what: str) -> str:
    if not isinstance(value, str) or value not in names:
        raise Bad(f"its header's {field} is {shown(value)}, and the {what} are {', '.join(names)}")
    return value


def spec(meta: dict, weight_arrays: int, compile_fn=None) -> ModelSpec:
    """The model spec the header describes, every layer checked as its builtin checks it, in
    time linear in the layers; a header that describes more layers with weights than the file
    holds weight arrays (`weight_arrays`) is refused before any layer is built."""
    shape, described = example_shape(meta["shape"]), meta["layers"]
    if not isinstance(described, list):
        raise Bad(f"its header's layers is {shown(described)}, not a list")
    if not described:
        raise Bad("its header's layers is an empty list; a compiled model has at least one layer")
    weighted = sum(_has_weights(d) for d in described)
    if weighted > weight_arrays:
        raise Bad(f"its header describes {len(described)} layers, {weighted} of them with weights, but "
                  f"it holds {weight_arrays} weight array{'s' * (weight_arrays != 1)} (param0, param1, ...)")
    layers, data = [], DataShape(shape)
    for i, d in enumerate(described):
        field = f"layers[{i}]"
        if not isinstance(d, dict):
            raise Bad(f"its header's {field} is {shown(d)}, not a record of a kind and settings")
        record(d, field, ("kind", "settings"))
        kind = name_in(d["kind"], f"{field}.kind", LAYERS, "layer kinds")
        try:
            layer = LAYERS[kind].from_settings(decoded(d["settings"], compile_fn, "settings"))
            data = layer.output(data)        # what ModelSpec.with_layer checks, without a spec per layer
        except LaminaError as e:
            raise Bad(f"its header's {field} ({kind}): {e.message.rstrip('.')}") from None
        layers.append(layer)
    return ModelSpec(shape, tuple(layers))


def example_shape(value) -> tuple:
    """The shape of one example: a list of 1 to MAX_RANK whole numbers of at least 1."""
    if not isinstance(value, list) or not 1 <= len(value) <= MAX_RANK:
        raise Bad(f"its header's shape is {shown(value)}, not a list of 1 to {MAX_RANK} sizes")
    return tuple(whole(size, f"shape[{i}]", 1) for i, size in enumerate(value))


def decoded(settings, compile_fn, where: str):
    """A layer's settings as read, each saved function ({"function", "source"} or {"builtin"},
    functions.py) compiled back into a function."""
    if not isinstance(settings, dict):
        return settings
    return {k: rebuild(v, compile_fn, f"{where}.{k}") if isinstance(v, dict) and ("source" in v or "builtin" in v)
            else decoded(v, compile_fn, f"{where}.{k}") for k, v in settings.items()}


def _has_weights(described) -> bool:
    """Whether a header's layer record names a kind whose layers hold weights (at least one
    array each); anything else is checked field by field when the layer is built."""
    kind = described.get("kind") if isinstance(described, dict) else None
    cls = LAYERS.get(kind) if isinstance(kind, str) else None
    return cls is not None and cls.parameters is not Layer.parameters


def optimizer(value, field: str, fields=("name", "hp", "t")) -> Optimizer:
    """The optimizer's settings (unbound): its rule by name and every hyperparameter in range."""
    o = record(value, field, fields)
    rule = RULES[name_in(o["name"], f"{field}.name", RULES, "optimizers")]
    hp = record(o["hp"], f"{field}.hp", tuple(rule.defaults))
    opt = get(rule.name)
    for key, v in hp.items():
        number(v, f"{field}.hp.{key}")
        try:
            opt = opt.with_hp(**{key: float(v)})
        except LaminaError as e:
            raise Bad(f"its header's {field}.hp.{key}: {e.message.rstrip('.')}") from None
    return opt


def schedule(value, opt: Optimizer) -> tuple[Schedule | None, dict]:
    """The schedule and its state, or (None, {})."""
    if value is None:
        return None, {}
    s = record(value, "schedule", ("name", "settings", "base", "state"))
    kind = SCHEDULES[name_in(s["name"], "schedule.name", SCHEDULES, "schedules")]
    base = optimizer(s["base"], "schedule.base", ("name", "hp"))
    if base.rule is not opt.rule:
        raise Bad(f"its header's schedule.base.name is {shown(base.rule.name)}, but the optimizer "
                  f"it steps is {shown(opt.rule.name)}")
    settings = record(s["settings"], "schedule.settings", ("lr", *kind.settings))
    values = {k: number(v, f"schedule.settings.{k}") for k, v in settings.items()}
    if values["lr"] != base.hp["lr"]:
        raise Bad(f"its header's schedule.settings.lr ({shown(settings['lr'])}) is not its "
                  f"schedule.base.hp.lr ({shown(base.hp['lr'])})")
    try:
        made = make(kind.name, lr=values.pop("lr"), base=base, **values)
    except LaminaError as e:
        raise Bad(f"its header's schedule.settings: {e.message.rstrip('.')}") from None
    state = s["state"]
    if not isinstance(state, dict):
        raise Bad(f"its header's schedule.state is {shown(state)}, not a record of numbers")
    for k, v in state.items():
        if k not in kind.state:
            raise Bad(f"its header's schedule.state has a field '{k}' that {kind.name} never keeps"
                      + (f" (it keeps {', '.join(kind.state)})" if kind.state else " (it keeps none)"))
        number(v, f"schedule.state.{k}")
    if "wait" in state and not (state["wait"] >= 0 and float(state["wait"]).is_integer()):
        raise Bad(f"its header's schedule.state.wait is {shown(state['wait'])}, not a whole number of "
                  f"epochs")
    return made, {k: float(v) for k, v in state.items()}

