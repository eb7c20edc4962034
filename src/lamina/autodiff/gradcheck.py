"""The generic gradient check: analytic gradients against central finite differences.

Every differentiable builtin in the registry and every operator in
ops.OPERATORS declares GradCases. For each case, `check` draws seeded random
inputs in the case's domain, tracks them, computes the scalar loss
sum(out .* R) for a fixed random R of the output's shape, takes `grad`, and
compares it with central differences of the same loss on untracked inputs. A
function that returns a list or record of values gets one R per member.
Tests are generated from the registry's `grad_cases()`, so a builtin registered later is
checked without new test code.

`check_second_order` checks the same cases one order up: the gradient taken with keep
(recorded on the tape) must equal the first-order one, and its derivative must equal finite
differences of exact first-order gradients (see its docstring). `check_float32` runs them in
single precision against float64.
"""
from __future__ import annotations

import zlib

import numpy as np

from ..errors import LaminaError
from ..fields import Fields
from ..rng import reseed
from ..values import Record, Tracked, value_of
from . import ops, reductions
from .broadcast import sum_to
from .cases import Const, GradCase
from .grad import backward, backward_keeping, grad
from .tape import TAPE

EPS = 1e-6
EPS_ROUNDED = 1e-2        # the step for a function that rounds to float32 (GradCase.rounds)
SYMMETRIC = ("spd",)      # domains of symmetric matrices, perturbed symmetrically
RTOL = 1e-5
ATOL = 1e-6
RTOL2 = 1e-4              # second order: a finite difference of exact gradients
ATOL2 = 1e-6
KEPT_RTOL = 1e-9          # the kept gradient's value against the first-order sweep's
KEPT_ATOL = 1e-12
RTOL32 = 2e-3             # float32 against float64: of the largest magnitude in the float64 result
ATOL32 = 1e-4


def random_input(shape: tuple, domain: str, rng: np.random.Generator):
    if domain == "real":
        x = rng.standard_normal(shape)
    elif domain == "positive":
        x = rng.uniform(0.5, 2.0, shape)
    elif domain == "unit":
        x = rng.uniform(0.1, 0.9, shape)
    elif domain == "away_from_zero":
        x = rng.uniform(0.5, 2.0, shape) * rng.choice([-1.0, 1.0], shape)
    elif domain == "with_nan":        # for skipnan: the first element of a tensor is NaN
        x = rng.standard_normal(shape)
        if shape:
            x.flat[0] = np.nan
    elif domain in ("invertible", "spd"):
        x = rng.standard_normal(shape)
        if len(shape) == 2 and shape[0] == shape[1]:
            # well conditioned: diagonally dominant, or B B' / n + I (symmetric positive definite)
            n = shape[0]
            x = x + n * np.eye(n) if domain == "invertible" else x @ x.T / n + np.eye(n)
    else:
        raise ValueError(f"unknown GradCase domain {domain!r}")
    return float(x) if shape == () else x


def _prepared(case_id: str, fn, case: GradCase):
    """A case's generator (seeded by its id), arguments, keyword arguments, the indices of the
    arguments differentiated, and the function to call (reseeded before each call if asked)."""
    rng = np.random.default_rng(zlib.crc32(case_id.encode()))
    args = [a.value if isinstance(a, Const) else random_input(a, case.domain, rng) for a in case.args]
    kwargs = {k: (v.value if isinstance(v, Const) else v) for k, v in case.kwargs.items()}
    wrt = [i for i, a in enumerate(case.args) if not isinstance(a, Const)]
    return rng, args, kwargs, wrt, (_reseeding(fn) if case.reseed else fn)


