"""max_pool, avg_pool and global_avg_pool (nn/pool.py): forward and gradient against torch's
max_pool1d/2d and avg_pool1d/2d (float64, to 1e-10) on random shapes, sizes, strides and paddings,
ties sent to the first maximum as torch sends them, NaN; avg_pool's padding left out of the count
as Keras's "same" does; global_avg_pool against NumPy's mean; float32 kept; bad input's messages."""
from __future__ import annotations

import numpy as np
import pytest

from lamina.autodiff import ops, reductions
from lamina.autodiff.grad import grad
from lamina.autodiff.tape import TAPE
from lamina.errors import LaminaError
from lamina.interpreter import Interpreter
from lamina.nn.pool import avg_pool, global_avg_pool, max_pool

torch = pytest.importorskip("torch")
F = torch.nn.functional
TOL = dict(rtol=1e-10, atol=1e-12)


def lamina_value_and_grad(fn, x, g, *args, **settings):
    TAPE.reset()
    leaf = TAPE.leaf(x.copy(), True)
    out = fn(leaf, *args, **settings)
    dx = grad(reductions.sum(ops.emul(out, g)), [leaf])[0]
    TAPE.reset()
    return out.value, dx


def same_pads(sizes, size, stride):
    pads = []
    for n, k, s in zip(sizes, size, stride):
        total = max((int(np.ceil(n / s)) - 1) * s + k - n, 0)
        pads.append((total // 2, total - total // 2))
    return pads


def torch_value_and_grad(kind, x, g, size, stride, padding):
    """torch's pooling, channels first; "same" as an explicit pad (-Inf for max; for the mean, the
    windows' sums over the padded input divided by the count of real elements in each)."""
    dims = x.ndim - 2
    to_first, back = (0, dims + 1, *range(1, dims + 1)), (0, *range(2, dims + 2), 1)
    tx = torch.tensor(x, requires_grad=True)
    xc = tx.permute(to_first)
    max_fn, avg_fn = (F.max_pool1d, F.avg_pool1d) if dims == 1 else (F.max_pool2d, F.avg_pool2d)
    if padding == "same":
        flat = [p for pair in reversed(same_pads(x.shape[1:-1], size, stride)) for p in pair]
        if kind == "max":
            out = max_fn(F.pad(xc, flat, value=-np.inf), size, stride)
        else:
            ones = F.pad(torch.ones_like(xc), flat)
            out = avg_fn(F.pad(xc, flat), size, stride) / avg_fn(ones, size, stride)
    elif kind == "max":
        out = max_fn(xc, size, stride, 0 if padding == "valid" else padding)
    else:
        out = avg_fn(xc, size, stride, 0 if padding == "valid" else padding, count_include_pad=False)
    out = out.permute(back)
    (out * torch.tensor(g)).sum().backward()
    return out.detach().numpy(), tx.grad.numpy()


def random_case(rng, dims):
    size = tuple(int(k) for k in rng.integers(1, 4, dims))
    stride = tuple(int(s) for s in rng.integers(1, 4, dims))
    padding = str(rng.choice(["valid", "same", "number"]))
    if padding == "number":
        padding = tuple(int(rng.integers(0, k // 2 + 1)) for k in size)
    sizes = tuple(int(k + rng.integers(0, 6)) for k in size)
    x = rng.standard_normal((int(rng.integers(1, 4)), *sizes, int(rng.integers(1, 4))))
    if rng.random() < 0.5:
        x = np.round(x)          # many ties
    return x, size, stride, padding


@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("dims", [1, 2])
@pytest.mark.parametrize("seed", range(30))
def test_pooling_equals_torch_value_and_gradient(kind, dims, seed):
    rng = np.random.default_rng(100 * dims + seed + (0 if kind == "max" else 5000))
    x, size, stride, padding = random_case(rng, dims)
    shape = torch_value_and_grad(kind, x, np.zeros(1), size, stride, padding)[0].shape
    g = rng.standard_normal(shape)
    want, want_dx = torch_value_and_grad(kind, x, g, size, stride, padding)
    setting = (lambda v: v[0]) if dims == 1 else (lambda v: np.array(v, dtype=float))
    got, got_dx = lamina_value_and_grad(max_pool if kind == "max" else avg_pool, x, g, setting(size),
                                        setting(stride), padding if padding in ("valid", "same") else setting(padding))
    np.testing.assert_allclose(got, want, **TOL)
    np.testing.assert_allclose(got_dx, want_dx, **TOL)


@pytest.mark.parametrize("shape, size", [((2, 8, 6, 3), 2.0), ((2, 7, 7, 2), 2.0), ((3, 9, 2), 3.0),
                                         ((1, 6, 7, 2), np.array([3.0, 2.0]))])
@pytest.mark.parametrize("relu", [False, True])
def test_windows_that_tile_the_input_equal_torch(shape, size, relu):
    """The tiled path (stride = size, no padding), the rows no window reaches included; after a
    relu most windows tie at 0, and the first zero takes the gradient."""
    rng = np.random.default_rng(len(shape))
    x = rng.standard_normal(shape)
    if relu:
        x = np.maximum(x - 0.5, 0.0)
    sizes = tuple(int(k) for k in np.broadcast_to(size, (len(shape) - 2,)))
    out_shape = torch_value_and_grad("max", x, np.zeros(1), sizes, sizes, 0)[0].shape
    g = rng.standard_normal(out_shape)
    want, want_dx = torch_value_and_grad("max", x, g, sizes, sizes, 0)
    got, got_dx = lamina_value_and_grad(max_pool, x, g, size)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got_dx, want_dx)


def test_ties_send_the_gradient_to_the_first_maximum_and_nan_wins():
    x = np.array([[1.0, 3.0, 3.0, 2.0], [0.0, 3.0, 5.0, 5.0]]).reshape(1, 2, 4, 1)
    out, dx = lamina_value_and_grad(max_pool, x, np.ones((1, 1, 2, 1)), 2.0)
    np.testing.assert_array_equal(out[0, 0, :, 0], [3.0, 5.0])
    np.testing.assert_array_equal(dx[0, :, :, 0], [[0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]])
    x = np.array([1.0, np.nan, 7.0, np.nan]).reshape(1, 4, 1)
    out, dx = lamina_value_and_grad(max_pool, x, np.ones((1, 1, 1)), 4.0)
    assert np.isnan(out[0, 0, 0])
    np.testing.assert_array_equal(dx[0, :, 0], [0.0, 1.0, 0.0, 0.0])


def test_global_avg_pool_is_the_mean_over_the_spatial_axes():
    rng = np.random.default_rng(3)
    for shape in ((3, 7, 2), (2, 4, 5, 3), (2, 2, 3, 4, 2)):
        x = rng.standard_normal(shape)
        g = rng.standard_normal((shape[0], shape[-1]))
        out, dx = lamina_value_and_grad(global_avg_pool, x, g)
        axes = tuple(range(1, len(shape) - 1))
        np.testing.assert_allclose(out, x.mean(axis=axes), **TOL)
        count = np.prod(shape[1:-1])
        np.testing.assert_allclose(dx, np.broadcast_to(np.expand_dims(g, axes) / count, shape), **TOL)


def test_float32_stays_float32():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 6, 6, 3))
    for fn, args in ((max_pool, (2.0,)), (avg_pool, (3.0, 1.0, "same")), (global_avg_pool, ())):
        want, want_dx = lamina_value_and_grad(fn, x, 1.0, *args)
        got, got_dx = lamina_value_and_grad(fn, x.astype(np.float32), 1.0, *args)
        assert got.dtype == np.float32 and got_dx.dtype == np.float32
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(got_dx, want_dx, rtol=1e-5, atol=1e-6)


BAD = [
    ("max_pool(zeros(4, 4), 2)", "ShapeError",
     "max_pool pools an n x length x c array (1-D) or an n x h x w x c array (2-D), batch first and "
     "channels last, not a 4x4 matrix."),
    ("avg_pool(zeros(1, 3, 3, 1), 4)", "ShapeError",
     "avg_pool's window 4 x 4 is larger than its padded input 3 x 3 (input a 1x3x3x1 array, padding \"valid\")."),
    ("max_pool(zeros(1, 6, 1), 2, stride = 0)", "ValueError", "max_pool's stride must be at least 1, not 0."),
    ("max_pool(zeros(1, 6, 1), 0)", "ValueError", "max_pool's size must be at least 1, not 0."),
    ("max_pool(zeros(1, 6, 1), 2, padding = 2)", "ValueError",
     "max_pool's padding 2 is more than half the window 2: a window could then lie wholly in the padding."),
    ("avg_pool(zeros(1, 6, 6, 1), [2, 2, 2])", "ValueError",
     "avg_pool's size is one whole number or 2 of them (one per spatial axis), not a vector of length 3."),
    ("max_pool(zeros(1, 6, 1))", "TypeError", "max_pool(x, size) needs the window's size."),
    ("max_pool(zeros(1, 6, 1), 2, dilation = 2)", "TypeError",
     "max_pool(x, size, stride, padding) takes no keyword 'dilation'."),
    ("global_avg_pool([1, 2; 3, 4])", "ShapeError",
     "global_avg_pool averages over the spatial axes of an n x ... x c array (n x length x c, "
     "n x h x w x c), not a 2x2 matrix."),
]


@pytest.mark.parametrize("code, kind, message", BAD)
def test_bad_input_is_a_clear_error(code, kind, message):
    with pytest.raises(LaminaError) as caught:
        Interpreter().run(code, "<test>")
    assert (caught.value.kind, caught.value.message) == (kind, message)
