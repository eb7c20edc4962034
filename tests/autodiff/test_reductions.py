"""Reductions and their gradients: the mean over no elements, and max, min, clamp and
mean(skipnan = true) at NaN against torch."""
import numpy as np
import pytest

import lamina.builtins.mathfns as M
from lamina.autodiff.grad import grad
from lamina.autodiff.tape import TAPE

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_grad_of_the_mean_of_an_empty_tensor_is_empty(run, dtype):
    # the mean of nothing is NaN, and its gradient the empty tensor (torch: tensor([])); it was
    # an InternalError (ZeroDivisionError) from the gradient 1 / 0
    out = run(f'w = param([], dtype = "{dtype}")\n'
              f'm = param(zeros(0, 3), dtype = "{dtype}")\n'
              'g = grad(mean(w), wrt = w)\n'
              'gm = grad(mean(m), wrt = m)\n'
              'print(mean(w), g, size(gm), dtype(g), dtype(gm))')
    assert out == [f"NaN [] [0, 3] {dtype} {dtype}"]
    t = torch.empty(0, requires_grad=True)
    t.mean().backward()
    assert t.grad.shape == (0,)


NAN = np.nan
A = np.array([NAN, 1.0, 2.0, 3.0, NAN, -1.0])
B = np.array([1.0, NAN, 0.5, 4.0, NAN, np.inf])


@pytest.fixture(autouse=True)
def fresh_tape():
    TAPE.reset()
    yield
    TAPE.reset()


def leaf(x):
    return TAPE.leaf(x, True)


@pytest.mark.parametrize("ours, theirs", [(M.max_, torch.maximum), (M.min_, torch.minimum)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_two_operand_max_min_pass_the_gradient_to_both_operands_at_a_nan_as_torch(ours, theirs, dtype):
    a, b = leaf(A.astype(dtype)), leaf(B.astype(dtype))
    ga, gb = grad(M.sum_(ours(a, b)), [a, b])
    ta, tb = torch.tensor(A.astype(dtype), requires_grad=True), torch.tensor(B.astype(dtype), requires_grad=True)
    theirs(ta, tb).sum().backward()
    # no ties here, so torch's halves on ties do not enter
    np.testing.assert_array_equal(ga, ta.grad.numpy())
    np.testing.assert_array_equal(gb, tb.grad.numpy())
    assert ga.dtype == dtype and gb.dtype == dtype


def test_max_of_a_matrix_and_a_nan_row_broadcasts_the_gradient_back():
    m, row = leaf(np.array([[1.0, 5.0], [3.0, 2.0]])), leaf(np.array([[NAN, 2.5]]))
    gm, grow = grad(M.sum_(M.max_(m, row)), [m, row])
    np.testing.assert_array_equal(gm, [[1.0, 1.0], [1.0, 0.0]])
    np.testing.assert_array_equal(grow, [[2.0, 1.0]])


def test_scalar_and_tensor_max_agree_at_a_nan():
    s, t = leaf(NAN), leaf(1.0)
    assert grad(M.max_(s, t), [s, t]) == [1.0, 1.0]
    v, w = leaf(np.array([NAN])), leaf(np.array([1.0]))
    gv, gw = grad(M.sum_(M.max_(v, w)), [v, w])
    assert gv.tolist() == [1.0] and gw.tolist() == [1.0]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_clamp_passes_no_gradient_at_a_nan_number_or_element_as_torch_clamp(dtype):
    x, lo, hi = leaf(NAN), leaf(0.0), leaf(1.0)
    assert grad(M.clamp(x, lo, hi), [x, lo, hi]) == [0.0, 0.0, 0.0]
    x0 = np.array([NAN, 0.5, -3.0, 3.0], dtype=dtype)
    x, lo, hi = leaf(x0), leaf(np.zeros(4, dtype=dtype)), leaf(np.ones(4, dtype=dtype))
    gx, glo, ghi = grad(M.sum_(M.clamp(x, lo, hi)), [x, lo, hi])
    tx = torch.tensor(x0, requires_grad=True)
    tlo, thi = torch.zeros(4, dtype=tx.dtype, requires_grad=True), torch.ones(4, dtype=tx.dtype, requires_grad=True)
    torch.clamp(tx, tlo, thi).sum().backward()
    np.testing.assert_array_equal(gx, tx.grad.numpy())
    np.testing.assert_array_equal(glo, tlo.grad.numpy())
    np.testing.assert_array_equal(ghi, thi.grad.numpy())


def test_mean_skipnan_gives_a_slice_of_nans_only_no_gradient():
    m = leaf(np.array([[NAN, NAN], [1.0, 2.0]]))
    loss = M.sum_(M.mean(m, axis=1, skipnan=True), skipnan=True)
    assert loss.value == 1.5
    np.testing.assert_array_equal(grad(loss, [m])[0], [[0.0, 0.0], [0.5, 0.5]])
    v = leaf(np.array([NAN, NAN], dtype=np.float32))
    g = grad(M.mean(v, skipnan=True), [v])[0]
    assert g.dtype == np.float32 and g.tolist() == [0.0, 0.0]


@pytest.mark.parametrize("fn, value", [(M.sum_, 0.0), (M.prod, 1.0), (M.mean, NAN), (M.max_, NAN), (M.min_, NAN)])
def test_skipnan_leaves_a_nan_number_out_of_the_gradient_as_a_nan_element(fn, value):
    p, v = leaf(NAN), leaf(np.array([NAN]))
    out = fn(p, skipnan=True)
    np.testing.assert_array_equal(out.value, value)
    assert grad(out, [p]) == [0.0]
    assert grad(fn(v, skipnan=True), [v])[0].tolist() == [0.0]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_skipnan_max_min_give_the_gradient_to_an_infinity_not_to_a_nan_before_it(dtype):
    v = leaf(np.array([NAN, -np.inf, -np.inf], dtype=dtype))
    out = M.max_(v, skipnan=True)
    assert out.value == -np.inf and grad(out, [v])[0].tolist() == [0.0, 1.0, 0.0]
    w = leaf(np.array([NAN, np.inf], dtype=dtype))
    out = M.min_(w, skipnan=True)
    assert out.value == np.inf and grad(out, [w])[0].tolist() == [0.0, 1.0]
    m = leaf(np.array([[NAN, 1.0], [-np.inf, NAN]], dtype=dtype))
    out = M.max_(m, axis=0, skipnan=True)
    np.testing.assert_array_equal(out.value, [[-np.inf, 1.0]])
    np.testing.assert_array_equal(grad(M.sum_(out), [m])[0], [[0.0, 1.0], [1.0, 0.0]])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_gradient_of_a_sum_of_products_is_the_other_factor_and_owns_its_memory(dtype):
    # sum's gradient is a broadcast view of ones and .*'s VJP hands on the other factor itself
    # for it: what grad returns must still be an array of its own, equal to that factor
    from lamina.autodiff import ops, reductions
    rng = np.random.default_rng(3)
    a = TAPE.leaf(rng.standard_normal((4, 5)).astype(dtype), False)
    r = rng.standard_normal((4, 5)).astype(dtype)
    g, = grad(reductions.sum(ops.emul(a, r)), [a])
    assert g.dtype == dtype and np.array_equal(g, r)
    assert not np.shares_memory(g, r) and g.flags.writeable
    twice, = grad(reductions.sum(ops.add(ops.emul(a, r), ops.emul(r, a))), [a])
    assert np.array_equal(twice, 2 * r) and not np.shares_memory(twice, r)
