"""minimize(f, x0): SciPy's optimize.minimize over a Lamina function, with exact derivatives.

The point x0 is a number, a tensor, or a record or list of them (autodiff/higher.py's `Point`):
SciPy sees its members flattened into one float64 vector theta, and f sees theta rebuilt into
x0's structure. Each evaluation makes the members fresh leaves, runs f once and sweeps once
back (`Objective.value_and_gradient`): SciPy is handed the value and its exact gradient
together (`jac=True`). "newton" adds the exact Hessian (higher.flat_hessian: one kept sweep and
one ordinary sweep per parameter). The methods and what SciPy calls them:

    bfgs         BFGS          gradient; no bounds
    lbfgs        L-BFGS-B      gradient; bounds
    newton       trust-exact   gradient and exact Hessian (a trust region, so an indefinite
                               Hessian far from the minimum is safe); no bounds
    nelder_mead  Nelder-Mead   values only (f runs on plain numbers, off the tape); bounds

A value that is not finite at x0 is an error; later, NaN is handed to SciPy as +Inf, which its
line searches and trust regions treat as "too far" and step back from, and so is a ValueError
that f raises at a trial point (a step out of its domain: a negative scale handed to normal()). A run that stops
without SciPy's success is a warning and converged = false, never silent.

Each evaluation's tape entries are of no use once SciPy has the numbers, so the tape's count
goes back to where it was after each (as higher.py's blocks do): a thousand evaluations do not
grow the tape nor trip its size warning.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..autodiff import handed
from ..autodiff.higher import Point, flat_hessian, fresh_tape_count, sweep
from ..autodiff.tape import TAPE
from ..errors import LaminaError
from ..values import Record, Tracked, as_float, as_int, as_str, describe, format_number
from ..warnings import warn

METHODS = {"bfgs": "BFGS", "lbfgs": "L-BFGS-B", "newton": "trust-exact", "nelder_mead": "Nelder-Mead"}
BOUNDED = ("lbfgs", "nelder_mead")


@dataclass
class Result:
    """Where a run stopped, in the flat view: theta, f there, its gradient (None for a method
    that uses none), the iterations, the evaluations of f, SciPy's verdict and message."""
    theta: np.ndarray
    value: float
    gradient: np.ndarray | None
    iterations: int
    evaluations: int
    converged: bool
    message: str


class Objective:
    """f over the flat vector of a Point's members, f's extra arguments passed after the point."""

    def __init__(self, f, point: Point, args: tuple, who: str):
        self.f, self.point, self.args, self.who = f, point, args, who
        self.evaluations = 0
        self.started = False        # set once f has been evaluated at the start (see _call)

    def _call(self, members: list):
        """(f's result, its number); (None, Inf) for a ValueError of f at a trial point after the
        start: a line search stepped out of f's domain (a negative scale handed to normal()), so
        the point counts as infinitely bad, as a NaN does."""
        self.evaluations += 1
        try:
            out = self.f(self.point.rebuild(members), *self.args)
        except LaminaError as error:
            if self.started and error.kind == "ValueError":
                return None, math.inf
            raise
        value = out.value if type(out) is Tracked else out
        if isinstance(value, bool) or type(value) is not float:
            raise LaminaError("TypeError", f"{self.who} must return a number (the value to minimize), "
                              f"but it returned {describe(out)}; reduce it with sum() or mean() first.")
        return out, value

    def value(self, theta: np.ndarray) -> float:
        """f at theta, on plain numbers (nothing recorded but what f's closure holds)."""
        with fresh_tape_count():
            return self._call(self.point.split(theta))[1]

    def value_and_gradient(self, theta: np.ndarray) -> tuple[float, np.ndarray]:
        """f at theta and its exact gradient, from one forward run and one reverse sweep."""
        with fresh_tape_count():
            leaves = self.point.leaves(self.point.split(theta))
            out, value = self._call(leaves)
            if out is None:
                return value, np.full(self.point.size, np.nan)
            grads = np.concatenate([np.ravel(g) for g in sweep(out, leaves, 1.0)]) if leaves else np.zeros(0)
        return value, grads.astype(np.float64)

    def value_and_outside(self, theta: np.ndarray) -> tuple[float, set]:
        """f at theta (on plain numbers, as nelder_mead runs it) and the live values recorded
        outside (the tracked ones f reads) that it depends on: the minimum moves with them, so
        what minimize hands out depends on them too (autodiff/handed.py)."""
        reached, start = [], TAPE.next_node
        with fresh_tape_count():
            out, value = self._call(self.point.split(theta))
            if type(out) is Tracked and out.gen == TAPE.gen:
                sweep(out, [], 1.0, reached)
        return value, {n for n in reached if n < start}

    def hessian(self, theta: np.ndarray) -> np.ndarray:
        """The exact n x n Hessian of f at theta."""
        at = Point(self.point.rebuild(self.point.split(theta)), "x")
        return flat_hessian(lambda x: self.f(x, *self.args), at, self.who)


