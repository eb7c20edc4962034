"""The families and links of a generalized linear model, as R's family objects define them.

A `Link` maps the mean mu to the linear predictor eta = g(mu): its inverse, d mu / d eta, and
which eta it can take (R's make.link, with the same clamps: logit's inverse stays within
[eps, 1 - eps], probit's and cauchit's eta within the quantile of eps). A `Family` gives the
variance function V(mu), the deviance residuals, the starting means and the check of the
response (R's initialize), which means are valid, the AIC's log-likelihood part (R's family$aic),
and whether its dispersion is fixed at 1 (binomial, poisson) or estimated. glm.py's IRLS uses
nothing else of a family, so a family is one entry of FAMILIES.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..errors import LaminaError
from ..warnings import warn

EPS = np.finfo(float).eps


@dataclass(frozen=True)
class Link:
    name: str
    fun: Callable           # g(mu)
    inverse: Callable       # g^-1(eta)
    mu_eta: Callable        # d mu / d eta at eta
    valid_eta: Callable = lambda eta: True


def _logit_inverse(eta):
    e = np.exp(np.clip(eta, -30.0, 30.0))
    e = np.where(eta < -30, EPS, np.where(eta > 30, 1 / EPS, e))
    return e / (1 + e)


def _logit_mu_eta(eta):
    e = np.exp(np.clip(eta, -30.0, 30.0))
    return np.where(np.abs(eta) > 30, EPS, e / (1 + e) ** 2)


def _clamped(dist):
    """probit's and cauchit's inverse and derivative, eta held within the quantile of eps (R)."""
    bound = -dist.ppf(EPS)
    return (lambda eta: dist.cdf(np.clip(eta, -bound, bound)),
            lambda eta: np.maximum(dist.pdf(eta), EPS))


def _links() -> dict:
    """Every link, made once (SciPy loads then): a fit's link is one of these objects, so two fits
    with the same link hold the same one."""
    if _LINKS:
        return _LINKS
    from scipy import stats
    probit, cauchit = _clamped(stats.norm), _clamped(stats.cauchy)
    finite = np.isfinite
    _LINKS.update({
        "identity": Link("identity", lambda mu: mu, lambda eta: eta, np.ones_like),
        "log": Link("log", np.log, lambda eta: np.maximum(np.exp(eta), EPS),
                    lambda eta: np.maximum(np.exp(eta), EPS)),
        "logit": Link("logit", lambda mu: np.log(mu / (1 - mu)), _logit_inverse, _logit_mu_eta),
        "probit": Link("probit", stats.norm.ppf, *probit),
        "cauchit": Link("cauchit", stats.cauchy.ppf, *cauchit),
        "cloglog": Link("cloglog", lambda mu: np.log(-np.log1p(-mu)),
                        lambda eta: np.clip(-np.expm1(-np.exp(eta)), EPS, 1 - EPS),
                        lambda eta: np.maximum(np.exp(np.minimum(eta, 700)) * np.exp(-np.exp(np.minimum(eta, 700))), EPS)),
        "sqrt": Link("sqrt", np.sqrt, lambda eta: eta ** 2, lambda eta: 2 * eta,
                     lambda eta: finite(eta).all() and (eta > 0).all()),
        "inverse": Link("inverse", lambda mu: 1 / mu, lambda eta: 1 / eta, lambda eta: -1 / eta ** 2,
                        lambda eta: finite(eta).all() and (eta != 0).all()),
        "1/mu^2": Link("1/mu^2", lambda mu: 1 / mu ** 2, lambda eta: 1 / np.sqrt(eta),
                       lambda eta: -1 / (2 * eta ** 1.5), lambda eta: finite(eta).all() and (eta > 0).all()),
    })
    return _LINKS


_LINKS: dict = {}


@dataclass(frozen=True)
class Family:
    name: str               # Lamina's name (the family argument)
    r_name: str             # R's, as summary(glm) prints it
    links: tuple            # the links it takes, its canonical (default) one first
    variance: Callable
    deviance_residuals: Callable    # (y, mu, wt) -> each row's deviance
    aic_part: Callable              # (y, mu, wt, deviance) -> R's family$aic (before + 2 rank)
    start: Callable                 # (y, wt, fn, link) -> starting means, after checking y
    valid_mu: Callable
    fixed_dispersion: bool          # binomial and poisson: 1; the others estimate it

    @property
    def statistic(self) -> str:
        return "z" if self.fixed_dispersion else "t"


def _ylogy(y, mu):
    """y log(y / mu), 0 where y is 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(y > 0, y * np.log(np.where(y > 0, y, 1) / mu), 0.0)


