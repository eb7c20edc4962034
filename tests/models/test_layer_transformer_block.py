"""The transformer_block layer (models/layers/transformer_block.py): its value and every gradient
equal torch.nn.TransformerEncoderLayer(norm_first = true, activation = "gelu") with the same
weights (float64, to 1e-10), causal too; dropout only while fitting and repeatable by the seed;
the spec rules and messages; fit, predict, evaluate, save_model and load_model in float32 and
float64."""
from __future__ import annotations

import numpy as np
import pytest

from lamina.autodiff import ops, reductions
from lamina.autodiff.grad import grad
from lamina.autodiff.tape import TAPE
from lamina.errors import LaminaError
from lamina.models.layer import DataShape
from lamina.models.layers.transformer_block import TransformerBlock

torch = pytest.importorskip("torch")
TOL = dict(rtol=1e-10, atol=1e-11)


def random_weights(layer, d, rng):
    """The layer's weights in order, each random (gains near 1)."""
    out = []
    for name, shape in layer.parameters(DataShape((1, d))).items():
        w = rng.standard_normal(shape) * 0.3
        out.append(1.0 + w if name.endswith("gain") else w)
    return out


def torch_layer(weights, d, heads, ff):
    g1, b1, wq, bq, wk, bk, wv, bv, wo, bo, g2, b2, w1, c1, w2, c2 = weights
    layer = torch.nn.TransformerEncoderLayer(d, heads, ff, dropout=0.0, activation="gelu", batch_first=True,
                                             norm_first=True).double()
    with torch.no_grad():
        for param, value in [(layer.norm1.weight, g1[0]), (layer.norm1.bias, b1[0]),
                             (layer.self_attn.in_proj_weight, np.vstack([wq.T, wk.T, wv.T])),
                             (layer.self_attn.in_proj_bias, np.concatenate([bq, bk, bv], axis=1)[0]),
                             (layer.self_attn.out_proj.weight, wo.T), (layer.self_attn.out_proj.bias, bo[0]),
                             (layer.norm2.weight, g2[0]), (layer.norm2.bias, b2[0]),
                             (layer.linear1.weight, w1.T), (layer.linear1.bias, c1[0]),
                             (layer.linear2.weight, w2.T), (layer.linear2.bias, c2[0])]:
            param.copy_(torch.tensor(value))
    return layer


def torch_grads(layer):
    """The gradients of torch's parameters in the order of our weights (transposed back)."""
    a = layer.self_attn
    d = a.embed_dim
    inw, inb = a.in_proj_weight.grad.numpy(), a.in_proj_bias.grad.numpy()
    rows = [slice(0, d), slice(d, 2 * d), slice(2 * d, 3 * d)]
    out = [layer.norm1.weight.grad.numpy()[None], layer.norm1.bias.grad.numpy()[None]]
    for r in rows:
        out += [inw[r].T, inb[r][None]]
    out += [a.out_proj.weight.grad.numpy().T, a.out_proj.bias.grad.numpy()[None],
            layer.norm2.weight.grad.numpy()[None], layer.norm2.bias.grad.numpy()[None],
            layer.linear1.weight.grad.numpy().T, layer.linear1.bias.grad.numpy()[None],
            layer.linear2.weight.grad.numpy().T, layer.linear2.bias.grad.numpy()[None]]
    return out


@pytest.mark.parametrize("m, t, d, heads, ff, causal", [
    (2, 5, 8, 2, 16, False), (3, 4, 6, 3, 10, True), (1, 6, 4, 1, 7, False), (2, 3, 12, 4, 24, True)])
