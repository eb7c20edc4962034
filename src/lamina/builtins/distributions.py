"""Distributions as values (normal, uniform, binomial, poisson, exponential; student_t, chi2,
f_dist, gamma_dist, beta_dist; weibull, negative_binomial) and pdf, cdf, sample, logpdf and logpmf
on them; quantile(d, p) lives with quantile in stats.py.

A distribution is a library value: `d.pdf(x)` is `pdf(d, x)` by the language's
method-call rule, and `d.mu`, `d.mean`, `d.var` read its fields.

A likelihood's parameters may be tensors or tracked values: logpdf and logpmf differentiate them
(stats/logdensity.py), while what SciPy computes (pdf, cdf, quantile, sample, mean, var) refuses
them. The constructors are marked tracked="holds": the distribution keeps its tracked
parameters as given, for logpdf and logpmf to differentiate through.
"""
from __future__ import annotations

import numpy as np

from ..rng import generator
from ..stats import distributions as Dist
from ..errors import LaminaError
from ..values import as_int
from .registry import Const, GradCase, Shape, builtin, refuse_tracked

CATEGORY = "Statistics"
USE = ("The value prints as its family and parameters; d.pdf(x), d.cdf(x), d.quantile(p) and "
       "d.sample(n) (or pdf(d, x), ...) evaluate it, and fields name its parameters and its mean "
       "and var. SciPy (scipy.stats) does the numerics; samples come from the global generator "
       "that seed(n) resets. For a likelihood, the parameters may be tensors (one distribution per "
       "element) or tracked values, and d.logpdf(x) (d.logpmf(x)) is differentiable in them and in "
       "x; SciPy's methods and the fields mean and var then refuse them.")


def _make(family: str, **given):
    """The family's distribution from the parameters given (None: not given, so its default,
    or the error that names it)."""
    given = {k: v for k, v in given.items() if v is not None}
    return Dist.make(family, given)


def _family(name: str, params: str, meaning: str, example: str, notes: str):
    return dict(category=CATEGORY,
                shapes=[Shape(f"{name}({params})", "numbers", "distribution", meaning)],
                summary=meaning, examples=[example], notes=notes + " " + USE)


@builtin("normal", pure="a distribution", tracked="holds",
         probes=["normal(p[0], 1)", "normal(0, sigma = p[1])"], **_family(
    "normal", "mu = 0, sigma = 1", "The normal (Gaussian) distribution with mean mu and standard deviation sigma.",
    "d = normal(10, 2)\nprint(d, d.mean, d.var)\nprint(round(d.pdf(10), 4), d.cdf(10), round(d.quantile(0.975), 3))\n"
    "seed(1)\nx = d.sample(10000)\nprint(abs(mean(x) - 10) < 0.1)",
    "Density exp(-(x - mu)^2 / (2 sigma^2)) / (sigma sqrt(2 pi)). sigma must be greater than 0."))
def normal(mu=None, sigma=None):
    return _make("normal", mu=mu, sigma=sigma)


@builtin("uniform", pure="a distribution", tracked="holds", probes=["uniform(p[0], 5)"], **_family(
    "uniform", "low = 0, high = 1", "The continuous uniform distribution on [low, high].",
    "d = uniform(2, 6)\nprint(d.mean, d.pdf([1, 3]), d.cdf(5))",
    "Density 1 / (high - low) inside the interval and 0 outside; low must be less than high."))
def uniform(low=None, high=None):
    return _make("uniform", low=low, high=high)


@builtin("binomial", pure="a distribution", tracked="holds", probes=["binomial(10, p[0] / 4)"], **_family(
    "binomial", "n, p", "The binomial distribution: the number of successes in n independent trials, "
    "each a success with probability p.",
    "d = binomial(10, 0.5)\nprint(d.mean, round(d.pdf(5), 4), round(d.cdf(5), 4))\nprint(d.quantile([0.05, 0.95]))",
    "Discrete: pdf(d, k) is the probability mass P(X = k), 0 for a k that is not a whole number "
    "from 0 to n, and quantile(d, q) is the least k with cdf(d, k) >= q (0 for q = 0, as R's "
    "qbinom). n is a whole number (at least 0) and p lies from 0 to 1."))
