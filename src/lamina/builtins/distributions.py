"""Distributions as values (normal, uniform, binomial, poisson, exponential; student_t, chi2,
f_dist, gamma_dist, beta_dist) and pdf, cdf and sample on them; quantile(d, p) lives with
quantile in stats.py.

A distribution is a library value: `d.pdf(x)` is `pdf(d, x)` by the language's
method-call rule, and `d.mu`, `d.mean`, `d.var` read its fields.
"""
from __future__ import annotations

from ..rng import generator
from ..stats import distributions as Dist
from ..values import as_int
from .registry import Shape, builtin, refuse_tracked

CATEGORY = "Statistics"
USE = ("The value prints as its family and parameters; d.pdf(x), d.cdf(x), d.quantile(p) and "
       "d.sample(n) (or pdf(d, x), ...) evaluate it, and fields name its parameters and its mean "
       "and var. SciPy (scipy.stats) does the numerics; samples come from the global generator "
       "that seed(n) resets.")


def _make(family: str, **given):
    """The family's distribution from the parameters given (None: not given, so its default,
    or the error that names it)."""
    given = {k: v for k, v in given.items() if v is not None}
    refuse_tracked(family, tuple(given.values()))
    return Dist.make(family, given)


def _family(name: str, params: str, meaning: str, example: str, notes: str):
    return dict(category=CATEGORY,
                shapes=[Shape(f"{name}({params})", "numbers", "distribution", meaning)],
                summary=meaning, examples=[example], notes=notes + " " + USE)


@builtin("normal", pure="a distribution", tracked="refuses",
         probes=["normal(p[0], 1)", "normal(0, sigma = p[1])"], **_family(
    "normal", "mu = 0, sigma = 1", "The normal (Gaussian) distribution with mean mu and standard deviation sigma.",
    "d = normal(10, 2)\nprint(d, d.mean, d.var)\nprint(round(d.pdf(10), 4), d.cdf(10), round(d.quantile(0.975), 3))\n"
    "seed(1)\nx = d.sample(10000)\nprint(abs(mean(x) - 10) < 0.1)",
    "Density exp(-(x - mu)^2 / (2 sigma^2)) / (sigma sqrt(2 pi)). sigma must be greater than 0."))
def normal(mu=None, sigma=None):
    return _make("normal", mu=mu, sigma=sigma)


@builtin("uniform", pure="a distribution", tracked="refuses", probes=["uniform(p[0], 5)"], **_family(
    "uniform", "low = 0, high = 1", "The continuous uniform distribution on [low, high].",
    "d = uniform(2, 6)\nprint(d.mean, d.pdf([1, 3]), d.cdf(5))",
    "Density 1 / (high - low) inside the interval and 0 outside; low must be less than high."))
def uniform(low=None, high=None):
    return _make("uniform", low=low, high=high)


@builtin("binomial", pure="a distribution", tracked="refuses", probes=["binomial(10, p[0] / 4)"], **_family(
    "binomial", "n, p", "The binomial distribution: the number of successes in n independent trials, "
    "each a success with probability p.",
    "d = binomial(10, 0.5)\nprint(d.mean, round(d.pdf(5), 4), round(d.cdf(5), 4))\nprint(d.quantile([0.05, 0.95]))",
    "Discrete: pdf(d, k) is the probability mass P(X = k), 0 for a k that is not a whole number "
    "from 0 to n, and quantile(d, q) is the least k with cdf(d, k) >= q (0 for q = 0, as R's "
    "qbinom). n is a whole number (at least 0) and p lies from 0 to 1."))
def binomial(n, p):
    return _make("binomial", n=n, p=p)


@builtin("poisson", pure="a distribution", tracked="refuses", probes=["poisson(p[0])"], **_family(
    "poisson", "rate", "The Poisson distribution: the number of events in an interval when they "
    "occur independently at an average rate.",
    "d = poisson(3)\nprint(d.mean, d.var, round(d.pdf(0), 4), round(d.cdf(3), 4))",
    "Discrete: pdf(d, k) is P(X = k) = rate^k exp(-rate) / k!, for whole k >= 0, and "
    "quantile(d, q) is the least k with cdf(d, k) >= q (0 for q = 0, as R's qpois). rate must be "
    "greater than 0."))
def poisson(rate):
    return _make("poisson", rate=rate)


@builtin("exponential", pure="a distribution", tracked="refuses", probes=["exponential(p[0])"], **_family(
    "exponential", "rate = 1", "The exponential distribution: the waiting time between events "
    "of a Poisson process with the given rate.",
    "d = exponential(0.5)\nprint(d.mean, round(d.pdf(0), 4), round(d.cdf(2), 4), round(d.quantile(0.5), 4))",
    "Density rate * exp(-rate * x) for x >= 0; the mean is 1 / rate. rate must be greater than 0."))
