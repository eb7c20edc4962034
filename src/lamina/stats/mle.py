"""mle(nll, start): maximum likelihood with exact standard errors.

nll is a Lamina function of the parameters (a number, a tensor, or a record or list of them,
shaped as `start`) returning the negative log-likelihood. The fit:

1. minimizes nll from start by optim/minimize.py (BFGS by default), every evaluation handing
   SciPy the value and its exact gradient from the tape;
2. polishes the minimum with Newton steps on the exact Hessian (at most POLISH_STEPS, each
   halved until nll does not rise, whole once the decrement is below LOCAL), until the Newton
   decrement g'H^-1 g, twice the distance to the minimum of the local quadratic, is below POLISHED; the fit has converged when it is
   below CONVERGED there, whatever the optimizer said;
3. takes the covariance of the estimates as the inverse of the exact Hessian there (the observed
   information), the standard errors as the square roots of its diagonal, z = estimate / se and
   two-sided normal p values, as R's summary(mle) and statsmodels' GenericLikelihoodModel.

A parameter named in `transform` ({sigma = "log"}, "logit" for one in (0, 1)) is fitted on that
scale: the optimizer and the Hessian work with eta = log(sigma) and nll receives sigma =
exp(eta). The estimate, its standard error and the covariance are reported for sigma by the
delta method: V = J H_eta^-1 J', J = diag(d sigma / d eta). (At the minimum, where the gradient
is zero, this is the inverse of the Hessian in sigma itself.) Its Wald interval is taken on the
fitting scale and mapped back (stats/intervals.py), so it stays within sigma's range.

A Hessian at the estimates that is singular or not positive definite leaves the standard errors
NaN, with a warning, as R's optim + solve(hessian) leaves them unusable.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..autodiff.higher import Point
from ..errors import LaminaError
from ..optim.minimize import METHODS, Objective, check_method, plural, run
from ..printing import format_value
from ..values import LibObject, Record, Tracked, as_float, as_int, as_str, describe, format_number
from ..warnings import warn
from .summary import SIGNIF, CoefficientReport, coefficient_table, joint

POLISH_STEPS = 10
POLISHED = 1e-24        # the Newton decrement at which polishing stops
LOCAL = 1e-12           # ... below which a Newton step is taken whole
CONVERGED = 1e-8        # ... and at most which the fit counts as converged
SINGULAR = 1e-12        # smallest / largest eigenvalue of the Hessian below which it is singular


# -- transforms --------------------------------------------------------------------------
@dataclass(frozen=True)
class Transform:
    """A scale a parameter is fitted on: eta = forward(theta), theta = inverse(eta), with
    theta's first and second derivatives in eta."""
    name: str
    domain: str

    def inverse(self, eta):
        if self.name == "log":
            return np.exp(eta)
        if self.name == "logit":
            return 1 / (1 + np.exp(-eta))
        return eta

    def forward(self, theta):
        if self.name == "log":
            return np.log(theta)
        if self.name == "logit":
            return np.log(theta) - np.log1p(-theta)
        return theta

    def slope(self, eta):
        theta = self.inverse(eta)
        return theta if self.name == "log" else theta * (1 - theta) if self.name == "logit" else 1.0

    def curvature(self, eta):
        theta = self.inverse(eta)
        if self.name == "log":
            return theta
        return theta * (1 - theta) * (1 - 2 * theta) if self.name == "logit" else 0.0

    def allows(self, theta: float) -> bool:
        return theta > 0 if self.name == "log" else 0 < theta < 1 if self.name == "logit" else True


TRANSFORMS = {"identity": Transform("identity", "any number"), "log": Transform("log", "above 0"),
              "logit": Transform("logit", "between 0 and 1")}


def _transforms(transform, start, point: Point, names: list[str]) -> list[Transform]:
    """The scale of each flat parameter, from `transform`: a record naming start's fields, or
    (for a start that is not a record) one name for all of them."""
    identity = TRANSFORMS["identity"]
    if transform is None:
        return [identity] * point.size
    if isinstance(start, Record):
        if not isinstance(transform, Record):
            raise LaminaError("TypeError", f"mle's transform for a record start is a record naming the "
                              f"fields to fit on another scale ({{sigma = \"log\"}}), not {describe(transform)}.")
        unknown = [k for k in transform.fields if k not in start.fields]
        if unknown:
            raise LaminaError("ValueError", f"mle's transform names {', '.join(unknown)}, which start "
                              f"does not have (its fields: {', '.join(start.fields)}).")
        scales = []
        for name, member in start.fields.items():
            scale = _scale(transform.fields[name], f"mle's transform.{name}") if name in transform.fields else identity
            scales += [scale] * Point(member, name).size
        return scales
    if isinstance(transform, Record):
        raise LaminaError("TypeError", f"mle's transform is a record for a record start; for {describe(start)} "
                          f"it is one name (\"log\" or \"logit\") for every parameter.")
    return [_scale(transform, "mle's transform")] * point.size


