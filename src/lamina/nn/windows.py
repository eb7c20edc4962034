"""Sliding windows over the spatial axes of a batch: what convolution and pooling share.

A batch is n x (spatial axes) x c, batch first and channels last as in Keras (n x length x c
for 1-D, n x h x w x c for 2-D). A window has a size, a stride and a dilation per spatial
axis, and the input is padded before the windows slide over it:

    "valid"   no padding: out = floor((in - span) / stride) + 1, span = (size - 1) * dilation + 1
    "same"    TensorFlow's rule: out = ceil(in / stride), padded by
              total = max((out - 1) * stride + span - in, 0), total // 2 before and the rest
              after (so the extra one of an odd total goes at the bottom / right)
    p         p before and after on every spatial axis (a pair: one per axis)

`Windows.view(xp, offset)` is the n x out x c view of the padded input that one kernel
offset reads at every output position (a strided slice, no copy): a convolution gathers one
per offset into its im2col matrix, a pooling reduces over them, and each backward adds
into the same views. Nothing here is differentiated: it only says where windows lie.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from ..errors import LaminaError, describe_shape
from ..values import as_int, describe, format_number, value_of


@dataclass(frozen=True)
class Windows:
    size: tuple[int, ...]           # per spatial axis
    stride: tuple[int, ...]
    dilation: tuple[int, ...]
    pads: tuple[tuple[int, int], ...]   # (before, after) per spatial axis
    out: tuple[int, ...]            # the output's spatial sizes
    unpadded: tuple[int, ...]       # the input's spatial sizes (to crop a padded gradient back)

    @property
    def count(self) -> int:
        """Elements in one window: kernel offsets."""
        return math.prod(self.size)

    def offsets(self):
        """Every kernel offset, row-major (the order of a kernel's elements in its array)."""
        return itertools.product(*(range(k) for k in self.size))

    def padded_shape(self, shape: tuple) -> tuple:
        return (shape[0], *(s + a + b for s, (a, b) in zip(shape[1:-1], self.pads)), shape[-1])

    def pad(self, x: np.ndarray, fill: float = 0.0) -> np.ndarray:
        """x with its spatial axes padded by `fill` (x itself when there is no padding)."""
        if not any(a or b for a, b in self.pads):
            return x
        xp = np.full(self.padded_shape(x.shape), fill, dtype=x.dtype)
        xp[self.inside()] = x
        return xp

    def inside(self) -> tuple:
        """The index of the unpadded input inside a padded array."""
        return (slice(None), *(slice(a, a + n) for (a, _), n in zip(self.pads, self.unpadded)), slice(None))

    def view(self, xp: np.ndarray, offset: tuple) -> np.ndarray:
        """The n x out x c strided view that kernel `offset` reads at every output position."""
        axes = (slice(o * d, o * d + s * (n - 1) + 1, s)
                for o, d, s, n in zip(offset, self.dilation, self.stride, self.out))
        return xp[(slice(None), *axes, slice(None))]


def windows(op: str, shape: tuple, size, stride, padding, dilation=1.0, pool: bool = False,
            shown: str | None = None) -> Windows:
    """The windows of `size` over an input of `shape` (n x spatial x c), each setting a number
    or one per spatial axis; a LaminaError naming `op` for a bad setting or a window larger
    than the padded input (`shown` says what the input is, by default its shape)."""
    dims = len(shape) - 2
    size = per_axis(size, dims, f"{op}'s {'size' if pool else 'kernel size'}", 1)
    stride = per_axis(stride, dims, f"{op}'s stride", 1)
    dilation = per_axis(dilation, dims, f"{op}'s dilation", 1)
    spatial = shape[1:-1]
    span = tuple((k - 1) * d + 1 for k, d in zip(size, dilation))
    pads = _pads(op, padding, dims, spatial, span, stride)
    if pool and any(max(a, b) > k // 2 for (a, b), k in zip(pads, size)):
        raise LaminaError("ValueError", f"{op}'s padding {_text(padding)} is more than half the window "
                          f"{_sizes(size)}: a window could then lie wholly in the padding.")
    padded = tuple(s + a + b for s, (a, b) in zip(spatial, pads))
    if any(p < k for p, k in zip(padded, span)):
        dilated = f" (dilation {_sizes(dilation)} spreads it over {_sizes(span)})" if max(dilation) > 1 else ""
        raise LaminaError("ShapeError", f"{op}'s window {_sizes(size)}{dilated} is larger than its "
                          f"padded input {_sizes(padded)} (input {shown or describe_shape(shape)}, padding "
                          f"{_text(padding)}).")
    out = tuple((p - k) // s + 1 for p, k, s in zip(padded, span, stride))
    return Windows(size, stride, dilation, pads, out, tuple(spatial))


def _pads(op, padding, dims, spatial, span, stride):
    if isinstance(padding, str):
        if padding == "valid":
            return ((0, 0),) * dims
        if padding == "same":
            pads = []
            for n, k, s in zip(spatial, span, stride):
                total = max((-(-n // s) - 1) * s + k - n, 0)
                pads.append((total // 2, total - total // 2))
            return tuple(pads)
        raise LaminaError("ValueError", f"{op}'s padding is \"valid\", \"same\" or a whole number, "
                          f"not \"{padding}\".")
    if value_of(padding) is not padding:
        raise LaminaError("TypeError", f"{op}'s padding is a setting, not a tracked value.")
    return tuple((p, p) for p in per_axis(padding, dims, f"{op}'s padding", 0))


def per_axis(value, dims: int, what: str, minimum: int) -> tuple[int, ...]:
    """A setting given as one whole number for every spatial axis, or as one per axis (a
    vector, a list, or a tuple of Python ints: a kernel's sizes, read off its shape)."""
    if isinstance(value, tuple):
        if len(value) != dims:
            raise LaminaError("ValueError", f"{what} is {_sizes(value)}, for {len(value)} spatial axes, but "
                              f"the input has {dims}.")
        if min(value, default=minimum) < minimum:
            raise LaminaError("ValueError", f"{what} must be at least {minimum}, not {_sizes(value)}.")
        return value
    if isinstance(value, (np.ndarray, list)):
        items = list(np.ravel(value)) if isinstance(value, np.ndarray) else value
        if len(items) != dims or np.ndim(value) != 1:
            many = f" or {dims} of them (one per spatial axis)" if dims > 1 else ""
            raise LaminaError("ValueError", f"{what} is one whole number{many}, not {describe(value)}.")
        return tuple(as_int(v, what, minimum) for v in items)
    return (as_int(value, what, minimum),) * dims


def _sizes(sizes: tuple) -> str:
    return " x ".join(str(k) for k in sizes)


def _text(padding) -> str:
    if isinstance(padding, str):
        return f"\"{padding}\""
    if isinstance(padding, (np.ndarray, list, tuple)):        # a layer keeps its padding as a tuple
        return _sizes(tuple(format_number(float(p)) for p in np.ravel(padding)))
    return format_number(float(padding))
