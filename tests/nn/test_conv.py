"""conv1d and conv2d (nn/conv.py, nn/windows.py): forward and every gradient against torch's
conv1d/conv2d (float64, to 1e-10) on random shapes, strides, paddings ("valid", "same" as
TensorFlow pads, numbers, pairs), dilations and groups, the arrays permuted from channels last;
the "same" output size by TensorFlow's rule; a fused activation against the op and relu; float32
kept; one example or several batch axes; each bad input's message; the builtin in a program."""
from __future__ import annotations

import contextlib
import io

import numpy as np
import pytest

from lamina.autodiff import ops, reductions
from lamina.autodiff.grad import grad
from lamina.autodiff.tape import TAPE
from lamina.errors import LaminaError
from lamina.interpreter import Interpreter
from lamina.nn import activations
from lamina.nn.conv import conv
from lamina.nn.windows import windows

torch = pytest.importorskip("torch")
F = torch.nn.functional
TOL = dict(rtol=1e-10, atol=1e-12)


def lamina_value_and_grads(dims, x, w, b, g, **settings):
    """conv's value and the gradients of sum(out .* g) for x, w (and b)."""
    TAPE.reset()
    leaves = [TAPE.leaf(a.copy(), True) for a in (x, w, b) if a is not None]
    out = conv(f"conv{dims}d", dims, *leaves[:2], leaves[2] if b is not None else None, **settings)
    grads = grad(reductions.sum(ops.emul(out, g)), leaves)
    TAPE.reset()
    return out.value, grads


