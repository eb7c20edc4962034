"""std's gradient where the spread is 0 is 0, as torch's std gives (it was NaN); standardize of
tiny and huge data."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")     # (no wheel for every Python this suite runs on)


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


def test_standardize_of_tiny_and_huge_data_as_of_ordinary(lam):
    # s of 1e-200s underflowed to 0 (taken as 1: [-1e-200; 0; 1e-200]); of 1e200s it was Inf
    assert lam.run("print(standardize([1e-200; 2e-200; 3e-200]), standardize([1e200; -2e200; 4e200]))") == \
        ["[-1; 0; 1] [0; -1; 1]"]
    lam.run("w = param([1e-200, 2e-200, 4e-200])\ng = grad(sum(standardize(w) .* [1, 2, 3]), wrt = w)\n"
            "v = param([1.0, 2.0, 4.0])\nh = grad(sum(standardize(v) .* [1, 2, 3]), wrt = v)")
    g, h = lam.interp.get("g"), lam.interp.get("h")
    x = torch.tensor([1.0, 2.0, 4.0], dtype=torch.float64, requires_grad=True)
    (((x - x.mean()) / x.std()) * torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)).sum().backward()
    np.testing.assert_allclose(h, x.grad.numpy(), rtol=1e-14)
    np.testing.assert_allclose(g * 1e-200, x.grad.numpy(), rtol=1e-13)
