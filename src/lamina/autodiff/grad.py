"""The reverse sweep, and `grad(loss, wrt)` as the language defines it.

`backward` walks the tape from the loss's node down to the oldest live entry,
skipping every node that received no gradient, and calls each entry's VJPs for
its (live) parents. Gradients accumulate by node id. The first contribution to a
node is stored as it is (it may alias another array, so it is never written
into); a second one allocates a sum the sweep owns, and later ones are added
into that array in place.
"""
from __future__ import annotations

import numpy as np

from ..errors import LaminaError
from ..values import Record, Tracked, describe
from ..warnings import warn
from .tape import TAPE


def backward(loss: Tracked, wanted: set) -> dict:
    """Gradients of `loss` for the nodes in `wanted` that it depends on, by node id."""
    entries = TAPE.entries
    first = TAPE.first_node
    grads = {loss.node: 1.0}
    owned = set()
    found = {}
    for node in range(loss.node, first - 1, -1):
        g = grads.pop(node, None)
        if g is None:
            continue
        if node in wanted:
            found[node] = (g, node in owned)
        entry = entries[node - first]
        if entry is None:          # a leaf
            continue
        for k in range(0, len(entry), 2):
            parent = entry[k]
            contribution = entry[k + 1](g)
            old = grads.get(parent)
            if old is None:
                grads[parent] = contribution
            elif type(old) is not np.ndarray:
                grads[parent] = old + contribution
            elif parent in owned:
                np.add(old, contribution, out=old)
            else:
                grads[parent] = old + contribution
                owned.add(parent)
    return found


def grad(loss, wrt):
    """The gradient of scalar `loss` for each tracked value in `wrt` (a value, list or Record)."""
    leaves = []                                   # (path, Tracked)
    _collect(wrt, "{arg:wrt}", leaves)
    for path, x in leaves:
        if type(x) is Tracked and x.gen != TAPE.gen:
            raise LaminaError("TapeError", f"{path} was recorded before tape_reset(), so it is no longer "
                              f"on the tape and nothing can be differentiated with respect to it; wrap "
                              f"its value again with param() (or track()) after the reset.")
    _check_loss(loss)
    for path, x in leaves:
        if type(x) is not Tracked:
            raise LaminaError("TapeError", f"{path} is {describe(x)} that is not tracked; grad "
                              f"differentiates with respect to values made by param() or track().")
    wanted = {x.node for _, x in leaves}
    for _, x in leaves:
        if x.node in TAPE.packs:
            wanted.update(_pack_items(x))
    found = backward(loss, wanted)
    handed = set()
    results = [_result(x, found, handed) for _, x in leaves]
    bad = [path.replace("{arg:wrt}", "wrt") for (path, _), g in zip(leaves, results)
           if not np.all(np.isfinite(g))]
    if bad and np.isfinite(loss.value):
        warn(f"grad(): the loss is finite ({loss.value!r}) but the gradient for "
             f"{', '.join(bad)} contains NaN or Inf; an operation on the way divided by zero, "
             f"took the log or sqrt of a non-positive number, or overflowed.", once_key="grad: not finite")
    return _rebuild(wrt, iter(results))


def _result(x: Tracked, found: dict, handed: set):
    """The gradient handed out for `x`: its shape, a float for a number, zeros if unreached."""
    if x.node in TAPE.packs:
        # `[a, b]` of tracked numbers: the gradients of the numbers it was built from (these
        # include whatever flowed through the literal itself)
        grads = [float(found.get(p, (0.0,))[0]) for p in _pack_items(x)]
        return np.array(grads).reshape(x.value.shape)
    g, owned = found.get(x.node, (None, False))
    if g is None:
        return 0.0 if type(x.value) is float else np.zeros(x.value.shape)
    if type(x.value) is float:
        return float(g)
    if not owned or x.node in handed:
        return np.array(g, dtype=np.float64)      # never hand out an array the tape may share
    handed.add(x.node)
    return g


def _pack_items(x: Tracked) -> tuple:
    return TAPE.entry(x.node)[0::2]


def _collect(wrt, path: str, out: list) -> None:
    if isinstance(wrt, list):
        for i, item in enumerate(wrt):
            _collect(item, f"{path}[{i}]", out)
    elif isinstance(wrt, Record):
        for name, item in wrt.fields.items():
            _collect(item, f"{path}.{name}", out)
    else:
        out.append((path, wrt))


def _rebuild(wrt, grads):
    if isinstance(wrt, list):
        return [_rebuild(item, grads) for item in wrt]
    if isinstance(wrt, Record):
        return Record({name: _rebuild(item, grads) for name, item in wrt.fields.items()})
    return next(grads)


def _check_loss(loss) -> None:
    if type(loss) is not Tracked:
        if isinstance(loss, (float, int)) and not isinstance(loss, bool):
            got = "a plain number, so nothing it was computed from was tracked"
        else:
            got = describe(loss)
        raise LaminaError("TapeError", f"grad needs a loss computed from param()/track() values on the "
                          f"current tape; got {got}.")
    if loss.gen != TAPE.gen:
        raise LaminaError("TapeError", "The loss was recorded before tape_reset(); compute it again from "
                          "values wrapped with param() after the reset.")
    if type(loss.value) is not float:
        raise LaminaError("TapeError", f"grad needs a scalar loss, but the loss is {describe(loss)}; "
                          f"reduce it to a number first, for example with sum() or mean().")
