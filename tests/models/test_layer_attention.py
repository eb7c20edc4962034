"""The attention layer (models/layers/attention.py): self-attention with Keras's four projections,
its value and every gradient against torch (torch.nn.MultiheadAttention where heads x key_dim is
the width, scaled_dot_product_attention between torch projections otherwise) to 1e-10, one tape
entry, the spec rules and messages, and fit, predict, evaluate, save_model and load_model in
float32 and float64."""
from __future__ import annotations

import numpy as np
import pytest

from lamina.autodiff import ops, reductions
from lamina.autodiff.grad import grad
from lamina.autodiff.tape import TAPE
from lamina.errors import LaminaError
from lamina.models.layer import DataShape
from lamina.models.layers.attention import WEIGHTS, Attention

torch = pytest.importorskip("torch")
F = torch.nn.functional
TOL = dict(rtol=1e-10, atol=1e-12)


def random_weights(rng, d, heads, key_dim):
    hk = heads * key_dim
    shapes = {"wq": (d, hk), "bq": (1, hk), "wk": (d, hk), "bk": (1, hk), "wv": (d, hk), "bv": (1, hk),
              "wo": (hk, d), "bo": (1, d)}
    return [rng.standard_normal(shapes[name]) * 0.5 for name in WEIGHTS]


def ours(layer, x, weights, g):
    """The layer's output and the gradients of sum(out .* g) for x and each weight."""
    TAPE.reset()
    leaves = [TAPE.leaf(a.copy(), True) for a in [x, *weights]]
    out = layer.forward(leaves[0], leaves[1:], DataShape(x.shape[1:]), False, None)
    grads = grad(reductions.sum(ops.emul(out, g)), leaves)
    TAPE.reset()
    return out.value, grads