def binomial(n, p):
    return _make("binomial", n=n, p=p)


@builtin("poisson", pure="a distribution", tracked="holds", probes=["poisson(p[0])"], **_family(
    "poisson", "rate", "The Poisson distribution: the number of events in an interval when they "
    "occur independently at an average rate.",
    "d = poisson(3)\nprint(d.mean, d.var, round(d.pdf(0), 4), round(d.cdf(3), 4))",
    "Discrete: pdf(d, k) is P(X = k) = rate^k exp(-rate) / k!, for whole k >= 0, and "
    "quantile(d, q) is the least k with cdf(d, k) >= q (0 for q = 0, as R's qpois). rate must be "
    "greater than 0."))
def poisson(rate):
    return _make("poisson", rate=rate)


@builtin("exponential", pure="a distribution", tracked="holds", probes=["exponential(p[0])"], **_family(
    "exponential", "rate = 1", "The exponential distribution: the waiting time between events "
    "of a Poisson process with the given rate.",
    "d = exponential(0.5)\nprint(d.mean, round(d.pdf(0), 4), round(d.cdf(2), 4), round(d.quantile(0.5), 4))",
    "Density rate * exp(-rate * x) for x >= 0; the mean is 1 / rate. rate must be greater than 0."))
def exponential(rate=None):
    return _make("exponential", rate=rate)


NAMES = ("gamma and beta name no distribution because they are the names of the gamma and beta "
         "functions; f is a name programs give their own functions. ")


@builtin("student_t", pure="a distribution", tracked="holds", probes=["student_t(p[0])"], **_family(
    "student_t", "df", "Student's t distribution with df degrees of freedom: the distribution of "
    "a t statistic (t_test, linreg's t values).",
    "d = student_t(10)\nprint(d, d.mean, round(d.var, 4))\nprint(round(d.quantile(0.975), 4), round(2 * (1 - d.cdf(2.5)), 5))",
    "Density proportional to (1 + x^2 / df)^(-(df + 1) / 2); symmetric about 0, with heavier tails "
    "than normal(0, 1), which it approaches as df grows. df must be greater than 0 and need not be "
    "whole (Welch's t_test gives fractional df). The mean 0 exists for df > 1 and the variance "
    "df / (df - 2) for df > 2. Otherwise they read as SciPy gives them: for 1 < df <= 2 the "
    "variance is Inf, and for df <= 1 the mean reads Inf and the variance NaN (neither exists)."))
def student_t(df):
    return _make("student_t", df=df)


@builtin("chi2", pure="a distribution", tracked="holds", probes=["chi2(df = p[1])"], **_family(
    "chi2", "df", "The chi-squared distribution with df degrees of freedom: the sum of df squared "
    "standard normal variables (chisq_test's statistic).",
    "d = chi2(3)\nprint(d, d.mean, d.var)\nprint(round(d.quantile(0.95), 4), round(1 - d.cdf(7.815), 4))",
    "Density x^(df/2 - 1) exp(-x / 2) / (2^(df/2) Gamma(df / 2)) for x >= 0; mean df and variance "
    "2 df. df must be greater than 0."))
def chi2(df):
    return _make("chi2", df=df)


@builtin("f_dist", pure="a distribution", tracked="holds", probes=["f_dist(3, p[0])"], **_family(
    "f_dist", "df1, df2", "The F distribution with df1 and df2 degrees of freedom: the ratio of two "
    "independent chi-squared variables, each divided by its df (linreg's F test).",
    "d = f_dist(2, 20)\nprint(d, round(d.mean, 4))\nprint(round(d.quantile(0.95), 4), round(1 - d.cdf(3.49), 4))",
    "The mean is df2 / (df2 - 2) for df2 > 2 (Inf otherwise, as SciPy gives it). Both degrees of freedom must be greater "
    "than 0. " + NAMES))
def f_dist(df1, df2):
    return _make("f_dist", df1=df1, df2=df2)


