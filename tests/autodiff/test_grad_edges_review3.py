"""Edge cases of grad: a mean over no elements."""
import pytest

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_grad_of_the_mean_of_an_empty_tensor_is_empty(run, dtype):
    # the mean of nothing is NaN, and its gradient the empty tensor (torch: tensor([])); it was
    # an InternalError (ZeroDivisionError) from the gradient 1 / 0
    out = run(f'w = param([], dtype = "{dtype}")\n'
              f'm = param(zeros(0, 3), dtype = "{dtype}")\n'
              'g = grad(mean(w), wrt = w)\n'
              'gm = grad(mean(m), wrt = m)\n'
              'print(mean(w), g, size(gm), dtype(g), dtype(gm))')
    assert out == [f"NaN [] [0, 3] {dtype} {dtype}"]
    t = torch.empty(0, requires_grad=True)
    t.mean().backward()
    assert t.grad.shape == (0,)
