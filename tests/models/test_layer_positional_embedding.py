"""The positional_embedding layer (models/layers/positional_embedding.py): step i of every example
gets row i of the table added, the table's gradient is the batch's sum in its first rows (by
NumPy, and against torch), the shape rules name both sizes, and a model with it fits, predicts,
saves and loads in float32 and float64."""
from __future__ import annotations

import numpy as np
import pytest

from lamina.autodiff import ops, reductions
from lamina.autodiff.grad import grad
from lamina.autodiff.tape import TAPE
from lamina.errors import LaminaError
from lamina.models.layer import DataShape
from lamina.models.layers.positional_embedding import PositionalEmbedding


def test_each_step_gets_its_row_and_the_table_its_gradient():
    rng = np.random.default_rng(1)
    x, table, g = rng.standard_normal((3, 4, 2)), rng.standard_normal((6, 2)), rng.standard_normal((3, 4, 2))
    TAPE.reset()
    tx, tt = TAPE.leaf(x, True), TAPE.leaf(table, True)
    out = PositionalEmbedding(6, 2).forward(tx, [tt], DataShape((4, 2)), False, None)
    dx, dt = grad(reductions.sum(ops.emul(out, g)), [tx, tt])
    TAPE.reset()
    np.testing.assert_array_equal(out.value, x + table[None, :4])
    np.testing.assert_array_equal(dx, g)
    np.testing.assert_allclose(dt[:4], g.sum(axis=0), rtol=1e-15)
    np.testing.assert_array_equal(dt[4:], 0.0)


def test_against_torch_embedding_of_positions():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(2)
    x, table, g = rng.standard_normal((2, 5, 3)), rng.standard_normal((7, 3)), rng.standard_normal((2, 5, 3))
    positions = torch.nn.Embedding(7, 3).double()
    with torch.no_grad():
        positions.weight.copy_(torch.tensor(table))
    expected = torch.tensor(x) + positions(torch.arange(5))
    (expected * torch.tensor(g)).sum().backward()
    TAPE.reset()
    tt = TAPE.leaf(table, True)
    out = PositionalEmbedding(7, 3).forward(x, [tt], DataShape((5, 3)), False, None)
    (dt,) = grad(reductions.sum(ops.emul(out, g)), [tt])
    TAPE.reset()
    np.testing.assert_allclose(out.value, expected.detach().numpy(), rtol=1e-15)
    np.testing.assert_allclose(dt, positions.weight.grad.numpy(), rtol=1e-14)


@pytest.mark.parametrize("source, kind, message", [
    ('s = input(5) |> embedding(10, 4) |> positional_embedding(8, 3)', "ShapeError",
     "positional_embedding(8, 3) adds a vector of 3 to each step, but its input has 4 features per step "
     "(5 steps x 4): give it dim = 4."),
    ('s = input(9) |> embedding(10, 4) |> positional_embedding(8, 4)', "ShapeError",
     "positional_embedding(8, 4) has positions for 8 steps, but its input has 9 (9 steps x 4): give it "
     "max_len = 9 or more."),
    ('s = input(5) |> positional_embedding(8, 4)', "ShapeError",
     "positional_embedding reads sequences (steps x features per example), but its input is 5 per example: "
     "start the model with input(steps, features), or put embedding(vocab, dim) before it."),
    ('s = input(5, 4) |> positional_embedding(8)', "TypeError",
     "The layer positional_embedding(spec, max_len, dim) needs the longest sequence it takes (max_len) and "
     "the features per step (dim)."),
    ('s = input(5, 4) |> positional_embedding(0, 4)', "ValueError", None),
])
def test_errors_name_both_sizes(run, source, kind, message):
    with pytest.raises(LaminaError) as caught:
        run(source)
    assert caught.value.kind == kind
    if message is not None:
        assert caught.value.message == message
    else:
        assert "positional_embedding's max_len" in caught.value.message


PROGRAM = """seed(6)
X = randn(96, 4, 2)
Y = reshape(X[:, 2, 1], 96, 1)        # the second feature of step 2: only its position tells it
net = input(4, 2) |> positional_embedding(6, 2) |> attention(1, 4) |> flatten() |> dense(1) |>
      compile(optimizer = adam(lr = 0.02), seed = 3, dtype = "{dtype}")
net = net.fit(X, Y, epochs = 40, batch_size = 16, verbose = 0)
p = predict(net, X)
save_model(net, "{path}")
q = predict(load_model("{path}"), X)
"""


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_a_model_with_positions_fits_and_survives_save_and_load(run, tmp_path, dtype):
    path = tmp_path / "positions.npz"
    _, interp = run(PROGRAM.format(dtype=dtype, path=path))
    net, p, q = interp.get("net"), interp.get("p"), interp.get("q")
    assert net.loss_history[-1] < 0.1 * net.loss_history[0]
    assert p.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(p, q)
    assert net.get("weights")[0].fields["table"].shape == (6, 2)