@builtin("gamma_dist", pure="a distribution", tracked="holds",
         probes=["gamma_dist(p[0])", "gamma_dist(2, rate = p[1])"], **_family(
    "gamma_dist", "shape, rate = 1", "The gamma distribution with a shape and a rate: the waiting "
    "time for shape events of a Poisson process with the given rate.",
    "d = gamma_dist(2, 0.5)\nprint(d, d.mean, d.var)\nprint(round(d.pdf(1), 4), round(d.cdf(4), 4))",
    "Density rate^shape x^(shape - 1) exp(-rate x) / Gamma(shape) for x >= 0: mean shape / rate and "
    "variance shape / rate^2, as R's dgamma(x, shape, rate). gamma_dist(1, rate) is exponential(rate) "
    "and gamma_dist(k / 2, 0.5) is chi2(k). SciPy's gamma takes scale = 1 / rate. shape and rate must "
    "be greater than 0. " + NAMES))
def gamma_dist(shape, rate=None):
    return _make("gamma_dist", shape=shape, rate=rate)


@builtin("beta_dist", pure="a distribution", tracked="holds", probes=["beta_dist(p[0], p[1])"], **_family(
    "beta_dist", "a, b", "The beta distribution on [0, 1] with shapes a and b: a distribution of "
    "probabilities (the posterior of a success rate after a - 1 successes and b - 1 failures).",
    "d = beta_dist(2, 5)\nprint(d, round(d.mean, 4), round(d.var, 4))\nprint(round(d.pdf(0.2), 4), round(d.quantile(0.5), 4))",
    "Density x^(a - 1) (1 - x)^(b - 1) / B(a, b) for x in [0, 1]; mean a / (a + b). beta_dist(1, 1) "
    "is uniform(0, 1). a and b must be greater than 0. " + NAMES))
def beta_dist(a, b):
    return _make("beta_dist", a=a, b=b)


@builtin("weibull", pure="a distribution", tracked="holds",
         probes=["weibull(p[0])", "weibull(2, scale = p[1])"], **_family(
    "weibull", "shape, scale = 1", "The Weibull distribution with a shape and a scale: a lifetime "
    "whose hazard grows (shape > 1), stays (shape = 1) or falls (shape < 1) with age.",
    "d = weibull(1.5, 2)\nprint(d, round(d.mean, 4))\nprint(round(d.pdf(1), 4), round(d.cdf(2), 4), round(d.logpdf(1), 4))",
    "Density (shape / scale) (x / scale)^(shape - 1) exp(-(x / scale)^shape) for x >= 0, as R's "
    "dweibull(x, shape, scale) and SciPy's weibull_min(shape, scale = scale); cdf 1 - exp(-(x / "
    "scale)^shape). weibull(1, scale) is exponential(1 / scale). shape and scale must be greater "
    "than 0."))
def weibull(shape, scale=None):
    return _make("weibull", shape=shape, scale=scale)


@builtin("negative_binomial", pure="a distribution", tracked="holds",
         probes=["negative_binomial(p[0], 0.5)", "negative_binomial(2, mu = p[1])"], **_family(
    "negative_binomial", "size, prob or size, mu = m", "The negative binomial distribution: the number "
    "of failures before the size-th success in trials that each succeed with probability prob; with "
    "the mean mu in place of prob, a count model with more variance than the Poisson's.",
    "d = negative_binomial(3, 0.4)\nprint(d, d.mean, d.var, round(d.pdf(2), 4))\n"
    "m = negative_binomial(2, mu = 5)\nprint(m, m.mean, m.var, round(m.logpmf(4), 4))",
    "P(X = k) = Gamma(k + size) / (Gamma(size) k!) prob^size (1 - prob)^k for whole k >= 0, as R's "
    "dnbinom(k, size, prob) and SciPy's nbinom(size, prob). Given mu (R's dnbinom(k, size, mu = m)), "
    "prob = size / (size + mu): the mean is mu and the variance mu + mu^2 / size, so 1 / size "
    "measures the overdispersion, and the Poisson(mu) is the limit as size grows. size need not be "
    "whole and must be greater than 0; give prob (above 0, up to 1) or mu (at least 0), one of them; "
    "the distribution prints the one given."))
def negative_binomial(size, prob=None, mu=None):
    return _make("negative_binomial", size=size, prob=prob, mu=mu)


