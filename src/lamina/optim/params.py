"""Parameter containers: one value, a list, or a record of numbers and tensors.

`Structure` remembers how the parameters were given, so that gradients can be
matched against them (and checked) and plain values rebuilt in the same shape.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import LaminaError, describe_shape
from ..values import Record, Tracked, describe, is_numeric, value_of


def plain_copy(x, what: str):
    """A fresh plain float, or array of the tensor's dtype (float32 or float64), of a (possibly
    tracked) number or tensor."""
    if isinstance(x, (np.floating, np.integer)):
        return float(x)
    if not is_numeric(x):
        raise LaminaError("TypeError", f"{what} must be a number or tensor (tracked or plain), "
                          f"not {describe(x)}.")
    v = value_of(x)
    if isinstance(v, np.ndarray):
        return np.array(v, dtype=np.float32 if v.dtype == np.float32 else np.float64)
    return float(v)


def plain_value(x, what: str):
    """plain_copy, but an array comes back as it is: for values that are only read (gradients)."""
    v = x.value if type(x) is Tracked else x
    if type(v) is np.ndarray and v.dtype.kind == "f":
        return v
    return plain_copy(x, what)


@dataclass(frozen=True)
class Structure:
    kind: str              # "one", "list" or "record"
    keys: tuple            # record field names, in order (empty otherwise)
    count: int
    # Per parameter, whether it was given as a track() value: an optimizer keeps it (and its
    # state) as it is, as torch.optim skips a tensor without requires_grad. Not part of the
    # layout: train_loop's parameters match an optimizer's whatever their marks.
    frozen: tuple = field(default=(), compare=False)

    def is_frozen(self, i: int) -> bool:
        return bool(self.frozen) and self.frozen[i]

    def label(self, i: int) -> str:
        if self.kind == "one":
            return "the parameter"
        if self.kind == "record":
            return f"parameter '{self.keys[i]}'"
        return f"parameter {i}"

    def build(self, values: list):
        """Plain values in the container the parameters were given in."""
        if self.kind == "one":
            return values[0]
        if self.kind == "record":
            return Record(dict(zip(self.keys, values)))
        return list(values)

    def describe(self) -> str:
        if self.kind == "one":
            return "one value"
        if self.kind == "record":
            return f"a record with fields {', '.join(self.keys)}"
        return f"a list of {self.count}"


def flatten(params, what: str):
    """(Structure, list of fresh plain values) for one value, a list or a record; a track()
    value among them is frozen (see Structure.frozen)."""
    if isinstance(params, Record):
        keys, given = tuple(params.fields), list(params.fields.values())
        items = [plain_copy(v, f"{what} '{k}'") for k, v in params.fields.items()]
        kind = "record"
    elif isinstance(params, list):
        keys, given = (), params
        items = [plain_copy(v, f"{what} {i}") for i, v in enumerate(params)]
        kind = "list"
    else:
        keys, given = (), [params]
        items = [plain_copy(params, what)]
        kind = "one"
    # a track() leaf; a value computed from tracked ones (w * 1, or w after w[0] = 0.5) trains
    # from its current value, as a param of it would (it was frozen, silently)
    frozen = tuple(type(v) is Tracked and v.entry is None and not v.trainable for v in given)
    structure = Structure(kind, keys, len(items), frozen if any(frozen) else ())
    if not items:
        raise LaminaError("ValueError", f"{what} must hold at least one value, but the "
                          f"{structure.kind} is empty.")
    return structure, items


def origins(params) -> tuple:
    """Per parameter, the node id of the tracked value it was given as (None for a plain one):
    where its value came from, for optimizer_step's check that a gradient was taken there."""
    given = list(params.fields.values()) if isinstance(params, Record) else \
        params if isinstance(params, list) else [params]
    return tuple(v.node if type(v) is Tracked else None for v in given)


def gradient_items(structure: Structure, values: list, g, what: str) -> list:
    """The gradient of each parameter, in order, as `g` holds it (see match_gradients)."""
    n = structure.count
    gv = value_of(g)
    if isinstance(g, Record):
        if structure.kind != "record":
            raise LaminaError("TypeError", f"{what} got a record of gradients, but the parameters "
                              f"are {structure.describe()}.")
        missing = [k for k in structure.keys if k not in g.fields]
        extra = [k for k in g.fields if k not in structure.keys]
        if missing or extra:
            raise LaminaError("ValueError", f"{what}'s gradient record must have the parameters' fields "
                              f"({', '.join(structure.keys)})" + (f"; it lacks {', '.join(missing)}" if missing else "")
                              + (f"; it has no parameter {', '.join(extra)}" if extra else "") + ".")
        items = [g.fields[k] for k in structure.keys]
    elif isinstance(g, list):
        if len(g) != n:
            raise LaminaError("ValueError", f"{what} got a list of {len(g)} gradients for {n} "
                              f"parameter{'s' if n != 1 else ''}.")
        items = g
    elif (isinstance(gv, np.ndarray) and gv.ndim == 1 and len(gv) == n
          and all(not isinstance(v, np.ndarray) for v in values)):
        items = [float(x) for x in gv]
    elif n == 1:
        items = [g]
    else:
        raise LaminaError("TypeError", f"{what} needs one gradient per parameter (a list, or a record "
                          f"with the same fields) for {structure.describe()} parameters, not "
                          f"{describe(g)}.")
    return items


def match_gradients(structure: Structure, values: list, g, what: str) -> list:
    """One plain gradient per parameter, in order, each checked against its parameter's shape.

    `g` is one gradient (one parameter), a list in parameter order, a record with the
    parameters' fields, or — when every parameter is a number — a vector of one
    gradient per parameter.
    """
    return checked_gradients(structure, values, gradient_items(structure, values, g, what))


def checked_gradients(structure: Structure, values: list, items: list) -> list:
    """Each parameter's gradient (from gradient_items) as a plain value, checked against its
    parameter's shape and in its dtype."""
    grads = []
    for i, (item, w) in enumerate(zip(items, values)):
        if type(item) is np.ndarray and type(w) is np.ndarray and item.shape == w.shape \
                and item.dtype == w.dtype:      # what grad hands out: as it is (the update only reads it)
            grads.append(item)
            continue
        gi = plain_value(item, f"The gradient for {structure.label(i)}")   # the update only reads it
        if np.shape(gi) != np.shape(w):
            raise LaminaError("ShapeError", f"The gradient for {structure.label(i)} is "
                              f"{_shape(gi)}, but the parameter is {_shape(w)}.")
        grads.append(gi.astype(w.dtype, copy=False) if isinstance(w, np.ndarray) else gi)
    return grads


def _shape(v) -> str:
    return describe_shape(np.shape(v))