def exponential(rate=None):
    return _make("exponential", rate=rate)


NAMES = ("gamma and beta name no distribution because they are the names of the gamma and beta "
         "functions; f is a name programs give their own functions. ")


@builtin("student_t", pure="a distribution", tracked="refuses", probes=["student_t(p[0])"], **_family(
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


@builtin("chi2", pure="a distribution", tracked="refuses", probes=["chi2(df = p[1])"], **_family(
    "chi2", "df", "The chi-squared distribution with df degrees of freedom: the sum of df squared "
    "standard normal variables (chisq_test's statistic).",
    "d = chi2(3)\nprint(d, d.mean, d.var)\nprint(round(d.quantile(0.95), 4), round(1 - d.cdf(7.815), 4))",
    "Density x^(df/2 - 1) exp(-x / 2) / (2^(df/2) Gamma(df / 2)) for x >= 0; mean df and variance "
    "2 df. df must be greater than 0."))
def chi2(df):
    return _make("chi2", df=df)


@builtin("f_dist", pure="a distribution", tracked="refuses", probes=["f_dist(3, p[0])"], **_family(
    "f_dist", "df1, df2", "The F distribution with df1 and df2 degrees of freedom: the ratio of two "
    "independent chi-squared variables, each divided by its df (linreg's F test).",
    "d = f_dist(2, 20)\nprint(d, round(d.mean, 4))\nprint(round(d.quantile(0.95), 4), round(1 - d.cdf(3.49), 4))",
    "The mean is df2 / (df2 - 2) for df2 > 2 (Inf otherwise, as SciPy gives it). Both degrees of freedom must be greater "
    "than 0. " + NAMES))
def f_dist(df1, df2):
    return _make("f_dist", df1=df1, df2=df2)


@builtin("gamma_dist", pure="a distribution", tracked="refuses",
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


@builtin("beta_dist", pure="a distribution", tracked="refuses", probes=["beta_dist(p[0], p[1])"], **_family(
    "beta_dist", "a, b", "The beta distribution on [0, 1] with shapes a and b: a distribution of "
    "probabilities (the posterior of a success rate after a - 1 successes and b - 1 failures).",
    "d = beta_dist(2, 5)\nprint(d, round(d.mean, 4), round(d.var, 4))\nprint(round(d.pdf(0.2), 4), round(d.quantile(0.5), 4))",
    "Density x^(a - 1) (1 - x)^(b - 1) / B(a, b) for x in [0, 1]; mean a / (a + b). beta_dist(1, 1) "
    "is uniform(0, 1). a and b must be greater than 0. " + NAMES))
def beta_dist(a, b):
    return _make("beta_dist", a=a, b=b)


@builtin("pdf", pure="a value", tracked="refuses", category=CATEGORY,
         probes=["pdf(normal(0, 1), p)", "normal(0, 1).pdf(p)"],
         shapes=[Shape("pdf(d, x)", "distribution, number or tensor", "number or tensor",
                       "The density at x (for a discrete distribution, the probability of x)."),
                 Shape("d.pdf(x)", "distribution, number or tensor", "number or tensor", "The same, as a method.")],
         summary="The probability density function of a distribution, elementwise; for a discrete "
                 "distribution the probability mass.",
         examples=["print(round(pdf(normal(0, 1), [-1, 0, 1]), 4))", "print(round(binomial(3, 0.5).pdf(2), 4))"],
         notes="Evaluated by scipy.stats (pdf, or pmf for binomial and poisson); the result has "
               "x's shape. A density can exceed 1; a probability mass cannot.")
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


@builtin("sample", tracked="constant", category=CATEGORY,
         probes="takes a distribution (which refuses tracked parameters) and counts",
         shapes=[Shape("sample(d)", "distribution", "number", "One random draw."),
                 Shape("sample(d, n)", "distribution, count", "vector", "n independent draws."),
                 Shape("sample(d, r, c)", "distribution, rows, columns", "matrix", "An r x c matrix of draws.")],
         summary="Draws random numbers from a distribution, using the global generator.",
         examples=["seed(7)\nprint(sample(poisson(4), 6))",
                   "seed(7)\nx = normal(5, 2).sample(20000)\nprint(round(mean(x), 1), round(std(x), 1))"],
         notes="scipy.stats draws with Lamina's global generator, so seed(n) makes the draws repeat. "
               "Discrete distributions give whole numbers (as float64, like every Lamina number).")
def sample(d, r=None, c=None):
    dist = Dist.as_distribution(d, "sample's first argument")
    shape = () if r is None else ((as_int(r, "sample's count", minimum=0),) if c is None else
                                  (as_int(r, "sample's row count", minimum=0), as_int(c, "sample's column count", minimum=0)))
    return dist.sample(shape, generator())
