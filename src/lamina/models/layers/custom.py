"""A layer written in Lamina: `custom_layer(spec, "scale", params = {w = [1, 4]},
forward = (p, x) -> x .* p.w, init = {w = "ones"})`.

What Keras's custom Layer (build's add_weight, call) and Flux's @functor give, as values:
  params    a record of its weights' shapes: each a vector of sizes, or a function of the shape
            of one example it receives (a vector) giving one, so a weight can follow its input
            (`w = s -> [s[-1], 8]`, as Keras's build(input_shape) does)
  init      a record of how each weight starts (default "glorot_uniform", Keras's rule and fans;
            "zeros", "ones", "normal" (standard deviation 0.05, Keras's RandomNormal) or a number)
  forward   a function (p, x) -> y: p the record of its weights (tracked while fit trains), x the
            batch (m x *shape), y the batch's outputs, m x anything. fit differentiates through it
            as the language does; its output shape is found by running it once on a batch of two
            zero examples when the layer is appended (and checked on every batch).
It has no activation of its own ("none"), so a model may end with it. Saved as its name, the
shapes and rules, and its functions' source text (models/functions.py): functions that read
nothing but their parameters and builtins.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...autodiff.shaping import astype
from ...errors import LaminaError, describe_shape
from ...lang.runtime import call
from ...values import Record, as_int, as_str, describe, format_number, is_function, value_of
from ..functions import label, saved
from ..layer import DataShape, Layer, no_options, register
from ..spec import check_spec

RULES = ("glorot_uniform", "zeros", "ones", "normal")
NORMAL_STD = 0.05        # Keras's RandomNormal
SETTINGS = ("name", "params", "init", "forward")


@register
@dataclass(frozen=True)
class Custom(Layer):
    name: str
    params: tuple          # ((weight name, shape vector as a tuple, or a function of the input's shape), ...)
    rules: tuple           # ((weight name, its init rule: one of RULES or a number), ...), one per weight
    fn: object             # forward: (p, x) -> y
    kind = "custom_layer"
    activation = "none"
    example = 'input(3) |> custom_layer("scale", params = {w = [1, 3]}, forward = (p, x) -> x .* p.w)'

    @classmethod
    def create(cls, name, params=None, forward=None, init=None) -> Custom:
        name = as_str(name, "custom_layer's name")
        if not name.strip():
            raise LaminaError("ValueError", "custom_layer's name cannot be empty: it names the layer in "
                              "print(net) and in a saved file.")
        who = f"custom_layer {name}"
        if not is_function(forward):
            raise LaminaError("TypeError", f"{who} needs forward = a function (p, x) -> y of its weights "
                              f"p (a record) and the batch x, not {describe(forward)}.")
        shapes = _record(params, f"{who}'s params")
        for key, value in shapes.items():
            if not is_function(value):
                _sizes(value, f"{who}'s weight {key}")
        rules = _record(init, f"{who}'s init")
        for key in rules:
            if key not in shapes:
                raise LaminaError("ValueError", f"{who}'s init names {key}, which is not among its params "
                                  f"({', '.join(shapes) or 'none'}).")
        chosen = {key: _rule(rules.get(key, "glorot_uniform"), f"{who}'s init for {key}") for key in shapes}
        return cls(name, tuple((k, v if is_function(v) else _sizes(v, "")) for k, v in shapes.items()),
                   tuple(chosen.items()), forward)

    def __post_init__(self):
        # what parameters() and output() found for each input shape (each runs Lamina code):
        # asked on every batch, computed once
        object.__setattr__(self, "_found", {})

    # -- shapes ------------------------------------------------------------------------
    def parameters(self, data: DataShape) -> dict:
        key = ("parameters", data)
        if key not in self._found:
            self._found[key] = self._parameters(data)
        return dict(self._found[key])

    def _parameters(self, data: DataShape) -> dict:
        out = {}
        for key, shape in self.params:
            if is_function(shape):
                given = call(shape, (np.array(data.shape, dtype=float),))
                shape = _sizes(given, f"custom_layer {self.name}'s weight {key} (its params function, "
                                      f"given the input's shape {list(data.shape)})")
            out[key] = shape
        return out

    def output(self, data: DataShape) -> DataShape:
        key = ("output", data)
        if key not in self._found:
            self._found[key] = self._output(data)
        return self._found[key]

    def _output(self, data: DataShape) -> DataShape:
        probe = np.zeros((2, *data.shape))
        weights = self.init(data, np.random.default_rng(0))
        y = value_of(self._call(probe, weights, data))
        if not isinstance(y, np.ndarray) or y.ndim < 2 or y.shape[0] != 2:
            raise LaminaError("ShapeError", f"custom_layer {self.name}'s forward must give one row (or "
                              f"array) per example, m x ..., but on a batch of 2 examples of "
                              f"{data.describe()} it gave {describe(y)}.")
        return DataShape(y.shape[1:])

    def init(self, data: DataShape, rng: np.random.Generator) -> list:
        rules = dict(self.rules)
        return [_initial(rules[key], shape, rng) for key, shape in self.parameters(data).items()]

    # -- running ------------------------------------------------------------------------
    def forward(self, x, params, data, training, rng, logits=False):
        y = self._call(x, params, data)
        v, xv = value_of(y), value_of(x)
        want = (np.shape(xv)[0], *self.output(data).shape)
        if np.shape(v) != want:
            raise LaminaError("ShapeError", f"custom_layer {self.name}'s forward gave "
                              f"{describe_shape(np.shape(v))} for a batch of {want[0]}, where it gave "
                              f"m x {' x '.join(map(str, want[1:]))} when the layer was made.")
        return astype(y, xv.dtype) if v.dtype != xv.dtype else y

    def _call(self, x, params: list, data: DataShape):
        p = Record(dict(zip(self.parameters(data), params)))
        return call(self.fn, (p, x))

    # -- describing and saving --------------------------------------------------------------
    def label(self) -> str:
        return f"custom_layer(\"{self.name}\")"

    def settings(self) -> dict:
        what = f"the custom layer {self.name}"
        return {"name": self.name,
                "params": {k: saved(v, f"{what}'s params function for {k} ({label(v)})") if is_function(v)
                           else list(v) for k, v in self.params},
                "init": dict(self.rules),
                "forward": saved(self.fn, f"{what}'s forward ({label(self.fn)})")}

    @classmethod
    def from_settings(cls, settings) -> Custom:
        if not isinstance(settings, dict):
            raise LaminaError("ValueError", f"the settings of a custom_layer are {describe(settings)}, "
                              f"not a record of fields")
        for key in SETTINGS:
            if key not in settings:
                raise LaminaError("ValueError", f"the custom_layer's settings lack '{key}'")
        for key in settings:
            if key not in SETTINGS:
                raise LaminaError("ValueError", f"a custom_layer has no setting '{key}'")
        params, init = settings["params"], settings["init"]
        if not isinstance(params, dict) or not isinstance(init, dict):
            raise LaminaError("ValueError", "a custom layer's params and init are records")
        shapes = {k: v if is_function(v) else np.array(v, dtype=float) if _all_numbers(v) else v
                  for k, v in params.items()}
        return cls.create(settings["name"], Record(shapes), settings["forward"], Record(dict(init)))

    def record_fields(self) -> dict:
        return {"kind": self.kind, "name": self.name,
                "params": Record({k: v if is_function(v) else np.array(v, dtype=float) for k, v in self.params}),
                "init": Record({k: float(v) if isinstance(v, (int, float)) else v for k, v in self.rules}),
                "forward": self.fn}


def _all_numbers(v) -> bool:
    return isinstance(v, list) and all(type(n) in (int, float) for n in v)


def _record(value, what: str) -> dict:
    if value is None:
        return {}
    if not isinstance(value, Record):
        raise LaminaError("TypeError", f"{what} must be a record such as {{w = [1, 4]}}, not {describe(value)}.")
    return dict(value.fields)


def _sizes(value, what: str) -> tuple:
    """A weight's shape: a vector (or number) of whole sizes of at least 1."""
    v = value_of(value)
    if isinstance(v, float):
        v = np.array([v])
    if not isinstance(v, np.ndarray) or v.ndim != 1 or v.size == 0:
        raise LaminaError("TypeError", f"{what} must be a shape, a vector of sizes such as [1, 4] (or a "
                          f"function of the input's shape giving one), not {describe(value)}.")
    return tuple(as_int(float(n), f"{what}'s size {i}", minimum=1) for i, n in enumerate(v))