def _scale(name, what: str) -> Transform:
    text = as_str(name, what)
    if text not in TRANSFORMS:
        raise LaminaError("ValueError", f"{what} is \"log\" (a parameter above 0), \"logit\" (between 0 "
                          f"and 1) or \"identity\", not \"{text}\".")
    return TRANSFORMS[text]


class FittingScale:
    """nll over the fitting scale eta, for run(): the natural objective called at theta(eta),
    its gradient and Hessian carried over by the chain rule."""

    def __init__(self, natural: Objective, scales: list[Transform]):
        self.natural, self.scales = natural, scales
        self.point = natural.point

    @property
    def evaluations(self) -> int:
        return self.natural.evaluations

    @property
    def started(self) -> bool:
        return self.natural.started

    @started.setter
    def started(self, value: bool) -> None:
        self.natural.started = value

    def theta(self, eta: np.ndarray) -> np.ndarray:
        return np.array([s.inverse(e) for s, e in zip(self.scales, eta)], dtype=np.float64)

    def eta(self, theta: np.ndarray) -> np.ndarray:
        return np.array([s.forward(t) for s, t in zip(self.scales, theta)], dtype=np.float64)

    def slopes(self, eta: np.ndarray) -> np.ndarray:
        return np.array([s.slope(e) for s, e in zip(self.scales, eta)], dtype=np.float64)

    def value(self, eta: np.ndarray) -> float:
        return self.natural.value(self.theta(eta))

    def value_and_gradient(self, eta: np.ndarray) -> tuple[float, np.ndarray]:
        value, g = self.natural.value_and_gradient(self.theta(eta))
        return value, g * self.slopes(eta)

    def hessian(self, eta: np.ndarray) -> np.ndarray:
        """J H J + diag(g * d2theta/deta2), J = diag(dtheta/deta)."""
        theta = self.theta(eta)
        H = self.natural.hessian(theta)
        J = self.slopes(eta)
        curved = np.array([s.curvature(e) for s, e in zip(self.scales, eta)], dtype=np.float64)
        extra = self.natural.value_and_gradient(theta)[1] * curved if np.any(curved) else 0.0
        return J[:, None] * H * J[None, :] + np.diag(extra * np.ones(len(eta)))


