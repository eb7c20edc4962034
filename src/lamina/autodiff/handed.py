"""What the latest grad() calls handed out, so that two later questions about a gradient can
be answered although gradients are plain values, off the tape.

- optimizer_step: was this gradient taken at the optimizer's parameters? A loop that makes
  one param() leaf and differentiates against it every step, `opt = optimizer_step(opt,
  grad(loss, wrt = w))`, steps the optimizer with gradients taken at a point it has left.
- grad: is this loss computed from a gradient of a value it is now differentiated against?
  `g = grad(p ^ 3, wrt = p); grad(g * p, wrt = p)` would need the derivative of g, which a
  gradient taken without keep does not carry (it is a plain value), and the constant g would
  give a silently wrong number.

A gradient is known by its identity: the number or array grad returned, as the program
passes it on. A value computed from it (`0.5 * g`) is a new value that nothing here knows.
Only the latest CALLS_KEPT calls are remembered; a number is held (it is small), an array
only through a weak reference, so remembering keeps no gradient's memory alive.
"""
from __future__ import annotations

import types
import weakref
from collections import deque
from functools import partial

import numpy as np

from ..errors import LaminaError
from ..values import Tracked

CALLS_KEPT = 4


class Call:
    """One grad() call: the node ids its loss depended on (its leaves) and its targets."""
    __slots__ = ("depends",)

    def __init__(self, depends: set):
        self.depends = depends


class Given:
    """One gradient handed out: for the target `path` of node `node`, taken at that target's
    value."""
    __slots__ = ("_ref", "path", "node", "_at", "call")

    def __init__(self, gradient, path: str, target: Tracked, call: Call):
        self._ref = _holder(gradient)
        self.path = path
        self.node = target.node
        self._at = _holder(target.value)
        self.call = call

    def gradient(self):
        return _held(self._ref)

    def taken_at(self):
        """The value the target had (None if that array is gone)."""
        return _held(self._at)


def _holder(x):
    return weakref.ref(x) if type(x) is np.ndarray else x


def _held(h):
    return h() if type(h) is weakref.ref else h


_given: dict[int, Given] = {}                 # id(gradient) -> Given
_calls: deque = deque()                      # (Call, the ids it handed out), oldest first


def note(results: list, targets: list, depends: set) -> None:
    """Remember the gradients one grad() call handed out, one per (path, target)."""
    call = Call(depends)
    ids = []
    for g, (path, target) in zip(results, targets):
        _given[id(g)] = Given(g, path, target, call)
        ids.append(id(g))
    _calls.append((call, ids))
    if len(_calls) > CALLS_KEPT:
        old, old_ids = _calls.popleft()
        for i in old_ids:
            if i in _given and _given[i].call is old:     # not an id a newer call's gradient took
                del _given[i]


def lookup(g) -> Given | None:
    """The Given for a value grad handed out (the very object), else None."""
    given = _given.get(id(g))
    if given is None or given.gradient() is not g:
        return None
    return given


def refuse_second_order(loss: Tracked, wanted: set) -> None:
    """A TapeError if the loss was computed from a remembered gradient whose own loss depended
    on a target of this grad (the walk happens only when some remembered call's leaves meet
    `wanted`, so an ordinary training loop, whose leaves are new each step, never pays it)."""
    suspects = {}
    for call, ids in _calls:
        if not call.depends.isdisjoint(wanted):
            suspects.update((i, _given[i]) for i in ids if i in _given and _given[i].call is call)
    if not suspects:
        return
    seen = set()
    stack = [loss.entry]
    while stack:
        entry = stack.pop()
        if entry is None or id(entry) in seen:
            continue
        seen.add(id(entry))
        for k in range(0, len(entry), 3):
            for held in _saved(entry[k + 2]):
                given = suspects.get(id(held))
                if given is not None and given.gradient() is held:
                    _second_order_error(given)
            stack.append(entry[k + 1])


_EMPTY_CELL = types.CellType()


def _saved(vjp) -> list:
    """The values a VJP holds (a float VJP is its own value), and the arrays they view."""
    if type(vjp) is float:
        return [vjp]
    if isinstance(vjp, partial):
        held = list(vjp.args)
    else:
        held = [cell.cell_contents for cell in getattr(vjp, "__closure__", None) or ()
                if cell != _EMPTY_CELL]
    return held + [x.base for x in held if isinstance(x, np.ndarray) and x.base is not None]


def _second_order_error(given: Given) -> None:
    what = given.path.replace("{arg:wrt}", "wrt")
    raise LaminaError("TapeError", f"This loss is computed from a gradient that an earlier grad() "
                      f"returned (the gradient for its {what}), whose loss also depended on a value this "
                      f"grad differentiates against, so the gradient may depend on it too. Its own "
                      f"derivative would then be needed (a second-order gradient), but that gradient "
                      f"was taken without keep, so it is a plain value, not recorded on the tape "
                      f"(gradients are first order unless taken with keep = true), and the result would "
                      f"silently leave that part out. Take it with grad(..., keep = true) to "
                      f"differentiate it again, or use it only as a constant with respect to other values.")
