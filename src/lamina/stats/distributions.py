"""Probability distributions as values: normal, uniform, binomial, poisson, exponential, the
sampling distributions of tests (student_t, chi2, f_dist, gamma_dist, beta_dist), and weibull and
negative_binomial for likelihoods.

A distribution is a library value holding its family and parameters. SciPy does
the numerics (scipy.stats, imported when a distribution is first evaluated);
samples come from Lamina's one global generator, so `seed(n)` makes them repeat.

A distribution's parameters may also be tensors (one distribution per element, broadcast with
each other and with x as the operators broadcast) or tracked values. `logdensity` (the logpdf and
logpmf builtins) computes on the tape with stats/logdensity.py, so it is differentiable in the
parameters and in x; what SciPy computes (pdf, cdf, quantile, sample, mean, var) takes numbers
and tensors, and refuses a tracked parameter, saying so.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..autodiff.broadcast import align
from ..autodiff.tape import is_live
from ..errors import LaminaError, shape_str
from ..printing import format_number, format_value
from ..values import (
    LibObject,
    Tracked,
    as_float,
    as_int,
    describe,
    lamina_value,
    numeric_or_tracked,
    tensor_dtype,
    value_of,
)
from . import logdensity as L


@dataclass(frozen=True)
class Family:
    params: tuple          # parameter names, in call order
    defaults: tuple        # default values for the trailing parameters (None: one of several forms, see check)
    discrete: bool
    check: Callable        # params dict (their values: numbers or arrays) -> what is wrong, or ""
    scipy: Callable        # (scipy.stats, params dict) -> a frozen scipy distribution
    logdensity: Callable   # (params dict, x) -> the log density (log mass) on the tape, stats/logdensity.py


def _all(op: str, a, b) -> bool:
    """Whether `a op b` holds for every element, a and b broadcast as the operators broadcast."""
    a2, b2, _, _ = align(a, b, op)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        return bool(np.all({">": np.greater, ">=": np.greater_equal, "<": np.less, "<=": np.less_equal}[op](a2, b2)))


def _positive(name: str):
    return lambda p: "" if _all(">", p[name], 0.0) else f"{name} must be greater than 0"


def _rate(p):
    """A rate's scale, 1 / rate, is what SciPy takes: it must not overflow to Inf."""
    with np.errstate(divide="ignore", over="ignore"):
        return "" if _all(">", p["rate"], 0.0) and np.all(np.isfinite(1.0 / p["rate"])) else \
            "rate must be greater than 0, and 1 / rate finite"


def _both_positive(first: str, second: str):
    return lambda p: _positive(first)(p) or _positive(second)(p)


def _uniform(p):
    low, high, _, _ = align(p["low"], p["high"], "-")
    with np.errstate(over="ignore", invalid="ignore"):
        return "" if np.all(low < high) and np.all(np.isfinite(high - low)) else \
            "low must be less than high, and high - low finite"


def _probability(name: str, low: str):
    """name lies from 0 (or just above it, low ">") to 1."""
    return lambda p: "" if _all(low, p[name], 0.0) and _all("<=", p[name], 1.0) else \
        f"{name} must lie {'from' if low == '>=' else 'above'} 0 {'to' if low == '>=' else 'up to'} 1"


def _negative_binomial(p):
    """size > 0, and either prob (0 < prob <= 1) or the mean mu (>= 0), as R's dnbinom."""
    if ("prob" in p) == ("mu" in p):
        return "give prob or mu, one of them"
    if "mu" in p:
        return _positive("size")(p) or ("" if _all(">=", p["mu"], 0.0) else "mu must be at least 0")
    return _positive("size")(p) or _probability("prob", ">")(p)


def _nbinom(st, p):
    prob = p["prob"] if "prob" in p else p["size"] / (p["size"] + p["mu"])
    return st.nbinom(p["size"], prob)


FAMILIES = {
    "normal": Family(("mu", "sigma"), (0.0, 1.0), False, _positive("sigma"),
                     lambda st, p: st.norm(p["mu"], p["sigma"]), L.normal),
    "uniform": Family(("low", "high"), (0.0, 1.0), False, _uniform,
                      lambda st, p: st.uniform(p["low"], p["high"] - p["low"]), L.uniform),
    "binomial": Family(("n", "p"), (), True, _probability("p", ">="),
                       lambda st, p: st.binom(np.asarray(p["n"]).astype(np.int64), p["p"]), L.binomial),
    "poisson": Family(("rate",), (), True, _positive("rate"),
                      lambda st, p: st.poisson(p["rate"]), L.poisson),
    "exponential": Family(("rate",), (1.0,), False, _rate,
                          lambda st, p: st.expon(scale=1.0 / p["rate"]), L.exponential),
    "student_t": Family(("df",), (), False, _positive("df"), lambda st, p: st.t(p["df"]), L.student_t),
    "chi2": Family(("df",), (), False, _positive("df"), lambda st, p: st.chi2(p["df"]), L.chi2),
    "f_dist": Family(("df1", "df2"), (), False, _both_positive("df1", "df2"),
                     lambda st, p: st.f(p["df1"], p["df2"]), L.f_dist),
    "gamma_dist": Family(("shape", "rate"), (1.0,), False, lambda p: _positive("shape")(p) or _rate(p),
                         lambda st, p: st.gamma(p["shape"], scale=1.0 / p["rate"]), L.gamma_dist),
    "beta_dist": Family(("a", "b"), (), False, _both_positive("a", "b"),
                        lambda st, p: st.beta(p["a"], p["b"]), L.beta_dist),
    "weibull": Family(("shape", "scale"), (1.0,), False, _both_positive("shape", "scale"),
                      lambda st, p: st.weibull_min(p["shape"], scale=p["scale"]), L.weibull),
    "negative_binomial": Family(("size", "prob", "mu"), (None, None), True, _negative_binomial,
                                _nbinom, L.negative_binomial),
}


