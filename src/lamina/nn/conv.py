"""Convolution on the tape (conv1d, conv2d): im2col and one matrix product, with its VJPs beside it.

Layout as Keras's: x is n x (spatial axes) x c_in, batch first and channels last (or one example
without the batch axis, as torch takes one; or several batch axes, Keras's batch_shape), and the
kernel w is (kernel sizes) x (c_in / groups) x c_out; b, if given, is a vector of c_out numbers.
As in every framework, the "convolution" is a cross-correlation (the kernel is not flipped):

    y[i, p, o] = b[o] + sum over offsets k and channels j of group(o) of
                 w[k, j, o] * xpad[i, p * stride + k * dilation, group(o) * c_in/groups + j]

Forward: the windows (nn/windows.py) are gathered into the im2col matrix, one strided copy per
kernel offset, with a column of ones when there is a bias; then y is ONE matrix product per
group, cols (N x K+1) times [w; b] (K+1 x c_out / groups), N = n times the output positions,
K = offsets times c_in / groups. The ones column puts the bias into that product (adding a bias
row to an N x c_out matrix is a slower pass of its own) and its gradient into the product of
the backward: [dw; db] = cols' g. The gradient of x is g [w]' scattered back over the windows
(col2im), one strided add per offset. Groups run as one stacked product (np.matmul over the
leading group axis); groups = c_in with one channel each is a depthwise convolution.

A conv layer's activation is fused into the same tape entry (as the dense layer's): its
forward and slope come from the one activation table.
"""
from __future__ import annotations

import math

import numpy as np

from ..autodiff.bmm import bmm
from ..autodiff.tape import record
from ..errors import LaminaError, describe_shape, shape_str
from ..values import as_int, describe, numeric_or_tracked, tensor_dtype, value_of
from .activation_table import ACTIVATIONS
from .windows import windows

CHUNKS = 8        # blocks of examples in each product (see _rows_times)

# The layout a call expects, by spatial axes (for messages).
X_LAYOUT = {1: "n x length x c_in", 2: "n x h x w x c_in"}
W_LAYOUT = {1: "k x c_in x c_out", 2: "kh x kw x c_in x c_out"}


def conv(op: str, dims: int, x, w, b=None, stride=1.0, padding="valid", dilation=1.0, groups=1.0,
         activation: str = "none"):
    """act(conv(x, w) + b) over `dims` spatial axes, as one tape entry."""
    x = numeric_or_tracked(x, f"{op}'s x")
    w = numeric_or_tracked(w, f"{op}'s w")
    b = None if b is None else numeric_or_tracked(b, f"{op}'s b")
    xv, wv, bv = value_of(x), value_of(w), None if b is None else value_of(b)
    G = as_int(groups, f"{op}'s groups", 1)
    _check(op, dims, xv, wv, bv, G)
    # Batch axes: none (one example) or several (Keras's batch_shape) are made one, and given
    # back to the output (and to x's gradient).
    x_shape = xv.shape
    lead = x_shape[:-(dims + 1)]
    xv = xv.reshape(math.prod(lead), *x_shape[-(dims + 1):])
    win = windows(op, xv.shape, wv.shape[:dims], stride, padding, dilation, shown=describe_shape(x_shape))
    dtype = tensor_dtype(x, w, b)
    xv, wv = xv.astype(dtype, copy=False), wv.astype(dtype, copy=False)
    n, c, o = xv.shape[0], xv.shape[-1], wv.shape[-1]
    cg, og, N = c // G, o // G, n * math.prod(win.out)
    K = win.count * cg
    xp = win.pad(xv)
    cols = _im2col(xp, win, G, cg, bias=bv is not None)                       # G x N x (K + 1)
    wg = _grouped(wv, None if bv is None else np.asarray(bv, dtype=dtype), G)  # G x (K + 1) x og
    C = _chunks(n)
    z = _rows_times(cols, wg, C).transpose(1, 0, 2).reshape(*lead, *win.out, o)
    act = ACTIVATIONS[activation]
    keep_z = z.copy() if act.needs_z else None
    y = act.forward(z)
    memo = {}

    def dz(g):
        """dL/dz as G x N x og, computed once per backward sweep."""
        if memo.get("g") is not g:
            d = act.backward(g, keep_z, y)
            memo.clear()
            memo["g"], memo["dz"] = g, np.ascontiguousarray(np.reshape(d, (N, G, og)).transpose(1, 0, 2))
        return memo["dz"]

    def d_wb(g):
        """[dw; db] = cols' dz, shared by the VJPs of w and b."""
        dz(g)
        if "wb" not in memo:
            memo["wb"] = _rows_inner(cols, memo["dz"], C)
        return memo["wb"]

    def d_x(g):
        dcols = _rows_times(dz(g), wg[:, :K].transpose(0, 2, 1), C).reshape(G, n, *win.out, win.count, cg)
        dxp = np.zeros(xp.shape, dtype=dtype)
        for k, offset in enumerate(win.offsets()):
            view = win.view(dxp, offset)
            if G == 1:
                view += dcols[0, ..., k, :]
            else:
                grouped = view.reshape(*view.shape[:-1], G, cg)
                grouped += np.moveaxis(dcols[..., k, :], 0, -2)
        dx = dxp if dxp.shape == xv.shape else dxp[win.inside()].copy()
        return dx.reshape(x_shape)

    def d_w(g):
        return d_wb(g)[:, :K].reshape(G, win.count, cg, og).transpose(1, 2, 0, 3).reshape(wv.shape)

    def d_b(g):
        return d_wb(g)[:, K].reshape(o)

    return record(y, (x, w, b), (d_x, d_w, d_b))