# -- the fit -----------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class MaximumLikelihoodFit(CoefficientReport, LibObject):
    start: object           # the structure of the parameters (a record, list, tensor or number)
    point: Point
    terms: list
    estimate: np.ndarray    # flat, on the natural scale
    se: np.ndarray
    eta: np.ndarray         # flat, on the fitting scale
    se_eta: np.ndarray
    scales: list
    vcov: np.ndarray
    hessian: np.ndarray     # of nll on the fitting scale, at the estimates
    gradient: np.ndarray    # of nll on the natural scale, at the estimates
    loglik: float
    nobs: float             # NaN when not given
    converged: bool
    iterations: int
    evaluations: int
    method: str
    message: str
    fitting: FittingScale   # nll on the fitting scale, for profile-likelihood intervals
    type_name = "maximum likelihood fit"

    @property
    def z(self) -> np.ndarray:
        return self.estimate / self.se

    @property
    def p(self) -> np.ndarray:
        from scipy import special
        return 2 * special.ndtr(-np.abs(self.z))

    @property
    def df(self) -> float:
        return float(self.estimate.size)

    @property
    def aic(self) -> float:
        return 2 * self.df - 2 * self.loglik

    @property
    def bic(self) -> float:
        return math.log(self.nobs) * self.df - 2 * self.loglik if self.nobs == self.nobs else math.nan

    def field_names(self) -> list[str]:
        return ["coef", "se", "z", "p", "terms", "vcov", "hessian", "gradient", "loglik", "aic", "bic",
                "df", "nobs", "converged", "iterations", "evaluations", "method", "message"]

    def get(self, name: str):
        if name not in self.field_names():
            return super().get(name)            # the error that lists the fields
        shaped = {"coef": self.estimate, "se": self.se, "z": self.z, "p": self.p, "gradient": self.gradient}
        if name in shaped:
            return self.shaped(shaped[name])
        value = {"terms": list(self.terms), "vcov": self.vcov.copy(), "hessian": self.hessian.copy(),
                 "iterations": float(self.iterations), "evaluations": float(self.evaluations)}.get(name)
        return getattr(self, name) if value is None else value

    def shaped(self, flat: np.ndarray):
        """A flat vector of numbers, one per parameter, in start's structure."""
        return self.point.rebuild(self.point.split(np.asarray(flat, dtype=np.float64)))

    def _report(self) -> tuple:
        state = "converged" if self.converged else "did not converge"
        n = f"n = {format_number(self.nobs)}, " if self.nobs == self.nobs else ""
        head = (f"Maximum likelihood fit ({n}{plural(self.estimate.size, 'parameter')}; "
                f"{METHODS[self.method]}: {plural(self.iterations, 'iteration')}, {state})")
        header, rows = coefficient_table(self.terms, self.estimate, self.se, self.z, self.p, "z")
        deviance, ll, aic = joint([-2 * self.loglik], 7)[0], joint([self.loglik], 7)[0], joint([self.aic], 7)[0]
        bic = joint([self.bic], 7)[0] if self.bic == self.bic else "NaN (needs nobs = the number of observations)"
        foot = ["---", SIGNIF, ""]
        fitted_as = [f"{s.name}({t})" for s, t in zip(self.scales, self.terms) if s.name != "identity"]
        if fitted_as:
            foot.append(f"Fitted as {', '.join(fitted_as)}; standard errors by the delta method.")
        foot += [f"-2 log L: {deviance}  (log-likelihood {ll}, df = {int(self.df)})",
                 f"AIC: {aic}  BIC: {bic}"]
        if not np.all(np.isfinite(self.se)):
            foot.append("The Hessian at the estimates is singular or not positive definite: the standard "
                        "errors are NaN.")
        if not self.converged:
            foot.append(f"The fit did not converge ({self.message}): these numbers are where it stopped.")
        return head, header, rows, foot


def term_names(x, path: str = "") -> list[str]:
    """One name per flat parameter: a record's field names (nested with dots), a list's items
    [i], a tensor's elements [i] or [i, j]; a start that is one number or tensor is theta."""
    if isinstance(x, Record):
        return [n for k, v in x.fields.items() for n in term_names(v, f"{path}.{k}" if path else k)]
    if isinstance(x, list):
        return [n for i, v in enumerate(x) for n in term_names(v, f"{path or 'theta'}[{i}]")]
    shape = np.shape(x.value if type(x) is Tracked else x)
    name = path or "theta"
    if shape == ():
        return [name]
    return [f"{name}[{', '.join(map(str, index))}]" for index in np.ndindex(*shape)]


def mle(nll, start, args: tuple = (), nobs=None, transform=None, method="bfgs", max_iter=None,
        tol=None) -> MaximumLikelihoodFit:
    name = check_method(method, "mle")
    point = Point(start, "mle's start")
    if point.size == 0:
        raise LaminaError("ValueError", "mle needs at least one parameter in start.")
    n = math.nan if nobs is None else as_float(nobs, "mle's nobs")
    if nobs is not None and not (n >= 1 and n == int(n)):
        raise LaminaError("ValueError", f"mle's nobs is the number of observations, a whole number at "
                          f"least 1, not {format_number(n)}.")
    iters = None if max_iter is None else as_int(max_iter, "mle's max_iter", minimum=1)
    tolerance = None if tol is None else as_float(tol, "mle's tol")
    terms = term_names(start)
    scales = _transforms(transform, start, point, terms)
    theta0 = point.flat()
    for t, s, term in zip(theta0, scales, terms):
        if not s.allows(t):
            raise LaminaError("ValueError", f"mle's start has {term} = {format_number(t)}, but it is fitted "
                              f"as {s.name}({term}), so it must be {s.domain}.")
    natural = Objective(nll, point, args, "mle's nll")
    fitting = FittingScale(natural, scales)
    value, reads = natural.value_and_outside(theta0)
    _check_start(natural, theta0, value)
    if reads:
        raise LaminaError("TypeError", "mle's nll reads values that are tracked (made by param() or "
                          "track(), or computed from them): the fit would hand out estimates that depend "
                          "on them as plain numbers, and a later grad would silently take them as "
                          "constants. Pass detach(x) of them to the likelihood.")
    result = run(fitting, fitting.eta(theta0), name, tol=tolerance, max_iter=iters, who="mle")
    return _finish(fitting, point, start, terms, scales, result, n, name)