def check_method(method, who: str) -> str:
    name = as_str(method, f"{who}'s method")
    if name not in METHODS:
        names = ", ".join(f"\"{m}\"" for m in METHODS)
        raise LaminaError("ValueError", f"{who}'s method is one of {names}, not \"{name}\".")
    return name


def run(objective: Objective, theta0: np.ndarray, method: str, bounds=None, tol=None,
        max_iter=None, who: str = "minimize") -> Result:
    """SciPy's minimize from theta0 (the value there must be finite), by `method` (a METHODS key)."""
    from scipy import optimize

    start = _start_value(objective, theta0, method, who)
    if not math.isfinite(start):
        raise LaminaError("ValueError", f"{who}: the function is {format_number(start)} at the "
                          f"starting point {_show(objective.point, theta0)}; start where it is finite.")
    objective.started = True
    options = {} if max_iter is None else {"maxiter": max_iter}
    kwargs = {"method": METHODS[method], "tol": tol, "options": options, "bounds": bounds}
    if method == "nelder_mead":
        fun = lambda theta: _finite_or_inf(objective.value(theta))  # noqa: E731
    else:
        fun = lambda theta: _with_finite_value(objective.value_and_gradient(theta))  # noqa: E731
        kwargs["jac"] = True
    if method == "newton":
        kwargs["hess"] = lambda theta: _trial_hessian(objective, theta, who)  # noqa: E731
    res = optimize.minimize(fun, theta0, **kwargs)
    gradient = None if method == "nelder_mead" else objective.value_and_gradient(res.x)[1]
    return Result(np.asarray(res.x, dtype=np.float64), float(res.fun), gradient, int(res.nit),
                  objective.evaluations, bool(res.success), str(res.message))


def _trial_hessian(objective, theta: np.ndarray, who: str) -> np.ndarray:
    """The objective's Hessian for SciPy's trust region, which asks for it at each trial point
    before it weighs the point's value. Where f is not finite or not defined (a ValueError of f,
    as a negative scale handed to normal()) the value rejects the point, so any finite matrix
    does; a Hessian that is not finite where f is finite is an error that says so."""
    n = objective.point.size
    try:
        hessian = objective.hessian(theta)
    except LaminaError as error:
        if error.kind != "ValueError":
            raise
        return np.zeros((n, n))
    if np.isfinite(hessian).all():
        return hessian
    if math.isfinite(objective.value(theta)):
        raise LaminaError("ValueError", f"{who}: the Hessian of the function at "
                          f"{_show(objective.point, theta)} is not finite, so no Newton step can be "
                          f"taken there; use method = \"bfgs\", which needs only the gradient.")
    return np.zeros((n, n))


def _start_value(objective: Objective, theta0: np.ndarray, method: str, who: str) -> float:
    if method == "nelder_mead":
        return objective.value(theta0)
    return objective.value_and_gradient(theta0)[0]


def _finite_or_inf(value: float) -> float:
    return value if value == value else math.inf


def _with_finite_value(pair: tuple) -> tuple:
    value, gradient = pair
    return (value, gradient) if value == value else (math.inf, gradient)


def _show(point: Point, theta: np.ndarray) -> str:
    from ..printing import format_value
    return format_value(point.rebuild(point.split(theta)))


# -- bounds ------------------------------------------------------------------------------
def flat_bounds(bounds, point: Point, x0, who: str) -> list[tuple] | None:
    """SciPy's (lower, upper) per flat parameter, from bounds shaped as x0: a pair [lower,
    upper] for a number or tensor x0 (numbers, or tensors of its shape), and for a record x0 a
    record of such pairs, one per field bounded (the other fields are free). None: no bounds."""
    if bounds is None:
        return None
    pairs = []
    if isinstance(x0, Record):
        if not isinstance(bounds, Record):
            raise LaminaError("TypeError", f"{who}'s bounds for a record x0 is a record of [lower, "
                              f"upper] pairs, one per field bounded ({{sigma = [0, Inf]}}), not "
                              f"{describe(bounds)}.")
        unknown = [k for k in bounds.fields if k not in x0.fields]
        if unknown:
            raise LaminaError("ValueError", f"{who}'s bounds names {', '.join(unknown)}, which x0 does "
                              f"not have (its fields: {', '.join(x0.fields)}).")
        for name, member in x0.fields.items():
            pairs += _member_bounds(bounds.fields.get(name), member, f"{who}'s bounds.{name}")
    elif isinstance(x0, list):
        raise LaminaError("TypeError", f"{who} takes bounds for a number, a tensor or a record x0, not a "
                          f"list: give x0 as a record and bound its fields by name.")
    else:
        pairs = _member_bounds(bounds, x0, f"{who}'s bounds")
    theta0 = point.flat()
    outside = [i for i, (lo, hi) in enumerate(pairs) if not lo <= theta0[i] <= hi]
    if outside:
        i = outside[0]
        raise LaminaError("ValueError", f"{who}'s x0 lies outside its bounds: element {i} of the flat "
                          f"parameters is {format_number(theta0[i])}, not within [{format_number(pairs[i][0])}, "
                          f"{format_number(pairs[i][1])}].")
    return pairs


