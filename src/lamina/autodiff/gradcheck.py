"""The generic gradient check: analytic gradients against central finite differences.

Every differentiable builtin in the registry and every operator in
ops.OPERATORS declares GradCases. For each case, `check` draws seeded random
inputs in the case's domain, tracks them, computes the scalar loss
sum(out .* R) for a fixed random R of the output's shape, takes `grad`, and
compares it with central differences of the same loss on untracked inputs. A
function that returns a list or record of values gets one R per member.
Tests are generated from the registry's `grad_cases()`, so a builtin registered later is
checked without new test code.
"""
from __future__ import annotations

import zlib

import numpy as np

from ..rng import reseed
from ..values import Record, Tracked, value_of
from . import ops, reductions
from .cases import Const, GradCase
from .grad import grad
from .tape import TAPE

EPS = 1e-6
SYMMETRIC = ("spd",)      # domains of symmetric matrices, perturbed symmetrically
RTOL = 1e-5
ATOL = 1e-6


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


def check(case_id: str, fn, case: GradCase) -> list[str]:
    """Problems found (empty when the analytic gradient matches finite differences)."""
    rng = np.random.default_rng(zlib.crc32(case_id.encode()))
    args = [a.value if isinstance(a, Const) else random_input(a, case.domain, rng) for a in case.args]
    kwargs = {k: (v.value if isinstance(v, Const) else v) for k, v in case.kwargs.items()}
    wrt = [i for i, a in enumerate(case.args) if not isinstance(a, Const)]
    if case.reseed:
        fn = _reseeding(fn)
    TAPE.reset()
    try:
        tracked = list(args)
        for i in wrt:
            tracked[i] = TAPE.leaf(args[i], False)
        outs = _members(fn(*tracked, **kwargs))
        if not any(type(o) is Tracked for o in outs):
            return [f"{case_id}: the result was not recorded on the tape"]
        weights = [random_input(np.shape(value_of(o)), "real", rng) for o in outs]
        loss = 0.0
        for o, w in zip(outs, weights):
            loss = ops.add(loss, reductions.sum(ops.emul(o, w)))
        analytic = grad(loss, [tracked[i] for i in wrt])
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
        want = _finite_difference(f, args, i, symmetric=case.domain in SYMMETRIC)
        bad = np.abs(np.asarray(got) - want) > ATOL + RTOL * np.abs(want)
        if np.any(bad):
            problems.append(f"{case_id}: gradient for argument {i} differs from finite differences:\n"
                            f"  analytic {np.asarray(got).tolist()}\n  numeric  {want.tolist()}")
    return problems


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


def _finite_difference(f, args: list, i: int, symmetric: bool = False) -> np.ndarray:
    x = args[i]
    if symmetric and np.ndim(x) == 2 and x.shape[0] == x.shape[1]:
        return _symmetric_difference(f, args, i)
    if type(x) is float:
        hi, lo = list(args), list(args)
        hi[i], lo[i] = x + EPS, x - EPS
        return np.asarray((f(hi) - f(lo)) / (2 * EPS))
    out = np.zeros(x.shape)
    for j in np.ndindex(x.shape):
        values = list(args)
        for sign in (1.0, -1.0):
            moved = x.copy()
            moved[j] += sign * EPS
            values[i] = moved
            out[j] += sign * f(values)
    return out / (2 * EPS)


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
