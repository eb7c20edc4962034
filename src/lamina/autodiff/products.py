"""Products of tensors of any rank, with their VJPs: matmul (NumPy's, batched over leading axes)
and einsum.

matmul is NumPy's matmul: the last two axes of each operand are matrices, the axes before them
a batch that broadcasts as NumPy broadcasts, aligned from the right (the one place the language
aligns that way: `broadcast.py` keeps its own rule for elementwise operators). A vector operand
is a matrix with one row (on the left) or one column (on the right), that axis dropped from the
result. Each operand's gradient is the product of the output's gradient with the other operand
(transposed), summed over the batch axes that operand was stretched along.

einsum contracts by subscripts ("bij,bjk->bik"). Each pairwise step is one batched matrix
product (bmm.py: BLAS, as torch.einsum uses bmm): the letters both operands keep are the
batch, the letters they share and drop are summed by the product, and a letter only one operand
has and drops is summed first. Three operands or more are contracted pairwise in the order
NumPy's einsum_path (greedy) chooses. Operand i's gradient is the einsum of the output's
gradient with the other operands, back to operand i's letters: broadcast along the letters only
it has, and placed on the diagonal where it repeats a letter ("ii->").

Second order (autodiff/tape.py): when `TAPE.keeping`, each gradient is computed with these same
products on the operands as given (matmul of the output's gradient and the other operand with its
last two axes swapped, summed back with broadcast.sum_to; einsum of the gradient with the other
operands), so it is recorded and can be differentiated again, to any order.
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import LaminaError, describe_shape
from ..values import tensor_dtype, value_of
from .bmm import bmm
from .broadcast import sum_to
from .indexing import reshaped
from .tape import TAPE, record, record1, record2, second_order


# -- matmul ----------------------------------------------------------------------------------
@second_order
def matmul(a, b):
    """NumPy's matmul of two tensors, batched over leading axes, with its VJPs."""
    x, y = value_of(a), value_of(b)
    if type(x) is not np.ndarray or type(y) is not np.ndarray:
        raise LaminaError("ShapeError", f"matmul multiplies tensors, not {_pair(x, y)}; to scale a "
                          f"tensor by a number, write x .* A.")
    X = x if x.ndim > 1 else x.reshape(1, -1)        # a vector on the left is one row
    Y = y if y.ndim > 1 else y.reshape(-1, 1)        # ... on the right one column
    if X.shape[-1] != Y.shape[-2]:
        raise LaminaError("ShapeError", f"matmul needs the inner sizes to agree: {_pair(x, y)} "
                          f"(columns {X.shape[-1]}, rows {Y.shape[-2]}).")
    batch = _batch(X.shape[:-2], Y.shape[:-2], x, y)
    full = batch + (X.shape[-2], Y.shape[-1])        # the result before a vector's axis is dropped
    out = _matmul(X, Y)
    shape = full[:-2] + full[-2:-1] * (x.ndim > 1) + full[-1:] * (y.ndim > 1)   # a vector's axis dropped
    if shape != full:
        out = float(out.reshape(())) if not shape else out.reshape(shape)
    dtype = out.dtype if type(out) is np.ndarray else np.result_type(x, y)

    def vjp_a(g):
        if TAPE.keeping:
            return _kept_sum(matmul(shaped(g, full), swap_last(shaped(b, Y.shape))), X.shape, x.shape)
        G = _grad_array(g, dtype).reshape(full)
        return _shaped(_sum_to(_matmul(G, np.swapaxes(Y, -1, -2)), X.shape), x.shape)

    def vjp_b(g):
        if TAPE.keeping:
            return _kept_sum(matmul(swap_last(shaped(a, X.shape)), shaped(g, full)), Y.shape, y.shape)
        G = _grad_array(g, dtype).reshape(full)
        if Y.ndim == 2 and X.ndim > 2:       # one matrix for the whole batch: one product
            rows = math.prod(X.shape[:-1])
            return _shaped(X.reshape(rows, X.shape[-1]).T @ G.reshape(rows, G.shape[-1]), y.shape)
        return _shaped(_sum_to(_matmul(np.swapaxes(X, -1, -2), G), Y.shape), y.shape)
    return record2(out, a, b, vjp_a, vjp_b)


