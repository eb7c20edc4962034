"""Profile-likelihood intervals of a maximum likelihood fit (confint(fit, method = "profile")).

For parameter j the profile deviance is D(b) = 2 (min over the others of nll with theta_j = b
- nll at the estimates); the interval at level L is {b : D(b) <= q}, q the chi-squared(1)
quantile at L (R's confint of a profile, MASS's of a glm). Each limit is found on the
parameter's fitting scale (where a log or logit parameter is unbounded): steps of se_eta
sqrt(q) outward, doubled until D passes q, then Brent's root of D - q between the last two
points, each D a BFGS fit of the other parameters (exact gradients from the tape) started from
the fit of the nearest point already profiled. A side on which D never passes q within
MAX_DOUBLINGS doublings has no limit: -Inf or Inf (R gives NA), and a warning says so.
"""
from __future__ import annotations

import math

import numpy as np

from ..warnings import warn

MAX_DOUBLINGS = 12
NUISANCE_GTOL = 1e-10


class Profile:
    """D(b) for one parameter of a fit, with the other parameters' fits kept for warm starts."""

    def __init__(self, fit, j: int):
        self.fitting, self.j = fit.fitting, j
        self.eta, self.minimum = fit.eta, -fit.loglik
        self.others = [i for i in range(fit.eta.size) if i != j]
        self.fits = {float(fit.eta[j]): fit.eta[self.others]}
        self.stalled = False

    def full(self, b: float, rest: np.ndarray) -> np.ndarray:
        eta = self.eta.copy()
        eta[self.j], eta[self.others] = b, rest
        return eta

    def deviance(self, b: float) -> float:
        from scipy import optimize
        if not self.others:
            value = self.fitting.value(self.full(b, np.zeros(0)))
        else:
            start = self.fits[min(self.fits, key=lambda a: abs(a - b))]

            def fun(rest):
                value, g = self.fitting.value_and_gradient(self.full(b, rest))
                return (value, g[self.others]) if value == value else (math.inf, g[self.others])
            res = optimize.minimize(fun, start, jac=True, method="BFGS", options={"gtol": NUISANCE_GTOL})
            self.stalled |= not res.success and not np.all(np.abs(res.jac) < 1e-6)
            value = float(res.fun)
            self.fits[b] = res.x
        deviance = 2 * (value - self.minimum)
        return deviance if deviance == deviance else math.inf


def profile_limits(fit, j: int, level: float) -> tuple[float, float]:
    """(lower, upper) of parameter j on its natural scale."""
    from scipy import optimize, stats
    q = stats.chi2.ppf(level, 1)
    profile = Profile(fit, j)
    centre, se = float(fit.eta[j]), float(fit.se_eta[j])
    step0 = se * math.sqrt(q) if se == se and se > 0 else 0.1 * max(1.0, abs(centre))
    limits = []
    for side in (-1.0, 1.0):
        inner, step, outer = centre, step0, None
        for _ in range(MAX_DOUBLINGS):
            trial = centre + side * step
            if profile.deviance(trial) >= q:
                outer = trial
                break
            inner, step = trial, 2 * step
        if outer is None:
            limits.append(side * math.inf)
            continue
        root = optimize.brentq(lambda b: profile.deviance(b) - q, min(inner, outer), max(inner, outer),
                               xtol=1e-12 * max(1.0, abs(outer)), rtol=1e-12)
        limits.append(float(fit.scales[j].inverse(root)))
    open_sides = [(word, bound) for word, bound, limit in (("lower", "-Inf", limits[0]), ("upper", "Inf", limits[1]))
                  if math.isinf(limit)]
    if open_sides:
        words, bounds = (" and ".join(w) for w in zip(*open_sides))
        warn(f"confint: the profile likelihood of {fit.terms[j]} stays within the interval's bound as far "
             f"as it was followed, so its {words} limit{'s' if len(open_sides) > 1 else ''} "
             f"{'are' if len(open_sides) > 1 else 'is'} {bounds} on its fitting scale (R gives NA).",
             once_key=("confint: open profile", fit.terms[j]))
    if profile.stalled:
        warn(f"confint: fitting the other parameters with {fit.terms[j]} held fixed did not always "
             f"converge, so its profile limits may be off.", once_key="confint: profile stalled")
    lower, upper = limits
    lower = fit.scales[j].inverse(-math.inf) if lower == -math.inf else lower
    upper = fit.scales[j].inverse(math.inf) if upper == math.inf else upper
    return float(lower), float(upper)