def _binomial_deviance(y, mu, wt):
    return 2 * wt * (_ylogy(y, mu) + _ylogy(1 - y, 1 - mu))


def _binomial_aic(y, mu, wt, dev):
    from scipy import stats
    return -2 * np.sum(stats.binom.logpmf(np.round(wt * y), np.round(wt), mu))


def _binomial_start(y, wt, fn, link):
    if ((y < 0) | (y > 1)).any():
        bad = y[(y < 0) | (y > 1)][0]
        raise LaminaError("ValueError", f"{fn}'s binomial response must lie in [0, 1] (0/1 outcomes, or "
                          f"proportions with the trials as weights), but holds {bad:g}.")
    m = wt * y
    if (np.abs(m - np.round(m)) > 1e-3).any():
        warn(f"{fn}: a binomial response times its weights should count successes, but some are not "
             f"whole numbers (R warns: non-integer #successes in a binomial glm).",
             once_key=f"{fn}: non-integer successes")
    return (wt * y + 0.5) / (wt + 1)


def _poisson_deviance(y, mu, wt):
    return 2 * wt * (_ylogy(y, mu) - (y - mu))


def _poisson_aic(y, mu, wt, dev):
    from scipy import stats
    return -2 * np.sum(stats.poisson.logpmf(y, mu) * wt)


def _poisson_start(y, wt, fn, link):
    if (y < 0).any() or (y != np.round(y)).any():
        bad = y[(y < 0) | (y != np.round(y))][0]
        raise LaminaError("ValueError", f"{fn}'s poisson response must be counts (whole numbers at least 0), "
                          f"but holds {bad:g}; for rates, model the counts with offset = log(exposure).")
    return y + 0.1


def _no_aic(y, mu, wt, dev):
    """A quasi family has no likelihood, so no AIC (R's quasi families give NA)."""
    return float("nan")


def _quasipoisson_start(y, wt, fn, link):
    if (y < 0).any():
        raise LaminaError("ValueError", f"{fn}'s quasipoisson response must be at least 0, but holds "
                          f"{y[y < 0][0]:g}.")
    return y + 0.1


def _quasibinomial_start(y, wt, fn, link):
    if ((y < 0) | (y > 1)).any():
        bad = y[(y < 0) | (y > 1)][0]
        raise LaminaError("ValueError", f"{fn}'s quasibinomial response must lie in [0, 1] (proportions, "
                          f"with the trials as weights), but holds {bad:g}.")
    return (wt * y + 0.5) / (wt + 1)


def _gaussian_aic(y, mu, wt, dev):
    n = y.size
    return n * (np.log(2 * np.pi * dev / n) + 1) + 2 - np.sum(np.log(wt))


def _gaussian_start(y, wt, fn, link):
    if (link == "inverse" and (y == 0).any()) or (link == "log" and (y <= 0).any()):
        raise LaminaError("ValueError", f"{fn}'s gaussian family with the {link} link needs a response "
                          f"{'other than 0' if link == 'inverse' else 'above 0'} to start from (R cannot "
                          f"find starting values either).")
    return y


