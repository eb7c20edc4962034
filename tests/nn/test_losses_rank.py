"""mse, mae and binary_cross_entropy on arrays of rank 3 and 4 (issue 39): the mean over every
element, values and gradients of both arguments against PyTorch in a Lamina program, float32
kept, and a shape mismatch named."""
from __future__ import annotations

import numpy as np
import pytest
from builtin_checks import run_with as run

from lamina.errors import LaminaError

torch = pytest.importorskip("torch")
F = torch.nn.functional

RNG = np.random.default_rng(393)


LOSSES = [   # (Lamina call of p and t, torch of p and t, how to draw p, how to draw t)
    ("mse(p, t)", F.mse_loss, "normal", "normal"),
    ("mae(p, t)", F.l1_loss, "normal", "normal"),
    ("binary_cross_entropy(p, t)", F.binary_cross_entropy, "unit", "unit"),
    ('binary_cross_entropy(p, t, from = "logits")', F.binary_cross_entropy_with_logits, "normal", "labels"),
]


def draw(kind: str, shape: tuple) -> np.ndarray:
    if kind == "normal":
        return RNG.standard_normal(shape)
    if kind == "unit":
        return RNG.uniform(0.05, 0.95, shape)
    return (RNG.random(shape) < 0.5).astype(float)


@pytest.mark.parametrize("shape", [(2, 3, 4), (2, 1, 3, 2)], ids=["rank3", "rank4"])
@pytest.mark.parametrize("call, theirs, p_kind, t_kind", LOSSES, ids=[c for c, *_ in LOSSES])
def test_a_loss_of_arrays_is_the_mean_over_every_element_as_torch(shape, call, theirs, p_kind, t_kind):
    p, t = draw(p_kind, shape), draw(t_kind, shape)
    interp = run(f"a = param(p)\nb = param(t)\nloss = {call.replace('(p, t', '(a, b')}\n"
                 "g = grad(loss, wrt = [a, b])", p=p, t=t)
    tp, tt = torch.tensor(p, requires_grad=True), torch.tensor(t, requires_grad=True)
    want = theirs(tp, tt)
    want.backward()
    assert interp.get("loss").value == pytest.approx(want.item(), rel=1e-13)
    ga, gb = interp.get("g")
    np.testing.assert_allclose(ga, tp.grad.numpy(), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(gb, tt.grad.numpy(), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("call", [c for c, *_ in LOSSES])
def test_float32_arrays_give_float32_gradients_and_a_number_target_adapts(call):
    p = RNG.uniform(0.1, 0.9, (2, 3, 4)).astype(np.float32)
    interp = run(f"a = param(p)\ng = grad({call.replace('(p, t', '(a, t')}, wrt = a)\n"
                 f"h = grad({call.replace('(p, t', '(a, 1')}, wrt = a)", p=p, t=(p > 0.5).astype(np.float32))
    assert interp.get("g").dtype == np.float32 and interp.get("h").dtype == np.float32


def test_arrays_of_different_shapes_are_a_shape_error_naming_both():
    with pytest.raises(LaminaError) as caught:
        run("mse(p, t)", p=np.zeros((2, 3, 4)), t=np.zeros((2, 4, 3)))
    assert (caught.value.kind, caught.value.message) == (
        "ShapeError", "mse needs the prediction and the target to have the same shape, but got 2x3x4 and 2x4x3.")
