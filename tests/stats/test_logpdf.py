"""logpdf and logpmf (stats/logdensity.py) for every family of stats/distributions.py's FAMILIES:
values against SciPy's logpdf/logpmf, gradients in the parameters and in x against
torch.distributions' log_prob, Hessians by grad's keep against torch's Hessian of the same
log_prob, and the edges (outside the support, NaN, Inf, float32, tensor and tracked parameters)."""
import math

import numpy as np
import pytest
import scipy.special as sc
import scipy.stats as st
import torch
import torch.distributions as TD

from lamina.autodiff import ops
from lamina.autodiff.broadcast import sum_to
from lamina.autodiff.grad import grad
from lamina.autodiff.indexing import index
from lamina.autodiff.tape import TAPE
from lamina.builtins import distributions as B
from lamina.stats.distributions import FAMILIES, make
from lamina.values import Tracked

# Each family: parameters (in Lamina's names), points inside the support, points outside, SciPy's
# distribution of those parameters, and torch's log_prob of (parameters, x) as tensors.
CASES = {
    "normal": ({"mu": 0.7, "sigma": 1.6}, [-2.5, 0.0, 0.7, 3.1], [],
               st.norm(0.7, 1.6), lambda p, x: TD.Normal(p["mu"], p["sigma"]).log_prob(x)),
    "uniform": ({"low": -1.0, "high": 2.5}, [-0.7, 0.3, 2.4], [-1.5, 2.6],
                st.uniform(-1.0, 3.5), lambda p, x: TD.Uniform(p["low"], p["high"]).log_prob(x)),
    "binomial": ({"n": 7.0, "p": 0.35}, [0.0, 2.0, 5.0, 7.0], [-1.0, 8.0, 2.5],
                 st.binom(7, 0.35), lambda p, x: TD.Binomial(p["n"], probs=p["p"]).log_prob(x)),
    "poisson": ({"rate": 3.2}, [0.0, 1.0, 4.0, 11.0], [-1.0, 0.5],
                st.poisson(3.2), lambda p, x: TD.Poisson(p["rate"]).log_prob(x)),
    "exponential": ({"rate": 0.8}, [0.0, 0.4, 3.5], [-0.1],
                    st.expon(scale=1 / 0.8), lambda p, x: TD.Exponential(p["rate"]).log_prob(x)),
    "student_t": ({"df": 4.5}, [-3.0, -0.2, 0.0, 1.7], [],
                  st.t(4.5), lambda p, x: TD.StudentT(p["df"]).log_prob(x)),
    "chi2": ({"df": 3.4}, [0.3, 1.0, 6.5], [-1.0],
             st.chi2(3.4), lambda p, x: TD.Chi2(p["df"]).log_prob(x)),
    "f_dist": ({"df1": 4.2, "df2": 7.5}, [0.2, 1.0, 3.3], [-0.5],
               st.f(4.2, 7.5), lambda p, x: TD.FisherSnedecor(p["df1"], p["df2"]).log_prob(x)),
    "gamma_dist": ({"shape": 2.6, "rate": 0.7}, [0.1, 1.5, 8.0], [-2.0],
                   st.gamma(2.6, scale=1 / 0.7), lambda p, x: TD.Gamma(p["shape"], p["rate"]).log_prob(x)),
    "beta_dist": ({"a": 2.3, "b": 1.4}, [0.05, 0.5, 0.93], [-0.1, 1.2],
                  st.beta(2.3, 1.4), lambda p, x: TD.Beta(p["a"], p["b"]).log_prob(x)),
    "weibull": ({"shape": 1.7, "scale": 2.2}, [0.2, 1.0, 4.5], [-1.0],
                st.weibull_min(1.7, scale=2.2),
                lambda p, x: TD.Weibull(p["scale"], p["shape"]).log_prob(x)),
    "negative_binomial": ({"size": 2.7, "prob": 0.4}, [0.0, 1.0, 6.0], [-2.0, 1.5],
                          st.nbinom(2.7, 0.4),
                          lambda p, x: TD.NegativeBinomial(p["size"], probs=1 - p["prob"]).log_prob(x)),
}
# The mean form of the negative binomial (R's dnbinom(k, size, mu = m)): torch's probs are mu / (size + mu).
NB_MU = ({"size": 2.7, "mu": 3.1}, [0.0, 1.0, 6.0], st.nbinom(2.7, 2.7 / 5.8),
         lambda p, x: TD.NegativeBinomial(p["size"], probs=p["mu"] / (p["size"] + p["mu"])).log_prob(x))
NOT_DIFFERENTIABLE = {"binomial": ("n",)}          # a number of trials takes no gradient


