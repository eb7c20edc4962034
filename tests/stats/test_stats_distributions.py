"""Distributions against scipy.stats, through the builtins and through Lamina's method syntax."""
import numpy as np
import pytest
import scipy.stats as st

from lamina.builtins import distributions as B
from lamina.builtins.random import seed
from lamina.builtins.stats import quantile

CASES = [
    ("normal", (1.5, 2.0), st.norm(1.5, 2.0), False),
    ("uniform", (-1.0, 3.0), st.uniform(-1.0, 4.0), False),
    ("binomial", (12.0, 0.3), st.binom(12, 0.3), True),
    ("poisson", (3.5,), st.poisson(3.5), True),
    ("exponential", (0.7,), st.expon(scale=1 / 0.7), False),
]


@pytest.mark.parametrize("family, params, ref, discrete", CASES, ids=[c[0] for c in CASES])
def test_against_scipy(rng, family, params, ref, discrete):
    d = getattr(B, family)(*params)
    x = np.round(rng.normal(2, 3, size=50)) if discrete else rng.normal(2, 3, size=50)
    np.testing.assert_allclose(B.pdf(d, x), ref.pmf(x) if discrete else ref.pdf(x))
    np.testing.assert_allclose(B.cdf(d, x), ref.cdf(x))
    m = x.reshape(5, 10)
    assert B.cdf(d, m).shape == (5, 10)
    p = rng.random(40)
    np.testing.assert_allclose(quantile(d, p), ref.ppf(p))
    assert quantile(d, 0.5) == pytest.approx(ref.ppf(0.5))
    assert type(B.pdf(d, 1.0)) is float
    assert d.get("mean") == pytest.approx(ref.mean()) and d.get("var") == pytest.approx(ref.var())
    seed(9.0)
    draws = B.sample(d, 1000.0)
    np.testing.assert_array_equal(draws, ref.rvs(size=1000, random_state=np.random.default_rng(9)))
    assert draws.dtype == np.float64
    assert B.sample(d, 2.0, 3.0).shape == (2, 3) and type(B.sample(d)) is float
    # the sample follows the distribution (a loose Kolmogorov-Smirnov check for continuous ones)
    if not discrete:
        assert st.kstest(draws, ref.cdf).pvalue > 1e-4


def test_method_syntax_fields_and_printing(lam):
    out = lam.run("d = normal(mu = 2, sigma = 0.5)\nprint(d, d.mu, d.sigma, type(d))\n"
                  "print(d.pdf(2) == pdf(d, 2), d.cdf(2), d.quantile(0.5))\n"
                  "print(round(binomial(4, 0.5).pdf([0, 1, 2]), 6), exponential().rate, uniform().high)")
    assert out == ["normal(mu=2, sigma=0.5) 2 0.5 distribution", "true 0.5 2",
                   "[0.0625, 0.25, 0.375] 1 1"]


def test_samples_repeat_with_seed(lam):
    assert lam.run("seed(3)\nx = poisson(2).sample(5)\nseed(3)\nprint(all(x == sample(poisson(2), 5)))\n"
                   "seed(4)\nprint(all(x == poisson(2).sample(5)))") == ["true", "false"]


@pytest.mark.parametrize("source, kind, start", [
    ("normal(0, -1)", "ValueError", "normal: sigma must be greater than 0"),
    ("uniform(2, 1)", "ValueError", "uniform: low must be less than high"),
    ("binomial(3.5, 0.5)", "TypeError", "binomial's n must be a whole number"),
    ("binomial(3, 1.5)", "ValueError", "binomial: p must lie from 0 to 1"),
    ("binomial(3)", "TypeError", "'binomial' is missing 1 required argument: 'p'."),
    ("poisson(0)", "ValueError", "poisson: rate must be greater than 0"),
    ("binomial(1e20, 0.5)", "ValueError", "binomial's n is too large: 1e+20 (a count, size or index is at most 2^53"),
    ("normal(0, 1, 2)", "TypeError", "'normal' takes from 0 to 2 arguments but 3 were given."),
    ("normal(scale = 2)", "TypeError", "'normal' got an unexpected keyword argument 'scale'. Its parameters are mu, sigma."),
    ("normal(1 / 0, 1)", "ValueError", "normal's mu must be finite"),
    ("quantile(normal(), 2)", "ValueError", "quantile of a distribution needs probabilities from 0 to 1"),
    ("pdf([1, 2], 1)", "TypeError", "pdf's first argument must be a distribution"),
    ("normal().pdf(\"a\")", "TypeError", "pdf's x must be a number or tensor"),
    ("normal().nope", "NameError", "A distribution has no field 'nope'"),
])
def test_errors(lam, source, kind, start):
    err = lam.error(source)
    assert err.kind == kind and err.message.startswith(start), err.message


@pytest.mark.parametrize("family, params, ref, discrete", CASES, ids=[c[0] for c in CASES])
def test_no_density_at_infinity(family, params, ref, discrete):
    # SciPy's pmf at Inf is NaN (it computes Inf - Inf); every family has no mass out there
    density = B.pdf(getattr(B, family)(*params), np.array([np.inf, -np.inf, np.nan, 1.0]))
    np.testing.assert_array_equal(density[:3], [0.0, 0.0, np.nan])
    assert density[3] == (ref.pmf(1.0) if discrete else ref.pdf(1.0))