def check(case_id: str, fn, case: GradCase) -> list[str]:
    """Problems found (empty when the analytic gradient matches finite differences)."""
    rng, args, kwargs, wrt, fn = _prepared(case_id, fn, case)
    TAPE.reset()
    try:
        tracked, outs = _tracked_call(fn, args, kwargs, wrt)
        if not any(type(o) is Tracked for o in outs):
            return [f"{case_id}: the result was not recorded on the tape"]
        weights = [random_input(np.shape(value_of(o)), "real", rng) for o in outs]
        analytic = grad(_weighted_sum(outs, weights), [tracked[i] for i in wrt])
    finally:
        TAPE.reset()

    def f(values) -> float:
        return sum(float(np.sum(value_of(o) * w)) for o, w in zip(_members(fn(*values, **kwargs)), weights))

    problems = []
    plain = _members(fn(*args, **kwargs))
    if len(plain) != len(outs) or any(
            np.shape(p) != np.shape(value_of(o)) or not np.allclose(p, value_of(o), rtol=1e-12, equal_nan=True)
            for p, o in zip(plain, outs)):
        problems.append(f"{case_id}: tracked and untracked forward values differ")
    for k, i in enumerate(wrt):
        got = analytic[k]
        if np.shape(got) != np.shape(args[i]) or (np.shape(got) == () and type(got) is not float):
            problems.append(f"{case_id}: gradient for argument {i} has shape {np.shape(got)} "
                            f"({type(got).__name__}), expected {np.shape(args[i])}")
            continue
        if case.rounds:
            want = _finite_difference(f, args, i, eps=EPS_ROUNDED)
            scale = float(np.max(np.abs(want), initial=0.0))
            bad = _apart(got, want, ATOL32 + RTOL32 * scale)
        else:
            want = _finite_difference(f, args, i, symmetric=case.domain in SYMMETRIC)
            bad = _apart(got, want, ATOL + RTOL * np.abs(want))
        if np.any(bad):
            problems.append(f"{case_id}: gradient for argument {i} differs from finite differences:\n"
                            f"  analytic {np.asarray(got).tolist()}\n  numeric  {want.tolist()}")
    return problems


def _apart(got, want: np.ndarray, tol) -> np.ndarray:
    """Where the analytic gradient is not within `tol` of the numeric one: a NaN on one side
    only counts (a comparison with NaN is false, so `> tol` would let it through)."""
    got = np.asarray(got, dtype=np.float64)
    return ~((np.abs(got - want) <= tol) | (np.isnan(got) & np.isnan(want)))


def _reseeding(fn):
    """`fn` with the global generator reseeded before each call, so that every call draws alike."""
    def call(*args, **kwargs):
        reseed(0)
        return fn(*args, **kwargs)
    return call


def _members(out) -> list:
    """The numbers and tensors in a result, in order (a list or record is flattened)."""
    if isinstance(out, list):
        return [m for item in out for m in _members(item)]
    if isinstance(out, Record):
        return [m for item in out.fields.values() for m in _members(item)]
    return [out]


def _finite_difference(f, args: list, i: int, symmetric: bool = False, eps: float = EPS) -> np.ndarray:
    x = args[i]
    if symmetric and np.ndim(x) == 2 and x.shape[0] == x.shape[1]:
        return _symmetric_difference(f, args, i)
    if type(x) is float:
        hi, lo = list(args), list(args)
        hi[i], lo[i] = x + eps, x - eps
        return np.asarray((f(hi) - f(lo)) / (2 * eps))
    out = np.zeros(x.shape)
    for j in np.ndindex(x.shape):
        values = list(args)
        for sign in (1.0, -1.0):
            moved = x.copy()
            moved[j] += sign * eps
            values[i] = moved
            out[j] += sign * f(values)
    return out / (2 * eps)


def _symmetric_difference(f, args: list, i: int) -> np.ndarray:
    """The gradient within symmetric matrices: A[j, k] and A[k, j] move together, and each gets
    half of that derivative (the diagonal all of its own)."""
    x = args[i]
    out = np.zeros(x.shape)
    for j, k in zip(*np.triu_indices(x.shape[0])):
        values = list(args)
        for sign in (1.0, -1.0):
            moved = x.copy()
            moved[j, k] += sign * EPS
            if j != k:
                moved[k, j] += sign * EPS
            values[i] = moved
            out[j, k] += sign * f(values)
        out[j, k] /= 2 * EPS if j == k else 4 * EPS
        out[k, j] = out[j, k]
    return out


