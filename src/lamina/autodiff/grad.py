"""The reverse sweep, and `grad(loss, wrt)` as the language defines it.

`backward` follows the loss's entry (autodiff/tape.py) down to its parents, in
decreasing node id: a node is handled once every value computed from it has
passed its gradient on, since a value's id is always above its inputs'. Each
reached entry's VJPs are called for its parents; gradients (and the parents'
entries) wait by node id. The sweep walks the ids down from the loss while they
receive gradients, and once it has met more than 32 that received none (and more
than there are nodes still waiting), it jumps straight to the highest node still
waiting; it stops as soon as none is. So it costs what the loss depends on (a
gap costs at most 33 look-ups), whatever else was recorded.
The first contribution to a node is stored as it is (it may alias another
array, so it is never written into); a second one allocates a sum the sweep
owns, and later ones are added into that array in place.

With `keep` (`backward_keeping`), the sweep runs with `TAPE.keeping` set: every VJP computes
with tape operations (tape.py's "Second order"), contributions are added with `ops.add`, and the
gradients come back recorded, so a later grad can differentiate them again. A VJP not declared
second-order is a TapeError naming its op.

`wrt` is a tracked value, or a list or record of them (any depth); the result
has the same structure. A bracket literal written as the wrt argument is a list
(the compiler makes it one, see lang/compiler.py), so `grad(loss, wrt = [a, b])`
gives one gradient per item; a tracked vector passed as wrt is one target.
"""
from __future__ import annotations

import heapq
import math
import sys

import numpy as np

from .. import ownership
from ..errors import LaminaError
from ..values import Record, Tracked, describe
from ..warnings import warn
from . import handed
from .handed import FROZEN
from .ops import add, emul
from .shaping import astype
from .tape import TAPE, differentiable_again, op_name

MISSES_BEFORE_JUMP = 32
FIRST_ORDER = ("gradients are first order unless taken with keep = true: a gradient grad() "
               "returns is otherwise a plain value, not recorded on the tape")


def backward(loss: Tracked, wanted: set, leaves: list | None = None, seed=1.0) -> tuple[dict, int, int]:
    """(gradients of `loss` for the nodes in `wanted` that it depends on, by node id; how many
    nodes the sweep reached; how many node ids it looked at, reached or not). The node ids of
    the leaves it reached are appended to `leaves` when given. `seed`: the gradient the sweep
    starts the loss with (an array of its shape for a tensor: a vector-Jacobian product)."""
    grads = {loss.node: seed}
    entries = {loss.node: loss.entry}          # the entry of each node holding a gradient
    owned = set()
    found = {}
    reached = looked = 0
    top = loss.node
    while True:
        misses = 0
        node = top
        for node in range(top, -1, -1):
            g = grads.pop(node, None)
            if g is None:
                misses += 1
                if not grads or (misses > MISSES_BEFORE_JUMP and misses > len(grads)):
                    break                  # done, or a long gap: jump to the highest waiting node
                continue
            entry = entries.pop(node)
            if node in wanted:
                found[node] = (g, node in owned)
            if entry is None:          # a leaf
                if leaves is not None:
                    leaves.append(node)
                continue
            for k in range(0, len(entry), 3):
                parent = entry[k]
                vjp = entry[k + 2]
                if type(vjp) is float:
                    contribution = vjp * g
                elif type(vjp) is Tracked:
                    contribution = vjp.value * g
                else:
                    contribution = vjp(g)
                old = grads.get(parent)
                if old is None:
                    grads[parent] = contribution
                    entries[parent] = entry[k + 1]
                elif type(old) is not np.ndarray:
                    grads[parent] = old + contribution
                elif parent in owned:
                    np.add(old, contribution, out=old)
                else:
                    grads[parent] = old + contribution
                    owned.add(parent)
        looked += top - node + 1
        reached += top - node + 1 - misses
        if not grads:
            return found, reached, looked
        top = max(grads)


def backward_keeping(loss: Tracked, wanted: set, leaves: list | None = None, seed=1.0) -> dict:
    """`backward` with the gradients recorded on the tape (the module's docstring): the
    gradients of `loss` for the nodes in `wanted`, by node id, as (gradient, False)."""
    grads = {loss.node: seed}
    entries = {loss.node: loss.entry}
    waiting = [-loss.node]          # the nodes holding a gradient, highest first (a heap)
    found = {}
    outer, TAPE.keeping = TAPE.keeping, True
    try:
        while waiting:
            node = -heapq.heappop(waiting)
            g = grads.pop(node)
            entry = entries.pop(node)
            if node in wanted:
                found[node] = (g, False)
            if entry is None:
                if leaves is not None:
                    leaves.append(node)
                continue
            for k in range(0, len(entry), 3):
                parent, vjp = entry[k], entry[k + 2]
                if not differentiable_again(vjp):
                    _first_order_only(vjp)
                contribution = emul(vjp, g) if type(vjp) is float or type(vjp) is Tracked else vjp(g)
                old = grads.get(parent)
                if old is None:
                    grads[parent] = contribution
                    entries[parent] = entry[k + 1]
                    heapq.heappush(waiting, -parent)
                else:
                    grads[parent] = add(old, contribution)
    finally:
        TAPE.keeping = outer
    return found