def same_pads(sizes, kernel, stride, dilation):
    """TensorFlow's "same" padding, (before, after) per axis, written out independently."""
    pads = []
    for n, k, s, d in zip(sizes, kernel, stride, dilation):
        out = int(np.ceil(n / s))
        total = max((out - 1) * s + (k - 1) * d + 1 - n, 0)
        pads.append((total // 2, total - total // 2))
    return pads


def torch_value_and_grads(dims, x, w, b, g, stride, padding, dilation, groups):
    """The same through torch, channels first: x n x c x ..., w c_out x c_in/g x ...; "same" as
    an explicit F.pad (torch's own "same" takes no stride)."""
    to_first = (0, dims + 1, *range(1, dims + 1))
    kernel_first = (dims + 1, dims, *range(dims))
    tx = torch.tensor(np.ascontiguousarray(x.transpose(to_first)), requires_grad=True)
    tw = torch.tensor(np.ascontiguousarray(w.transpose(kernel_first)), requires_grad=True)
    tb = None if b is None else torch.tensor(b, requires_grad=True)
    xc, wc = tx, tw
    if padding == "same":
        pads = same_pads(x.shape[1:-1], w.shape[:dims], stride, dilation)
        xc = F.pad(xc, [p for pair in reversed(pads) for p in pair])
        padding = 0
    fn = F.conv1d if dims == 1 else F.conv2d
    out = fn(xc, wc, tb, stride=stride, padding=padding, dilation=dilation, groups=groups)
    out = out.permute(0, *range(2, dims + 2), 1)
    (out * torch.tensor(g)).sum().backward()
    grads = [tx.grad.numpy().transpose(np.argsort(to_first)), tw.grad.numpy().transpose(np.argsort(kernel_first))]
    grads += [] if b is None else [tb.grad.numpy()]
    return out.detach().numpy(), grads


def random_case(rng, dims):
    groups = int(rng.choice([1, 1, 2, 3]))
    c_in, c_out = groups * int(rng.integers(1, 4)), groups * int(rng.integers(1, 4))
    kernel = tuple(int(k) for k in rng.integers(1, 4, dims))
    stride = tuple(int(s) for s in rng.integers(1, 4, dims))
    dilation = tuple(int(d) for d in rng.integers(1, 3, dims))
    padding = rng.choice(["valid", "same", "number", "pair"])
    span = [(k - 1) * d + 1 for k, d in zip(kernel, dilation)]
    sizes = tuple(int(s + rng.integers(0, 6)) for s in span)
    if padding == "number":
        padding = int(rng.integers(0, 3))
    elif padding == "pair":
        padding = tuple(int(p) for p in rng.integers(0, 3, dims))
    x = rng.standard_normal((int(rng.integers(1, 4)), *sizes, c_in))
    w = rng.standard_normal((*kernel, c_in // groups, c_out))
    b = rng.standard_normal(c_out) if rng.random() < 0.7 else None
    return x, w, b, dict(stride=stride, padding=padding, dilation=dilation, groups=groups)


def as_setting(value):
    """A tuple setting as a Lamina program passes it: a vector (numbers stay numbers)."""
    return np.array(value, dtype=float) if isinstance(value, tuple) else value


@pytest.mark.parametrize("dims", [1, 2])
@pytest.mark.parametrize("seed", range(40))
def test_conv_equals_torch_value_and_every_gradient(dims, seed):
    rng = np.random.default_rng(1000 * dims + seed)
    x, w, b, settings = random_case(rng, dims)
    out_shape = torch_value_and_grads(dims, x, w, b, np.zeros(1), **_torch_settings(settings, dims))
    g = rng.standard_normal(out_shape[0].shape)
    want, want_grads = torch_value_and_grads(dims, x, w, b, g, **_torch_settings(settings, dims))
    lamina_settings = {k: as_setting(v) if dims > 1 else (v[0] if isinstance(v, tuple) else v)
                       for k, v in settings.items()}
    got, got_grads = lamina_value_and_grads(dims, x, w, b, g, **lamina_settings)
    np.testing.assert_allclose(got, want, **TOL)
    for have, expected in zip(got_grads, want_grads):
        np.testing.assert_allclose(have, expected, **TOL)


def _torch_settings(settings, dims):
    out = dict(settings)
    padding = out["padding"]
    if isinstance(padding, int):
        out["padding"] = (padding,) * dims
    return out


def test_same_padding_gives_ceil_of_input_over_stride_with_the_odd_one_after():
    # TensorFlow: 7 positions, stride 2 -> 4 outputs; a 4-wide window needs (4 - 1) * 2 + 4 - 7 = 3
    # padding, 1 before and 2 after.
    win = windows("conv1d", (1, 7, 1), (4,), 2.0, "same")
    assert win.out == (4,) and win.pads == ((1, 2),)
    # stride 1: the output keeps the input's size whatever the kernel
    for k in range(1, 6):
        assert windows("conv2d", (1, 5, 6, 1), (k, k), 1.0, "same").out == (5, 6)


def test_a_fused_activation_equals_the_op_then_the_activation():
    rng = np.random.default_rng(5)
    x, w, b = rng.standard_normal((2, 6, 5, 3)), rng.standard_normal((3, 3, 3, 4)), rng.standard_normal(4)
    g = rng.standard_normal((2, 6, 5, 4))
    for act in ("relu", "tanh", "gelu"):
        TAPE.reset()
        leaves = [TAPE.leaf(a.copy(), True) for a in (x, w, b)]
        fused = conv("conv2d", 2, *leaves, padding="same", activation=act)
        want_grads = grad(reductions.sum(ops.emul(fused, g)), leaves)
        TAPE.reset()
        leaves = [TAPE.leaf(a.copy(), True) for a in (x, w, b)]
        apart = getattr(activations, act)(conv("conv2d", 2, *leaves, padding="same"))
        got_grads = grad(reductions.sum(ops.emul(apart, g)), leaves)
        np.testing.assert_allclose(fused.value, apart.value, rtol=1e-13, atol=1e-14)
        for have, want in zip(got_grads, want_grads):
            np.testing.assert_allclose(have, want, rtol=1e-12, atol=1e-13)
    TAPE.reset()


def test_one_example_and_several_batch_axes_give_the_batched_answer():
    rng = np.random.default_rng(6)
    x, w, b = rng.standard_normal((6, 8, 4, 2)), rng.standard_normal((2, 3, 2, 3)), rng.standard_normal(3)
    batched = conv("conv2d", 2, x, w, b, stride=2.0)
    np.testing.assert_array_equal(conv("conv2d", 2, x[4], w, b, stride=2.0), batched[4])
    grouped = conv("conv2d", 2, x.reshape(2, 3, 8, 4, 2), w, b, stride=2.0)
    np.testing.assert_array_equal(grouped, batched.reshape(2, 3, *batched.shape[1:]))
    TAPE.reset()
    leaf = TAPE.leaf(x.reshape(2, 3, 8, 4, 2), True)        # conv1d over axis 3, batch axes 2 x 3 x 8
    y = conv("conv1d", 1, leaf, w[0], b)
    assert y.value.shape == (2, 3, 8, 2, 3)
    gx = grad(reductions.sum(y), [leaf])[0]
    assert gx.shape == (2, 3, 8, 4, 2)
    np.testing.assert_allclose(gx[1, 2, 5], grad_of_one(x[5, 5], w[0], b))   # one sequence, unbatched
    TAPE.reset()


def grad_of_one(x, w, b):
    TAPE.reset()
    leaf = TAPE.leaf(x, True)
    return grad(reductions.sum(conv("conv1d", 1, leaf, w, b)), [leaf])[0]


def test_float32_stays_float32_and_agrees_with_float64():
    rng = np.random.default_rng(7)
    x, w, b = rng.standard_normal((3, 9, 9, 2)), rng.standard_normal((3, 3, 2, 4)), rng.standard_normal(4)
    g = rng.standard_normal((3, 5, 5, 4))
    want, want_grads = lamina_value_and_grads(2, x, w, b, g, stride=2.0, padding=1.0)
    got, got_grads = lamina_value_and_grads(2, *(a.astype(np.float32) for a in (x, w, b)),
                                            g.astype(np.float32), stride=2.0, padding=1.0)
    assert got.dtype == np.float32 and all(d.dtype == np.float32 for d in got_grads)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    for have, expected in zip(got_grads, want_grads):
        np.testing.assert_allclose(have, expected, rtol=1e-4, atol=1e-4)


BAD = [
    ("conv2d(zeros(2, 3), ones(1, 1, 1, 1))", "ShapeError",
     "conv2d's x must be an n x h x w x c_in array (a batch, channels last; or one example, h x w x c_in), "
     "not a 2x3 matrix."),
    ("conv2d(zeros(1, 4, 4, 2), ones(3, 3, 2))", "ShapeError",
     "conv2d's kernel w must be a kh x kw x c_in x c_out array, not a 3x3x2 array."),
    ("conv2d(zeros(1, 4, 4, 3), ones(3, 3, 2, 8))", "ShapeError",
     "conv2d's kernel w (3x3x2x8) is for 2 input channels, but x (1x4x4x3) has 3."),
    ("conv2d(zeros(1, 4, 4, 4), ones(3, 3, 1, 6), groups = 2)", "ShapeError",
     "conv2d's kernel w (3x3x1x6) is for 1 input channel times groups = 2, but x (1x4x4x4) has 4."),
    ("conv2d(zeros(1, 4, 4, 4), ones(3, 3, 2, 3), groups = 2)", "ShapeError",
     "conv2d's groups = 2 must divide the kernel's 3 output channels (w is 3x3x2x3)."),
    ("conv2d(zeros(1, 4, 4, 2), ones(3, 3, 2, 3), [1, 2])", "ShapeError",
     "conv2d's bias b must be a vector of 3 numbers, one per output channel, not a vector of length 2."),
    ("conv2d(zeros(1, 2, 5, 1), ones(3, 3, 1, 1))", "ShapeError",
     "conv2d's window 3 x 3 is larger than its padded input 2 x 5 (input a 1x2x5x1 array, padding \"valid\")."),
    ("conv1d(zeros(1, 5, 1), ones(3, 1, 1), dilation = 3)", "ShapeError",
     "conv1d's window 3 (dilation 3 spreads it over 7) is larger than its padded input 5 (input a 1x5x1 "
     "array, padding \"valid\")."),
    ("conv1d(zeros(1, 5, 1), ones(3, 1, 1), stride = 0)", "ValueError", "conv1d's stride must be at least 1, not 0."),
    ("conv2d(zeros(1, 5, 5, 1), ones(3, 3, 1, 1), stride = [1, 2, 3])", "ValueError",
     "conv2d's stride is one whole number or 2 of them (one per spatial axis), not a vector of length 3."),
    ("conv1d(zeros(1, 5, 1), ones(3, 1, 1), padding = \"full\")", "ValueError",
     "conv1d's padding is \"valid\", \"same\" or a whole number, not \"full\"."),
    ("conv1d(zeros(1, 5, 1), ones(3, 1, 1), padding = -1)", "ValueError",
     "conv1d's padding must be at least 0, not -1."),
    ("conv1d(zeros(1, 5, 1), ones(3, 1, 1), stride = 1.5)", "TypeError",
     "conv1d's stride must be a whole number, not 1.5."),
    ("conv1d(zeros(1, 5, 1), ones(0, 1, 1))", "ValueError", "conv1d's kernel size must be at least 1, not 0."),
    ("conv1d(zeros(1, 5, 1), ones(3, 1, 1), activation = \"relu\")", "TypeError",
     "conv1d(x, w, b) takes no keyword 'activation'; keywords such as activation belong to the layer form "
     "conv1d(spec, filters, kernel, ...)."),
    ("conv1d(zeros(1, 5, 1))", "TypeError", "conv1d(x, w, b) needs the kernel w."),
    ("conv1d(\"text\", ones(3, 1, 1))", "TypeError", "conv1d's x must be a number or tensor, not a string."),
]


@pytest.mark.parametrize("code, kind, message", BAD)
def test_bad_input_is_a_clear_error(code, kind, message):
    with pytest.raises(LaminaError) as caught:
        Interpreter().run(code, "<test>")
    assert (caught.value.kind, caught.value.message) == (kind, message)


def test_the_builtin_in_a_program():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        Interpreter().run(
            "x = reshape([1, 2, 4, 7, 11, 16], 1, 6, 1)\n"
            "y = conv1d(x, reshape([-1, 0, 1], 3, 1, 1), [10])\n"
            "print(y[0, :, 0]')\n"
            "w = param(ones(2, 2, 1, 1))\n"
            "print(grad(sum(conv2d(ones(1, 3, 3, 1), w)), wrt = w)[:, :, 0, 0])\n", "<test>")
    assert out.getvalue() == "[13, 15, 17, 19;]\n[4, 4; 4, 4]\n"