@second_order
def swap_last(t):
    """A tensor with its last two axes swapped (each matrix of a batch transposed), on the tape."""
    v = value_of(t)
    return record1(np.ascontiguousarray(np.swapaxes(v, -1, -2)), t, lambda g: swap_last(g))


def shaped(t, shape: tuple):
    """`t` (tracked or not) in `shape` on the tape: itself when it has that shape already."""
    return t if np.shape(value_of(t)) == shape else reshaped(t, shape)


def _kept_sum(h, shape: tuple, given: tuple):
    """A batched gradient on the tape summed back to an operand's `shape` (as _sum_to: the
    leading axes it lacked, and the axes where it had 1), then in its `given` shape."""
    extra = np.ndim(value_of(h)) - len(shape)
    return shaped(sum_to(h, (1,) * extra + shape), given)


def _shaped(g: np.ndarray, shape: tuple) -> np.ndarray:
    """A gradient in its operand's shape, reshaped only where it must be (a reshape is a view,
    which grad copies before handing it out)."""
    return g if g.shape == shape else g.reshape(shape)


def _grad_array(g, dtype) -> np.ndarray:
    """An output gradient as an array: a number (the gradient of a number) in the result's
    dtype, as a number adapts to the tensors it meets."""
    return np.asarray(g, dtype=dtype) if type(g) is float else g


def _pair(x, y) -> str:
    return f"{describe_shape(np.shape(x))} and {describe_shape(np.shape(y))}"


def _batch(sx: tuple, sy: tuple, x, y) -> tuple:
    """The broadcast batch shape, NumPy's rule (aligned from the right, 1 stretches)."""
    n = max(len(sx), len(sy))
    sx, sy = (1,) * (n - len(sx)) + sx, (1,) * (n - len(sy)) + sy
    if any(p != q and p != 1 and q != 1 for p, q in zip(sx, sy)):
        raise LaminaError("ShapeError", f"matmul broadcasts the batch axes (all but the last two, "
                          f"aligned from the right as NumPy does), but {_pair(x, y)} have batches "
                          f"{_axes(sx)} and {_axes(sy)}.")
    return tuple(p if q == 1 else q for p, q in zip(sx, sy))     # 1 stretches, to 0 as well


def _axes(shape: tuple) -> str:
    return "x".join(map(str, shape))