def test_every_family_is_covered():
    missing = sorted(set(FAMILIES) - set(CASES))
    assert not missing, f"the families {missing} have no case in CASES of tests/stats/test_logpdf.py"


def _scipy_log(ref, x):
    return ref.logpmf(x) if isinstance(ref.dist, st.rv_discrete) else ref.logpdf(x)


@pytest.mark.parametrize("family", sorted(CASES))
def test_values_are_scipys(family):
    params, inside, outside, ref, _ = CASES[family]
    d = make(family, params)
    x = np.array(inside + outside)
    got = B.logpdf(d, x)
    np.testing.assert_allclose(got, _scipy_log(ref, x), rtol=1e-12, atol=0)
    assert np.all(got[len(inside):] == -math.inf)
    for point in inside:                                   # a number gives a number
        value = B.logpdf(d, point)
        assert type(value) is float and value == pytest.approx(_scipy_log(ref, point), rel=1e-12)
    # at +-Inf no density (SciPy gives NaN for some families, and pdf gives 0); NaN stays NaN
    edges = B.logpdf(d, np.array([math.inf, -math.inf, math.nan]))
    assert edges[0] == edges[1] == -math.inf and math.isnan(edges[2])
    np.testing.assert_allclose(np.exp(got), B.pdf(d, x), rtol=1e-12, atol=0)


def test_the_mean_form_of_the_negative_binomial_is_scipys_of_its_prob():
    params, inside, ref, _ = NB_MU
    x = np.array(inside + [2.5, -1.0])
    np.testing.assert_allclose(B.logpmf(make("negative_binomial", params), x), ref.logpmf(x), rtol=1e-12)


def _lamina_gradients(family, params, x, w):
    """The gradient of sum(w .* logpdf) in each parameter (by name) and in x."""
    TAPE.reset()
    tracked = {k: (v if k in NOT_DIFFERENTIABLE.get(family, ()) else TAPE.leaf(v, True)) for k, v in params.items()}
    xt = TAPE.leaf(x.copy(), True)
    out = make(family, tracked).logdensity(xt, "x")
    loss = sum_to(ops.emul(out, w), ())
    wrt = [v for v in tracked.values() if type(v) is Tracked] + [xt]
    grads = grad(loss, wrt)
    names = [k for k, v in tracked.items() if type(v) is Tracked] + ["x"]
    return dict(zip(names, grads))


def _torch_gradients(log_prob, params, x, w, differentiated):
    tp = {k: torch.tensor(v, dtype=torch.float64, requires_grad=k in differentiated) for k, v in params.items()}
    tx = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    loss = (log_prob(tp, tx) * torch.tensor(w)).sum()
    inputs = [tp[k] for k in differentiated] + [tx]
    grads = torch.autograd.grad(loss, inputs, allow_unused=True)
    return dict(zip(list(differentiated) + ["x"], [0.0 if g is None else g.numpy() for g in grads]))


@pytest.mark.parametrize("family", sorted(CASES) + ["negative_binomial (mu)"])
def test_gradients_are_torchs(family, rng):
    if family == "negative_binomial (mu)":
        family, (params, inside, _, log_prob) = "negative_binomial", NB_MU
    else:
        params, inside, _, _, log_prob = CASES[family]
    x = np.array(inside)
    w = rng.uniform(0.5, 1.5, x.size)
    differentiated = [k for k in params if k not in NOT_DIFFERENTIABLE.get(family, ())]
    ours = _lamina_gradients(family, params, x, w)
    theirs = _torch_gradients(log_prob, params, x, w, differentiated)
    for name in differentiated + ["x"]:
        np.testing.assert_allclose(ours[name], theirs[name], rtol=1e-10, atol=1e-12, err_msg=f"{family}: {name}")


# -- second order: torch's Hessian, its lgamma's derivatives taken from SciPy ----------------------
class _Polygamma(torch.autograd.Function):
    """lgamma (order -1), digamma (0), trigamma (1), ...: SciPy's values, each differentiable by the
    next order (torch's own trigamma is good to only about 1e-9, too loose for a 1e-10 check)."""

    @staticmethod
    def forward(ctx, x, order):
        ctx.save_for_backward(x)
        ctx.order = order
        v = x.detach().numpy()
        return torch.from_numpy(np.asarray(sc.gammaln(v) if order < 0 else sc.polygamma(order, v), dtype=np.float64))

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * _Polygamma.apply(x, ctx.order + 1), None


@pytest.fixture
def accurate_lgamma(monkeypatch):
    lgamma = lambda x: _Polygamma.apply(x, -1)          # noqa: E731
    monkeypatch.setattr(torch, "lgamma", lgamma)
    monkeypatch.setattr(torch.Tensor, "lgamma", lgamma)


