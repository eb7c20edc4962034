"""The one autodiff tape: node ids, generations, reset.

Every tracked value holds its number, its node id, the generation of the tape it
was recorded in, and its entry: how it was computed. Node ids come from a counter
that never restarts, so a value recorded before `tape_reset()` can never alias a
node recorded after it; the generation tells such a stale value apart so that
`grad` can say what happened.

The values own the graph, the tape does not: an entry is one flat tuple
(parent node, parent's entry, vjp, parent node, parent's entry, vjp, ...) for
its live tracked inputs, or None for a leaf, and it is held by the value it
computed and by the entries of the values computed from that one. So the
arrays a VJP saved live exactly as long as some value that may still be
differentiated needs them: a training loop that rebinds its loss and
parameters every step frees each step's history as soon as the next step
replaces it, with or without tape_reset(). Nothing in an entry points back at a
newer value, so no reference cycles form.

A VJP takes the gradient of the entry's value and returns the gradient for that
parent, in the parent's shape (a Python float for a scalar); it must not modify
the gradient it is given. A VJP may also be a Python float c, which means
`g -> c * g`: the scalar paths record their partial derivatives that way, so a
scalar op creates no closure (`record1`, `record2`).

A VJP may also be a Tracked number c, which means `g -> c * g` as well, with c recorded: the scalar
product records each operand as the other's partial that way, so that a gradient taken with
`keep` (autodiff/grad.py) stays a function of the operands. A float VJP is a constant partial:
one that depends on an input must not be a float (the second-order check finds one that is).

Second order. `grad(..., keep = true)` sweeps with `TAPE.keeping` set: each VJP then computes
its gradient with the tape's own operations on the values it saved (tracked ones among them),
so the gradient is recorded and can be differentiated again. A VJP takes part only if it was
declared to (`second_order`, around the op that makes it, or `second_order_vjp` for a VJP
defined on its own); the keep sweep refuses any other with a TapeError naming its op, so a
first-order-only op is never silently treated as a constant.

The tape also remembers who reset it (`tape_reset()`, or a builtin such as fit()
that resets it while it trains, see `resets_by`), so that a TapeError about a stale
value can say which reset made it stale.
"""
from __future__ import annotations

from contextlib import contextmanager
from functools import partial
from types import CodeType

from ..values import Tracked
from ..warnings import warn
from . import handed
from .handed import FROZEN

DEFAULT_WARN_ENTRIES = 5_000_000
CAUSES_KEPT = 64            # runs of resets whose cause is remembered


class Tape:
    def __init__(self):
        self.gen = 0
        self.first_node = 0          # node id of the first value recorded in this generation
        self.count = 0               # values recorded in this generation (leaves included)
        self.warn_entries = DEFAULT_WARN_ENTRIES
        self.warned = False
        self.label: str | None = None # who is resetting now (see resets_by)
        self.causes: list = []       # [first gen, last gen, who]: who ended those generations
        self.keeping = False         # a keep sweep is running: VJPs record their gradients

    @property
    def next_node(self) -> int:
        return self.first_node + self.count

    def reset(self, by: str | None = None) -> None:
        """Start a new generation (every value recorded so far becomes stale); `by` names who
        asked (for messages)."""
        self.first_node += self.count
        self.count = 0
        handed.forget_met()
        self._note_cause(by or self.label)
        self.gen += 1
        self.warned = False

    def _note_cause(self, who: str | None) -> None:
        last = self.causes[-1] if self.causes else None
        if last is not None and last[2] == who and last[1] == self.gen - 1:
            last[1] = self.gen           # one more reset by the same caller: one run
            return
        self.causes.append([self.gen, self.gen, who])
        if len(self.causes) > CAUSES_KEPT:
            del self.causes[0]

    def reset_cause(self, gen: int) -> str | None:
        """Who made generation `gen` stale ("fit() at prog.lam:12"), when known."""
        for first, last, who in reversed(self.causes):
            if first <= gen <= last:
                return who
        return None

    @contextmanager
    def resets_by(self, who: str):
        """Resets inside the block (a builtin that trains) are recorded as made by `who`."""
        outer, self.label = self.label, who
        try:
            yield
        finally:
            self.label = outer

    @contextmanager
    def isolated(self):
        """A fresh tape for the block, and this one back as it was afterwards: a sweep's
        configuration run in this process records and resets as if in a process of its own (the
        gradients it hands out too, handed.isolated). Nothing tracked may leave the block (sweep
        refuses tracked results)."""
        saved = dict(vars(self))
        self.causes, self.label = [], None
        self.first_node, self.gen, self.count = self.next_node, self.gen + 1, 0
        self.warned = False
        try:
            with handed.isolated():
                yield
        finally:
            vars(self).update(saved)

    def size(self) -> int:
        """How many values were recorded in this generation (leaves included)."""
        return self.count

    def _append(self) -> int:
        count = self.count = self.count + 1
        if count > self.warn_entries:
            self.warn_size()
        return self.first_node + count - 1

    def warn_size(self) -> None:
        if not self.warned:
            self.warned = True
            warn(f"the autodiff tape holds more than {self.warn_entries:,} entries; "
                 "call tape_reset() between independent computations to free them")

    def leaf(self, value, trainable: bool) -> Tracked:
        return Tracked(value, self._append(), self.gen, trainable)


