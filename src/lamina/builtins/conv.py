"""Convolution and pooling builtins: conv1d, conv2d, max_pool, avg_pool, global_avg_pool (the
math is in lamina.nn.conv and lamina.nn.pool). Each is a tape op and, given a model spec as its
first argument, the layer of the same name (lamina.models.layers), as dense is."""
from __future__ import annotations

from ..errors import LaminaError
from ..models.layers.avg_pool import avg_pool_layer
from ..models.layers.conv1d import conv1d_layer
from ..models.layers.conv2d import conv2d_layer
from ..models.layers.global_avg_pool import global_avg_pool_layer
from ..models.layers.max_pool import max_pool_layer
from ..nn import pool
from ..nn.conv import conv
from ..values import LibObject
from .registry import Const, GradCase, Shape, builtin

CATEGORY = "Neural nets"
LAYOUT = ("Layout as Keras's: batch first and channels last (n x length x c for 1-D, n x h x w x c "
          "for 2-D; PyTorch's is channels first, so its arrays are these permuted).")
PADDING = ("padding = \"valid\" (the default) pads nothing; \"same\" pads as TensorFlow and Keras do, "
           "so that the output has ceil(input / stride) positions: the padding needed, half before "
           "and half after, the odd one after (at the bottom and right); a whole number p pads p on "
           "every side (a pair [ph, pw] for 2-D, one per axis).")
SETTINGS = ("stride, dilation and (for 2-D) the kernel's size and padding are one whole number for "
            "every spatial axis or a pair [for h, for w].")
CONV_NOTES = (
    "Computes y[i, p, o] = b[o] + the sum over kernel offsets k and input channels j of w[k, j, o] * "
    "x[i, p * stride + k * dilation, j] on the padded input: a cross-correlation, as in every deep "
    "learning framework (the kernel is not flipped). " + LAYOUT + " The kernel w is (kernel sizes) x "
    "c_in x c_out, as Keras stores it, and b (optional) a vector of c_out numbers. " + PADDING + " " +
    SETTINGS + " groups = g splits the input channels and the filters into g groups, each "
    "convolved on its own (w is then (kernel sizes) x c_in / g x c_out); groups = c_in is a "
    "depthwise convolution. x may also be one example without the batch axis, or carry several "
    "leading batch axes (Keras's batch_shape).\n\n"
    "It runs as im2col: each kernel offset's window of every output position is gathered into one "
    "matrix (a strided copy per offset), and the output is one matrix product with the kernel (per "
    "group), the bias folded into it as a column of ones. The gradient is two matrix products and "
    "the scatter of the windows back onto x (col2im, a strided add per offset). Equal to PyTorch's "
    "conv1d/conv2d with the arrays permuted (tests/nn/test_conv.py, forward and every gradient to "
    "1e-10).")
LAYER_NOTES = (
    "The layer form {name}(spec, filters, kernel, stride = 1, padding = \"valid\", dilation = 1, "
    "groups = 1, activation = \"none\") appends a convolution layer, as Keras's {keras}: its kernel "
    "starts Glorot-uniform and its bias at zero, in net.weights as {{w, b}}, and its activation is "
    "any of dense's.")
POOL_NOTES = (
    "Pools each channel of each example on its own: 1-D on an n x length x c array, 2-D on an n x h "
    "x w x c array (batch first, channels last, as Keras). The windows are `size` long on each "
    "spatial axis (a number, or a pair [h, w]) and slide by `stride`, by default the size itself, "
    "so that they tile the input. " + PADDING + " A numeric padding may be at most half the window "
    "(as PyTorch asks).")


def _is_spec(x) -> bool:
    return isinstance(x, LibObject) and x.type_name == "model spec"


def _conv(op: str, dims: int, x, second, third, options: dict):
    """The tape op conv{dims}d(x, w, b, ...) or, on a model spec, the layer form (filters, kernel, ...):
    the third positional argument is b in one and the kernel size in the other, so each form names
    its keywords itself."""
    if _is_spec(x):
        for name, value in (("filters", second), ("kernel", third)):
            if value is not None:
                if name in options:
                    raise LaminaError("TypeError", f"The layer {op}(spec, filters, kernel, ...) got {name} twice.")
                options[name] = value
        return (conv1d_layer if dims == 1 else conv2d_layer)(x, **options)
    w = options.pop("w", None) if second is None else second
    b = options.pop("b", None) if third is None else third
    settings = {k: options.pop(k) for k in ("stride", "padding", "dilation", "groups") if k in options}
    if options:
        raise LaminaError("TypeError", f"{op}(x, w, b) takes no keyword '{next(iter(options))}'; keywords "
                          f"such as activation belong to the layer form {op}(spec, filters, kernel, ...).")
    if w is None:
        raise LaminaError("TypeError", f"{op}(x, w, b) needs the kernel w.")
    return conv(op, dims, x, w, b, **settings)