def _first_order_only(vjp) -> None:
    raise LaminaError("TapeError", f"grad(..., keep = true) needs every operation the loss was "
                      f"computed with to be differentiable twice, but the gradient of "
                      f"{op_name(vjp)} is first order only: it cannot be recorded on the tape. "
                      f"Write that step with operations that are (the builtin pages say "
                      f"\"differentiable twice\"), or take the gradient without keep.")


def grad(loss, wrt, keep: bool = False, hand_out: bool = False):
    """The gradient of scalar `loss` for each tracked value in `wrt` (a value, list or Record).
    Every array handed out is one no one else holds (a trainer that only reads the gradients
    uses `leaf_gradients`, which hands out the sweep's arrays as they are). With `keep` the
    gradients are recorded on the tape (tracked values), so they can be differentiated again.
    `hand_out` (the grad builtin's): gradients taken without keep come back as frozen values that
    remember this call (autodiff/handed.py)."""
    leaves = []                                   # (path, Tracked)
    _collect(wrt, "{arg:wrt}", leaves)
    gen = TAPE.gen
    stale = [(path, x) for path, x in leaves if type(x) is Tracked and x.gen not in (gen, FROZEN)]
    if stale:
        _stale_error(stale)
    for path, x in leaves:          # before the loss: a plain loss from a plain wrt is the wrt's fault
        if type(x) is not Tracked or x.gen == FROZEN:
            raise LaminaError("TapeError", f"{path} is {describe(x)} that is not tracked; grad "
                              f"differentiates with respect to values made by param() or track().")
    _check_loss(loss)
    wanted = {x.node for _, x in leaves}
    handed.refuse_second_order(loss, wanted)
    reached: list = []
    if keep:
        found = backward_keeping(loss, wanted, reached)
    else:
        found, _, _ = backward(loss, wanted, reached)
    given = set()
    results = [_result(x, found, given) for _, x in leaves]
    wanted.update(reached)    # every node the loss depended on: what a gradient may depend on
                              # (a first-order sweep cannot tell which it really does)
    if hand_out and not keep:
        results = handed.hand_out(results, leaves, wanted)
    if leaves and not found:
        _warn_unreached(len(leaves))
    bad = [path.replace("{arg:wrt}", "wrt") for (path, _), g in zip(leaves, results) if not _finite(g)]
    if bad and np.isfinite(loss.value):
        _warn_not_finite(loss, bad)
    return _rebuild(wrt, iter(results))


def leaf_gradients(loss, leaves: list, check_finite: bool = True) -> list:
    """`grad(loss, leaves)` for a trainer's own flat list of leaves, which it made (so none is
    untracked): the gradients as the sweep made them (shared arrays included, not copied:
    the trainer only reads them), without the path bookkeeping. With `check_finite` false the gradients are not
    looked at for NaN or Inf: for a trainer that checks every batch's loss and its weights."""
    gen = TAPE.gen
    for x in leaves:
        if x.gen != gen:          # the loss function reset the tape
            _stale_error([(f"wrt[{i}]", x) for i, x in enumerate(leaves) if x.gen != gen])
    _check_loss(loss)
    found, _, _ = backward(loss, {x.node for x in leaves})
    results = [_result(x, found, None, False) for x in leaves]
    if leaves and not found:
        _warn_unreached(len(leaves))
    if check_finite:
        bad = [f"wrt[{i}]" for i, g in enumerate(results) if not _finite(g)]
        if bad and np.isfinite(loss.value):
            _warn_not_finite(loss, bad)
    return results


def _warn_unreached(n: int) -> None:
    warn(f"grad(): the loss does not depend on {_named(n)}, so every gradient "
         f"is zero; compute the loss from the values you differentiate against (a value "
         f"built after the loss, such as a bracket or vcat of parameters, or one wrapped "
         f"again with param(), is a new value the loss never saw).", once_key="grad: not connected")


def _warn_not_finite(loss, bad: list) -> None:
    warn(f"grad(): the loss is finite ({loss.value!r}) but the gradient for "
         f"{', '.join(bad)} contains NaN or Inf; an operation on the way divided by zero, "
         f"took the log or sqrt of a non-positive number, or overflowed.", once_key="grad: not finite")


def _named(n: int) -> str:
    return "wrt" if n == 1 else f"any of the {n} values in wrt"