TAPE = Tape()

_SECOND_ORDER: set = set()          # code objects of the VJPs that compute with tape operations when keeping


def second_order(op):
    """Declares that the VJPs `op` records (the functions and lambdas written inside it) compute
    their gradient with tape operations when `TAPE.keeping`, so a keep sweep may call them."""
    _declare(op.__code__)
    return op


def _declare(code: CodeType) -> None:
    for const in code.co_consts:
        if type(const) is CodeType:
            _SECOND_ORDER.add(const)
            _declare(const)


def second_order_vjp(vjp):
    """Declares a VJP defined on its own (a module-level function used directly or in a partial)."""
    _SECOND_ORDER.add(vjp.__code__)
    _declare(vjp.__code__)
    return vjp


def differentiable_again(vjp) -> bool:
    """Whether a keep sweep may call `vjp` (a float or Tracked VJP always: see the docstring)."""
    if type(vjp) is float or type(vjp) is Tracked:
        return True
    if type(vjp) is partial:
        vjp = vjp.func
    return getattr(vjp, "__code__", None) in _SECOND_ORDER


def op_name(vjp) -> str:
    """The function that recorded `vjp` and its module, for a message ("conv (lamina.nn.conv)")."""
    if type(vjp) is partial:
        vjp = vjp.func
    name = getattr(vjp, "__qualname__", None) or type(vjp).__name__
    name = name.split(".<locals>")[0].split(".")[-1].lstrip("_")
    module = getattr(vjp, "__module__", None)
    return f"{name} ({module})" if module else name


def is_live(x) -> bool:
    return type(x) is Tracked and x.gen == TAPE.gen


def record(value, inputs, vjps):
    """Record `value` computed from `inputs`; `vjps[i](g)` is the gradient for `inputs[i]`.

    Only live tracked inputs get an edge. With none, `value` comes back untracked,
    so untracked code pays nothing beyond this check; with none but frozen ones (computed from
    gradients alone, autodiff/handed.py), frozen. A live value computed from frozen ones is noted
    as such, for grad's check of a loss built from a gradient.
    """
    tape = TAPE
    gen = tape.gen
    entry = ()
    calls = None                     # of the frozen inputs (computed from gradients, see handed.py)
    for x, vjp in zip(inputs, vjps):
        if type(x) is Tracked:
            if x.gen == gen:
                entry += (x.node, x.entry, vjp)
            elif x.gen == FROZEN:
                calls = handed.calls_of(x) if calls is None else handed.merged(calls, handed.calls_of(x))
    if not entry:
        return value if calls is None else handed.frozen(value, calls)
    count = tape.count = tape.count + 1
    if count > tape.warn_entries:
        tape.warn_size()
    if calls is not None:
        handed.met(tape.first_node + count - 1, calls)
    return Tracked(value, tape.first_node + count - 1, gen, False, entry)


def record_fused(value, inputs, all_grads):
    """`record` of an op whose one backward gives every input's gradient at once (a recurrence
    over its steps, attention, a transformer block): `all_grads(g)` (a list, one per input) runs
    once per backward sweep, and each input's VJP takes its own from it."""
    memo = {}

    def grads(g):
        if memo.get("g") is not g:
            memo["g"], memo["grads"] = g, all_grads(g)
        return memo["grads"]
    return record(value, inputs, [_part(grads, i) for i in range(len(inputs))])


def _part(grads, i):
    return lambda g: grads(g)[i]


def record1(value, a, vjp):
    """`record(value, (a,), (vjp,))` without the tuples: the one-input ops' fast path. (The node
    count is inline in each record: a method call for it costs about a tenth of a scalar op.)"""
    tape = TAPE
    gen = tape.gen
    if type(a) is not Tracked:
        return value
    if a.gen != gen:
        return handed.frozen(value, handed.calls_of(a)) if a.gen == FROZEN else value
    count = tape.count = tape.count + 1
    if count > tape.warn_entries:
        tape.warn_size()
    return Tracked(value, tape.first_node + count - 1, gen, False, (a.node, a.entry, vjp))


def record2(value, a, b, vjp_a, vjp_b):
    """`record(value, (a, b), (vjp_a, vjp_b))` without the tuples: the two-input ops' fast path."""
    tape = TAPE
    gen = tape.gen
    if type(a) is Tracked and a.gen == gen:
        if type(b) is Tracked and b.gen == gen:
            entry = (a.node, a.entry, vjp_a, b.node, b.entry, vjp_b)
        elif type(b) is Tracked and b.gen == FROZEN:
            return record(value, (a, b), (vjp_a, vjp_b))
        else:
            entry = (a.node, a.entry, vjp_a)
    elif type(b) is Tracked and b.gen == gen:
        if type(a) is Tracked and a.gen == FROZEN:
            return record(value, (a, b), (vjp_a, vjp_b))
        entry = (b.node, b.entry, vjp_b)
    elif type(a) is Tracked or type(b) is Tracked:
        return handed.frozen2(value, a, b)                 # stale or frozen
    else:
        return value
    count = tape.count = tape.count + 1
    if count > tape.warn_entries:
        tape.warn_size()
    return Tracked(value, tape.first_node + count - 1, gen, False, entry)