# -- second order: the gradient kept on the tape, differentiated again -------------
FIRST_ORDER_ONLY = "is first order only"     # in the keep sweep's TapeError (autodiff/grad.py)


class SecondOrder(Fields):
    """What `check_second_order` found: `problems` (empty when the kept gradient and its
    derivative are right), or `refused`, the keep sweep's TapeError message when an op on the
    way is first order only (its VJP not declared second order): a refusal, never a wrong number."""

    def __init__(self, problems: list[str], refused: str | None = None):
        self.problems, self.refused = problems, refused


def check_second_order(case_id: str, fn, case: GradCase) -> SecondOrder:
    """The case's inputs and loss L = sum(out .* R) as `check` draws them; the gradient g of L
    taken with keep (recorded on the tape), which must equal the first-order sweep's; then
    S = sum over the differentiated arguments of sum(g_i .* D_i) for fixed random directions D
    (symmetric for a symmetric domain), differentiated by an ordinary sweep. The Hessian H of L
    is symmetric, so grad S = H D, which is the derivative of the exact first-order gradient in
    the direction D: central differences (g(x + eps D) - g(x - eps D)) / 2 eps. One comparison
    of a whole vector per argument, at the cost of two first-order gradients."""
    rng, args, kwargs, wrt, fn = _prepared(case_id, fn, case)
    TAPE.reset()
    try:
        tracked, outs = _tracked_call(fn, args, kwargs, wrt)
        if not any(type(o) is Tracked for o in outs):
            return SecondOrder([f"{case_id}: the result was not recorded on the tape"])
        weights = [random_input(np.shape(value_of(o)), "real", rng) for o in outs]
        directions = [_direction(args[i], case.domain, rng) for i in wrt]
        nodes = {tracked[i].node for i in wrt}
        try:
            found = backward_keeping(_inner(outs, weights), nodes)
        except LaminaError as err:
            if err.kind == "TapeError" and FIRST_ORDER_ONLY in err.message:
                return SecondOrder([], refused=err.message)
            raise
        kept = [found[tracked[i].node][0] if tracked[i].node in found else np.zeros(np.shape(args[i]))
                for i in wrt]                 # zeros for an argument the loss does not depend on
        inner = _inner(kept, directions)
        second = _gradients(inner, [tracked[i] for i in wrt])
    finally:
        TAPE.reset()
    problems = []
    first = _first_order(fn, args, kwargs, wrt, weights, rng)
    for k, i in enumerate(wrt):
        problems += _compare_kept(f"{case_id}: kept gradient for argument {i}", value_of(kept[k]),
                                  first[k], args[i])
    eps = EPS_ROUNDED if case.rounds else EPS
    hi = _first_order(fn, _moved(args, wrt, directions, eps), kwargs, wrt, weights, rng)
    lo = _first_order(fn, _moved(args, wrt, directions, -eps), kwargs, wrt, weights, rng)
    for k, i in enumerate(wrt):
        want = (hi[k] - lo[k]) / (2 * eps)
        got = second[k]
        if case.domain in SYMMETRIC and np.ndim(got) == 2:
            got = (got + got.T) / 2       # the derivative within symmetric matrices
        if np.shape(got) != np.shape(want):
            problems.append(f"{case_id}: second derivative for argument {i} has shape {np.shape(got)}, "
                            f"expected {np.shape(want)}")
            continue
        if case.rounds:
            tol = ATOL32 + RTOL32 * float(np.max(np.abs(want), initial=0.0))
        else:
            tol = ATOL2 + RTOL2 * np.abs(want)
        if np.any(_apart(got, want, tol)):
            problems.append(f"{case_id}: second derivative for argument {i} (the kept gradient "
                            f"differentiated along a random direction) differs from finite differences "
                            f"of exact gradients:\n  analytic {np.asarray(got).tolist()}\n"
                            f"  numeric  {np.asarray(want).tolist()}")
    return SecondOrder(problems)


