"""Probability distributions as values: normal, uniform, binomial, poisson, exponential, and the
sampling distributions of tests: student_t, chi2, f_dist, gamma_dist, beta_dist.

A distribution is a library value holding its family and parameters. SciPy does
the numerics (scipy.stats, imported when a distribution is first evaluated);
samples come from Lamina's one global generator, so `seed(n)` makes them repeat.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..autodiff.tape import is_live
from ..errors import LaminaError
from ..printing import format_number
from ..values import (
    LibObject,
    as_float,
    as_int,
    describe,
    lamina_value,
    tensor_dtype,
    value_of,
)


@dataclass(frozen=True)
class Family:
    params: tuple          # parameter names, in call order
    defaults: tuple        # default values for the trailing parameters
    discrete: bool
    check: Callable        # params dict -> message of what is wrong, or ""
    scipy: Callable        # (scipy.stats, params dict) -> a frozen scipy distribution


def _positive(name: str):
    return lambda p: "" if p[name] > 0 else f"{name} must be greater than 0"


def _rate(p):
    """A rate's scale, 1 / rate, is what SciPy takes: it must not overflow to Inf."""
    return "" if p["rate"] > 0 and math.isfinite(1.0 / p["rate"]) else \
        "rate must be greater than 0, and 1 / rate finite"


def _both_positive(first: str, second: str):
    return lambda p: _positive(first)(p) or _positive(second)(p)


FAMILIES = {
    "normal": Family(("mu", "sigma"), (0.0, 1.0), False, _positive("sigma"),
                     lambda st, p: st.norm(p["mu"], p["sigma"])),
    "uniform": Family(("low", "high"), (0.0, 1.0), False,
                      lambda p: "" if p["low"] < p["high"] and math.isfinite(p["high"] - p["low"]) else
                      "low must be less than high, and high - low finite",
                      lambda st, p: st.uniform(p["low"], p["high"] - p["low"])),
    "binomial": Family(("n", "p"), (), True,
                       lambda p: "" if 0 <= p["p"] <= 1 else "p must lie from 0 to 1",
                       lambda st, p: st.binom(int(p["n"]), p["p"])),
    "poisson": Family(("rate",), (), True, _positive("rate"),
                      lambda st, p: st.poisson(p["rate"])),
    "exponential": Family(("rate",), (1.0,), False, _rate,
                          lambda st, p: st.expon(scale=1.0 / p["rate"])),
    "student_t": Family(("df",), (), False, _positive("df"), lambda st, p: st.t(p["df"])),
    "chi2": Family(("df",), (), False, _positive("df"), lambda st, p: st.chi2(p["df"])),
    "f_dist": Family(("df1", "df2"), (), False, _both_positive("df1", "df2"),
                     lambda st, p: st.f(p["df1"], p["df2"])),
    "gamma_dist": Family(("shape", "rate"), (1.0,), False, lambda p: _positive("shape")(p) or _rate(p),
                         lambda st, p: st.gamma(p["shape"], scale=1.0 / p["rate"])),
    "beta_dist": Family(("a", "b"), (), False, _both_positive("a", "b"),
                        lambda st, p: st.beta(p["a"], p["b"])),
}


@dataclass(frozen=True)
class Distribution(LibObject):
    family: str
    params: tuple           # ((name, value), ...)
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
        if name == "mean":
            return float(self.scipy().mean())
        if name == "var":
            return float(self.scipy().var())
        return super().get(name)

    def describe(self) -> str:
        return f"{self.family}(" + ", ".join(f"{k}={format_number(v)}" for k, v in self.params) + ")"

    def scipy(self):
        from scipy import stats
        return self.spec.scipy(stats, dict(self.params))

    def pdf(self, x):
        d, a = self.scipy(), _points(x, "pdf's x")
        with np.errstate(invalid="ignore"):     # SciPy's pmf at Inf computes Inf - Inf
            density = d.pmf(a) if self.spec.discrete else d.pdf(a)
        return _like(np.where(np.isinf(a), 0.0, density), x)    # no mass at infinity

    def cdf(self, x):
        return _like(self.scipy().cdf(_points(x, "cdf's x")), x)

    def quantile(self, p):
        a = _points(p, "quantile's probability")
        if np.any((a < 0) | (a > 1)):
            raise LaminaError("ValueError", f"quantile of a distribution needs probabilities from 0 "
                              f"to 1, not {describe(p) if np.ndim(a) else format_number(float(a))}.")
        d = self.scipy()
        q = d.ppf(a)
        if self.spec.discrete:      # SciPy's ppf(0) is one below the support; R's is its least value
            q = np.where(a == 0, d.support()[0], q)
        return _like(q, p)

    def sample(self, shape: tuple, rng: np.random.Generator):
        try:
            draws = self.scipy().rvs(size=shape if shape else None, random_state=rng)
        except (ValueError, OverflowError) as exc:      # e.g. NumPy's poisson caps lam near 1e19
            raise LaminaError("ValueError", f"sample cannot draw from {self.describe()}: its parameters "
                              f"are beyond what the random generator handles ({exc}).") from None
        return lamina_value(np.asarray(draws, dtype=np.float64))


def make(family: str, given: dict) -> Distribution:
    """normal(mu = 2), ...: the parameters given by name (the builtin's signature has checked
    their names and count), each checked, the rest from the family's defaults."""
    spec = FAMILIES[family]
    names = spec.params
    defaults = dict(zip(names[len(names) - len(spec.defaults):], spec.defaults))
    params = {}
    for name in names:
        if name not in given and name not in defaults:
            raise LaminaError("TypeError", f"{family} needs its parameter {name}: "
                              f"{family}({', '.join(names)}).")
        value = given.get(name, defaults.get(name))
        if family == "binomial" and name == "n":
            params[name] = float(as_int(value, "binomial's n", minimum=0))   # at most 2^53
        else:
            params[name] = as_float(value, f"{family}'s {name}")
        if not math.isfinite(params[name]):
            raise LaminaError("ValueError", f"{family}'s {name} must be finite, not "
                              f"{format_number(params[name])}.")
    problem = spec.check(params)
    if problem:
        raise LaminaError("ValueError", f"{family}: {problem}, but got "
                          + ", ".join(f"{k} = {format_number(v)}" for k, v in params.items()) + ".")
    return Distribution(family, tuple(params.items()))


def _like(result, x):
    """SciPy's float64 result in the dtype of the tensor it was computed from (a number for a
    number)."""
    return lamina_value(np.asarray(result, dtype=tensor_dtype(x)))


def _points(x, what: str):
    if is_live(x):
        raise LaminaError("TypeError", f"{what} is tracked, but a distribution's pdf, cdf and quantile "
                          f"pass no gradient; pass detach(x) to use its number as a constant.")
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
