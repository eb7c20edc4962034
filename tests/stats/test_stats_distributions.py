"""Distributions against scipy.stats, through the builtins and through Lamina's method syntax;
every family of stats/distributions.py's FAMILIES goes through the recipe 'A distribution'."""
import inspect

import numpy as np
import pytest
import scipy.stats as st

from lamina.builtins import distributions as B
from lamina.builtins.random import seed
from lamina.builtins.registry import load_all, spec_of
from lamina.builtins.stats import quantile
from lamina.errors import LaminaError
from lamina.stats.distributions import FAMILIES, make

RECIPE = "docs/ARCHITECTURE.md, recipe 'A distribution'"
# Each family's parameters and SciPy's distribution of the same parameters, written in SciPy's
# own terms (the independent computation); which families there are comes from FAMILIES.
SCIPY = {
    "normal": ((1.5, 2.0), st.norm(1.5, 2.0)),
    "uniform": ((-1.0, 3.0), st.uniform(-1.0, 4.0)),
    "binomial": ((12.0, 0.3), st.binom(12, 0.3)),
    "poisson": ((3.5,), st.poisson(3.5)),
    "exponential": ((0.7,), st.expon(scale=1 / 0.7)),
    "student_t": ((4.5,), st.t(4.5)),
    "chi2": ((3.0,), st.chi2(3.0)),
    "f_dist": ((4.0, 9.0), st.f(4.0, 9.0)),
    "gamma_dist": ((2.5, 0.5), st.gamma(2.5, scale=2.0)),
    "beta_dist": ((2.0, 5.0), st.beta(2.0, 5.0)),
    "weibull": ((1.5, 2.0), st.weibull_min(1.5, scale=2.0)),
    "negative_binomial": ((3.0, 0.4), st.nbinom(3.0, 0.4)),
}


def reference(family):
    assert family in SCIPY, (f"the family {family!r} has no SciPy distribution in SCIPY of "
                             f"tests/stats/test_stats_distributions.py ({RECIPE}, step 4)")
    params, ref = SCIPY[family]
    discrete = isinstance(ref.dist, st.rv_discrete)
    assert FAMILIES[family].discrete == discrete, \
        (f"the family {family!r} says discrete={not discrete}, but SciPy's {ref.dist.name} is "
         f"{'discrete' if discrete else 'continuous'} ({RECIPE}, step 1)")
    return params, ref, discrete


FAMILY_IDS = sorted(FAMILIES)


@pytest.mark.parametrize("family", FAMILY_IDS)
def test_against_scipy(rng, family):
    params, ref, discrete = reference(family)
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


def _per_element(family, params):
    """A distribution whose first parameter is a vector of three (params[0] + 0, 1, 2), and the
    three distributions of numbers it stands for."""
    first = params[0] + np.array([0.0, 1.0, 2.0])
    names = FAMILIES[family].params
    whole = make(family, dict(zip(names, (first,) + params[1:])))
    return whole, [make(family, dict(zip(names, (float(v),) + params[1:]))) for v in first]


@pytest.mark.parametrize("family", FAMILY_IDS)
def test_tensor_parameters_are_one_distribution_per_element(family):
    params, _, _ = reference(family)
    whole, each = _per_element(family, params)
    x = np.array([quantile(d, q) for d, q in zip(each, (0.2, 0.5, 0.7))])
    np.testing.assert_allclose(B.pdf(whole, x), [B.pdf(d, v) for d, v in zip(each, x)], rtol=1e-13)
    np.testing.assert_allclose(B.cdf(whole, x), [B.cdf(d, v) for d, v in zip(each, x)], rtol=1e-13)
    np.testing.assert_allclose(quantile(whole, 0.9), [quantile(d, 0.9) for d in each], rtol=1e-13)
    for field in ("mean", "var"):
        np.testing.assert_allclose(whole.get(field), [d.get(field) for d in each], rtol=1e-13)
    # x a matrix of three rows: the vector of distributions meets it as a column, as operators do
    m = np.column_stack([x, x + 1])
    np.testing.assert_allclose(B.cdf(whole, m)[:, 1], [B.cdf(d, v + 1) for d, v in zip(each, x)], rtol=1e-13)


@pytest.mark.parametrize("family", FAMILY_IDS)
def test_sample_draws_once_from_each_element(family):
    params, ref, _ = reference(family)
    names = FAMILIES[family].params
    n = 20000
    seed(11.0)
    draws = B.sample(make(family, dict(zip(names, (np.full(n, params[0]),) + params[1:]))))
    assert draws.shape == (n,) and draws.dtype == np.float64
    assert abs(draws.mean() - ref.mean()) < 5 * ref.std() / np.sqrt(n)
    assert B.sample(_per_element(family, params)[0]).shape == (3,)


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


@pytest.mark.parametrize("family", FAMILY_IDS)
def test_no_density_at_infinity(family):
    # SciPy's pmf at Inf is NaN (it computes Inf - Inf); every family has no mass out there
    params, ref, discrete = reference(family)
    density = B.pdf(getattr(B, family)(*params), np.array([np.inf, -np.inf, np.nan, 1.0]))
    np.testing.assert_array_equal(density[:3], [0.0, 0.0, np.nan])
    assert density[3] == (ref.pmf(1.0) if discrete else ref.pdf(1.0))


@pytest.mark.parametrize("family", FAMILY_IDS)
def test_every_family_is_a_builtin_taking_its_parameters(family):
    spec, params = spec_of(family), FAMILIES[family].params
    assert spec is not None and spec.fn.__module__ == B.__name__, \
        f"the family {family!r} has no builtin in builtins/distributions.py ({RECIPE}, step 2)"
    defaults = params[len(params) - len(FAMILIES[family].defaults):]
    expected = [(name, None if name in defaults else inspect.Parameter.empty) for name in params]
    got = [(p.name, p.default) for p in inspect.signature(spec.fn).parameters.values()]
    assert got == expected and spec.pure == "a distribution", \
        (f"the builtin {family} must take the family's parameters {', '.join(params)} in order, "
         f"None for those with defaults, and declare pure=\"a distribution\" ({RECIPE}, step 2)")


def test_every_distribution_builtin_has_its_family():
    made = sorted(n for n, s in load_all().items() if s.fn.__module__ == B.__name__ and s.pure == "a distribution")
    orphans = [n for n in made if n not in FAMILIES]
    assert not orphans, \
        f"{', '.join(orphans)}: a builtin that makes a distribution with no family in FAMILIES of stats/distributions.py ({RECIPE}, step 1)"


@pytest.mark.parametrize("family", FAMILY_IDS)
@pytest.mark.parametrize("value", [-1.0, 0.0])
def test_every_family_refuses_parameters_scipy_has_no_distribution_for(family, value):
    given = {name: value for name in FAMILIES[family].params}
    try:
        with np.errstate(all="ignore"):
            invalid = np.isnan(FAMILIES[family].scipy(st, given).cdf(np.array([-0.5, 0.5, 1.5]))).all()
    except ArithmeticError:     # a rate of 0 has no scale 1 / rate
        invalid = True
    if not invalid:
        return
    try:
        make(family, given)
        error = None
    except LaminaError as err:
        error = err
    assert error is not None and error.kind in ("ValueError", "TypeError") and family in error.message, \
        (f"{family}({', '.join(f'{k} = {v:g}' for k, v in given.items())}) has no SciPy distribution, "
         f"but its Family's check lets it through ({RECIPE}, step 1)")
