"""The one rule for writing a value in place: only when nobody else holds it.

Lamina's values behave as values (`b = a`, then a store into `a` leaves `b` as it was), yet a
store copies nothing when it can prove that no one else holds what it writes into: otherwise a
loop filling a vector, a table's column or an optimizer's state would copy it whole every step.
The proof is a reference count. `sys.getrefcount(x)` is the number of references to x plus
what passing x to it adds in this Python (CPython 3.11 to 3.13: one, the argument on the
caller's stack). A site knows the holders that its own work creates (the program's variable
and its own parameter, a record's field table, the gradient sweep's dict and locals) and asks
`refs_limit(holders)` for the highest count an object held by those alone shows; a count above
it means another holder (a name, a list, a record, a caller, a closure), and the site copies.

What getrefcount adds is measured once, here, on probes whose holders are known, one for each
way a site reaches what it counts: a local name, a list's slot, an attribute, a parameter one
call deep, a loop variable over a dict, a value unpacked from a dict's tuple, a program's
top-level variable passed to a function. They must agree. If they do not (a Python whose count
depends on how the object was reached, as borrowed references may make it), `refs_limit` is 0
and nothing is ever written in place: slower, never a changed value.

Used by lang/stores.py (`v[i] = x`, `r.x = v`, `r.v[i] = x`, `v = append(v, x)`),
stats/table.py (`t[i, "name"] = x`), optim/ownership.py (optimizer_step's pending update) and
autodiff/grad.py (a gradient handed out without a copy).
"""
from __future__ import annotations

import sys
from types import SimpleNamespace


def _through(obj) -> int:
    return sys.getrefcount(obj)


def _local() -> int:
    obj = object()
    return sys.getrefcount(obj)


def _slot() -> int:
    box = [object()]
    return sys.getrefcount(box[0])


def _attribute() -> int:
    holder = SimpleNamespace(value=object())
    return sys.getrefcount(holder.value)


def _parameter() -> int:
    obj = object()
    return _through(obj)


def _loop_variable() -> int:
    count = 0
    for value in {"key": object()}.values():
        count = sys.getrefcount(value)
    return count


def _unpacked() -> int:
    found = {0: (object(), False)}
    value, _flag = found[0]
    return _through(value)


def _top_level() -> int:
    namespace = {"through": _through}
    exec("obj = object()\ncount = through(obj)\n", namespace)
    return namespace["count"]


# (probe, the references that hold its object when getrefcount counts it)
PROBES = [
    (_local, 1),               # the local name
    (_slot, 1),                # the list
    (_attribute, 1),           # the holder's attribute
    (_parameter, 2),           # the caller's local name and _through's parameter
    (_loop_variable, 2),       # the dict and the loop variable
    (_unpacked, 3),            # the dict's tuple, the local name and _through's parameter
    (_top_level, 2),           # the program's namespace and _through's parameter
]


def measure_added(probes=PROBES) -> int | None:
    """What passing an object to sys.getrefcount adds to its holders, the same for every probe;
    None when the probes disagree."""
    added = {probe() - holders for probe, holders in probes}
    return added.pop() if len(added) == 1 else None


ADDED = measure_added()


def refs_limit(holders: int) -> int:
    """The count sys.getrefcount shows for an object held by exactly `holders` references, the
    ones the calling site knows of: a count no higher proves that nothing else holds it. 0 (no
    count passes) when this Python's counts could not be calibrated."""
    return holders + ADDED if ADDED is not None else 0