@dataclass(frozen=True)
class Distribution(LibObject):
    family: str
    params: tuple           # ((name, value), ...): numbers, or tensors and tracked values (a likelihood's)
    type_name = "distribution"

    @property
    def spec(self) -> Family:
        return FAMILIES[self.family]

    def field_names(self) -> list[str]:
        return [name for name, _ in self.params] + ["mean", "var"]

    def get(self, name: str):
        values = dict(self.params)
        if name in values:
            return values[name]
        if name in ("mean", "var"):
            d, _ = self._scipy(name)
            return lamina_value(np.asarray(d.mean() if name == "mean" else d.var(), dtype=np.float64))
        return super().get(name)

    def describe(self) -> str:
        return f"{self.family}(" + ", ".join(f"{k}={_shown(v)}" for k, v in self.params) + ")"

    def _scipy(self, what: str, x=None):
        """SciPy's frozen distribution for what SciPy computes (`what` names it in the error that a
        tracked parameter gets), and x: the parameters and x broadcast with each other as the
        operators broadcast (a vector against a matrix is a column), NumPy's rules after that."""
        _plain_parameters(self, what)
        names = [name for name, _ in self.params]
        values = [_float_array(v) for _, v in self.params] + ([] if x is None else [x])
        values = _broadcast(values, f"{what} of {self.family}", names + ["x"])
        from scipy import stats
        return self.spec.scipy(stats, dict(zip(names, values))), (None if x is None else values[-1])

    def pdf(self, x):
        d, a = self._scipy("pdf", _points(x, "pdf's x"))
        with np.errstate(invalid="ignore"):     # SciPy's pmf at Inf computes Inf - Inf
            density = d.pmf(a) if self.spec.discrete else d.pdf(a)
        return _like(np.where(np.isinf(a), 0.0, density), x)    # no mass at infinity

    def cdf(self, x):
        d, a = self._scipy("cdf", _points(x, "cdf's x"))
        return _like(d.cdf(a), x)

    def quantile(self, p):
        a = _points(p, "quantile's probability")
        if np.any((a < 0) | (a > 1)):
            raise LaminaError("ValueError", f"quantile of a distribution needs probabilities from 0 "
                              f"to 1, not {describe(p) if np.ndim(a) else format_number(float(a))}.")
        d, a = self._scipy("quantile", a)
        q = d.ppf(a)
        if self.spec.discrete:      # SciPy's ppf(0) is one below the support; R's is its least value
            q = np.where(a == 0, d.support()[0], q)
        return _like(q, p)

    def sample(self, shape: tuple, rng: np.random.Generator):
        d, _ = self._scipy("sample")
        tensor = [name for name, v in self.params if type(v) is not float]
        if shape and tensor:
            raise LaminaError("TypeError", f"sample of {self.describe()} draws one value for each element "
                              f"of its parameter {tensor[0]}: sample(d) gives them, in {tensor[0]}'s shape; "
                              f"a count or shape after d is for a distribution of numbers.")
        try:
            draws = d.rvs(size=shape if shape else None, random_state=rng)
        except (ValueError, OverflowError) as exc:      # e.g. NumPy's poisson caps lam near 1e19
            raise LaminaError("ValueError", f"sample cannot draw from {self.describe()}: its parameters "
                              f"are beyond what the random generator handles ({exc}).") from None
        return lamina_value(np.asarray(draws, dtype=np.float64))

    def logdensity(self, x, what: str):
        """The log density at x (the log mass, for a discrete family), recorded on the tape: x and
        the parameters may be tracked."""
        x = numeric_or_tracked(x, what)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return self.spec.logdensity(dict(self.params), x)


def _shown(v) -> str:
    """A parameter as the distribution prints it: a number as print gives it, a tensor inline."""
    v = value_of(v)
    return format_number(v) if type(v) is float else format_value(v, top=False)