def _matmul(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """X @ Y; a batch times one matrix is one matrix product of the batch's rows stacked (a
    single BLAS call instead of one per batch item), two batches of one shape are bmm's."""
    if X.ndim > 2 and Y.ndim == 2 and X.flags.c_contiguous:
        out = np.empty(X.shape[:-1] + Y.shape[-1:], dtype=np.result_type(X, Y))
        rows = math.prod(X.shape[:-1])       # not -1: a reshape cannot infer it beside a 0
        np.matmul(X.reshape(rows, X.shape[-1]), Y, out=out.reshape(rows, Y.shape[-1]))
        return out
    if X.ndim < 3 and Y.ndim < 3:
        return np.matmul(X, Y)
    return bmm(X, Y)


def _sum_to(g: np.ndarray, shape: tuple) -> np.ndarray:
    """A batched gradient summed back to an operand's `shape` (NumPy's broadcasting undone: the
    leading axes it lacked, and the axes where it had 1)."""
    extra = g.ndim - len(shape)
    if extra:
        g = g.sum(axis=tuple(range(extra)))
    axes = tuple(k for k, n in enumerate(shape) if n == 1 and g.shape[k] != 1)
    return g.sum(axis=axes, keepdims=True) if axes else g


# -- einsum ----------------------------------------------------------------------------------
@second_order
def einsum(subscripts: str, operands: list):
    """The einsum of `operands` by `subscripts` (NumPy's notation without '...'), with a VJP
    for each operand."""
    values = [value_of(o) for o in operands]
    inputs, output, size = parse(subscripts, [np.shape(v) for v in values])
    dtype = tensor_dtype(*values)                        # a number adapts to the tensors
    arrays = [np.asarray(v, dtype=dtype) if type(v) is not np.ndarray else v for v in values]
    out = contract(inputs, output, arrays)

    def vjp(i):
        return lambda g: (_operand_grad_kept(i, inputs, output, size, operands, dtype, g) if TAPE.keeping
                          else _operand_grad(i, inputs, output, size, arrays, g))
    return record(float(out) if not output else out, operands, [vjp(i) for i in range(len(operands))])


def parse(subscripts: str, shapes: list) -> tuple[list, str, dict]:
    """(each operand's letters, the output's letters, each letter's size), checked against the
    operands' shapes; NumPy's implicit output (no '->') is the letters used once, sorted."""
    spec = subscripts.replace(" ", "")
    shown = f'einsum("{subscripts}", ...)'
    if "." in spec:
        raise LaminaError("ValueError", f"{shown}: '...' is not supported; name every axis with a letter.")
    bad = sorted({c for c in spec if not (c.isascii() and c.isalpha()) and c not in ",->"})
    if bad or spec.count("->") > 1 or spec.replace("->", "").count("-") or spec.replace("->", "").count(">"):
        raise LaminaError("ValueError", f"{shown}: the subscripts hold letters, commas and at most one "
                          f"'->' (as \"bij,bjk->bik\"){', not ' + repr(bad[0]) if bad else ''}.")
    lhs, arrow, rhs = spec.partition("->")
    inputs = lhs.split(",")
    if len(inputs) != len(shapes):
        raise LaminaError("ValueError", f"{shown} names {len(inputs)} operand{'s' * (len(inputs) != 1)}, "
                          f"but {len(shapes)} {'was' if len(shapes) == 1 else 'were'} given.")
    size, where = {}, {}
    for i, (letters, shape) in enumerate(zip(inputs, shapes)):
        if len(letters) != len(shape):
            raise LaminaError("ShapeError", f"{shown}: operand {i} has {len(letters)} letter"
                              f"{'s' * (len(letters) != 1)} ('{letters}'), but it is "
                              f"{describe_shape(shape)}, of rank {len(shape)}.")
        for c, n in zip(letters, shape):
            if size.setdefault(c, n) != n:
                j, m = where[c]
                raise LaminaError("ShapeError", f"{shown}: letter {c} has two sizes, {m} in operand {j} "
                                  f"('{inputs[j]}', {describe_shape(shapes[j])}) and {n} in operand {i} "
                                  f"('{letters}', {describe_shape(shape)}).")
            where.setdefault(c, (i, n))
    if not arrow:
        rhs = "".join(sorted(c for c in size if lhs.count(c) == 1))
    for c in rhs:
        if c not in size:
            raise LaminaError("ValueError", f"{shown}: the output letter {c} is in no operand's subscripts.")
        if rhs.count(c) > 1:
            raise LaminaError("ValueError", f"{shown}: the output names letter {c} twice.")
    return inputs, rhs, size


def contract(inputs: list, output: str, arrays: list) -> np.ndarray:
    """The einsum of `arrays` (letters `inputs`) to the letters `output`, pairwise by matmul."""
    if len(arrays) == 1:
        out = np.einsum(f"{inputs[0]}->{output}", arrays[0])
        return out.copy() if np.shares_memory(out, arrays[0]) else out
    inputs, arrays = list(inputs), list(arrays)
    if len(arrays) == 2:
        steps = [(0, 1)]
    else:
        spec = ",".join(inputs) + "->" + output
        steps = np.einsum_path(spec, *arrays, optimize="greedy")[0][1:]
    for step in steps:
        picked = sorted(step, reverse=True)
        letters = [inputs.pop(k) for k in picked]
        parts = [arrays.pop(k) for k in picked]
        later = set(output).union(*inputs)
        keep = "".join(c for c in dict.fromkeys("".join(reversed(letters))) if c in later)
        if not inputs:
            keep = output                   # the last step: the output's letters, in its order
        if len(parts) == 2:
            result = _pair_product(letters[1], parts[1], letters[0], parts[0], keep)
        else:
            result = np.einsum(",".join(letters) + "->" + keep, *parts, optimize=True)
        inputs.append(keep)
        arrays.append(result)
    out, letters = arrays[0], inputs[0]
    if letters != output:
        out = np.ascontiguousarray(out.transpose([letters.index(c) for c in output]))
    return out


def _reduced(letters: str, x: np.ndarray, keep: set) -> tuple[str, np.ndarray]:
    """An operand's diagonals taken (a repeated letter) and the letters nobody else needs summed."""
    wanted = "".join(c for c in dict.fromkeys(letters) if c in keep)
    if wanted == letters:
        return letters, x
    return wanted, np.einsum(f"{letters}->{wanted}", x)


def _pair_product(la: str, A: np.ndarray, lb: str, B: np.ndarray, keep: str) -> np.ndarray:
    """The product of two operands to the letters `keep` (in that order), as one batched matmul:
    A arranged batch x left x summed, B batch x summed x right."""
    la, A = _reduced(la, A, set(lb) | set(keep))
    lb, B = _reduced(lb, B, set(la) | set(keep))
    batch = [c for c in keep if c in la and c in lb]
    left = [c for c in keep if c in la and c not in lb]
    right = [c for c in keep if c in lb and c not in la]
    summed = [c for c in la if c in lb and c not in keep]
    if batch + right + left == list(keep) and batch + left + right != list(keep):
        la, A, lb, B, left, right = lb, B, la, A, right, left     # the product comes out in order
    size = dict(zip(la, A.shape)) | dict(zip(lb, B.shape))
    nb, nl, nr, ns = (math.prod(size[c] for c in part) for part in (batch, left, right, summed))
    A3 = A.transpose([la.index(c) for c in batch + left + summed]).reshape(nb, nl, ns)
    B3 = B.transpose([lb.index(c) for c in batch + summed + right]).reshape(nb, ns, nr)
    C = bmm(A3, B3, tuple(size[c] for c in batch + left + right))
    order = batch + left + right
    if order != list(keep):
        C = np.ascontiguousarray(C.transpose([order.index(c) for c in keep]))
    return C


def _operand_grad(i: int, inputs: list, output: str, size: dict, arrays: list, g):
    """The gradient for operand i: the einsum of `g` with the other operands, back to its letters."""
    letters = inputs[i]
    own = "".join(dict.fromkeys(letters))               # its letters, each once
    others = inputs[:i] + inputs[i + 1:] + [output]
    present = set("".join(others))
    reached = "".join(c for c in own if c in present)
    dtype = np.result_type(*arrays)
    h = contract(others, reached, arrays[:i] + arrays[i + 1:] + [_grad_array(g, dtype)])
    if reached != own:                                  # letters only operand i has: broadcast
        h = np.broadcast_to(np.reshape(h, [size[c] if c in reached else 1 for c in own]),
                            [size[c] for c in own])
    if own != letters:                                  # a repeated letter: onto the diagonal
        full = np.zeros(arrays[i].shape, dtype=np.result_type(h, arrays[i]))
        np.einsum(f"{letters}->{own}", full)[...] = h   # einsum's diagonal is a writable view
        return full
    if not letters:
        return float(h)
    return np.ascontiguousarray(h)


def _operand_grad_kept(i: int, inputs: list, output: str, size: dict, operands: list, dtype, g):
    """_operand_grad on the tape: the einsum of `g` with the other operands as given; the letters
    only operand i has come from a constant of ones, and a repeated letter's diagonal is placed."""
    letters = inputs[i]
    own = "".join(dict.fromkeys(letters))
    others = inputs[:i] + inputs[i + 1:] + [output]
    factors = operands[:i] + operands[i + 1:] + [g]
    present = set("".join(others))
    alone = "".join(c for c in own if c not in present)
    if alone:
        others.append(alone)
        factors.append(np.ones([size[c] for c in alone], dtype=dtype))
    h = einsum(",".join(others) + "->" + own, factors)
    if own != letters:
        return on_diagonal(h, letters, own, tuple(size[c] for c in letters))
    return h


@second_order
def on_diagonal(h, letters: str, own: str, shape: tuple):
    """`h` (letters `own`) placed where the letters `letters` repeat one, in zeros of `shape`:
    the gradient of an operand such as "ii" on the tape; its own VJP takes the diagonal again."""
    v = value_of(h)
    full = np.zeros(shape, dtype=np.result_type(v))
    np.einsum(f"{letters}->{own}", full)[...] = v      # einsum's diagonal is a writable view
    return record1(full, h, lambda g: einsum(f"{letters}->{own}", [g]))