def _lamina_hessian(family, params, x):
    """The Hessian of sum(logpdf) in (differentiated parameters, then x's elements), by keep."""
    TAPE.reset()
    names = [k for k in params if k not in NOT_DIFFERENTIABLE.get(family, ())]
    leaves = [TAPE.leaf(params[k], True) for k in names] + [TAPE.leaf(x.copy(), True)]
    tracked = dict(params, **dict(zip(names, leaves)))
    loss = sum_to(make(family, tracked).logdensity(leaves[-1], "x"), ())
    grads = grad(loss, leaves, keep=True)
    first = [g for g in grads[:-1]] + [index(grads[-1], (i,)) for i in range(x.size)]
    rows = []
    for element in first:
        if type(element) is not Tracked:         # a gradient that is constant: its row is 0
            rows.append(np.zeros(len(names) + x.size))
            continue
        parts = grad(element, leaves)
        rows.append(np.concatenate([np.atleast_1d(p) for p in parts]))
    return np.array(rows)


def _torch_hessian(log_prob, params, x, names):
    def f(*flat):
        tp = dict(params, **dict(zip(names, flat[:len(names)])))
        tp = {k: v if torch.is_tensor(v) else torch.tensor(v, dtype=torch.float64) for k, v in tp.items()}
        return log_prob(tp, flat[-1]).sum()
    inputs = tuple(torch.tensor(params[k], dtype=torch.float64) for k in names) + (torch.tensor(x),)
    blocks = torch.autograd.functional.hessian(f, inputs)
    return np.block([[np.reshape(b.numpy(), (np.size(inputs[i].numpy()), np.size(inputs[j].numpy())))
                      for j, b in enumerate(row)] for i, row in enumerate(blocks)])


@pytest.mark.parametrize("family", sorted(CASES))
def test_hessians_by_keep_are_torchs(family, accurate_lgamma):
    params, inside, _, _, log_prob = CASES[family]
    x = np.array(inside[1:]) if family in ("exponential",) else np.array(inside)   # exponential's x = 0 is its edge
    names = [k for k in params if k not in NOT_DIFFERENTIABLE.get(family, ())]
    ours = _lamina_hessian(family, params, x)
    theirs = _torch_hessian(log_prob, params, x, names)
    if family == "uniform":             # torch's log_prob takes no gradient in x: its rows are 0
        theirs = np.nan_to_num(theirs)
    scale = max(1.0, np.abs(theirs).max())
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-10 * scale)


def test_a_third_derivative_in_a_gamma_shape_is_minus_polygamma_2():
    TAPE.reset()
    a = TAPE.leaf(2.6, True)
    ll = B.logpdf(B.gamma_dist(a, 0.7), 1.5)
    g1 = grad(ll, a, keep=True)
    g2 = grad(g1, a, keep=True)
    g3 = grad(g2, a)
    assert g1.value == pytest.approx(math.log(0.7 * 1.5) - sc.psi(2.6), rel=1e-13)
    assert g2.value == pytest.approx(-sc.polygamma(1, 2.6), rel=1e-13)
    assert g3 == pytest.approx(-sc.polygamma(2, 2.6), rel=1e-13)


# -- tensor and tracked parameters, and x, broadcast as the operators broadcast ---------------------
def test_tensor_parameters_are_one_distribution_per_element(lam):
    # a regression's log-likelihood: the mean a vector X * b, one normal per observation
    X, y = np.array([[1, 0.5], [1, 1.5], [1, 2.5]]), np.array([1.1, 2.0, 3.2])
    out = lam.run("b = param([0.2, 1.1])\ns = param(0.8)\nll = sum(logpdf(normal(X * b, s), y))\n"
                  "g = grad(ll, wrt = [b, s])\nprint(normal(X * [0.2, 1.1], 1))", X=X, y=y)
    mu = X @ np.array([0.2, 1.1])
    r = (y - mu) / 0.8
    assert lam.interp.get("ll").value == pytest.approx(st.norm(mu, 0.8).logpdf(y).sum(), rel=1e-12)
    gb, gs = lam.interp.get("g")
    np.testing.assert_allclose(gb, X.T @ (r / 0.8), rtol=1e-10)
    assert gs == pytest.approx(np.sum(r ** 2 - 1) / 0.8, rel=1e-10)
    assert out == ["normal(mu=[0.75, 1.85, 2.95], sigma=1)"]


def test_a_vector_of_parameters_meets_a_matrix_of_x_as_a_column():
    rates = np.array([1.0, 2.0, 4.0])
    k = np.array([[0.0, 1.0], [2.0, 3.0], [1.0, 5.0]])
    got = B.logpmf(B.poisson(rates), k)
    np.testing.assert_allclose(got, st.poisson(rates[:, None]).logpmf(k), rtol=1e-12)