def torch_split(x, heads):
    m, t, w = x.shape
    return x.reshape(m, t, heads, w // heads).transpose(1, 2)


def theirs(x, weights, g, heads, causal):
    """The same with torch: projections, scaled_dot_product_attention, output projection."""
    tx, *tw = (torch.tensor(a, requires_grad=True) for a in [x, *weights])
    wq, bq, wk, bk, wv, bv, wo, bo = tw
    q, k, v = (torch_split(tx @ w + b, heads) for w, b in ((wq, bq), (wk, bk), (wv, bv)))
    a = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    out = a.transpose(1, 2).reshape(x.shape[0], x.shape[1], -1) @ wo + bo
    (out * torch.tensor(g)).sum().backward()
    return out.detach().numpy(), [t.grad.numpy() for t in [tx, *tw]]


@pytest.mark.parametrize("m, t, d, heads, key_dim, causal", [
    (2, 5, 8, 2, 4, False), (3, 4, 6, 3, 5, True), (1, 7, 4, 1, 3, True), (4, 1, 5, 2, 2, False)])
def test_value_and_every_gradient_equal_torch(m, t, d, heads, key_dim, causal):
    rng = np.random.default_rng(m * 100 + t)
    x, weights = rng.standard_normal((m, t, d)), random_weights(rng, d, heads, key_dim)
    g = rng.standard_normal((m, t, d))
    value, grads = ours(Attention(heads, key_dim, causal), x, weights, g)
    expected, their_grads = theirs(x, weights, g, heads, causal)
    np.testing.assert_allclose(value, expected, **TOL)
    for name, mine, other in zip(("x",) + WEIGHTS, grads, their_grads):
        np.testing.assert_allclose(mine, other, **TOL, err_msg=name)


def test_it_is_torch_multihead_attention_with_the_kernels_transposed():
    rng = np.random.default_rng(5)
    m, t, d, heads = 3, 6, 8, 2
    x, weights = rng.standard_normal((m, t, d)), random_weights(rng, d, heads, d // heads)
    wq, bq, wk, bk, wv, bv, wo, bo = weights
    mha = torch.nn.MultiheadAttention(d, heads, batch_first=True).double()
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.tensor(np.vstack([wq.T, wk.T, wv.T])))
        mha.in_proj_bias.copy_(torch.tensor(np.concatenate([bq, bk, bv], axis=1)[0]))
        mha.out_proj.weight.copy_(torch.tensor(wo.T))
        mha.out_proj.bias.copy_(torch.tensor(bo[0]))
    tx = torch.tensor(x)
    expected, _ = mha(tx, tx, tx, need_weights=False)
    value = Attention(heads, d // heads).forward(x, weights, DataShape((t, d)), False, None)
    np.testing.assert_allclose(value, expected.detach().numpy(), **TOL)


def test_the_whole_layer_is_one_tape_entry_and_float32_stays_float32():
    rng = np.random.default_rng(6)
    x = rng.standard_normal((2, 4, 6)).astype(np.float32)
    weights = [w.astype(np.float32) for w in random_weights(rng, 6, 3, 2)]
    TAPE.reset()
    leaves = [TAPE.leaf(w, True) for w in weights]
    before = TAPE.size()
    out = Attention(3, 2).forward(x, leaves, DataShape((4, 6)), False, None)
    assert TAPE.size() - before == 1
    grads = grad(reductions.sum(out), leaves)
    assert out.value.dtype == np.float32 and all(g.dtype == np.float32 for g in grads)
    TAPE.reset()


def test_shapes_through_a_spec(run):
    lines, interp = run('s = input(6, 8) |> attention(2, 4) |> attention(4, 3, causal = true)\n'
                        'print(s.layers[1])\nprint(s.outputs)')
    assert lines == ['{kind="attention", heads=4, key_dim=3, causal=true}', "48"]
    spec = interp.get("s")
    assert [d.shape for d in spec.shapes] == [(6, 8)] * 3
    assert spec.parameter_counts() == [4 * (8 * 8 + 8), 3 * (8 * 12 + 12) + 12 * 8 + 8]


@pytest.mark.parametrize("source, kind, words", [
    ('input(8) |> attention(2, 4)', "ShapeError",
     "attention reads sequences (steps x features per example), but its input is 8 per example"),
    ('input(4, 4, 1) |> attention(2, 4)', "ShapeError", "its input is 4 x 4 x 1 per example"),
    ('input(3, 2) |> attention(0, 4)', "ValueError", "attention's heads must be"),
    ('input(3, 2) |> attention(2, 1.5)', "TypeError", "attention's key_dim must be a whole number"),
    ('input(3, 2) |> attention(2)', "TypeError", "needs the number of heads and the size of each head"),
    ('input(3, 2) |> attention(2, 4, causal = 1)', "TypeError", "attention's causal must be true or false"),
    ('input(3, 2) |> attention(2, 4, mask = true)', "TypeError", "takes no mask"),
    ('input(3, 2) |> attention(2, 4, heads = 3)', "TypeError", "got heads twice"),
    ('input(3, 2) |> attention(2, 4, dropout = 0.1)', "TypeError", "has no keyword 'dropout'"),
    ('attention(ones(2, 3, 4), ones(2, 3, 4), ones(2, 3, 4), key_dim = 2)', "TypeError",
     "key_dim belongs to the layer form"),
])
def test_errors_name_the_layer_and_the_shape(run, source, kind, words):
    with pytest.raises(LaminaError) as caught:
        run(source)
    assert caught.value.kind == kind and words in caught.value.message, caught.value.message


PROGRAM = """seed(3)
X = randn(128, 5, 4)
Y = reshape(sum(X[:, :, 0], axis = 1), 128, 1)        # each sequence's sum of its first feature
net = input(5, 4) |> attention(2, 4) |> flatten() |> dense(1) |>
      compile(optimizer = adam(lr = 0.01), seed = 2, dtype = "{dtype}")
net = net.fit(X, Y, epochs = 30, batch_size = 32, verbose = 0)
p = predict(net, X)
e = evaluate(net, X, Y)
save_model(net, "{path}")
back = load_model("{path}")
q = predict(back, X)
"""


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_fit_predict_evaluate_and_a_save_load_round_trip(run, tmp_path, dtype):
    path = tmp_path / "attention.npz"
    _, interp = run(PROGRAM.format(dtype=dtype, path=path))
    net, p, q = interp.get("net"), interp.get("p"), interp.get("q")
    assert net.loss_history[-1] < 0.2 * net.loss_history[0]
    assert p.dtype == np.dtype(dtype) and p.shape == (128, 1)
    np.testing.assert_array_equal(p, q)
    assert interp.get("e").get("loss") == pytest.approx(net.loss_history[-1], rel=0.5)
    assert [r.fields["kind"] for r in interp.get("back").get("layers")] == ["attention", "flatten", "dense"]


def test_split_over_threads_it_gives_the_one_thread_answer(monkeypatch):
    import lamina.nn.split as split_module
    rng = np.random.default_rng(9)
    x, weights, g = rng.standard_normal((5, 4, 6)), random_weights(rng, 6, 3, 2), rng.standard_normal((5, 4, 6))
    monkeypatch.setattr(split_module, "threads_for_work", lambda: 1)
    one_value, one_grads = ours(Attention(3, 2, True), x, weights, g)
    monkeypatch.setattr(split_module, "threads_for_work", lambda: 2)
    monkeypatch.setattr(split_module, "SPLIT_MIN", 0)
    assert split_module.pieces_for(5, 1) == 2
    value, grads = ours(Attention(3, 2, True), x, weights, g)
    np.testing.assert_allclose(value, one_value, rtol=1e-13, atol=1e-14)
    for mine, other in zip(grads, one_grads):
        np.testing.assert_allclose(mine, other, rtol=1e-12, atol=1e-13)
