"""Gradients of the statistics and list builtins that used to drop them, against PyTorch.

Each builtin below once returned a plain value from a tracked argument, so grad silently
gave the gradient of everything else (`grad(sum(w) + var(w), wrt = w)` was all ones). Each
loss is sum(f(x) .* R) for a fixed random R, differentiated by Lamina and by torch (float64);
skipped when torch is not installed (tests/builtins/test_tracked_arguments.py and the generic
gradient check cover the same builtins without it).
"""
import numpy as np
import pytest

from lamina.autodiff import ops, reductions
from lamina.autodiff.grad import grad
from lamina.autodiff.tape import TAPE
from lamina.builtins.registry import load_all
from lamina.values import value_of

torch = pytest.importorskip("torch")
B = {name: spec.fn for name, spec in load_all().items()}


def compare(ours, theirs, arrays, **kwargs):
    """Lamina's `ours(*leaves)` against torch's `theirs(*tensors)`: values and gradients."""
    rng = np.random.default_rng(len(arrays) + sum(np.size(a) for a in arrays))
    leaves = [TAPE.leaf(a.copy() if isinstance(a, np.ndarray) else a, True) for a in arrays]
    out = ours(*leaves, **kwargs)
    weights = rng.standard_normal(np.shape(value_of(out)))
    loss = reductions.sum(ops.emul(out, weights if np.ndim(weights) else float(weights)))
    got = grad(loss, leaves)
    tensors = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
    t_out = theirs(*tensors)
    (t_out * torch.tensor(weights)).sum().backward()
    np.testing.assert_allclose(value_of(out), t_out.detach().numpy(), rtol=1e-12, atol=1e-12)
    for g, t in zip(got, tensors):
        assert np.shape(g) == tuple(t.shape)
        np.testing.assert_allclose(g, t.grad.numpy(), rtol=1e-9, atol=1e-12)


X = np.array([1.0, 2.0, 4.0, 3.0, 7.5])
M = np.array([[1.0, 2.5, -1.0], [0.5, 4.0, 2.0], [3.0, -2.0, 0.25], [2.0, 1.0, 5.0]])


def test_the_issue_example_var_in_a_loss():
    w = TAPE.leaf(np.array([1.0, 2.0, 4.0, 3.0]), True)
    ours = grad(ops.add(reductions.sum(w), B["var"](w)), w)
    t = torch.tensor([1.0, 2.0, 4.0, 3.0], dtype=torch.float64, requires_grad=True)
    (t.sum() + t.var()).backward()
    np.testing.assert_allclose(ours, t.grad.numpy(), rtol=1e-13)
    assert not np.allclose(ours, 1.0)        # what the dropped gradient gave


@pytest.mark.parametrize("ddof", [0, 1, 2])
def test_var_and_std_with_ddof_and_axis(ddof):
    compare(lambda x: B["var"](x, ddof=ddof), lambda t: t.var(correction=ddof), [X])
    compare(lambda x: B["std"](x, ddof=ddof), lambda t: t.std(correction=ddof), [X])
    for axis in (0, 1):
        compare(lambda x: B["var"](x, axis=axis, ddof=ddof), lambda t: t.var(dim=axis, correction=ddof, keepdim=True), [M])
        compare(lambda x: B["std"](x, axis=axis, ddof=ddof), lambda t: t.std(dim=axis, correction=ddof, keepdim=True), [M])


def test_var_with_skipnan_leaves_the_nans_out():
    data = np.array([1.0, np.nan, 4.0, 3.0, np.nan, 2.0])
    keep = ~np.isnan(data)
    leaf = TAPE.leaf(data, True)
    g = grad(B["var"](leaf, skipnan=True), leaf)
    t = torch.tensor(data[keep], requires_grad=True)
    t.var().backward()
    np.testing.assert_allclose(g[keep], t.grad.numpy(), rtol=1e-13)
    assert np.all(g[~keep] == 0.0)