def test_float32_stays_float32():
    x = np.array([0.2, 1.0, 2.5], dtype=np.float32)
    for d in (B.normal(0.5, 1.2), B.gamma_dist(2.0, 0.5), B.poisson(2.0), B.uniform(0, 3)):
        out = B.logpdf(d, x)
        assert out.dtype == np.float32
    assert B.logpdf(B.normal(np.array([0.0, 1.0, 2.0], dtype=np.float32), 1), x).dtype == np.float32


def test_outside_the_support_the_gradient_is_zero_not_nan():
    TAPE.reset()
    shape = TAPE.leaf(2.0, True)
    x = TAPE.leaf(np.array([-1.0, 0.5, 2.0]), True)
    out = B.logpdf(B.gamma_dist(shape, 1.0), x)
    gs, gx = grad(sum_to(out, ()), [shape, x])
    assert out.value[0] == -math.inf
    assert gx[0] == 0.0 and np.isfinite(gs)
    assert gs == pytest.approx(np.log(0.5) + np.log(2.0) - 2 * sc.psi(2.0), rel=1e-12)


def test_the_family_form_is_the_distribution_form():
    x = np.array([0.3, 1.2])
    np.testing.assert_array_equal(B.logpdf("gamma_dist", x, 2.0, rate=0.5), B.logpdf(B.gamma_dist(2.0, 0.5), x))
    np.testing.assert_array_equal(B.logpmf("negative_binomial", np.array([1.0, 3.0]), 2.0, mu=3.0),
                                  B.logpmf(B.negative_binomial(2.0, mu=3.0), np.array([1.0, 3.0])))


@pytest.mark.parametrize("source, kind, start", [
    ("logpmf(normal(0, 1), 1)", "TypeError", "logpmf is for the discrete distributions (binomial, poisson, "
                                             "negative_binomial), but normal is continuous"),
    ("logpdf(normal(0, 1), \"a\")", "TypeError", "logpdf's x must be a number or tensor, not a string."),
    ("logpdf(\"norml\", 1)", "ValueError", "logpdf: no distribution family is called \"norml\"; the families are"),
    ("logpdf(normal(0, 1), 1, 2)", "TypeError", "logpdf(d, x) takes its parameters from the distribution d"),
    ("logpdf(\"normal\", 1, 0, 1, 2)", "TypeError", "logpdf(\"normal\", x, ...) takes at most 2 parameters"),
    ("logpdf(\"normal\", 1, scale = 2)", "TypeError", "logpdf(\"normal\", x, ...): normal has no parameter scale"),
    ("logpdf(\"normal\", 1, 0, -1)", "ValueError", "normal: sigma must be greater than 0"),
    ("normal(param(1), 1).cdf(0)", "TypeError", "cdf of normal needs plain numbers as parameters, but mu is tracked"),
    ("normal([1, 2], [1, 2, 3]).pdf(0)", "ShapeError", "pdf of normal: the parameters and x need shapes that "
                                                      "broadcast as the operators broadcast, but got mu: vector "
                                                      "of length 2; sigma: vector of length 3."),
    ("cdf(normal([1, 2], 1), [1, 2, 3])", "ShapeError", "cdf of normal: the parameters and x need shapes"),
    ("sample(poisson([1, 2]), 3)", "TypeError", "sample of poisson(rate=[1, 2]) draws one value for each element "
                                                "of its parameter rate"),
    ("binomial([3, 4], param(0.5)).quantile(0.5)", "TypeError", "quantile of binomial needs plain numbers as "
                                                                "parameters, but p is tracked"),
    ("normal([1, 2], [1, -1])", "ValueError", "normal: sigma must be greater than 0, but got mu = [1, 2], sigma = [1, -1]."),
    ("normal([1, 1 / 0], 1)", "ValueError", "normal's mu must be finite, not [1, Inf]."),
    ("binomial(param(3), 0.5)", "TypeError", "binomial's n is tracked, but a number of trials takes no gradient"),
    ("binomial([3, 2.5], 0.5)", "TypeError", "binomial's n must be whole numbers (at least 0), not [3, 2.5]."),
    ("negative_binomial(2)", "ValueError", "negative_binomial: give prob or mu, one of them"),
    ("negative_binomial(2, 0.5, mu = 3)", "ValueError", "negative_binomial: give prob or mu, one of them"),
    ("negative_binomial(2, 0)", "ValueError", "negative_binomial: prob must lie above 0 up to 1"),
    ("negative_binomial(2, mu = -1)", "ValueError", "negative_binomial: mu must be at least 0"),
])
def test_errors(lam, source, kind, start):
    err = lam.error(source)
    assert err.kind == kind and err.message.startswith(start), err.message
