"""stats/moments.py: var, std, zscore, cov and corr of tiny and huge data, their gradients
against torch, and corr's symmetry."""
import statistics

import numpy as np
import pytest
import scipy.stats

from lamina.builtins.registry import spec_of


def test_std_and_zscore_of_tiny_data_do_not_underflow(lam):
    # the squared deviations (1e-400) underflowed to 0: std was 0 and zscore [-Inf, -Inf, Inf]
    assert lam.run("print(std([1e-200, 2e-200, 3e-200]), zscore([1e-200, 2e-200, 3e-200]))") == \
        ["1e-200 [-1, 0, 1]"]
    assert statistics.stdev([1e-200, 2e-200, 3e-200]) == 1e-200
    m = np.array([[1e-200, 5.0], [2e-200, 6.0], [4e-200, 9.0]])
    got = lam.eval("std(m, axis = 0)", m=m)
    np.testing.assert_allclose(got, [[statistics.stdev(m[:, j].tolist()) for j in (0, 1)]], rtol=1e-15)
    assert lam.eval("var([1e-160, 3e-160])") == statistics.variance([1e-160, 3e-160]) == 2e-320


def test_std_and_var_of_huge_data_do_not_overflow(lam):
    # the squares overflowed to Inf though the spread itself is a finite number
    assert lam.run("print(std([1e200, -2e200, 4e200], ddof = 0))") == ["2.449489742783178e+200"]
    assert statistics.pstdev([1e200, -2e200, 4e200]) == 2.449489742783178e+200
    x = np.array([1e153 * (1 + i % 7) for i in range(1000)])
    np.testing.assert_allclose(lam.eval("var(x)", x=x), statistics.variance(x.tolist()), rtol=1e-14)
    np.testing.assert_allclose(lam.eval("std(x)", x=x), statistics.stdev(x.tolist()), rtol=1e-14)
    z = lam.eval("zscore([1e200, -2e200, 4e200] * 1e100, ddof = 0)")     # was [0, 0, 0]
    np.testing.assert_allclose(z, scipy.stats.zscore([1.0, -2.0, 4.0]), rtol=1e-15, atol=1e-300)


def test_std_and_var_of_all_of_ordinary_data_are_numpys_to_the_bit():
    # whole data takes its own path (one array for quotient, deviations and squares); the unit
    # is a power of 2, so on data whose squares stay normal numbers the bits are NumPy's own
    from lamina.stats.moments import std, var
    rng = np.random.default_rng(3)
    for shape, scale, dtype in [((100_000,), 1.0, np.float64), ((1000,), 3e-80, np.float64),
                                ((250, 4), 7e90, np.float64), ((999,), 12.5, np.float32),
                                ((30, 7), 1e-3, np.float32)]:
        a = (rng.standard_normal(shape) * scale + scale / 3).astype(dtype)
        for x in (a, a.T, a[::3]):
            for d in (0, 1):
                assert var(x, ddof=d) == float(np.var(x, ddof=d))
                assert std(x, ddof=d) == float(np.std(x, ddof=d))


def test_std_and_var_of_data_with_inf_or_nan_are_nan_and_all_zeros_zero(lam):
    assert lam.run("print(std([1, Inf, 2]), var([NaN, 1]), std([-Inf, 1]), std([0, 0, 0]), "
                   "var(zeros(2, 2)))") == ["NaN NaN NaN 0 0"]


def test_std_and_zscore_gradients_of_tiny_data_match_torch(lam):
    torch = pytest.importorskip("torch")
    # std's gradient was 0 (its value was), zscore's NaN; torch on x * 1e200 scales them exactly
    x = np.array([1e-200, 2e-200, 4e-200])
    t = torch.tensor(x * 1e200, dtype=torch.float64, requires_grad=True)
    t.std().backward()
    u = torch.tensor(x * 1e200, dtype=torch.float64, requires_grad=True)
    ((u - u.mean()) / u.std() * torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)).sum().backward()
    lam.run("w = param(x)\ng = grad(std(w), wrt = w)\nz = grad(sum(zscore(w) .* [1, 2, 3]), wrt = w)", x=x)
    np.testing.assert_allclose(lam.interp.get("g"), t.grad.numpy(), rtol=1e-12)     # std(c x) = c std(x)
    np.testing.assert_allclose(lam.interp.get("z"), u.grad.numpy() * 1e200, rtol=1e-12)


def test_std_of_constant_data_passes_a_zero_gradient(lam):
    torch = pytest.importorskip("torch")
    m = torch.tensor([[1.0, 2.0], [3.0, 3.0]], dtype=torch.float64, requires_grad=True)
    m.std(dim=1).sum().backward()
    z = torch.tensor([2.0, 2.0], dtype=torch.float64, requires_grad=True)
    z.std().backward()
    out = lam.run("z = param([2.0, 2.0])\nprint(grad(std(z), wrt = z))\n"
                  "m = param([1, 2; 3, 3])\nprint(grad(sum(std(m, axis = 1)), wrt = m))")
    assert out == ["[0, 0]", "[-0.7071067811865475, 0.7071067811865475; 0, 0]"]
    assert z.grad.tolist() == [0.0, 0.0]
    np.testing.assert_allclose(m.grad.numpy(), [[-0.7071067811865475, 0.7071067811865475], [0, 0]], rtol=1e-15)


