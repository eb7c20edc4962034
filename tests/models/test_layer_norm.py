"""The layer_norm layer: against NumPy by hand and torch's layer_norm, its fused gradient against
finite differences, its weights and its place in a spec."""
import numpy as np
import pytest

from lamina.autodiff import ops, reductions
from lamina.autodiff.cases import GradCase
from lamina.autodiff.grad import grad
from lamina.autodiff.gradcheck import check
from lamina.autodiff.tape import TAPE
from lamina.errors import LaminaError
from lamina.models.layer import DataShape
from lamina.models.layers.layer_norm import LayerNorm


def forward(x, gain, bias, width=6):
    return LayerNorm().forward(x, [gain, bias], DataShape((width,)), training=False, rng=None)


def test_matches_the_formula_by_hand():
    rng = np.random.default_rng(0)
    x, gain, bias = 3 * rng.standard_normal((4, 6)) + 2, rng.standard_normal((1, 6)), rng.standard_normal((1, 6))
    out = forward(x, gain, bias)
    for i in range(4):
        row = x[i]
        mean = sum(row) / 6
        var = sum((v - mean) ** 2 for v in row) / 6          # biased, as PyTorch
        want = [(v - mean) / np.sqrt(var + 1e-5) * g + b for v, g, b in zip(row, gain[0], bias[0])]
        np.testing.assert_allclose(out[i], want, rtol=1e-12)


def test_rows_come_out_with_mean_0_and_variance_1_at_the_start():
    x = np.random.default_rng(1).standard_normal((5, 6)) * 10
    out = forward(x, *LayerNorm().init(DataShape((6,)), None))
    np.testing.assert_allclose(out.mean(axis=1), 0, atol=1e-12)
    np.testing.assert_allclose(out.var(axis=1), 1, rtol=1e-5)


def test_gradient_matches_finite_differences():
    problems = check("layer_norm_layer", lambda x, g, b: forward(x, g, b),
                     GradCase(((4, 6), (1, 6), (1, 6))))
    assert not problems, problems


def test_against_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(2)
    x, gain, bias, R = (rng.standard_normal((4, 6)), rng.standard_normal((1, 6)), rng.standard_normal((1, 6)),
                        rng.standard_normal((4, 6)))
    xt, gt, bt = (torch.tensor(a, requires_grad=True) for a in (x, gain[0], bias[0]))
    out = torch.nn.functional.layer_norm(xt, (6,), gt, bt, eps=1e-5)
    (out * torch.tensor(R)).sum().backward()
    TAPE.reset()
    leaves = [TAPE.leaf(a, True) for a in (x, gain, bias)]
    mine = forward(*leaves)
    grads = grad(reductions.sum(ops.emul(mine, R)), leaves)
    TAPE.reset()
    np.testing.assert_allclose(mine.value, out.detach().numpy(), rtol=1e-12, atol=1e-14)
    for got, want in zip(grads, (xt.grad, gt.grad, bt.grad)):
        np.testing.assert_allclose(got.reshape(want.shape), want.numpy(), rtol=1e-10, atol=1e-12)


def test_in_a_spec_it_keeps_the_shape_and_has_a_gain_and_a_bias(run):
    lines, interp = run('s = input(4) |> embedding(5, 3) |> layer_norm() |> gru(2) |> dense(1)\n'
                        'net = s |> compile(seed = 1)\nprint(s.layers[1])\nprint(net.weights[1])')
    assert lines == ['{kind="layer_norm"}', "{gain=[1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1;], "
                     "bias=[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0;]}"]     # 1 x 12 rows
    assert interp.get("s").shapes[2] == DataShape((4, 3))


def test_errors(run):
    with pytest.raises(LaminaError) as e:
        run('input(3) |> layer_norm(eps = 0.1)')
    assert e.value.kind == "TypeError" and "eps" in e.value.message
    with pytest.raises(LaminaError) as e:
        run('layer_norm([1, 2, 3])')
    assert e.value.kind == "TypeError" and "model spec" in e.value.message