def _reset_words(gen: int) -> str:
    """What ended generation `gen`: "tape_reset()", or the builtin that reset the tape as it trained."""
    cause = TAPE.reset_cause(gen)
    if cause is None or cause.startswith("tape_reset()"):
        return "tape_reset()"
    return f"the tape was reset by {cause} (it resets the tape as it trains)"


def _stale_error(stale: list) -> None:
    """The TapeError naming every stale item of wrt (recorded before a reset) and the reset."""
    groups: dict[str, list] = {}
    for path, x in stale:
        groups.setdefault(_reset_words(x.gen), []).append(path)
    parts = []
    for words, paths in groups.items():
        verb = "before" if parts else ("was" if len(paths) == 1 else "were") + " recorded before"
        parts.append(f"{_and(paths)} {verb} {words}")
    one = len(stale) == 1
    raise LaminaError("TapeError", f"{', and '.join(parts)}, so {'it is' if one else 'they are'} no "
                      f"longer on the tape and nothing can be differentiated with respect to "
                      f"{'it' if one else 'them'}; wrap {'its value' if one else 'their values'} again "
                      f"with param() (or track()) after the reset.")


def _and(names: list) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _finite(g) -> bool:
    if type(g) is Tracked:
        g = g.value
    if type(g) is float:
        return math.isfinite(g)
    # One pass without a temporary: a NaN or Inf anywhere makes the sum NaN or Inf; only a sum
    # that overflowed (or a real NaN) needs the elementwise look. Not BLAS's dot, though it reads
    # faster: on a float64 array of over 10,000 numbers it wakes OpenBLAS's threads, which then
    # spin for about 0.1 s and take a core from whatever runs next on two threads (a float64
    # LSTM's chunks, after each grad(), ran 1.8x slower).
    return math.isfinite(np.add.reduce(g, axis=None)) or bool(np.isfinite(g).all())


def _result(x: Tracked, found: dict, given: set, fresh: bool = True):
    """The gradient handed out for `x`: its shape and dtype, a float for a number, zeros if
    unreached. (Where float32 and float64 tensors meet, a float32 value's gradient may arrive as
    float64: it is rounded back here.) `fresh` false: the sweep's array as it is, for
    leaf_gradients; else one nobody else holds."""
    g, owned = found.get(x.node, (None, False))
    if g is None:
        return 0.0 if type(x.value) is float else np.zeros(x.value.shape, dtype=x.value.dtype)
    if type(g) is Tracked:                       # kept on the tape (grad with keep): its value's dtype too
        if type(x.value) is np.ndarray and type(g.value) is np.ndarray and g.value.dtype != x.value.dtype:
            return astype(g, x.value.dtype)
        return g
    if type(x.value) is float:
        return float(g)
    dtype = x.value.dtype                         # a gradient has its value's dtype
    if not fresh:
        if type(g) is not np.ndarray:
            return np.full(x.value.shape, g, dtype=dtype)
        return g if g.dtype == dtype else g.astype(dtype)
    if x.node in given or type(g) is not np.ndarray or g.dtype != dtype or \
            not (owned or _unshared(g)):
        return np.array(g, dtype=dtype)           # never hand out an array the tape may share
    given.add(x.node)
    return g


def _unshared(g) -> bool:
    """Whether nothing but the sweep's `found` holds array g and g owns its memory: a
    contribution the sweep stored as a VJP made it (most are fresh products), which no closure,
    view or other node's gradient holds, so it can be handed out without a copy."""
    return g.base is None and sys.getrefcount(g) <= _SWEEP_REFS


# What holds a gradient _unshared counts (lamina/ownership.py): found's (g, owned) tuple,
# _result's local g and _unshared's parameter.
_SWEEP_REFS = ownership.refs_limit(holders=3)


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
    if type(loss) is Tracked and loss.gen == FROZEN:
        loss = loss.value            # computed from gradients alone: a plain value for the tape
    if type(loss) is not Tracked:
        if isinstance(loss, (float, int)) and not isinstance(loss, bool):
            got = f"a plain number, so nothing it was computed from was tracked ({FIRST_ORDER})"
        elif isinstance(loss, np.ndarray):
            got = f"{describe(loss)} that is not tracked ({FIRST_ORDER})"
        else:
            got = describe(loss)
        raise LaminaError("TapeError", f"grad needs a loss computed from param()/track() values on the "
                          f"current tape; got {got}.")
    if loss.gen != TAPE.gen:
        raise LaminaError("TapeError", f"The loss was recorded before {_reset_words(loss.gen)}; compute "
                          "it again from values wrapped with param() after the reset.")
    if type(loss.value) is not float:
        raise LaminaError("TapeError", f"grad needs a scalar loss, but the loss is {describe(loss)}; "
                          f"reduce it to a number first, for example with sum() or mean().")