def test_cumsum_and_sort_and_order_statistics():
    compare(B["cumsum"], lambda t: torch.cumsum(t, 0), [X])
    compare(lambda x: B["cumsum"](x, axis=1), lambda t: torch.cumsum(t, 1), [M])
    compare(B["cumsum"], lambda t: torch.cumsum(t.reshape(-1), 0), [M])
    compare(B["sort"], lambda t: torch.sort(t).values, [X])
    compare(lambda x: B["sort"](x, descending=True), lambda t: torch.sort(t, descending=True).values, [X])
    compare(lambda x: B["sort"](x, axis=0), lambda t: torch.sort(t, dim=0).values, [M])
    q = torch.tensor([0.1, 0.5, 0.9], dtype=torch.float64)
    compare(lambda x: B["quantile"](x, np.array([0.1, 0.5, 0.9])), lambda t: torch.quantile(t, q), [X])
    compare(lambda x: B["quantile"](x, 0.3, axis=0), lambda t: torch.quantile(t, 0.3, dim=0, keepdim=True), [M])
    compare(lambda x: B["quantile"](x, np.array([0.25, 0.75]), axis=1),
            lambda t: torch.quantile(t, torch.tensor([0.25, 0.75], dtype=torch.float64), dim=1).T, [M])
    compare(B["median"], lambda t: torch.quantile(t, 0.5), [X[:4]])      # even count: two middles
    compare(lambda x: B["median"](x, axis=0), lambda t: torch.quantile(t, 0.5, dim=0, keepdim=True), [M])


def test_zscore_standardize_cov_corr():
    compare(B["zscore"], lambda t: (t - t.mean()) / t.std(), [X])
    compare(lambda x: B["zscore"](x, axis=0, ddof=0),
            lambda t: (t - t.mean(0)) / t.std(0, correction=0), [M])
    compare(B["standardize"], lambda t: (t - t.mean(0)) / t.std(0), [M])
    compare(lambda x, ref: B["standardize"](x, like=ref),
            lambda t, r: (t - r.mean(0)) / r.std(0), [M[:2] * 3.0, M])
    compare(B["cov"], lambda t: torch.cov(t.T), [M])
    compare(lambda a, b: B["cov"](a, b), lambda s, t: torch.cov(torch.stack([s, t]))[0, 1], [X, X ** 2 - X])
    compare(B["corr"], lambda t: torch.corrcoef(t.T), [M])
    compare(lambda a, b: B["corr"](a, b), lambda s, t: torch.corrcoef(torch.stack([s, t]))[0, 1],
            [X, np.sin(X)])


def test_polyval_r2_concat_append():
    def horner(p, x):
        out = torch.zeros_like(x)
        for c in p:
            out = out * x + c
        return out
    compare(B["polyval"], horner, [np.array([0.5, -1.0, 2.0, 3.0]), X])
    compare(lambda t, p: B["r2_score"](t, p),
            lambda t, p: 1 - ((t - p) ** 2).sum() / ((t - t.mean()) ** 2).sum(), [X, X * 0.9 + 0.3])
    compare(B["concat"], lambda a, b: torch.cat([a, b]), [X, X[:2] * 2])
    compare(B["append"], lambda a, b: torch.cat([a, b.reshape(1)]), [X, 2.5])


def test_a_vector_literal_as_wrt_is_the_vector_as_torch_has_it():
    a = TAPE.leaf(1.0, True)
    v = ops.build_vector([a, a])
    loss = reductions.sum(ops.emul(v, np.array([1.0, 10.0])))
    ta = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)
    tv = torch.stack([ta, ta])
    tv.retain_grad()
    (tv * torch.tensor([1.0, 10.0], dtype=torch.float64)).sum().backward()
    np.testing.assert_array_equal(grad(loss, v), tv.grad.numpy())            # [1, 10]
    assert grad(loss, [a]) == [ta.grad.item()]                               # [11]