def test_value_and_every_gradient_equal_torch_transformer_encoder_layer(m, t, d, heads, ff, causal):
    rng = np.random.default_rng(m * 31 + t)
    block = TransformerBlock(heads, d // heads, ff, causal=causal)
    x, weights, g = rng.standard_normal((m, t, d)), None, rng.standard_normal((m, t, d))
    weights = random_weights(block, d, rng)
    TAPE.reset()
    leaves = [TAPE.leaf(a.copy(), True) for a in [x, *weights]]
    out = block.forward(leaves[0], leaves[1:], DataShape((t, d)), False, None)
    grads = grad(reductions.sum(ops.emul(out, g)), leaves)
    TAPE.reset()

    layer = torch_layer(weights, d, heads, ff)
    tx = torch.tensor(x, requires_grad=True)
    mask = torch.nn.Transformer.generate_square_subsequent_mask(t, dtype=torch.float64) if causal else None
    expected = layer(tx, src_mask=mask, is_causal=causal)
    (expected * torch.tensor(g)).sum().backward()
    np.testing.assert_allclose(out.value, expected.detach().numpy(), **TOL)
    names = ["x", *block.parameters(DataShape((t, d)))]
    for name, mine, theirs in zip(names, grads, [tx.grad.numpy(), *torch_grads(layer)]):
        np.testing.assert_allclose(mine, theirs, **TOL, err_msg=name)


def test_dropout_acts_only_while_fitting_and_draws_from_the_model_generator():
    rng = np.random.default_rng(4)
    block = TransformerBlock(2, 2, 8, dropout=0.5)
    x, weights = rng.standard_normal((3, 4, 4)), random_weights(block, 4, rng)
    plain = TransformerBlock(2, 2, 8).forward(x, weights, DataShape((4, 4)), False, None)
    np.testing.assert_array_equal(block.forward(x, weights, DataShape((4, 4)), False, None), plain)
    first = block.forward(x, weights, DataShape((4, 4)), True, np.random.default_rng(9))
    again = block.forward(x, weights, DataShape((4, 4)), True, np.random.default_rng(9))
    np.testing.assert_array_equal(first, again)
    assert not np.allclose(first, plain)


def test_shapes_and_counts_through_a_spec(run):
    lines, interp = run('s = input(8) |> embedding(10, 16) |> positional_embedding(8, 16) |>\n'
                        '    transformer_block(2, 8, 32, dropout = 0.1) |> transformer_block(4, 2, 8, causal = true)\n'
                        'print(s.layers[2])\nprint(s.layers[3])')
    assert lines == ['{kind="transformer_block", heads=2, key_dim=8, ff_units=32, dropout=0.1, causal=false}',
                     '{kind="transformer_block", heads=4, key_dim=2, ff_units=8, dropout=0, causal=true}']
    spec = interp.get("s")
    assert spec.shapes[-1].shape == (8, 16)
    # torch's TransformerEncoderLayer(16, 2, 32) has 2224 parameters
    assert spec.parameter_counts()[2:] == [2224, 4 * 16 + 3 * (16 * 8 + 8) + (8 * 16 + 16) + (16 * 8 + 8) + (8 * 16 + 16)]


@pytest.mark.parametrize("source, kind, words", [
    ('s = input(8) |> transformer_block(2, 4, 16)', "ShapeError", "transformer_block reads sequences"),
    ('s = input(3, 2) |> transformer_block(2, 4)', "TypeError", "needs the number of heads"),
    ('s = input(3, 2) |> transformer_block(2, 4, 0)', "ValueError", "transformer_block's ff_units"),
    ('s = input(3, 2) |> transformer_block(2, 4, 8, dropout = 1)', "ValueError",
     "transformer_block's dropout's rate must be at least 0 and below 1"),
    ('s = input(3, 2) |> transformer_block(2, 4, 8, causal = "yes")', "TypeError", "true or false"),
    ('s = input(3, 2) |> transformer_block(2, 4, 8, units = 3)', "TypeError", "has no keyword 'units'"),
    ('s = transformer_block(ones(2, 2), 2, 4, 8)', "TypeError", "model spec"),
])
def test_errors_name_the_layer_and_the_shape(run, source, kind, words):
    with pytest.raises(LaminaError) as caught:
        run(source)
    assert caught.value.kind == kind and words in caught.value.message, caught.value.message


PROGRAM = """seed(5)
X = floor(4 * rand(192, 6))
Y = float64(X[:, 0] == X[:, 5])
net = input(6) |> embedding(4, 8) |> positional_embedding(6, 8) |> transformer_block(2, 4, 16, dropout = 0.05) |>
      flatten() |> dense(1, activation = "sigmoid") |>
      compile(optimizer = adam(lr = 0.01), loss = "binary_cross_entropy", seed = 1, dtype = "{dtype}")
net = net.fit(X, Y, epochs = 25, batch_size = 32, verbose = 0)
p = predict(net, X)
e = evaluate(net, X, Y)
save_model(net, "{path}")
back = load_model("{path}")
q = predict(back, X)
"""


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_fit_predict_evaluate_and_a_save_load_round_trip(run, tmp_path, dtype):
    path = tmp_path / "block.npz"
    _, interp = run(PROGRAM.format(dtype=dtype, path=path))
    p, q = interp.get("p"), interp.get("q")
    assert interp.get("e").get("accuracy") > 0.9
    assert p.dtype == np.dtype(dtype) and p.shape == (192, 1)
    np.testing.assert_array_equal(p, q)
    layers = interp.get("back").get("layers")
    assert layers[2].fields == {"kind": "transformer_block", "heads": 2.0, "key_dim": 4.0, "ff_units": 16.0,
                                "dropout": 0.05, "causal": False}
    assert all(w.dtype == np.dtype(dtype) for w in interp.get("back").get("weights")[2].fields.values())


@pytest.mark.parametrize("pieces", [2, 3])
def test_split_over_threads_it_gives_the_one_thread_answer(monkeypatch, pieces):
    import lamina.nn.split as split_module
    rng = np.random.default_rng(8)
    block = TransformerBlock(2, 3, 10, dropout=0.2, causal=True)
    x, g = rng.standard_normal((5, 4, 6)), rng.standard_normal((5, 4, 6))
    weights = random_weights(block, 6, rng)

    def run():
        TAPE.reset()
        leaves = [TAPE.leaf(a.copy(), True) for a in [x, *weights]]
        out = block.forward(leaves[0], leaves[1:], DataShape((4, 6)), True, np.random.default_rng(3))
        grads = grad(reductions.sum(ops.emul(out, g)), leaves)
        TAPE.reset()
        return out.value, grads

    monkeypatch.setattr(split_module, "threads_for_work", lambda: 1)
    one_value, one_grads = run()
    monkeypatch.setattr(split_module, "threads_for_work", lambda: pieces)
    monkeypatch.setattr(split_module, "SPLIT_MIN", 0)
    split = []
    real = split_module.pieces_for
    monkeypatch.setattr("lamina.models.layers.transformer_block.pieces_for",
                        lambda m, work: split.append(real(m, work)) or split[-1])
    value, grads = run()
    assert split == [pieces]
    np.testing.assert_allclose(value, one_value, rtol=1e-13, atol=1e-14)
    for mine, other in zip(grads, one_grads):
        np.testing.assert_allclose(mine, other, rtol=1e-12, atol=1e-13)
