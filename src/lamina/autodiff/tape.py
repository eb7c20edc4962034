"""The one autodiff tape: entries, generations, reset.

Every tracked value holds its number, its node id and the generation of the tape
it was recorded in. Node ids come from a counter that never restarts, so a value
recorded before `tape_reset()` can never alias a node recorded after it; the
generation tells such a stale value apart so that `grad` can say what happened.

An entry refers to its inputs by node id only and keeps one vector-Jacobian
product (VJP) per live input; nothing on the tape points back at a Tracked value,
so no reference cycles form and a reset frees everything at once.

An entry is one flat tuple (parent, vjp, parent, vjp, ...), or None for a leaf:
a long tape is mostly entries, and every extra container per entry is another
object for Python's cycle collector to walk on each full collection. A VJP
takes the gradient of the entry's value and returns the gradient for that
parent, in the parent's shape (a Python float for a scalar); it must not
modify the gradient it is given.
"""
from __future__ import annotations

from ..values import Tracked
from ..warnings import warn

DEFAULT_WARN_ENTRIES = 5_000_000


class Tape:
    def __init__(self):
        self.gen = 0
        self.first_node = 0          # node id of entries[0]
        self.entries: list = []      # entry i is node first_node + i: (parent, vjp, ...) or None for a leaf
        self.packs: set = set()      # nodes that are bracket literals of tracked scalars (see grad)
        self.warn_entries = DEFAULT_WARN_ENTRIES
        self.warned = False

    @property
    def next_node(self) -> int:
        return self.first_node + len(self.entries)

    def reset(self) -> None:
        self.first_node += len(self.entries)
        self.entries = []
        self.packs = set()
        self.gen += 1
        self.warned = False

    def size(self) -> int:
        return len(self.entries)

    def _append(self, entry) -> int:
        node = self.first_node + len(self.entries)
        self.entries.append(entry)
        if len(self.entries) > self.warn_entries and not self.warned:
            self.warned = True
            warn(f"the autodiff tape holds more than {self.warn_entries:,} entries; "
                 "call tape_reset() between independent computations to free them")
        return node

    def leaf(self, value, trainable: bool) -> Tracked:
        return Tracked(value, self._append(None), self.gen, trainable)

    def entry(self, node: int):
        return self.entries[node - self.first_node]


TAPE = Tape()


def is_live(x) -> bool:
    return type(x) is Tracked and x.gen == TAPE.gen


def record(value, inputs, vjps):
    """Record `value` computed from `inputs`; `vjps[i](g)` is the gradient for `inputs[i]`.

    Only live tracked inputs get an edge. With none, `value` comes back untracked,
    so untracked code pays nothing beyond this check.
    """
    tape = TAPE
    gen = tape.gen
    entry = []
    for x, vjp in zip(inputs, vjps):
        if type(x) is Tracked and x.gen == gen:
            entry.append(x.node)
            entry.append(vjp)
    if not entry:
        return value
    return Tracked(value, tape._append(tuple(entry)), gen)
