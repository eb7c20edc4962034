"""Whether an optimizer value is held by nobody but its one caller: the proof that lets a
pending step (base.py) update the old optimizer's arrays in place instead of copying them.

The proof is by reference counts, as `v[i] = x` proves it for an array (lang/stores.py):
the optimizer itself, its parameter and state containers, and every array in them must be
held exactly once (the optimizer by the caller's one local name, a container by the
optimizer, an array by its container), and every array must own its memory (no view:
writing into a view writes into an array someone else may hold) and be writeable. Any other
holder, a program's variable, a list, a model, another optimizer made by `replace` that
shares the containers, a tracked value or view wrapping an array, makes a count higher, and
the step then works on a copy. Except for a parameter array: one that `params` handed out and
a program still holds (the loop's `q = param(opt.params)`) only needs its new value written
into a new array, which `held_parameters` says per parameter, so the step copies nothing.

The rule and its calibration are lamina/ownership.py's; here are the holders each count knows.
"""
from __future__ import annotations

import sys

import numpy as np

from ..ownership import refs_limit

_NDARRAY = np.ndarray
# Two holders each when nothing else holds them: the optimizer, the caller's one local name and
# the parameter of held_parameters or sole; a container or an array, the optimizer (or its
# container) and one name of _held's own (a local, a loop variable).
_SOLE_REFS = refs_limit(holders=2)


def held_parameters(opt):
    """Which parameter arrays another value holds, as a tuple of flags (a pending step writes
    the new value of such a parameter into a new array, and everything else in place), or
    None when the optimizer, its containers, a state array, or a parameter that is not a
    writable array owning its memory is held or shared (the step then works on a private()
    copy). The caller passes the name directly: `held_parameters(source)`."""
    return _held(opt) if sys.getrefcount(opt) <= _SOLE_REFS else None


def sole(opt) -> bool:
    """Whether the caller's one local name is the only holder of `opt` and nothing else holds
    its parameter and state containers or arrays (so they may all be written in place). The
    caller passes the name directly: `sole(source)`."""
    if sys.getrefcount(opt) > _SOLE_REFS:
        return False
    held = _held(opt)
    return held is not None and not any(held)


def _held(opt):
    """held_parameters, but for the optimizer's own count, which the caller checks (a frame
    between them would hold it once more)."""
    params, state = opt.params, opt.state
    if sys.getrefcount(params) > _SOLE_REFS or sys.getrefcount(state) > _SOLE_REFS:
        return None
    held = []
    for w in params:
        if type(w) is _NDARRAY:
            if not _writable(w):
                return None
            held.append(sys.getrefcount(w) > _SOLE_REFS)
        elif type(w) is float:
            held.append(False)
        else:
            return None
    for s in state:
        if type(s) is not dict or sys.getrefcount(s) > _SOLE_REFS:
            return None
        for v in s.values():
            if type(v) is _NDARRAY:
                if not _writable(v) or sys.getrefcount(v) > _SOLE_REFS:
                    return None
            elif type(v) is not float:
                return None
    return tuple(held)


def _writable(a) -> bool:
    return a.base is None and a.flags.writeable
