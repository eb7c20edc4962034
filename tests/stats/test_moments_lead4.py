"""std's gradient where the spread is 0 is 0, as torch's std gives (it was NaN)."""
import numpy as np
import torch


def test_std_of_constant_data_passes_a_zero_gradient(lam):
    m = torch.tensor([[1.0, 2.0], [3.0, 3.0]], dtype=torch.float64, requires_grad=True)
    m.std(dim=1).sum().backward()
    z = torch.tensor([2.0, 2.0], dtype=torch.float64, requires_grad=True)
    z.std().backward()
    out = lam.run("z = param([2.0, 2.0])\nprint(grad(std(z), wrt = z))\n"
                  "m = param([1, 2; 3, 3])\nprint(grad(sum(std(m, axis = 1)), wrt = m))")
    assert out == ["[0, 0]", "[-0.7071067811865475, 0.7071067811865475; 0, 0]"]
    assert z.grad.tolist() == [0.0, 0.0]
    np.testing.assert_allclose(m.grad.numpy(), [[-0.7071067811865475, 0.7071067811865475], [0, 0]], rtol=1e-15)
