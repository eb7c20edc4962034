"""What the latest grad() calls handed out, so that two later questions about a gradient can be
answered although a gradient taken without keep is not on the tape.

- optimizer_step: was this gradient taken at the optimizer's parameters? A loop that makes
  one param() leaf and differentiates against it every step, `opt = optimizer_step(opt,
  grad(loss, wrt = w))`, steps the optimizer with gradients taken at a point it has left.
- grad: is this loss computed from a gradient of a value it is now differentiated against?
  `g = grad(p ^ 3, wrt = p); grad(2 * g * p, wrt = p)` would need the derivative of g, which a
  gradient taken without keep does not carry, and the constant g would give a silently wrong
  number.

A gradient taken without keep comes back wrapped: a Tracked value of generation FROZEN (never
the tape's own, so every operation takes it as the constant it is, as it takes a value recorded
before a reset), whose entry holds the grad() calls it came from. An operation on frozen values
alone gives a frozen value holding their calls (tape.record), so whatever a program computes from
a gradient remembers where it came from; an operation that meets a live tracked value records as
usual and notes here the calls its frozen operands came from (`met`). A later grad walks its
loss's entries and refuses when it meets such a note whose call depended on a value it is now
differentiated against. An operation that passes no gradient (a comparison, round, a size) gives a
plain value: its result does not change with the gradient's derivative.

Only the latest CALLS_KEPT calls are remembered: an older call is dead, its notes are dropped, a
value computed from it no longer counts as computed from a gradient, and a value's calls are
pruned of dead ones once they pass CALLS_KEPT, so neither a long loop nor a value that lives long
keeps the history alive.

The builtins that differentiate a function at a point (hessian, jacobian, hvp) and minimize hand
out their results the same way when those depend on live values (`hand_out_derivative`): a
Hessian taken at p = param(...) is a function of p, as a gradient is.
"""
from __future__ import annotations

import weakref
from collections import deque
from contextlib import contextmanager

import numpy as np

from ..errors import LaminaError
from ..values import Record, Tracked

CALLS_KEPT = 4
FROZEN = -1                 # the generation of a value computed from gradients alone


class Call:
    """One grad() call (or a derivative builtin's, `who`): the node ids its loss depended on (its
    targets and the leaves it reached), whether it is still remembered, and the nodes whose
    operations met its gradients."""
    __slots__ = ("depends", "alive", "met", "who")

    def __init__(self, depends: set, who: str = "grad"):
        self.depends = depends
        self.alive = True
        self.met: list = []
        self.who = who                  # the builtin that handed its values out


class Given:
    """One gradient handed out: for the target `path` of node `node`, taken at that target's value
    (an array held only through a weak reference: an optimizer's parameter array that nothing else
    holds is stepped in place, see optim/ownership.py)."""
    __slots__ = ("path", "node", "_at", "call")

    def __init__(self, path: str, target: Tracked, call: Call):
        self.path = path
        self.node = target.node
        self._at = weakref.ref(target.value) if type(target.value) is np.ndarray else target.value
        self.call = call

    def taken_at(self):
        """The value the target had (None if that array is gone)."""
        return self._at() if type(self._at) is weakref.ref else self._at


_calls: deque = deque()              # the remembered calls, oldest first
_met: dict = {}                      # node id of a live value -> the calls of the frozen values it met


def hand_out(results: list, targets: list, depends: set) -> list:
    """The gradients one grad() call hands out (one per (path, target)), each wrapped as a frozen
    value that knows the call and its target."""
    call = _remembered(Call(depends))
    return [frozen(g, (call, Given(path, target, call)))
            for g, (path, target) in zip(results, targets)]


def hand_out_derivative(result, depends: set, who: str):
    """A derivative of a function at a point (hessian, jacobian, hvp), whose value depends on the
    live values `depends` (the point's own, or ones the function reads): frozen as a gradient is,
    so that a later grad against them refuses a loss built from it. Plain when it depends on none."""
    return _frozen_members(result, (_remembered(Call(depends, who)),)) if depends else result


def _remembered(call: Call) -> Call:
    _calls.append(call)
    if len(_calls) > CALLS_KEPT:
        _forget(_calls.popleft())
    return call


def _frozen_members(x, calls: tuple):
    if type(x) is list:
        return [_frozen_members(v, calls) for v in x]
    if type(x) is Record:
        return Record({k: _frozen_members(v, calls) for k, v in x.fields.items()})
    return frozen(x, calls) if type(x) in (float, np.ndarray) else x


def _forget(call: Call) -> None:
    call.alive = False
    for node in call.met:
        _met.pop(node, None)


def lookup(g) -> Given | None:
    """The Given of a gradient as grad handed it out, else None."""
    if type(g) is Tracked and g.gen == FROZEN and type(g.entry[-1]) is Given and g.entry[0].alive:
        return g.entry[-1]
    return None


