"""Whether an optimizer value is held by nobody but its one caller: the proof that lets a
pending step (base.py) update the old optimizer's arrays in place instead of copying them.

The proof is by reference counts, as `v[i] = x` proves it for an array (lang/runtime.py):
the optimizer itself, its parameter and state containers, and every array in them must be
held exactly once (the optimizer by the caller's one local name, a container by the
optimizer, an array by its container), and every array must own its memory (no view:
writing into a view writes into an array someone else may hold) and be writeable. Any other
holder, a program's variable, a list, a model, another optimizer made by `replace` that
shares the containers, a tracked value or view wrapping an array, makes a count higher, and
the step then works on a copy.

The counts are compared with those of a probe made here and measured by the same code, so
the proof does not depend on how many references a call itself adds in this Python.
"""
from __future__ import annotations

import sys
from types import SimpleNamespace

import numpy as np

_NDARRAY = np.ndarray
_limits: dict | None = None


def _counts(opt) -> list:
    """(kind, reference count) of `opt`, its containers and its arrays, each as seen from here."""
    counts = [("optimizer", sys.getrefcount(opt))]
    params, state = opt.params, opt.state
    counts += [("container", sys.getrefcount(params)), ("container", sys.getrefcount(state))]
    for w in params:
        if type(w) is _NDARRAY:
            counts.append(("array", sys.getrefcount(w) if _writable(w) else sys.maxsize))
        elif type(w) is not float:
            counts.append(("array", sys.maxsize))
    for s in state:
        counts.append(("container", sys.getrefcount(s) if type(s) is dict else sys.maxsize))
        if type(s) is dict:
            for v in s.values():
                if type(v) is _NDARRAY:
                    counts.append(("array", sys.getrefcount(v) if _writable(v) else sys.maxsize))
                elif type(v) is not float:
                    counts.append(("array", sys.maxsize))
    return counts


def _writable(a) -> bool:
    return a.base is None and a.flags.writeable


def _through(opt) -> list:
    return _counts(opt)          # one call deep, as sole() calls _counts


def _calibrate() -> dict:
    probe = SimpleNamespace(params=(np.zeros(1), 0.5), state=({"m": np.zeros(1), "n": 0.0},))
    limits: dict = {}
    for kind, count in _through(probe):
        limits[kind] = max(limits.get(kind, 0), count)
    return limits


def sole(opt) -> bool:
    """Whether the caller's one local name is the only holder of `opt` and nothing else holds
    its parameter and state containers or arrays (so they may be written in place). The caller
    passes the name directly: `sole(source)`."""
    global _limits
    if _limits is None:
        _limits = _calibrate()
    limits = _limits
    return all(count <= limits[kind] for kind, count in _counts(opt))