def _conv_shapes(op: str, x: str, w: str, out: str, layer_in: str):
    return [Shape(f"{op}(x, w, b)", f"x {x}, w {w}, b vector of c_out", f"{out} array",
                  "The convolution of x with the kernel w, plus b per output channel."),
            Shape(f"{op}(x, w)", f"x {x}, w {w}", f"{out} array", "The same without a bias."),
            Shape(f"{op}(x, w, b, stride = s, padding = \"same\", dilation = d, groups = g)",
                  "the same, settings", f"{out} array", "Strided, padded, dilated or grouped."),
            Shape(f"{op}(spec, filters, kernel, activation = \"relu\")", f"model spec of {layer_in}, "
                  "filters, kernel size", "model spec", "The layer form: appends a convolution layer "
                  "(stride, padding, dilation and groups as keywords too).")]


@builtin("conv1d", pure="a value", any_rank=True, category=CATEGORY,
         shapes=_conv_shapes("conv1d", "n x length x c_in", "k x c_in x c_out", "n x length' x c_out",
                             "sequences"),
         summary="A 1-D convolution over the steps of a batch of sequences (channels last), with a "
                 "bias per output channel; differentiable. Given a model spec, the conv1d layer.",
         examples=["x = reshape([1, 2, 4, 7, 11, 16], 1, 6, 1)   # one sequence of 6 steps, 1 channel\n"
                   "w = reshape([-1, 0, 1], 3, 1, 1)             # 3 taps, 1 channel in, 1 out\n"
                   "y = conv1d(x, w)                             # x[t + 2] - x[t]\n"
                   "print(size(y))\nprint(y[0, :, 0]')\n"
                   "print(size(conv1d(x, w, padding = \"same\")), size(conv1d(x, w, stride = 2)))",
                   "seed(1)\nx = randn(4, 10, 3)                   # 4 sequences, 10 steps, 3 channels\n"
                   "w = param(0.1 * randn(5, 3, 8))\nb = param(zeros(8))\n"
                   "y = relu(conv1d(x, w, b, padding = \"same\"))\nprint(size(y))\n"
                   "g = grad(sum(y), wrt = [w, b])\nprint(size(g[0]), size(g[1]))\ntape_reset()",
                   "net = input(20, 1) |> conv1d(8, 3, activation = \"relu\") |> max_pool(2) |> dense(1)\n"
                   "print(net)"],
         notes=CONV_NOTES + "\n\n" + LAYER_NOTES.format(name="conv1d", keras="Conv1D") + " Its input is "
               "sequences: input(steps, channels), or a conv1d or pooling layer before it.",
         grad=[GradCase(((2, 7, 3), (3, 3, 4), (4,))),
               GradCase(((2, 9, 2), (2, 2, 3)), {"stride": 2.0, "padding": "same", "dilation": 2.0}),
               GradCase(((2, 6, 4), (3, 2, 4), (4,)), {"padding": 1.0, "groups": 2.0}),
               GradCase(((2, 2, 5, 2), (2, 2, 3), (3,)), {"stride": 2.0})])
def conv1d(x, w=None, third=None, /, **options):
    return _conv("conv1d", 1, x, w, third, options)