@builtin("pdf", pure="a value", tracked="refuses", category=CATEGORY,
         probes=["pdf(normal(0, 1), p)", "normal(0, 1).pdf(p)"],
         shapes=[Shape("pdf(d, x)", "distribution, number or tensor", "number or tensor",
                       "The density at x (for a discrete distribution, the probability of x)."),
                 Shape("d.pdf(x)", "distribution, number or tensor", "number or tensor", "The same, as a method.")],
         summary="The probability density function of a distribution, elementwise; for a discrete "
                 "distribution the probability mass.",
         examples=["print(round(pdf(normal(0, 1), [-1, 0, 1]), 4))", "print(round(binomial(3, 0.5).pdf(2), 4))",
                   "print(round(pdf(poisson([0.5, 2, 10]), 1), 4))"],
         notes="Evaluated by scipy.stats (pdf, or pmf for the discrete families: binomial, poisson, "
               "negative_binomial). A density can exceed 1; a probability mass cannot. The parameters "
               "may be tensors, one distribution per element, broadcast with x as the operators "
               "broadcast (R's dpois(x, lambda) with a vector lambda): the result has their "
               "broadcast shape. A tracked parameter is refused: exp(logpdf(d, x)) is its density, "
               "on the tape.")
def pdf(d, x):
    refuse_tracked("pdf", (x,))
    return Dist.as_distribution(d, "pdf's first argument").pdf(x)


@builtin("cdf", pure="a value", tracked="refuses", category=CATEGORY,
         probes=["cdf(normal(0, 1), p)"],
         shapes=[Shape("cdf(d, x)", "distribution, number or tensor", "number or tensor", "P(X <= x)."),
                 Shape("d.cdf(x)", "distribution, number or tensor", "number or tensor", "The same, as a method.")],
         summary="The cumulative distribution function P(X <= x) of a distribution, elementwise.",
         examples=["d = normal(0, 1)\nprint(round(cdf(d, 1.96), 4), round(d.cdf(1) - d.cdf(-1), 4))",
                   "print(round(poisson(2).cdf([0, 1, 2]), 4))"],
         notes="Evaluated by scipy.stats. quantile(d, p) is its inverse: quantile(d, cdf(d, x)) "
               "gives x back for a continuous distribution.")
def cdf(d, x):
    refuse_tracked("cdf", (x,))
    return Dist.as_distribution(d, "cdf's first argument").cdf(x)


@builtin("sample", elsewhere={"rpois": "R", "rbinom": "R"},
         tracked="constant", category=CATEGORY,
         probes="takes a distribution (whose sample refuses tracked parameters) and counts",
         shapes=[Shape("sample(d)", "distribution", "number or tensor",
                       "One random draw (one from each element, for tensor parameters)."),
                 Shape("sample(d, n)", "distribution, count", "vector", "n independent draws."),
                 Shape("sample(d, r, c)", "distribution, rows, columns", "matrix", "An r x c matrix of draws.")],
         summary="Draws random numbers from a distribution, using the global generator.",
         examples=["seed(7)\nprint(sample(poisson(4), 6))",
                   "seed(7)\nx = normal(5, 2).sample(20000)\nprint(round(mean(x), 1), round(std(x), 1))",
                   "seed(3)\nx = [-1, 0, 1, 2]\ny = sample(poisson(exp(0.5 + 0.8 * x)))\nprint(y)"],
         notes="scipy.stats draws with Lamina's global generator, so seed(n) makes the draws repeat. "
               "Discrete distributions give whole numbers (as float64, like every Lamina number). "
               "A distribution with tensor parameters is one distribution per element: sample(d) "
               "draws one value from each, in the parameters' broadcast shape (R's rpois(n, lambda) "
               "with n = length(lambda)); a count or shape after it is a TypeError, since it could "
               "mean n draws in all (R) or n of each (PyTorch).")
def sample(d, r=None, c=None):
    dist = Dist.as_distribution(d, "sample's first argument")
    shape = () if r is None else ((as_int(r, "sample's count", minimum=0),) if c is None else
                                  (as_int(r, "sample's row count", minimum=0), as_int(c, "sample's column count", minimum=0)))
    return dist.sample(shape, generator())