def _rule(value, what: str):
    if isinstance(value, str):
        if value not in RULES:
            raise LaminaError("ValueError", f"{what} is \"{value}\"; the rules are {', '.join(RULES)}, or "
                              f"a number (every element starts at it).")
        return value
    if type(value) in (int, float) and math.isfinite(value):
        return float(value)
    raise LaminaError("TypeError", f"{what} must be one of {', '.join(RULES)} or a finite number, not "
                      f"{describe(value) if not isinstance(value, float) else format_number(value)}.")


def _initial(rule, shape: tuple, rng: np.random.Generator) -> np.ndarray:
    """A weight's first value by its rule; glorot_uniform with Keras's fans (compute_fans)."""
    if rule == "glorot_uniform":
        if len(shape) == 1:
            fan_in = fan_out = shape[0]
        else:
            receptive = math.prod(shape[:-2])
            fan_in, fan_out = shape[-2] * receptive, shape[-1] * receptive
        limit = math.sqrt(6.0 / (fan_in + fan_out))
        return rng.uniform(-limit, limit, shape)
    if rule == "normal":
        return rng.normal(0.0, NORMAL_STD, shape)
    return np.full(shape, {"zeros": 0.0, "ones": 1.0}.get(rule, rule), dtype=float)


def custom_layer(spec, name=None, params=None, forward=None, init=None, **options):
    """`spec |> custom_layer(name, params = {...}, forward = f, init = {...})`."""
    spec = check_spec(spec, "custom_layer")
    no_options(options, "custom_layer(spec, name, params = {...}, forward = f, init = {...})")
    if name is None:
        raise LaminaError("TypeError", "The layer custom_layer(spec, name, params = {...}, forward = f) "
                          "needs a name (a string).")
    return spec.with_layer(Custom.create(name, params, forward, init))