@builtin("conv2d", pure="a value", any_rank=True, category=CATEGORY,
         shapes=_conv_shapes("conv2d", "n x h x w x c_in", "kh x kw x c_in x c_out", "n x h' x w' x c_out",
                             "images"),
         summary="A 2-D convolution over a batch of images (n x h x w x c, channels last), with a bias "
                 "per output channel; differentiable. Given a model spec, the conv2d layer.",
         examples=["img = reshape([0, 0, 1, 1; 0, 0, 1, 1; 0, 1, 1, 1; 0, 1, 1, 1], 1, 4, 4, 1)   # 1 image, 1 channel\n"
                   "w = reshape([-1, 1], 1, 2, 1, 1)          # a 1 x 2 kernel: right minus left\n"
                   "print(conv2d(img, w)[0, :, :, 0])          # 1 where dark turns light\n"
                   "print(size(conv2d(img, w, padding = \"same\")), size(conv2d(img, w, stride = 2)))",
                   "seed(2)\nx = randn(8, 6, 6, 3)                # 8 images 6 x 6, 3 channels\n"
                   "w = param(0.1 * randn(3, 3, 3, 4))\nb = param(zeros(4))\n"
                   "y = relu(conv2d(x, w, b, padding = \"same\"))\nprint(size(y))\n"
                   "g = grad(mean(y), wrt = w)\nprint(size(g))\ntape_reset()",
                   "seed(3)\nx = randn(2, 5, 5, 4)\n"
                   "depthwise = conv2d(x, randn(3, 3, 1, 4), groups = 4)   # one 3 x 3 filter per channel\n"
                   "print(size(depthwise))",
                   "net = input(8, 8, 1) |> conv2d(16, 3, padding = \"same\", activation = \"relu\") |>\n"
                   "      max_pool(2) |> flatten() |> dense(10, activation = \"softmax\")\nprint(net)"],
         notes=CONV_NOTES + "\n\n" + LAYER_NOTES.format(name="conv2d", keras="Conv2D") + " Its input is "
               "images: input(h, w, channels), or a conv2d or pooling layer before it.",
         grad=[GradCase(((2, 5, 4, 3), (3, 2, 3, 2), (2,))),
               GradCase(((2, 6, 5, 2), (2, 3, 2, 3)), {"stride": Const([2.0, 1.0]), "padding": "same",
                                                       "dilation": Const([1.0, 2.0])}),
               GradCase(((1, 5, 5, 4), (3, 3, 1, 4), (4,)), {"padding": 1.0, "groups": 4.0}),
               GradCase(((4, 4, 2), (2, 2, 2, 3), (3,)), {"stride": 2.0})])
def conv2d(x, w=None, third=None, /, **options):
    return _conv("conv2d", 2, x, w, third, options)


def _pool_shapes(op: str, what: str):
    return [Shape(f"{op}(x, size)", "n x length x c array, window size", "n x length' x c array",
                  f"1-D pooling: the {what} of each window of each channel."),
            Shape(f"{op}(x, size)", "n x h x w x c array, window size", "n x h' x w' x c array",
                  f"2-D pooling: the {what} of each size x size window of each channel."),
            Shape(f"{op}(x, size, stride = s, padding = \"same\")", "the same, settings", "the same",
                  "Windows that overlap or skip (stride), on a padded input."),
            Shape(f"{op}(spec, size)", "model spec, window size", "model spec",
                  f"The layer form: appends a {op} layer (stride and padding as keywords too).")]


def _pool(op: str, fn, x, size, stride, padding, options):
    if _is_spec(x):
        layer = max_pool_layer if op == "max_pool" else avg_pool_layer
        return layer(x, size=size, stride=stride, padding=padding, **options)
    if options:
        raise LaminaError("TypeError", f"{op}(x, size, stride, padding) takes no keyword '{next(iter(options))}'.")
    if size is None:
        raise LaminaError("TypeError", f"{op}(x, size) needs the window's size.")
    return fn(x, size=size, stride=stride, padding=padding)


@builtin("max_pool", pure="a value", any_rank=True, category=CATEGORY,
         shapes=_pool_shapes("max_pool", "largest element"),
         summary="Max pooling: the largest element of each window of each channel, 1-D on n x length "
                 "x c arrays and 2-D on n x h x w x c images; differentiable. Given a model spec, the "
                 "max_pool layer.",
         examples=["img = reshape(range(0, 16), 1, 4, 4, 1)\nprint(img[0, :, :, 0])\n"
                   "print(max_pool(img, 2)[0, :, :, 0])           # each 2 x 2 block's largest\n"
                   "print(size(max_pool(img, 3, stride = 1, padding = \"same\")))",
                   "x = param(reshape([1, 3, 3, 2, 0, 5], 1, 6, 1))    # 1-D: windows of 2 steps\n"
                   "print(max_pool(x, 2)[0, :, 0]')\n"
                   "print(grad(sum(max_pool(x, 3, stride = 1)), wrt = x)[0, :, 0]')   # ties: the first\n"
                   "tape_reset()",
                   "net = input(28, 28, 1) |> conv2d(8, 3, activation = \"relu\") |> max_pool(2) |>\n"
                   "      conv2d(16, 3, activation = \"relu\") |> max_pool(2, stride = 1, padding = \"same\")\n"
                   "print(net)"],
         notes=POOL_NOTES + " The padding is -Inf, never the largest. The gradient of each output "
               "goes to its window's largest element; where several are equal, to the first in "
               "the window (row by row), as PyTorch chooses; a window holding NaN gives NaN, its "
               "gradient to the first NaN. Equal to PyTorch's max_pool1d/max_pool2d (tests/nn/"
               "test_pool.py).\n\nThe layer form max_pool(spec, size, stride, padding) appends a "
               "pooling layer (as Keras's MaxPooling1D and MaxPooling2D) after sequences or images.",
         grad=[GradCase(((2, 6, 3), Const(2.0))), GradCase(((2, 6, 5, 2), Const(2.0))),
               GradCase(((1, 7, 6, 2), Const(3.0)), {"stride": 2.0, "padding": "same"}),
               GradCase(((2, 5, 5, 1), Const([3.0, 2.0])), {"stride": 1.0, "padding": 1.0})])