def _distribution(d, params: tuple, named: dict, name: str) -> Dist.Distribution:
    """The distribution of logpdf(d, x): a distribution value, or a family's name with its
    parameters after x (by position or by name)."""
    if not isinstance(d, str):
        if params or named:
            raise LaminaError("TypeError", f"{name}(d, x) takes its parameters from the distribution d, "
                              f"so nothing follows x: give them to it, as in {name}(normal(mu, sigma), x), "
                              f"or name the family, as in {name}(\"normal\", x, mu, sigma).")
        return Dist.as_distribution(d, f"{name}'s first argument")
    if d not in Dist.FAMILIES:
        raise LaminaError("ValueError", f"{name}: no distribution family is called \"{d}\"; the families are "
                          f"{', '.join(sorted(Dist.FAMILIES))}.")
    names = Dist.FAMILIES[d].params
    if len(params) > len(names):
        raise LaminaError("TypeError", f"{name}(\"{d}\", x, ...) takes at most {len(names)} parameters after x "
                          f"({', '.join(names)}), but got {len(params)}.")
    given = dict(zip(names, params))
    for key, value in named.items():
        if key not in names or key in given:
            raise LaminaError("TypeError", f"{name}(\"{d}\", x, ...): {d} has no parameter {key}, or it is given "
                              f"twice; its parameters are {', '.join(names)}.")
        given[key] = value
    return _make(d, **given)


_K = np.array([0.0, 2.0, 5.0])                       # counts for logpmf's cases
_K3 = np.arange(24.0).reshape(2, 3, 4) % 6
_K4 = np.arange(12.0).reshape(2, 1, 2, 3) % 4
S, V, M, R3, R4 = (), (3,), (3, 2), (2, 3, 4), (2, 1, 2, 3)
_LOG = dict(pure="a value", any_rank=True, twice=True, category=CATEGORY)
_FAMILY_FORM = ("The form with the family's name computes what logpdf(family(params), x) computes, as "
                "R's dnorm(x, mu, sigma, log = TRUE) does; the parameters follow x, by position or by name.")


@builtin("logpdf", **_LOG,
         shapes=[Shape("logpdf(d, x)", "distribution, number or tensor", "number or tensor",
                       "The log density at x (for a discrete distribution, the log probability of x)."),
                 Shape("d.logpdf(x)", "distribution, number or tensor", "number or tensor", "The same, as a method."),
                 Shape("logpdf(family, x, params...)", "a family's name, x, its parameters", "number or tensor",
                       "The same for the family's distribution of those parameters.")],
         summary="The log of a distribution's density at x, elementwise: the terms of a log-likelihood, "
                 "differentiable in the distribution's parameters and in x.",
         examples=["d = normal(1, 2)\nprint(round(logpdf(d, [0, 1, 3]), 4), round(log(d.pdf(0)), 4))",
                   "y = [1.2, 0.3, 2.1, 1.7]\nmu = param(0.5)\nloglik = sum(logpdf(normal(mu, 1), y))\n"
                   "print(round(loglik, 4), round(grad(loglik, wrt = mu), 4))",
                   "s = param(1.5)\nll = sum(normal(0, s).logpdf([1.2, -0.3, 2.1]))\ng = grad(ll, wrt = s, keep = true)\n"
                   "print(round(g, 4), round(grad(g, wrt = s), 4))",
                   "print(round(logpdf(\"gamma_dist\", [0.5, 1, 2], 2, rate = 0.5), 4))"],
         notes="Computed on the tape from the family's formula, term for term SciPy's logpdf (log "
               "pmf for a discrete family), with lgamma, lbeta and xlogy (0 log 0 = 0): normal "
               "-((x - mu) / sigma)^2 / 2 - log(sigma sqrt(2 pi)), gamma_dist (shape - 1) log(rate x) - "
               "rate x - lgamma(shape) + log(rate), and so on. The distribution's parameters may be "
               "tracked, and tensors (one distribution per element, broadcast with x as the "
               "operators broadcast): logpdf(normal(X * b, sigma), y) is a regression's "
               "log-likelihood, differentiable in b and sigma, twice and more (grad's keep). Outside "
               "the support (below 0 for gamma_dist, outside [low, high] for uniform, at a count "
               "that is not a whole number, at +-Inf) the result is -Inf and its gradient 0; SciPy "
               "gives NaN at Inf for some families, where pdf gives 0. " + _FAMILY_FORM,
         grad=[GradCase((Const("normal"), V, V, ()), domain="positive"),
               GradCase((Const("normal"), M, Const(0.5), Const(1.5))),
               GradCase((Const(Dist.make("normal", {"mu": 0.5, "sigma": 2.0})), V)),
               GradCase((Const("uniform"), Const(np.array([2.1, 2.5])), (), Const(3.0)), domain="positive"),
               GradCase((Const("uniform"), Const(np.array([0.1, 0.2, 0.3])), Const(-1.0), V), domain="positive"),
               GradCase((Const("exponential"), V, ()), domain="positive"),
               GradCase((Const("student_t"), V, ()), domain="positive"),
               GradCase((Const("chi2"), M, ()), domain="positive"),
               GradCase((Const("f_dist"), V, (), ()), domain="positive"),
               GradCase((Const("gamma_dist"), V, V, ()), domain="positive"),
               GradCase((Const("beta_dist"), V, (), V), domain="unit"),
               GradCase((Const("weibull"), V, (), V), domain="positive"),
               GradCase((Const("gamma_dist"), R3, (), ()), domain="positive"),
               GradCase((Const("normal"), R4, R4, ()), domain="positive"),
               GradCase((Const("poisson"), Const(_K), V), domain="positive")])
