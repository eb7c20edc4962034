"""Hessians by grad's keep, compared with torch.autograd.functional.hessian: the helpers of the
second-order tests in tests/autodiff and tests/nn."""
import numpy as np

from lamina.autodiff import linalg, ops
from lamina.autodiff.grad import grad
from lamina.autodiff.indexing import index
from lamina.autodiff.tape import TAPE
from lamina.values import Tracked

TOL = 1e-10


def leaf(a):
    """A tracked leaf: a Python float for a number, as Lamina's numbers are, else a float64 array."""
    return TAPE.leaf(float(a) if np.ndim(a) == 0 else np.array(a, dtype=float), True)


def hessian(f, arrays):
    """The Hessian blocks H[i][j] (shape arrays[i].shape + arrays[j].shape) of the Lamina function
    f of tracked values, by a kept gradient whose elements are differentiated again."""
    TAPE.reset()
    xs = [leaf(a) for a in arrays]
    grads = grad(f(*xs), xs, keep=True)
    blocks = [[np.zeros(np.shape(a) + np.shape(b)) for b in arrays] for a in arrays]
    for i, (g, a) in enumerate(zip(grads, arrays)):
        for k in np.ndindex(np.shape(a)):
            element = index(g, k) if k else g
            if type(element) is not Tracked:           # a constant gradient: its row is 0
                continue
            for j, row in enumerate(grad(element, xs)):
                blocks[i][j][k] = row
    return blocks


def torch_hessian(torch, f, arrays):
    tensors = tuple(torch.tensor(np.array(a, dtype=float)) for a in arrays)
    return torch.autograd.functional.hessian(f, tensors)


def assert_hessians_equal(ours, theirs, tol=TOL):
    """Every block equal to torch's to `tol` relative to the block's largest element (or 1)."""
    for i, row in enumerate(ours):
        for j, block in enumerate(row):
            expected = theirs[i][j].numpy()
            scale = max(1.0, float(np.abs(expected).max(initial=0.0)))
            np.testing.assert_allclose(block, expected, rtol=0, atol=tol * scale, err_msg=f"block {i}, {j}")


def squares(out, w):
    """sum(out .* out .* w) + sum(out .* w) on the tape: quadratic in an op's output, so its
    Hessian holds the op's own second derivatives and its Jacobian's products."""
    return ops.add(linalg.dot(ops.emul(out, out), w), linalg.dot(out, w))


def torch_squares(out, w):
    return (out * out * w).sum() + (out * w).sum()


def weights(rng, shape: tuple):
    """Random weights of `shape` (a Python float for a number, as Lamina's numbers are)."""
    return rng.standard_normal(shape) if shape else float(rng.standard_normal())