def max_pool(x, size=None, stride=None, padding="valid", **options):
    return _pool("max_pool", pool.max_pool, x, size=size, stride=stride, padding=padding, options=options)


@builtin("avg_pool", pure="a value", any_rank=True, category=CATEGORY,
         shapes=_pool_shapes("avg_pool", "mean"),
         summary="Average pooling: the mean of each window of each channel, 1-D on n x length x c "
                 "arrays and 2-D on n x h x w x c images; differentiable. Given a model spec, the "
                 "avg_pool layer.",
         examples=["img = reshape(range(0, 16), 1, 4, 4, 1)\n"
                   "print(avg_pool(img, 2)[0, :, :, 0])           # each 2 x 2 block's mean\n"
                   "print(avg_pool(img, 3, stride = 1, padding = \"same\")[0, :, :, 0])",
                   "net = input(100, 2) |> conv1d(8, 5, activation = \"relu\") |> avg_pool(4) |> flatten() |> dense(1)\n"
                   "print(net)"],
         notes=POOL_NOTES + " A window's mean counts only the elements inside the input, never the "
               "padding (as Keras's \"same\" and PyTorch's count_include_pad = false), so edge "
               "windows average fewer numbers. The gradient of each output is shared equally by its "
               "window's elements. Equal to PyTorch's avg_pool1d/avg_pool2d (tests/nn/test_pool.py)."
               "\n\nThe layer form avg_pool(spec, size, stride, padding) appends a pooling layer (as "
               "Keras's AveragePooling1D and AveragePooling2D) after sequences or images.",
         grad=[GradCase(((2, 6, 3), Const(2.0))), GradCase(((2, 4, 6, 2), Const(2.0))),
               GradCase(((1, 5, 6, 2), Const(3.0)), {"stride": 2.0, "padding": "same"}),
               GradCase(((2, 7, 2), Const(3.0)), {"stride": 1.0, "padding": 1.0})])
def avg_pool(x, size=None, stride=None, padding="valid", **options):
    return _pool("avg_pool", pool.avg_pool, x, size=size, stride=stride, padding=padding, options=options)


@builtin("global_avg_pool", pure="a value", any_rank=True, category=CATEGORY,
         shapes=[Shape("global_avg_pool(x)", "n x ... x c array", "n x c matrix",
                       "Each example's mean of each channel over all its spatial axes."),
                 Shape("global_avg_pool(spec)", "model spec", "model spec",
                       "The layer form: appends a global average pooling layer.")],
         summary="Global average pooling: the mean of each channel of each example over all its "
                 "spatial axes, n x h x w x c to n x c; differentiable. Given a model spec, the "
                 "global_avg_pool layer.",
         examples=["img = reshape(range(0, 8), 1, 2, 2, 2)     # 2 x 2 pixels, 2 channels\n"
                   "print(global_avg_pool(img))",
                   "net = input(8, 8, 1) |> conv2d(8, 3, activation = \"relu\") |> global_avg_pool() |>\n"
                   "      dense(10, activation = \"softmax\")\nprint(net)"],
         notes="The mean over every axis between the first (examples) and the last (channels): "
               "n x length x c and n x h x w x c alike give n x c, as Keras's GlobalAveragePooling1D "
               "and 2D (torch's mean over the spatial dimensions). The gradient shares each output's "
               "gradient equally over its channel's positions. The layer form global_avg_pool(spec) "
               "follows sequences or images and gives channels numbers per example, with no weights.",
         grad=[GradCase(((2, 5, 3),)), GradCase(((2, 3, 4, 2),))])
def global_avg_pool(x, **options):
    if _is_spec(x):
        return global_avg_pool_layer(x, **options)
    if options:
        raise LaminaError("TypeError", f"global_avg_pool(x) takes no keyword '{next(iter(options))}'.")
    return pool.global_avg_pool(x)
