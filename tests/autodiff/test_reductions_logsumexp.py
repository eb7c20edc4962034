"""logsumexp (autodiff/reductions.py): log(sum(exp(x))) shifted by the largest element, over
every element or along axes kept with length 1, against SciPy's logsumexp; its gradient, the
softmax, against torch."""
import numpy as np
import pytest
from scipy.special import logsumexp as scipy_logsumexp

from lamina.autodiff import ops, reductions
from lamina.autodiff.grad import grad
from lamina.autodiff.tape import TAPE
from lamina.builtins.registry import load_all
from lamina.errors import LaminaError

LSE = load_all()["logsumexp"].fn
INF = float("inf")


@pytest.mark.parametrize("shape, axis", [((5,), None), ((3, 4), None), ((3, 4), 0), ((3, 4), 1),
                                         ((3, 4), -1), ((2, 3, 4), [0, 2]), ((2, 3, 4), -2),
                                         ((2, 1, 3, 2), [3, 1])])
def test_values_match_scipy_with_the_axes_kept(shape, axis):
    x = np.random.default_rng(len(shape)).standard_normal(shape) * 30.0
    got = LSE(x) if axis is None else LSE(x, axis=[float(a) for a in axis] if isinstance(axis, list) else float(axis))
    want = scipy_logsumexp(x, axis=None if axis is None else tuple(axis) if isinstance(axis, list) else axis,
                           keepdims=axis is not None)
    if axis is None:
        assert type(got) is float and got == pytest.approx(float(want), rel=1e-14)
    else:
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-14)


def test_large_and_small_elements_neither_overflow_nor_underflow():
    assert LSE(np.array([1000.0, 1000.0])) == pytest.approx(1000.0 + np.log(2.0), rel=1e-15)
    assert LSE(np.array([-1000.0, -1000.0])) == pytest.approx(-1000.0 + np.log(2.0), rel=1e-15)
    np.testing.assert_allclose(LSE(np.array([[800.0, 0.0], [-800.0, -801.0]]), axis=1.0),
                               [[800.0], [-800.0 + np.log1p(np.exp(-1.0))]], rtol=1e-15)


@pytest.mark.parametrize("x, want", [(np.zeros(0), -INF), (np.array([-INF, -INF]), -INF),
                                     (np.array([INF, 1.0]), INF), (np.array([1.0, np.nan]), np.nan)])
def test_empty_infinite_and_nan_elements_give_what_scipy_gives(x, want):
    got = LSE(x)
    assert got == want or (np.isnan(want) and np.isnan(got))
    assert np.array_equal(scipy_logsumexp(x), want, equal_nan=True)


def test_a_number_is_its_own_logsumexp_and_float32_stays_float32():
    assert LSE(2.5) == 2.5
    got = LSE(np.ones((2, 3), dtype=np.float32), axis=0.0)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, np.full((1, 3), 1.0 + np.log(2.0)), rtol=1e-6)


def test_the_gradient_is_the_softmax_along_the_axis_as_torch_gives_it():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(9)
    x, w = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 1, 4))
    leaf = TAPE.leaf(x.copy(), True)
    g = grad(reductions.sum(ops.emul(LSE(leaf, axis=1.0), w)), leaf)
    t = torch.tensor(x, requires_grad=True)
    (torch.logsumexp(t, 1, keepdim=True) * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(g, t.grad.numpy(), rtol=1e-13)


def test_a_program_writes_log_softmax_with_it(run):
    assert run("m = [0, 1; 2, 3]\nprint(round(exp(m - logsumexp(m, axis = 1)), 4))") == \
        ["[0.2689, 0.7311; 0.2689, 0.7311]"]


def test_an_axis_the_tensor_lacks_is_named(run):
    with pytest.raises(LaminaError) as info:
        run("logsumexp([1, 2, 3], axis = 2)")
    assert info.value.kind == "ValueError"
    assert info.value.message == "logsumexp of a vector of length 3 takes axis 0 (or -1), not 2."