def _inner(values: list, weights: list):
    """sum over the members of sum(v .* w), with broadcasting's sum (second order itself, so the
    keep sweep can start from it; `_weighted_sum`'s reductions.sum need not be)."""
    total = 0.0
    for v, w in zip(values, weights):
        total = ops.add(total, sum_to(ops.emul(v, w), ()))
    return total


def _direction(x, domain: str, rng: np.random.Generator):
    """A random direction shaped as `x` (symmetric for a symmetric domain's square matrix)."""
    d = random_input(np.shape(x), "real", rng)
    if domain in SYMMETRIC and np.ndim(d) == 2 and d.shape[0] == d.shape[1]:
        d = (d + d.T) / 2
    return d


def _moved(args: list, wrt: list, directions: list, step: float) -> list:
    moved = list(args)
    for i, d in zip(wrt, directions):
        moved[i] = args[i] + step * d
    return moved


def _gradients(out, leaves: list) -> list:
    """The first-order gradients of `out` for `leaves` as float64 arrays (zeros where it does not
    reach, or where `out` is not tracked: a gradient that depends on no input)."""
    zeros = [np.zeros(np.shape(x.value)) for x in leaves]
    if type(out) is not Tracked:
        return zeros
    found, _, _ = backward(out, {x.node for x in leaves})
    return [np.asarray(found[x.node][0], dtype=np.float64) if x.node in found else z
            for x, z in zip(leaves, zeros)]


def _first_order(fn, args, kwargs, wrt, weights, rng) -> list:
    """The exact first-order gradients of the weighted loss at `args`, as float64 arrays."""
    _, grads, _ = _run(fn, args, kwargs, wrt, weights, rng)
    return [np.zeros(np.shape(args[i])) if grads is None or g is None else np.asarray(g, dtype=np.float64)
            for i, g in zip(wrt, grads or [None] * len(wrt))]


def _compare_kept(what: str, got, want: np.ndarray, arg) -> list[str]:
    got = np.asarray(got, dtype=np.float64)
    if got.shape != np.shape(arg):
        return [f"{what} has shape {got.shape}, expected {np.shape(arg)}"]
    if np.any(_apart(got, want, KEPT_ATOL + KEPT_RTOL * np.abs(want))):
        return [f"{what} differs from the first-order gradient:\n  kept        {got.tolist()}\n"
                f"  first order {want.tolist()}"]
    return []


# -- float32: the same cases in single precision, against float64 ---------------
def check_float32(case_id: str, fn, case: GradCase) -> list[str]:
    """Problems found running `case` with its tensors in float32: every tensor in the result and
    every tensor gradient (as the reverse sweep produces it, before grad() rounds it to the
    value's dtype) must be float32, and each must be close to the float64 result."""
    rng, args, kwargs, wrt, fn = _prepared(case_id, fn, case)
    args32 = [_single(a) for a in args]
    kwargs32 = {k: _single(v) for k, v in kwargs.items()}
    want_outs, want_grads, weights = _run(fn, args, kwargs, wrt, None, rng)
    got_outs, got_grads, _ = _run(fn, args32, kwargs32, wrt, weights, rng)
    if want_grads is None or got_grads is None:
        return [f"{case_id}: the result was not recorded on the tape"]
    problems = []
    for k, (got, want) in enumerate(zip(got_outs, want_outs)):
        problems += _compare32(f"{case_id}: result {k}", got, want)
    for k, i in enumerate(wrt):
        problems += _compare32(f"{case_id}: gradient for argument {i}", got_grads[k], want_grads[k])
    return problems