def test_std_help_states_the_zero_gradient_at_zero_spread():
    notes = spec_of("std").notes
    assert "0 where std is 0" in notes and "NaN where std is 0" not in notes


def test_corr_matrix_is_symmetric(lam):
    # np.corrcoef's rounding gave c[0, 1] = 0.9647638212377321 but c[1, 0] = ...322
    x = [1.0, 2, 3, 4]
    y = [2.0, 4, 5, 9]
    assert lam.run("c = corr([1, 2, 5; 2, 4, 5; 3, 5, 5; 4, 9, 5])\nprint(c[0, 1] == c[1, 0], c[0, 1])") == \
        ["true 0.9647638212377321"]
    np.testing.assert_allclose(lam.eval("corr([1, 2; 2, 4; 3, 5; 4, 9])[1, 0]"),
                               statistics.correlation(x, y), rtol=1e-15)


def test_corr_gradient_ignores_a_constant_or_nan_column_the_loss_does_not_use(lam):
    torch = pytest.importorskip("torch")
    # a constant (or NaN) third column made the gradient of corr(W)[0, 1] NaN everywhere
    w = np.array([[1.0, 2, 5], [2, 4, 5], [3, 5, 5], [4, 9, 5]])
    t = torch.tensor(w[:, :2], dtype=torch.float64, requires_grad=True)
    torch.corrcoef(t.T)[0, 1].backward()
    expected = np.hstack([t.grad.numpy(), np.zeros((4, 1))])
    for third in ("5", "0 / 0"):
        lam.run(f"w = param([1, 2, 5; 2, 4, {third}; 3, 5, 5; 4, 9, 5])\n"
                "g = grad(corr(w)[0, 1], wrt = w)\nh = grad(corr(w)[0, 2], wrt = w)")
        np.testing.assert_allclose(lam.interp.get("g"), expected, rtol=1e-12, atol=1e-15)
        h = lam.interp.get("h")          # a result that is NaN passes NaN to the columns it involves
        assert np.isnan(h[:, [0, 2]]).all() and (h[:, 1] == 0).all()


def test_cov_gradient_ignores_a_nan_or_inf_column_the_loss_does_not_use(lam):
    torch = pytest.importorskip("torch")
    # a NaN in the third column made the gradient of cov(W)[0, 1] NaN everywhere
    t = torch.tensor([[1.0, 2], [2, 4], [3, 5], [4, 9]], dtype=torch.float64, requires_grad=True)
    torch.cov(t.T)[0, 1].backward()
    expected = np.hstack([t.grad.numpy(), np.zeros((4, 1))])
    for third in ("0 / 0", "1 / 0"):
        lam.run(f"w = param([1, 2, 5; 2, 4, {third}; 3, 5, 5; 4, 9, 5])\n"
                "g = grad(cov(w)[0, 1], wrt = w)\nh = grad(cov(w)[1, 2], wrt = w)")
        np.testing.assert_allclose(lam.interp.get("g"), expected, rtol=1e-14, atol=1e-15)
        h = lam.interp.get("h")
        assert np.isnan(h[:, [1, 2]]).all() and (h[:, 0] == 0).all()


def _awkward_pairs(count: int):
    """Pairs of vectors corr must treat alike on every path: huge and tiny scales, an Inf or a
    NaN, constant and nearly constant data, zeros."""
    rng = np.random.default_rng(7)
    for _ in range(count):
        n = int(rng.integers(2, 30))
        x = rng.standard_normal(n) * 10.0 ** rng.integers(-300, 300)
        y = rng.standard_normal(n) * 10.0 ** rng.integers(-300, 300) + x * rng.random()
        for v in (x, y):
            r = rng.random()
            if r < 0.1:
                v[rng.integers(0, n)] = rng.choice([np.inf, -np.inf, np.nan])
            elif r < 0.2:
                v[:] = v[0]
            elif r < 0.25:
                v[:] = v[0] * (1 + rng.integers(0, 3, n) * 1e-16)
            elif r < 0.3:
                v[:] = 0.0
        yield x, y


def test_corr_of_two_vectors_is_the_matrix_paths_number_to_the_bit():
    # corr(x, y) of two float64 vectors has a path of its own (few NumPy calls); the general
    # path takes the same data as two columns
    from lamina.stats import moments
    for x, y in _awkward_pairs(3000):
        fast, general = moments.corr(x, y), moments.corr(x.reshape(-1, 1), y.reshape(-1, 1))
        assert fast == general or (np.isnan(fast) and np.isnan(general)), (x, y)