def logpdf(d, x, *params, **named):
    return _distribution(d, params, named, "logpdf").logdensity(x, "logpdf's x")


@builtin("logpmf", **_LOG,
         shapes=[Shape("logpmf(d, k)", "discrete distribution, number or tensor", "number or tensor",
                       "The log probability of k."),
                 Shape("d.logpmf(k)", "discrete distribution, number or tensor", "number or tensor",
                       "The same, as a method."),
                 Shape("logpmf(family, k, params...)", "a discrete family's name, k, its parameters",
                       "number or tensor", "The same for the family's distribution of those parameters.")],
         summary="The log probability of k under a discrete distribution (binomial, poisson, "
                 "negative_binomial), elementwise: the terms of a count model's log-likelihood, "
                 "differentiable in the distribution's parameters.",
         examples=["print(round(logpmf(poisson(3), [0, 2, 2.5, -1]), 4))",
                   "k = [0, 3, 1, 7, 2]\nb = param(0.5)\nll = sum(logpmf(negative_binomial(2, mu = exp(b)), k))\n"
                   "print(round(ll, 4), round(grad(ll, wrt = b), 4))",
                   "print(round(logpmf(\"binomial\", [0, 3], 5, 0.3), 4))"],
         notes="logpdf for the discrete families, under the name SciPy and R give it (logpmf; "
               "dpois(k, rate, log = TRUE)): binomial log C(n, k) + k log(p) + (n - k) log(1 - p), "
               "poisson k log(rate) - lgamma(k + 1) - rate, negative_binomial lgamma(k + size) - "
               "lgamma(size) - lgamma(k + 1) + size log(prob) + k log(1 - prob), or with mu in place "
               "of prob R's dnbinom_mu. A k that is not a whole number, or is outside the support, "
               "has probability 0: -Inf, as in SciPy. The gradient for k is the formula's, as "
               "torch.distributions gives it (a count is usually data). A continuous distribution is "
               "a TypeError that points to logpdf. " + _FAMILY_FORM,
         grad=[GradCase((Const("binomial"), Const(_K), Const(5.0), V), domain="unit"),
               GradCase((Const("poisson"), Const(_K), V), domain="positive"),
               GradCase((Const("negative_binomial"), Const(_K), (), V), domain="unit"),
               GradCase((Const("negative_binomial"), Const(_K), V, Const(None), ()), domain="positive"),
               GradCase((Const("poisson"), Const(_K3), R3), domain="positive"),
               GradCase((Const("binomial"), Const(_K4), Const(4.0), R4), domain="unit")])
def logpmf(d, k, *params, **named):
    dist = _distribution(d, params, named, "logpmf")
    if not dist.spec.discrete:
        raise LaminaError("TypeError", f"logpmf is for the discrete distributions (binomial, poisson, "
                          f"negative_binomial), but {dist.family} is continuous: logpdf(d, x) gives its "
                          f"log density.")
    return dist.logdensity(k, "logpmf's k")