def _plain_parameters(d: Distribution, what: str) -> None:
    """The error of a SciPy-computed method (pdf, cdf, ...) of a likelihood's distribution."""
    for name, v in d.params:
        if is_live(v):
            raise LaminaError("TypeError", f"{what} of {d.family} needs plain numbers as parameters, but "
                              f"{name} is tracked: SciPy computes it and passes no gradient. logpdf and "
                              f"logpmf take tracked parameters (exp(logpdf(d, x)) is the density); pass "
                              f"detach({name}) to use its number as a constant.")


def _float_array(v):
    """A parameter as SciPy takes it: a number, or a float64 array."""
    v = value_of(v)
    return v if type(v) is float else np.asarray(v, dtype=np.float64)


def _broadcast(values: list, what: str, names: list) -> list:
    """values (numbers and arrays) reshaped so that NumPy broadcasts them as the operators do, or
    the ShapeError naming the parameters whose shapes do not meet."""
    shapes = [np.shape(v) for v in values]
    if len({s for s in shapes if s}) <= 1:
        return values
    whole = 0.0
    try:
        for v in values:
            a, b, _, _ = align(whole, v, "of parameters")
            whole = np.empty(np.broadcast_shapes(np.shape(a), np.shape(b)))
        return [align(v, whole, "of parameters")[0] for v in values]
    except (LaminaError, ValueError):
        given = "; ".join(f"{n}: {shape_str(s)}" for n, v, s in zip(names, values, shapes) if s)
        raise LaminaError("ShapeError", f"{what}: the parameters and x need shapes that broadcast as the "
                          f"operators broadcast, but got {given}.") from None


def make(family: str, given: dict) -> Distribution:
    """normal(mu = 2), ...: the parameters given by name (the builtin's signature has checked
    their names and count), each checked, the rest from the family's defaults. A parameter may be
    a number, a tensor or a tracked value (binomial's n only a whole number or tensor of them)."""
    spec = FAMILIES[family]
    names = spec.params
    defaults = dict(zip(names[len(names) - len(spec.defaults):], spec.defaults))
    params = {}
    for name in names:
        if name not in given and name not in defaults:
            raise LaminaError("TypeError", f"{family} needs its parameter {name}: "
                              f"{family}({', '.join(names)}).")
        value = given.get(name, defaults.get(name))
        if value is not None:
            params[name] = _parameter(family, name, value)
    plain = {k: value_of(v) for k, v in params.items()}
    problem = spec.check(plain)
    if problem:
        raise LaminaError("ValueError", f"{family}: {problem}, but got "
                          + ", ".join(f"{k} = {_shown(v)}" for k, v in plain.items()) + ".")
    return Distribution(family, tuple(params.items()))


def _parameter(family: str, name: str, value):
    """One parameter checked: a number (a one-element tensor counts as one), a tensor, or a
    tracked value, finite; binomial's n a whole number (or a tensor of them) and never tracked."""
    what = f"{family}'s {name}"
    whole = family == "binomial" and name == "n"
    v = value_of(value)
    if isinstance(v, np.ndarray) and v.size != 1 and v.dtype != bool or type(value) is Tracked:
        if whole and is_live(value):
            raise LaminaError("TypeError", f"{what} is tracked, but a number of trials takes no gradient; "
                              f"pass detach(n) to use its number.")
        value = value if type(value) is Tracked else numeric_or_tracked(value, what)
        v = value_of(value)
        if not np.all(np.isfinite(v)):
            raise LaminaError("ValueError", f"{what} must be finite, not {_shown(v)}.")
        if whole and not np.all((v == np.floor(v)) & (v >= 0)):
            raise LaminaError("TypeError", f"{what} must be whole numbers (at least 0), not {_shown(v)}.")
        return value
    number = float(as_int(value, what, minimum=0)) if whole else as_float(value, what)   # at most 2^53
    if not math.isfinite(number):
        raise LaminaError("ValueError", f"{what} must be finite, not {format_number(number)}.")
    return number


def _like(result, x):
    """SciPy's float64 result in the dtype of the tensor it was computed from (a number for a
    number)."""
    return lamina_value(np.asarray(result, dtype=tensor_dtype(x)))


def _points(x, what: str):
    if is_live(x):
        raise LaminaError("TypeError", f"{what} is tracked, but a distribution's pdf, cdf and quantile "
                          f"pass no gradient; pass detach(x) to use its number as a constant "
                          f"(logpdf(d, x) is differentiable in x).")
    v = value_of(x)
    if isinstance(v, np.ndarray):
        return v.astype(np.float64, copy=False)
    if isinstance(v, (float, int)) and not isinstance(v, bool):
        return np.float64(v)
    raise LaminaError("TypeError", f"{what} must be a number or tensor, not {describe(x)}.")


def as_distribution(d, what: str) -> Distribution:
    if isinstance(d, Distribution):
        return d
    raise LaminaError("TypeError", f"{what} must be a distribution such as normal(0, 1), not {describe(d)}.")