def _positive_start(family: str):
    def start(y, wt, fn, link):
        if (y <= 0).any():
            raise LaminaError("ValueError", f"{fn}'s {family} response must be above 0, but holds "
                              f"{y[y <= 0][0]:g}.")
        return y
    return start


def _gamma_deviance(y, mu, wt):
    return -2 * wt * (np.log(y / mu) - (y - mu) / mu)


def _gamma_aic(y, mu, wt, dev):
    from scipy import stats
    disp = dev / np.sum(wt)
    return -2 * np.sum(stats.gamma.logpdf(y, 1 / disp, scale=mu * disp) * wt) + 2


def _inverse_gaussian_aic(y, mu, wt, dev):
    total = np.sum(wt)
    return total * (np.log(dev / total * 2 * np.pi) + 1) + 3 * np.sum(np.log(y) * wt) + 2


def _positive(mu):
    return bool(np.isfinite(mu).all() and (mu > 0).all())


def _probability(mu):
    return bool(np.isfinite(mu).all() and ((mu > 0) & (mu < 1)).all())


BINOMIAL_LINKS = ("logit", "probit", "cauchit", "log", "cloglog")
POISSON_LINKS = ("log", "identity", "sqrt")
FAMILIES = {
    "binomial": Family("binomial", "binomial", BINOMIAL_LINKS, lambda mu: mu * (1 - mu), _binomial_deviance,
                       _binomial_aic, _binomial_start, _probability, True),
    "poisson": Family("poisson", "poisson", POISSON_LINKS, lambda mu: mu,
                      _poisson_deviance, _poisson_aic, _poisson_start, _positive, True),
    "gaussian": Family("gaussian", "gaussian", ("identity", "log", "inverse"), np.ones_like,
                       lambda y, mu, wt: wt * (y - mu) ** 2, _gaussian_aic, _gaussian_start,
                       lambda mu: True, False),
    "gamma": Family("gamma", "Gamma", ("inverse", "identity", "log"), lambda mu: mu ** 2,
                    _gamma_deviance, _gamma_aic, _positive_start("gamma"), _positive, False),
    "inverse_gaussian": Family("inverse_gaussian", "inverse.gaussian", ("1/mu^2", "inverse", "identity", "log"),
                               lambda mu: mu ** 3, lambda y, mu, wt: wt * (y - mu) ** 2 / (y * mu ** 2),
                               _inverse_gaussian_aic, _positive_start("inverse_gaussian"), lambda mu: True, False),
    # binomial's and poisson's means, variances and deviances with the dispersion estimated (R's
    # quasibinomial and quasipoisson): the same coefficients, standard errors scaled by
    # sqrt(dispersion), t values, no likelihood (AIC NA); the response need not be whole counts
    "quasibinomial": Family("quasibinomial", "quasibinomial", BINOMIAL_LINKS, lambda mu: mu * (1 - mu),
                            _binomial_deviance, _no_aic, _quasibinomial_start, _probability, False),
    "quasipoisson": Family("quasipoisson", "quasipoisson", POISSON_LINKS, lambda mu: mu,
                           _poisson_deviance, _no_aic, _quasipoisson_start, _positive, False),
}


def family_and_link(family, link, fn: str) -> tuple[Family, Link]:
    """The Family of a family name and the Link of a link name (None: the family's canonical)."""
    if not isinstance(family, str) or family not in FAMILIES:
        shown = f'"{family}"' if isinstance(family, str) else type(family).__name__
        raise LaminaError("ValueError", f"{fn}'s family must be one of {', '.join(FAMILIES)}, not {shown}.")
    fam = FAMILIES[family]
    name = fam.links[0] if link is None else link
    if not isinstance(name, str) or name not in fam.links:
        shown = f'"{name}"' if isinstance(name, str) else type(name).__name__
        raise LaminaError("ValueError", f"{fn}'s {family} family takes the link {', '.join(fam.links)} "
                          f"(as R's does), not {shown}.")
    return fam, _links()[name]