def _member_bounds(pair, member, what: str) -> list[tuple]:
    value = member.value if type(member) is Tracked else member
    n = int(np.size(value))
    if pair is None:
        return [(-math.inf, math.inf)] * n
    if isinstance(pair, list):
        parts = pair
    elif type(pair) is np.ndarray and pair.shape == (2,):
        parts = [float(pair[0]), float(pair[1])]
    else:
        parts = None
    if parts is None or len(parts) != 2:
        raise LaminaError("TypeError", f"{what} is a pair [lower, upper] (Inf or -Inf for no bound), "
                          f"not {describe(pair)}.")
    lower, upper = (_side(p, value, what) for p in parts)
    if np.any(lower > upper):
        raise LaminaError("ValueError", f"{what} has a lower bound above its upper bound.")
    return list(zip(lower.tolist(), upper.tolist()))


def _side(p, value, what: str) -> np.ndarray:
    if type(p) is np.ndarray:
        if p.shape != np.shape(value):
            raise LaminaError("ShapeError", f"{what}: a bound given as a tensor has the parameter's "
                              f"shape {list(np.shape(value))}, not {list(p.shape)}.")
        side = p.astype(np.float64).ravel()
    else:
        side = np.full(int(np.size(value)), as_float(p, what))
    if np.any(np.isnan(side)):
        raise LaminaError("ValueError", f"{what} is NaN; write Inf or -Inf for no bound.")
    return side


# -- the builtin -------------------------------------------------------------------------
def minimize(f, x0, args: tuple = (), method="bfgs", bounds=None, tol=None, max_iter=None) -> Record:
    """The record {x, value, gradient (not for nelder_mead), iterations, evaluations, converged,
    message} of minimizing f from x0 (see the module's docstring)."""
    name = check_method(method, "minimize")
    point = Point(x0, "minimize's x0")
    if point.size == 0:
        raise LaminaError("ValueError", "minimize needs at least one number to vary in x0.")
    pairs = flat_bounds(bounds, point, x0, "minimize")
    if pairs is not None and name not in BOUNDED:
        raise LaminaError("ValueError", f"minimize's method \"{name}\" ({METHODS[name]}) takes no bounds; "
                          f"use method = \"lbfgs\" (L-BFGS-B) or \"nelder_mead\", or fit a transformed "
                          f"parameter (exp(s) for a positive one).")
    tolerance = None if tol is None else as_float(tol, "minimize's tol")
    if tolerance is not None and not tolerance > 0:
        raise LaminaError("ValueError", f"minimize's tol is a number above 0, not {format_number(tolerance)}.")
    iters = None if max_iter is None else as_int(max_iter, "minimize's max_iter", minimum=1)
    objective = Objective(f, point, args, "minimize's f")
    anything_tracked = TAPE.count > 0          # a live value f could read; else no look is needed
    result = run(objective, point.flat(), name, pairs, tolerance, iters)
    if not result.converged:
        warn(f"minimize ({name}) did not converge after {plural(result.iterations, 'iteration')}: {result.message}",
             once_key="minimize: not converged")
    fields = {"x": _shaped(point, result.theta), "value": result.value}
    if result.gradient is not None:
        fields["gradient"] = _shaped(point, result.gradient)
    reads = objective.value_and_outside(result.theta)[1] if anything_tracked else set()
    fields = dict(zip(fields, handed.hand_out_derivative(list(fields.values()), reads, "minimize")))
    fields.update({"iterations": float(result.iterations), "evaluations": float(result.evaluations),
                   "converged": result.converged, "message": result.message})
    return Record(fields)


def plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _shaped(point: Point, theta: np.ndarray):
    """theta in the point's structure, each tensor member in its own dtype."""
    members = [m if type(m) is float else m.astype(dtype, copy=False)
               for m, dtype in zip(point.split(theta), point.dtypes)]
    return point.rebuild(members)