def calls_of(x: Tracked) -> tuple:
    """The calls a frozen value came from (a gradient's entry ends with its Given). A call may be
    dead: it is dropped when a merge passes CALLS_KEPT, and never met (`met`)."""
    entry = x.entry
    return entry[:-1] if type(entry[-1]) is Given else entry


def merged(first: tuple, second: tuple) -> tuple:
    if first is second:
        return first
    out = first + tuple(c for c in second if c not in first)
    return out if len(out) <= CALLS_KEPT else tuple(c for c in out if c.alive)


def frozen(value, calls: tuple):
    """`value` computed from frozen values alone that came from `calls` (a gradient as grad hands
    it out: its call and its Given)."""
    return Tracked(value, -1, FROZEN, False, calls)


def frozen2(value, a, b):
    """`value` computed from a and b, neither live: frozen if either is."""
    first = calls_of(a) if type(a) is Tracked and a.gen == FROZEN else None
    second = calls_of(b) if type(b) is Tracked and b.gen == FROZEN else None
    if first is None:
        return value if second is None else frozen(value, second)
    return frozen(value, first if second is None else merged(first, second))


def met(node: int, calls: tuple) -> None:
    """A live value (node) was computed from frozen values that came from `calls`."""
    calls = tuple(c for c in calls if c.alive)
    if calls:
        _met[node] = calls
        for call in calls:
            call.met.append(node)


@contextmanager
def isolated():
    """The block's calls and notes are its own (a sweep's configuration run in this process, see
    Tape.isolated), and the program's are back afterwards: a configuration's gradients neither push
    the program's calls out of the window nor stay in it."""
    saved_calls, saved_met = list(_calls), dict(_met)
    _calls.clear()
    _met.clear()
    try:
        yield
    finally:
        for call in _calls:
            call.alive = False
        _calls.clear()
        _calls.extend(saved_calls)
        _met.clear()
        _met.update(saved_met)


def forget_met() -> None:
    """The tape was reset: no live value is left to meet."""
    _met.clear()
    for call in _calls:
        call.met.clear()


def refuse_second_order(loss: Tracked, wanted: set) -> None:
    """A TapeError if the loss was computed from a gradient whose own loss depended on a target of
    this grad (the walk happens only when some remembered call's leaves meet `wanted`, so an
    ordinary training loop, whose leaves are new each step, never pays it)."""
    suspects = [call for call in _calls if not call.depends.isdisjoint(wanted)]
    if not suspects or not _met:
        return
    for node in reachable(loss.node, loss.entry):
        for call in _met.get(node, ()):
            if call in suspects:
                _second_order_error(call.who)


def reachable(node: int, entry):
    """The node ids of a value (node, entry) and of everything it was computed from, each once."""
    seen = set()
    stack = [(node, entry)]
    while stack:
        node, entry = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        yield node
        if entry is not None:
            stack.extend((entry[k], entry[k + 1]) for k in range(0, len(entry), 3))


def _second_order_error(who: str) -> None:
    if who == "grad":
        what = ("a gradient that an earlier grad() returned, whose loss also depended on a value this "
                "grad differentiates against, so the gradient depends on it too. Its own derivative "
                "would then be needed (a second-order gradient)")
        remedy = "Take it with grad(..., keep = true) to differentiate it again"
    elif who == "minimize":
        what = ("the result of an earlier minimize(), whose function read a value this grad "
                "differentiates against, so where the minimum lies depends on it too. That "
                "dependence would then be needed")
        remedy = ("For the value at the minimum, f(detach(x)) at the solution x has the right "
                  "derivative (the envelope theorem)")
    else:
        what = (f"the result of an earlier {who}(), taken where it depends on a value this grad "
                f"differentiates against (its point, or a tracked value its function reads), so the "
                f"result depends on it too. Its own derivative would then be needed")
        remedy = (f"Write the derivative inside the loss with grad(..., keep = true), which stays on "
                  f"the tape, in place of {who}()")
    raise LaminaError("TapeError", f"This loss is computed from {what}, but that value is plain, not "
                      f"recorded on the tape (gradients are first order unless taken with keep = "
                      f"true), and the result would silently leave that part out. {remedy}, or use "
                      f"detach(...) where a constant is meant.")


def thawed(x):
    """`x` with every frozen value in it (in lists and records too) as its plain value: a value
    leaving the language for Python (a notebook's result, a sweep's, an embedding program's)."""
    if type(x) is Tracked:
        return x.value if x.gen == FROZEN else x
    if type(x) is list:
        return [thawed(v) for v in x] if any(type(v) in (Tracked, list, Record) for v in x) else x
    if type(x) is Record:
        return Record({k: thawed(v) for k, v in x.fields.items()})
    return x