def _chunks(n: int) -> int:
    """How many chunks of examples the products split their rows into: the largest divisor of n
    up to CHUNKS."""
    return max(k for k in range(1, min(n, CHUNKS) + 1) if n % k == 0) if n else 1


def _rows_times(a: np.ndarray, b: np.ndarray, chunks: int) -> np.ndarray:
    """a (G x N x k) times b (G x k x m), G x N x m: one group is one product, which OpenBLAS
    threads over its N rows itself (32 x 28 x 28 x 1 images by 3 x 3 x 32 kernels: 120 us,
    against 194 us in chunks); several groups are `chunks` products of N / chunks rows each
    (autodiff.bmm runs them on as many threads, OpenBLAS on one thread in each)."""
    G, N, k = a.shape
    m = b.shape[-1]
    if G == 1:
        return np.matmul(a[0], b[0])[None]
    stacked_b = np.broadcast_to(b[:, None], (G, chunks, k, m)).reshape(G * chunks, k, m)
    return bmm(a.reshape(G * chunks, N // chunks, k), stacked_b).reshape(G, N, m)


def _rows_inner(a: np.ndarray, b: np.ndarray, chunks: int) -> np.ndarray:
    """a' b for a (G x N x k) and b (G x N x m), G x k x m: the products of `chunks` blocks of rows,
    added up (one product over all N rows runs OpenBLAS far below its speed when k and m are
    small, and threads it badly)."""
    G, N, k = a.shape
    m = b.shape[-1]
    rows = N // chunks
    parts = bmm(a.reshape(G * chunks, rows, k).transpose(0, 2, 1), b.reshape(G * chunks, rows, m))
    return parts.reshape(G, chunks, k, m).sum(axis=1)


def _check(op: str, dims: int, xv, wv, bv, G: int) -> None:
    if np.ndim(xv) < dims + 1:
        raise LaminaError("ShapeError", f"{op}'s x must be an {X_LAYOUT[dims]} array (a batch, channels "
                          f"last; or one example, {X_LAYOUT[dims][4:]}), not {describe_shape(np.shape(xv))}.")
    if np.ndim(wv) != dims + 2:
        raise LaminaError("ShapeError", f"{op}'s kernel w must be a {W_LAYOUT[dims]} array, not "
                          f"{describe_shape(np.shape(wv))}.")
    c, cw, o = xv.shape[-1], wv.shape[-2], wv.shape[-1]
    if cw * G != c:
        per = f" times groups = {G}" if G > 1 else ""
        raise LaminaError("ShapeError", f"{op}'s kernel w ({shape_str(wv.shape)}) is for {cw} input "
                          f"channel{'s' * (cw != 1)}{per}, but x ({shape_str(xv.shape)}) has {c}.")
    if o % G:
        raise LaminaError("ShapeError", f"{op}'s groups = {G} must divide the kernel's {o} output channels "
                          f"(w is {shape_str(wv.shape)}).")
    if bv is not None and np.shape(bv) != (o,):
        raise LaminaError("ShapeError", f"{op}'s bias b must be a vector of {o} numbers, one per output "
                          f"channel, not {describe(bv)}.")


def _im2col(xp: np.ndarray, win, G: int, cg: int, bias: bool) -> np.ndarray:
    """G x N x (offsets * cg [+ 1]): row p of group g holds the window at output position p, offset
    after offset, cg channels each, then a 1 when there is a bias."""
    n, K = xp.shape[0], win.count * cg
    N = n * math.prod(win.out)
    if G == 1 and cg == 1:
        # One channel (a grey image): each offset's numbers fill a row of cols' transpose, written
        # in one contiguous pass instead of one number in every K + 1; the products read the
        # transpose as they read cols (im2col 64 us against 134 us for 32 x 28 x 28 x 1, 3 x 3).
        rows = np.empty((K + bias, N), dtype=xp.dtype)
        gathered = rows[:K].reshape(K, n, *win.out, 1)
        for k, offset in enumerate(win.offsets()):
            gathered[k] = win.view(xp, offset)
        if bias:
            rows[K] = 1.0
        return rows.T[None]
    cols = np.empty((G, N, K + bias), dtype=xp.dtype)
    # A view of cols as (G x) n x out x offsets x cg; with one group, without the group axis
    # (an assignment through a moved axis of length 1 is half as fast).
    gathered = cols[:, :, :K].reshape(G, n, *win.out, win.count, cg)
    for k, offset in enumerate(win.offsets()):
        view = win.view(xp, offset)
        if G == 1:
            gathered[0, ..., k, :] = view
        else:
            gathered[..., k, :] = np.moveaxis(view.reshape(*view.shape[:-1], G, cg), -2, 0)
    if bias:
        cols[:, :, K] = 1.0
    return cols


def _grouped(wv: np.ndarray, bv, G: int) -> np.ndarray:
    """The kernel as G x (offsets * cg [+ 1]) x og, the bias as the last row of each group."""
    o = wv.shape[-1]
    w2 = wv.reshape(-1, G, o // G).transpose(1, 0, 2)
    return np.ascontiguousarray(w2 if bv is None else np.concatenate([w2, bv.reshape(G, 1, o // G)], axis=1))
