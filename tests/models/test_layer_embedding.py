"""The embedding layer: the lookup against NumPy indexing, the table's gradient (a scatter-add)
against finite differences and torch, the shapes it gives, and clear errors for bad tokens."""
import numpy as np
import pytest

from lamina.autodiff import ops, reductions
from lamina.autodiff.cases import Const, GradCase
from lamina.autodiff.grad import grad
from lamina.autodiff.gradcheck import check
from lamina.autodiff.tape import TAPE
from lamina.errors import LaminaError
from lamina.models.layer import DataShape, reshaped
from lamina.models.layers.embedding import Embedding

TOKENS = np.array([[0.0, 4.0, 4.0, 1.0], [2.0, 2.0, 2.0, 3.0], [4.0, 0.0, 1.0, 0.0]])


def forward(layer, tokens, table):
    """The layer on m x n tokens (it gives m x n x dim), as the m x (n * dim) matrix of rows."""
    out = layer.forward(tokens, [table], DataShape((tokens.shape[1],)), training=False, rng=None)
    assert np.shape(getattr(out, "value", out)) == (*tokens.shape, layer.dim)
    return reshaped(out, (tokens.shape[0], -1))


def test_each_token_becomes_its_row_step_after_step():
    table = np.random.default_rng(0).standard_normal((5, 3))
    out = forward(Embedding(5, 3), TOKENS, table)
    assert out.shape == (3, 12)
    for i in range(3):
        for t in range(4):
            np.testing.assert_array_equal(out[i, 3 * t:3 * t + 3], table[int(TOKENS[i, t])])


def test_the_table_gradient_adds_into_each_tokens_row():
    rng = np.random.default_rng(1)
    table, R = rng.standard_normal((5, 3)), rng.standard_normal((3, 12))
    TAPE.reset()
    leaf = TAPE.leaf(table, True)
    g = grad(reductions.sum(ops.emul(forward(Embedding(5, 3), TOKENS, leaf), R)), leaf)
    TAPE.reset()
    want = np.zeros((5, 3))
    for i in range(3):
        for t in range(4):
            want[int(TOKENS[i, t])] += R[i, 3 * t:3 * t + 3]
    np.testing.assert_allclose(g, want, rtol=1e-14)


def test_gradient_matches_finite_differences():
    layer = Embedding(5, 3)
    problems = check("embedding_layer", lambda tokens, table: forward(layer, tokens, table),
                     GradCase((Const(TOKENS), (5, 3))))
    assert not problems, problems


def test_against_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(2)
    table, R = rng.standard_normal((5, 3)), rng.standard_normal((3, 12))
    emb = torch.nn.Embedding(5, 3).double()
    with torch.no_grad():
        emb.weight.copy_(torch.tensor(table))
    out = emb(torch.tensor(TOKENS, dtype=torch.long)).reshape(3, 12)
    (out * torch.tensor(R)).sum().backward()
    TAPE.reset()
    leaf = TAPE.leaf(table, True)
    mine = forward(Embedding(5, 3), TOKENS, leaf)
    g = grad(reductions.sum(ops.emul(mine, R)), leaf)
    TAPE.reset()
    np.testing.assert_array_equal(mine.value, out.detach().numpy())
    np.testing.assert_allclose(g, emb.weight.grad.numpy(), rtol=1e-13)


def test_shapes_through_a_spec(run):
    lines, interp = run('s = input(4) |> embedding(5, 3)\nt = input(4, 2) |> embedding(7, 3) |> gru(2) |> dense(1)\n'
                        'print(s.outputs)\nprint(s.layers[0])')
    assert lines == ["12", '{kind="embedding", vocab=5, dim=3}']
    s, t = interp.get("s"), interp.get("t")
    assert s.shapes[1] == DataShape((4, 3))                 # 4 steps of 3
    assert t.shapes[1] == DataShape((4, 6))                 # 4 steps of 2 tokens * 3
    assert t.parameter_counts()[:2] == [21, 3 * (2 * 6 + 2 * 2 + 2)]


@pytest.mark.parametrize("bad, text", [(7.0, "holds 7 at row 1, column 2"), (-1.0, "holds -1 at row 1, column 2"),
                                       (1.5, "holds 1.5 at row 1, column 2"), (np.nan, "holds NaN at row 1, column 2"),
                                       (5.0, "holds 5 at row 1, column 2")])
def test_bad_tokens_are_a_clear_error(run, bad, text):
    X = TOKENS.copy()
    X[1, 2] = bad
    _, interp = run('net = input(4) |> embedding(5, 3) |> dense(1) |> compile(seed = 0)')
    net = interp.get("net")
    from lamina.models.evaluate import predict
    from lamina.models.fit import fit
    for call in (lambda: predict(net, X), lambda: fit(net, X, np.zeros(3), verbose=0)):
        with pytest.raises(LaminaError) as e:
            call()
        assert e.value.kind == "ValueError" and text in e.value.message \
            and "whole numbers from 0 to 4" in e.value.message and "X" in e.value.message, e.value.message


def test_bad_tokens_inside_a_model_name_the_input(run):
    with pytest.raises(LaminaError) as e:
        forward(Embedding(5, 3), np.array([[0.0, 9.0]]), np.zeros((5, 3)))
    assert e.value.kind == "ValueError" and "its input holds 9 at row 0, column 1" in e.value.message


@pytest.mark.parametrize("source, kind, words", [
    ('input(4) |> embedding(0, 3)', "ValueError", "vocab must be at least 1"),
    ('input(4) |> embedding(5, 2.5)', "TypeError", "whole number"),
    ('input(4) |> embedding(5)', "TypeError", "vocab"),
    ('input(4) |> embedding(5, 3, size = 2)', "TypeError", "size"),
    ('embedding(5, 3)', "TypeError", "model spec"),
])
def test_setting_errors(run, source, kind, words):
    with pytest.raises(LaminaError) as e:
        run(source)
    assert e.value.kind == kind and words in e.value.message, e.value.message


def test_embedding_after_another_layer_is_refused_when_the_spec_is_built(run):
    # it used to build and compile, then fail at predict or fit on numbers that are no tokens
    with pytest.raises(LaminaError) as e:
        run('net = input(2) |> dense(3, activation = "relu") |> embedding(5, 2) |> dense(1)')
    assert (e.value.kind, e.value.message) == (
        "ValueError", 'embedding reads tokens, so it must come right after input(), not after '
                      'dense(3, activation = "relu").')