def _single(a):
    """An argument in float32: a float64 tensor becomes float32 (also in a list or record);
    numbers stay Python floats."""
    if isinstance(a, list):
        return [_single(item) for item in a]
    if isinstance(a, Record):
        return Record({k: _single(v) for k, v in a.fields.items()})
    return a.astype(np.float32) if isinstance(a, np.ndarray) and a.dtype == np.float64 else a


def has_tensor(case: GradCase) -> bool:
    """Whether a case has a tensor among its inputs (else its results are float64 whatever the
    precision asked: numbers are always float64)."""
    def data(v):
        if isinstance(v, Record):
            return any(data(item) for item in v.fields.values())
        if isinstance(v, list):
            return any(data(item) for item in v)
        return isinstance(v, np.ndarray)

    def tensor(a):
        return data(a.value) if isinstance(a, Const) else len(a) > 0
    return any(tensor(a) for a in case.args) or any(data(v.value if isinstance(v, Const) else v)
                                                    for v in case.kwargs.values())


def _tracked_call(fn, args, kwargs, wrt):
    """(the arguments with args[wrt] as fresh leaves on the tape, fn's result members)."""
    tracked = list(args)
    for i in wrt:
        tracked[i] = TAPE.leaf(args[i], False)
    return tracked, _members(fn(*tracked, **kwargs))


def _weighted_sum(outs, weights, dtype=None):
    """sum over the result members of sum(o .* w): the scalar loss whose gradient is checked
    (weights in `dtype` when given, so that a float32 run stays float32)."""
    loss = 0.0
    for o, w in zip(outs, weights):
        w = w.astype(dtype) if dtype and isinstance(w, np.ndarray) else w
        loss = ops.add(loss, reductions.sum(ops.emul(o, w)))
    return loss


def _run(fn, args, kwargs, wrt, weights, rng):
    """(result members, raw gradients for args[wrt], loss weights) of one tracked run."""
    TAPE.reset()
    try:
        tracked, outs = _tracked_call(fn, args, kwargs, wrt)
        if weights is None:
            weights = [random_input(np.shape(value_of(o)), "real", rng) for o in outs]
        dtype = np.float32 if any(_is32(a) for a in args) else None
        loss = _weighted_sum(outs, weights, dtype)
        if type(loss) is not Tracked:
            return [value_of(o) for o in outs], None, weights
        found, _, _ = backward(loss, {tracked[i].node for i in wrt})
        grads = [found.get(tracked[i].node, (None,))[0] for i in wrt]
        return [value_of(o) for o in outs], grads, weights
    finally:
        TAPE.reset()


def _is32(a) -> bool:
    """Whether an argument is (or holds, in a list or record) a float32 tensor."""
    if isinstance(a, (list, Record)):
        return any(_is32(item) for item in (a if isinstance(a, list) else a.fields.values()))
    return isinstance(a, np.ndarray) and a.dtype == np.float32


def _compare32(what: str, got, want) -> list[str]:
    if isinstance(want, np.ndarray):
        if not isinstance(got, np.ndarray) or got.dtype != np.float32:
            kind = f"{got.dtype} array" if isinstance(got, np.ndarray) else type(got).__name__
            return [f"{what} is {kind}, not a float32 array"]
    if got is None or want is None:
        return [] if got is None and want is None else [f"{what}: reached in one precision only"]
    got64, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    if got64.shape != want.shape:
        return [f"{what} has shape {got64.shape}, expected {want.shape}"]
    scale = float(np.max(np.abs(want[np.isfinite(want)]), initial=0.0))
    close = np.isclose(got64, want, rtol=0, atol=ATOL32 + RTOL32 * scale, equal_nan=True)
    if not np.all(close):
        return [f"{what} differs from float64:\n  float32 {got64.tolist()}\n  float64 {want.tolist()}"]
    return []
