"""Gradients of composite computations against PyTorch (skipped when torch is not installed)."""
import numpy as np
import pytest

from lamina.autodiff import functions, ops, reductions
from lamina.autodiff.grad import grad
from lamina.autodiff.tape import TAPE

torch = pytest.importorskip("torch")


def test_mlp_with_row_biases_and_vector_bias_matches_torch(rng):
    X, Y = rng.standard_normal((16, 5)), rng.standard_normal((16, 3))
    W1, b1 = rng.standard_normal((5, 8)), rng.standard_normal((1, 8))
    W2, c = rng.standard_normal((8, 3)), rng.standard_normal(16)       # c: a vector, one per row

    leaves = [TAPE.leaf(v, True) for v in (W1, b1, W2, c)]
    w1, bb1, w2, cc = leaves
    h = functions.maximum(ops.add(ops.mul(X, w1), bb1), 0.0)
    out = ops.add(ops.mul(h, w2), cc)
    loss = reductions.mean(ops.epow(ops.sub(out, Y), 2.0))
    ours = grad(loss, leaves)

    t = [torch.tensor(v, requires_grad=True) for v in (W1, b1, W2, c)]
    th = torch.clamp(torch.tensor(X) @ t[0] + t[1], min=0.0)
    tout = th @ t[2] + t[3][:, None]
    tloss = ((tout - torch.tensor(Y)) ** 2).mean()
    tloss.backward()
    assert loss.value == pytest.approx(tloss.item(), rel=1e-12)
    for g, tt in zip(ours, t):
        np.testing.assert_allclose(g, tt.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_elementwise_chain_matches_torch(rng):
    x = rng.uniform(1.1, 3.0, (4, 3))          # log(x) > 0, so sqrt stays real
    v = rng.standard_normal(4)
    leaf_x, leaf_v = TAPE.leaf(x, True), TAPE.leaf(v, True)
    y = ops.ediv(functions.log(leaf_x), ops.add(functions.exp(leaf_v), 1.0))
    z = ops.mul(functions.sqrt(ops.transpose(y)), ops.neg(leaf_v))      # 3x4 matrix * vector
    loss = reductions.sum(functions.abs(z))
    gx, gv = grad(loss, [leaf_x, leaf_v])

    tx, tv = torch.tensor(x, requires_grad=True), torch.tensor(v, requires_grad=True)
    ty = torch.log(tx) / (torch.exp(tv) + 1.0)[:, None]
    tz = torch.sqrt(ty.T) @ (-tv)
    torch.abs(tz).sum().backward()
    np.testing.assert_allclose(gx, tx.grad.numpy(), rtol=1e-10)
    np.testing.assert_allclose(gv, tv.grad.numpy(), rtol=1e-10)