def _check_start(natural: Objective, theta0: np.ndarray, value: float) -> None:
    if not math.isfinite(value):
        raise LaminaError("ValueError", f"mle: the negative log-likelihood is {format_number(value)} at "
                          f"start {format_value(natural.point.rebuild(natural.point.split(theta0)))}; "
                          f"start where every observation has a finite likelihood (a positive scale, "
                          f"probabilities strictly between 0 and 1).")


def _finish(fitting: FittingScale, point: Point, start, terms, scales, result, nobs: float,
            method: str) -> MaximumLikelihoodFit:
    eta, H, steps, decrement = polish(fitting, result.theta)
    value, g_eta = fitting.value_and_gradient(eta)
    theta = fitting.theta(eta)
    J = fitting.slopes(eta)
    size = eta.size
    cov_eta, problem = _inverse(H)
    if problem:
        warn(f"mle: the Hessian of the negative log-likelihood at the estimates is {problem}, so the "
             f"standard errors are NaN (a parameter may not be identified by the data, or the fit "
             f"stopped away from a minimum).", once_key="mle: singular hessian")
        cov_eta = np.full((size, size), np.nan)
    vcov = J[:, None] * cov_eta * J[None, :]
    se_eta = np.sqrt(np.diag(cov_eta))
    converged = decrement <= CONVERGED if decrement == decrement else \
        result.converged and not problem.startswith("not positive definite")
    message = result.message if decrement != decrement else (
        f"{result.message} Newton decrement {decrement:.3g} after {plural(steps, 'Newton step')}.")
    if not converged:
        warn(f"mle did not converge: {message}", once_key="mle: not converged")
    gradient = np.divide(g_eta, J, out=np.full(size, np.nan), where=J != 0)
    return MaximumLikelihoodFit(start, point, terms, theta, np.sqrt(np.diag(vcov)), eta, se_eta, scales,
                                vcov, H, gradient, -value, nobs, bool(converged), result.iterations + steps,
                                fitting.evaluations, method, message, fitting)


def polish(fitting: FittingScale, eta: np.ndarray) -> tuple:
    """(eta, the Hessian there, Newton steps taken, the Newton decrement there: NaN where the
    Hessian is not positive definite) after Newton steps from eta. Near the minimum a step
    squares the decrement; one that does not shrink it fourfold there has reached rounding."""
    steps, before = 0, math.inf
    while True:
        value, g = fitting.value_and_gradient(eta)
        H = fitting.hessian(eta)
        try:
            chol = np.linalg.cholesky(H)
        except np.linalg.LinAlgError:
            return eta, H, steps, math.nan
        step = np.linalg.solve(chol.T, np.linalg.solve(chol, g))
        decrement = float(g @ step)
        if (decrement <= POLISHED or steps == POLISH_STEPS or not np.all(np.isfinite(step))
                or decrement <= LOCAL and decrement > before / 4):
            return eta, H, steps, decrement
        # Within LOCAL of the minimum the quadratic model is exact to rounding and nll's changes
        # are rounding too: the step is taken whole (it is 1e-6 standard errors at most).
        moved = eta - step if decrement <= LOCAL else _halving(fitting, eta, step, value)
        if moved is None:
            return eta, H, steps, decrement
        eta, steps, before = moved, steps + 1, decrement


def _halving(fitting: FittingScale, eta: np.ndarray, step: np.ndarray, value: float):
    """eta - t step for the largest t of 1, 1/2, ... 1/2^20 at which nll does not rise; None if none."""
    t = 1.0
    for _ in range(21):
        trial = eta - t * step
        if fitting.value(trial) <= value:
            return trial
        t /= 2
    return None


def _inverse(H: np.ndarray) -> tuple[np.ndarray, str]:
    """(H^-1, "") for a positive definite H; otherwise (None, what is wrong with it)."""
    if not np.all(np.isfinite(H)):
        return None, "not finite"
    eigenvalues = np.linalg.eigvalsh((H + H.T) / 2)
    largest = max(abs(eigenvalues[0]), abs(eigenvalues[-1]))
    if eigenvalues[0] < -SINGULAR * largest:
        return None, "not positive definite (the estimates are not at a minimum of it)"
    if largest == 0 or eigenvalues[0] <= SINGULAR * largest:
        return None, "singular"
    return np.linalg.inv(H), ""
