"""attention (nn/attention.py): forward and every gradient against torch's
scaled_dot_product_attention and nn.MultiheadAttention's head split (float64, to 1e-10) on random
shapes, heads, masks and the causal option; a hand-written multi-head attention in NumPy; float32
kept; a query that may see no key; each bad input's message; the builtin in a Lamina program."""
from __future__ import annotations

import numpy as np
import pytest
from builtin_checks import run_with as run

from lamina.autodiff import ops, reductions
from lamina.autodiff.grad import grad
from lamina.autodiff.tape import TAPE
from lamina.errors import LaminaError
from lamina.nn.attention import attention

torch = pytest.importorskip("torch")
F = torch.nn.functional
TOL = dict(rtol=1e-10, atol=1e-12)


def lamina_value_and_grads(q, k, v, g, **options):
    """attention's value and the gradients of sum(out .* g) for q, k and v."""
    TAPE.reset()
    leaves = [TAPE.leaf(a.copy(), True) for a in (q, k, v)]
    out = attention(*leaves, **options)
    grads = grad(reductions.sum(ops.emul(out, g)), leaves)
    TAPE.reset()
    return out.value, grads


def torch_split(x: torch.Tensor, heads: int) -> torch.Tensor:
    """... x n x w as ... x heads x n x (w / heads): head j takes columns j w/h to (j + 1) w/h."""
    *lead, n, w = x.shape
    return x.reshape(*lead, n, heads, w // heads).movedim(-2, -3)


def torch_value_and_grads(q, k, v, g, heads=1, mask=None, causal=False):
    """The same through torch.nn.functional.scaled_dot_product_attention, heads split by hand."""
    tq, tk, tv = (torch.tensor(a, requires_grad=True) for a in (q, k, v))
    allowed = None
    if mask is not None:
        allowed = torch.tensor(np.asarray(mask) != 0)
        if allowed.ndim >= 2:                       # the heads share it
            allowed = allowed.reshape(*allowed.shape[:-2], 1, *allowed.shape[-2:])
    if causal:
        tri = torch.ones(q.shape[-2], k.shape[-2], dtype=torch.bool).tril()
        allowed = tri if allowed is None else allowed & tri
    out = F.scaled_dot_product_attention(torch_split(tq, heads), torch_split(tk, heads),
                                         torch_split(tv, heads), attn_mask=allowed)
    out = out.movedim(-3, -2).reshape(*q.shape[:-1], v.shape[-1])
    (out * torch.tensor(g)).sum().backward()
    return out.detach().numpy(), [t.grad.numpy() for t in (tq, tk, tv)]


def random_case(rng, lead, heads, with_mask, causal):
    t, s = int(rng.integers(1, 7)), int(rng.integers(1, 7))
    if causal and s < t:
        s = t                                         # every query sees key 0 at least
    d = heads * int(rng.integers(1, 4))
    e = heads * int(rng.integers(1, 4))
    q = rng.standard_normal(lead + (t, d)) * 1.5
    k = rng.standard_normal(lead + (s, d)) * 1.5
    v = rng.standard_normal(lead + (s, e))
    mask = None
    if with_mask:
        shape = [(t, s), lead + (t, s), lead[:1] + (1,) * (len(lead) - 1) + (1, s)][int(rng.integers(3))] \
            if lead else (t, s)
        mask = rng.random(shape) < 0.7
        mask[..., 0] = True                           # no query left without a key (torch: NaN)
    g = rng.standard_normal(lead + (t, e))
    return q, k, v, g, mask


@pytest.mark.parametrize("seed", range(40))
def test_value_and_gradients_equal_torch_scaled_dot_product_attention(seed):
    rng = np.random.default_rng(seed)
    lead = [(), (2,), (3,), (2, 2)][seed % 4]
    heads = [1, 2, 3, 4][(seed // 4) % 4]
    with_mask, causal = bool(seed % 3 == 1), bool(seed % 5 in (1, 2))
    q, k, v, g, mask = random_case(rng, lead, heads, with_mask, causal)
    ours, our_grads = lamina_value_and_grads(q, k, v, g, heads=float(heads), mask=mask, causal=causal)
    theirs, their_grads = torch_value_and_grads(q, k, v, g, heads, mask, causal)
    np.testing.assert_allclose(ours, theirs, **TOL)
    for mine, other in zip(our_grads, their_grads):
        np.testing.assert_allclose(mine, other, **TOL)


def test_heads_are_cut_as_torch_multihead_attention_cuts_them():
    """nn.MultiheadAttention with identity projections and no biases is attention with heads."""
    rng = np.random.default_rng(7)
    b, t, s, d, heads = 3, 4, 5, 8, 4
    q, k, v = rng.standard_normal((b, t, d)), rng.standard_normal((b, s, d)), rng.standard_normal((b, s, d))
    g = rng.standard_normal((b, t, d))
    eye = torch.eye(d, dtype=torch.float64)
    tq, tk, tv = (torch.tensor(a, requires_grad=True) for a in (q, k, v))
    out, _ = F.multi_head_attention_forward(
        tq.transpose(0, 1), tk.transpose(0, 1), tv.transpose(0, 1), d, heads, torch.cat([eye, eye, eye]),
        None, None, None, False, 0.0, eye, None, training=False, need_weights=False)
    out = out.transpose(0, 1)
    (out * torch.tensor(g)).sum().backward()
    ours, grads = lamina_value_and_grads(q, k, v, g, heads=float(heads))
    np.testing.assert_allclose(ours, out.detach().numpy(), **TOL)
    for mine, t_ in zip(grads, (tq, tk, tv)):
        np.testing.assert_allclose(mine, t_.grad.numpy(), **TOL)


def test_a_hand_written_multi_head_attention_in_numpy():
    rng = np.random.default_rng(8)
    b, t, s, d, e, heads = 2, 3, 4, 6, 9, 3
    q, k, v = rng.standard_normal((b, t, d)), rng.standard_normal((b, s, d)), rng.standard_normal((b, s, e))
    allowed = rng.random((b, t, s)) < 0.6
    allowed[:, :, 1] = True
    expected = np.zeros((b, t, e))
    dk, ek = d // heads, e // heads
    for n in range(b):
        for j in range(heads):
            Q, K = q[n][:, j * dk:(j + 1) * dk], k[n][:, j * dk:(j + 1) * dk]
            V = v[n][:, j * ek:(j + 1) * ek]
            for i in range(t):
                scores = np.array([Q[i] @ K[c] / np.sqrt(dk) for c in range(s)])
                weights = np.where(allowed[n, i], np.exp(scores - scores.max()), 0.0)
                expected[n, i, j * ek:(j + 1) * ek] = weights @ V / weights.sum()
    np.testing.assert_allclose(attention(q, k, v, heads=3.0, mask=allowed), expected, rtol=1e-13, atol=1e-14)


def test_float32_stays_float32_and_agrees_with_float64():
    rng = np.random.default_rng(9)
    q, k, v = (rng.standard_normal((2, 5, 8)) for _ in range(3))
    g = rng.standard_normal((2, 5, 8))
    out64, grads64 = lamina_value_and_grads(q, k, v, g, heads=2.0, causal=True)
    out32, grads32 = lamina_value_and_grads(*(a.astype(np.float32) for a in (q, k, v)), g.astype(np.float32),
                                            heads=2.0, causal=True)
    assert out32.dtype == np.float32 and all(x.dtype == np.float32 for x in grads32)
    np.testing.assert_allclose(out32, out64, rtol=1e-4, atol=1e-5)
    for a, b in zip(grads32, grads64):
        np.testing.assert_allclose(a, b, rtol=1e-3, atol=1e-4)
    mixed = attention(q.astype(np.float32), k, v)       # a float64 among them: float64
    assert mixed.dtype == np.float64


def test_a_query_that_may_attend_to_no_key_gives_zeros_and_no_nan():
    rng = np.random.default_rng(10)
    q, k, v = rng.standard_normal((1, 3, 2)), rng.standard_normal((1, 4, 2)), rng.standard_normal((1, 4, 2))
    allowed = np.array([[True, True, False, False], [False, False, False, False], [True, True, True, True]])
    g = rng.standard_normal((1, 3, 2))
    out, grads = lamina_value_and_grads(q, k, v, g, mask=allowed)
    np.testing.assert_array_equal(out[0, 1], [0.0, 0.0])
    assert all(np.all(np.isfinite(x)) for x in [out, *grads])
    np.testing.assert_array_equal(grads[0][0, 1], [0.0, 0.0])
    rows = [0, 2]           # the other queries: as torch computes them
    theirs, their_grads = torch_value_and_grads(q[:, rows], k, v, g[:, rows], mask=allowed[rows])
    np.testing.assert_allclose(out[:, rows], theirs, **TOL)
    np.testing.assert_allclose(grads[0][:, rows], their_grads[0], **TOL)
    np.testing.assert_allclose(grads[1], their_grads[1], **TOL)
    np.testing.assert_allclose(grads[2], their_grads[2], **TOL)
    no_keys = attention(q, k[:, :0], v[:, :0])            # no key at all
    np.testing.assert_array_equal(no_keys, np.zeros((1, 3, 2)))


def test_a_mask_of_zeros_and_ones_and_a_scalar_mask():
    rng = np.random.default_rng(11)
    q, k, v = (rng.standard_normal((2, 3, 4)) for _ in range(3))
    allowed = np.tri(3, dtype=bool)
    np.testing.assert_array_equal(attention(q, k, v, mask=allowed.astype(float)), attention(q, k, v, causal=True))
    np.testing.assert_array_equal(attention(q, k, v, mask=True), attention(q, k, v))


def test_the_unmasked_first_step_of_a_causal_attention_is_its_own_value():
    rng = np.random.default_rng(12)
    x = rng.standard_normal((3, 4, 6))
    out = attention(x, x, x, heads=2.0, causal=True)
    np.testing.assert_allclose(out[:, 0], x[:, 0], rtol=1e-15)


BAD = [
    (dict(heads=3.0), (2, 3, 4), (2, 5, 4), (2, 5, 4), "ShapeError",
     "attention with 3 heads cuts the width of q and k into 3 equal parts, but 4 is not a multiple of 3 "
     "(q 2x3x4, k 2x5x4, v 2x5x4)."),
    (dict(heads=2.0), (2, 3, 4), (2, 5, 4), (2, 5, 3), "ShapeError",
     "attention with 2 heads cuts the width of v into 2 equal parts, but 3 is not a multiple of 2 "
     "(q 2x3x4, k 2x5x4, v 2x5x3)."),
    ({}, (2, 3, 4), (2, 5, 6), (2, 5, 4), "ShapeError",
     "attention compares each query with each key, so q and k need the same width (last axis), but it got "
     "q 2x3x4, k 2x5x6, v 2x5x4."),
    ({}, (2, 3, 4), (2, 5, 4), (2, 6, 4), "ShapeError",
     "attention needs a value for each key, so k and v need the same number of steps (second-to-last axis), "
     "but it got q 2x3x4, k 2x5x4, v 2x6x4."),
    ({}, (2, 3, 4), (3, 5, 4), (3, 5, 4), "ShapeError",
     "attention needs q, k and v to have the same batch axes (all but the last two), but it got q 2x3x4, "
     "k 3x5x4, v 3x5x4."),
    ({}, (4,), (5, 4), (5, 4), "ShapeError",
     "attention's q must be a matrix (one sequence, a row per step) or an array with batch axes first, not a "
     "vector of length 4."),
    ({}, (3, 0), (5, 0), (5, 4), "ShapeError",
     "attention needs queries and keys of at least one feature, but it got q 3x0, k 5x0, v 5x4."),
    (dict(mask=np.ones((3, 4), dtype=bool)), (2, 3, 4), (2, 5, 4), (2, 5, 4), "ShapeError",
     "attention's mask must broadcast against the scores, 2x3x5 (queries x keys, after the batch axes), "
     "but it is a 3x4 logical matrix."),
    (dict(mask=np.ones((2, 5), dtype=bool)), (2, 3, 4), (2, 5, 4), (2, 5, 4), "ShapeError",
     "attention's mask must broadcast against the scores, 2x3x5 (queries x keys, after the batch axes), "
     "but it is a 2x5 logical matrix. To hide padded keys per sequence, give a 2 x 1 x 5 mask "
     "(reshape(mask, 2, 1, 5))."),
    (dict(mask=np.ones((1, 2, 3, 5), dtype=bool)), (2, 3, 4), (2, 5, 4), (2, 5, 4), "ShapeError",
     "attention's mask must broadcast against the scores, 2x3x5 (queries x keys, after the batch axes), "
     "but it is a 1x2x3x5 logical array."),
    (dict(mask=np.full((3, 5), 0.5)), (2, 3, 4), (2, 5, 4), (2, 5, 4), "ValueError",
     "attention's mask must be logical (true where a query may attend to a key) or hold only 0 and 1, but "
     "it holds other numbers."),
    (dict(heads=0.0), (2, 3, 4), (2, 5, 4), (2, 5, 4), "ValueError", None),
    (dict(causal=1.0), (2, 3, 4), (2, 5, 4), (2, 5, 4), "TypeError",
     "attention's causal must be true or false, not a number."),
]


@pytest.mark.parametrize("options, qs, ks, vs, kind, message", BAD)
def test_bad_input_is_a_lamina_error_naming_the_shapes(options, qs, ks, vs, kind, message):
    with pytest.raises(LaminaError) as caught:
        attention(np.zeros(qs), np.zeros(ks), np.zeros(vs), **options)
    assert caught.value.kind == kind
    if message is not None:
        assert caught.value.message == message
    else:
        assert "heads" in caught.value.message


def test_the_builtin_in_a_program_with_heads_a_padding_mask_and_its_gradients():
    rng = np.random.default_rng(13)
    x, c = rng.standard_normal((2, 4, 6)), rng.standard_normal((2, 4, 6))
    keep = np.array([[[1, 1, 1, 0]], [[1, 1, 0, 0]]], dtype=bool)
    interp = run("p = param(x)\ny = attention(p, p, p, heads = 3, mask = keep)\n"
                 "g = grad(sum(y .* c), wrt = p)", x=x, c=c, keep=keep)
    tx = torch.tensor(x, requires_grad=True)
    out = F.scaled_dot_product_attention(torch_split(tx, 3), torch_split(tx, 3), torch_split(tx, 3),
                                         attn_mask=torch.tensor(keep).reshape(2, 1, 1, 4))
    out = out.movedim(-3, -2).reshape(2, 4, 6)
    (out * torch.tensor(c)).sum().backward()
    np.testing.assert_allclose(interp.get("y").value, out.detach().numpy(), **TOL)
    np.testing.assert_allclose(interp.get("g"), tx.grad.numpy(), **TOL)


def test_the_builtin_without_keys_and_values_says_what_it_needs():
    with pytest.raises(LaminaError, match=r"attention\(q, k, v\) needs the queries, the keys and the values"):
        run("x = ones(1, 2, 2)\ny = attention(x)")


@pytest.mark.parametrize("pieces", [2, 3])
def test_split_over_threads_the_batch_gives_torch_s_answer(monkeypatch, pieces):
    import lamina.nn.split as split_module
    monkeypatch.setattr(split_module, "threads_for_work", lambda: pieces)
    monkeypatch.setattr(split_module, "SPLIT_MIN", 0)
    rng = np.random.default_rng(14)
    q, k, v = rng.standard_normal((2, 3, 4, 6)), rng.standard_normal((2, 3, 5, 6)), rng.standard_normal((2, 3, 5, 4))
    mask = rng.random((2, 3, 1, 5)) < 0.7
    mask[..., 0] = True
    g = rng.standard_normal((2, 3, 4, 4))
    assert split_module.pieces_for(6, 1) == pieces
    ours, our_grads = lamina_value_and_grads(q, k, v, g, heads=2.0, mask=mask, causal=True)
    theirs, their_grads = torch_value_and_grads(q, k, v, g, 2, mask, True)
    np.testing.assert_allclose(ours, theirs, **TOL)
    for mine, other in zip(our_grads, their_grads):
        np.testing.assert_allclose(mine, other, **TOL)
