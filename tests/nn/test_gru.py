"""GRU: gru_init, gru_cell against a NumPy transcription of the equations, gru_forward against
a composition of gru_cell steps, and the fused BPTT against finite differences."""

import numpy as np
import pytest

from lamina.autodiff import ops, reductions
from lamina.autodiff.grad import grad
from lamina.autodiff.tape import TAPE
from lamina.errors import LaminaError
from lamina.nn.gru import FIELDS, gru_cell, gru_forward, gru_init
from lamina.values import Record, Tracked

RNG = np.random.default_rng(5)
I, H = 2, 3


def sig(v):
    return 1 / (1 + np.exp(-v))


def np_cell(x, h, w):
    """Cho et al. 2014, written out in column form (x: I x b, h: H x b)."""
    z = sig(w["wz"] @ x + w["uz"] @ h + w["bz"])
    r = sig(w["wr"] @ x + w["ur"] @ h + w["br"])
    hh = np.tanh(w["wh"] @ x + w["uh"] @ (r * h) + w["bh"])
    return (1 - z) * h + z * hh


def random_weights(n_in=I, n_h=H, bias=True):
    return {f: RNG.normal(scale=0.6, size=(n_h, 1 if f[0] == "b" else n_in if f[0] == "w" else n_h))
            * (1.0 if bias or f[0] != "b" else 0.0) for f in FIELDS}


def leaves(weights):
    return Record({f: TAPE.leaf(v.copy(), True) for f, v in weights.items()})


def numeric_grad(f, x, eps=1e-6):
    out = np.zeros_like(x)
    for j in np.ndindex(x.shape):
        old = x[j]
        x[j] = old + eps
        hi = f()
        x[j] = old - eps
        lo = f()
        x[j] = old
        out[j] = (hi - lo) / (2 * eps)
    return out


# -- gru_init ------------------------------------------------------------------
def test_gru_init_shapes_bounds_and_seed():
    w = gru_init(2.0, 3.0, seed=1.0)
    assert list(w.fields) == ["wz", "uz", "bz", "wr", "ur", "br", "wh", "uh", "bh"]
    for f, v in w.fields.items():
        assert v.shape == {"w": (3, 2), "u": (3, 3), "b": (3, 1)}[f[0]]
        limit = np.sqrt(6 / (3 + (2 if f[0] == "w" else 3)))
        assert np.all(np.abs(v) <= limit)
    assert np.all(w.fields["bz"] == 0)
    again = gru_init(2.0, 3.0, seed=1.0)
    assert all(np.array_equal(v, again.fields[f]) for f, v in w.fields.items())
    assert not np.array_equal(w.fields["wz"], gru_init(2.0, 3.0, seed=2.0).fields["wz"])


def test_gru_init_without_seed_uses_the_global_generator(run):
    lines, _ = run("seed(4)\na = gru_init(2, 3)\nseed(4)\nb = gru_init(2, 3)\nprint(all(a.uh == b.uh))")
    assert lines == ["true"]


def test_gru_init_errors():
    with pytest.raises(LaminaError, match="hidden_size"):
        gru_init(2.0, 0.0)
    with pytest.raises(LaminaError, match="whole number"):
        gru_init(2.5, 3.0)


# -- gru_cell ------------------------------------------------------------------
def test_seed_cell_value():
    w = Record({"wz": 0.5, "uz": 0.5, "bz": 0.0, "wr": 0.3, "ur": 0.3, "br": 0.0,
                "wh": 0.2, "uh": 0.2, "bh": 0.0})
    out = gru_cell(np.array([1.0]), np.array([1.0]), w)
    assert out.shape == (1,) and round(float(out[0]), 4) == 0.5012
    z, r = sig(1.0), sig(0.6)
    assert out[0] == pytest.approx((1 - z) + z * np.tanh(0.2 + 0.2 * r), rel=1e-15)
    assert type(gru_cell(1.0, 1.0, w)) is float


def test_cell_against_numpy_transcription():
    w = random_weights()
    x, h = RNG.standard_normal(I), RNG.standard_normal(H)
    out = gru_cell(x, h, Record(w))
    assert out.shape == (H, 1)        # hidden x 1 biases make the state a column, as `+` would
    np.testing.assert_allclose(out, np_cell(x[:, None], h[:, None], w), rtol=1e-14)
    batch_x, batch_h = RNG.standard_normal((I, 4)), RNG.standard_normal((H, 4))
    np.testing.assert_allclose(gru_cell(batch_x, batch_h, Record(w)), np_cell(batch_x, batch_h, w), rtol=1e-14)
    vector_biases = {f: (v.ravel() if f[0] == "b" else v) for f, v in w.items()}
    assert gru_cell(x, h, Record(vector_biases)).shape == (H,)


def test_cell_gradients_against_finite_differences():
    w = random_weights()
    x, h = RNG.standard_normal(I), RNG.standard_normal(H)
    R = RNG.standard_normal((H, 1))
    TAPE.reset()
    tw = leaves(w)
    tx, th = TAPE.leaf(x.copy(), True), TAPE.leaf(h.copy(), True)
    out = gru_cell(tx, th, tw)
    g = grad(reductions.sum(ops.emul(out, R)), [tx, th, tw])
    TAPE.reset()
    loss = lambda: float(np.sum(gru_cell(x, h, Record(w)) * R))
    np.testing.assert_allclose(g[0], numeric_grad(loss, x), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(g[1], numeric_grad(loss, h), rtol=1e-6, atol=1e-9)
    for f in FIELDS:
        np.testing.assert_allclose(g[2].fields[f], numeric_grad(loss, w[f]), rtol=1e-6, atol=1e-9)


def test_scalar_weights_get_scalar_gradients():
    TAPE.reset()
    w = Record({f: TAPE.leaf(0.3 + 0.1 * i, True) for i, f in enumerate(FIELDS)})
    out = gru_cell(np.array([0.5, -1.0]), np.array([0.2, 0.1]), w)
    g = grad(reductions.sum(out), w)
    assert all(type(v) is float for v in g.fields.values())
    plain = {f: v.value for f, v in w.fields.items()}
    for f in ("wz", "uh", "bh"):
        def loss(f=f, d=0.0):
            return float(np.sum(gru_cell(np.array([0.5, -1.0]), np.array([0.2, 0.1]),
                                         Record({**plain, f: plain[f] + d}))))
        assert g.fields[f] == pytest.approx((loss(d=1e-6) - loss(d=-1e-6)) / 2e-6, rel=1e-6)
    TAPE.reset()


# -- gru_forward ---------------------------------------------------------------
def test_forward_is_a_composition_of_cells():
    w = random_weights()
    X = RNG.standard_normal((I, 5))
    h0 = RNG.standard_normal(H)
    hs = gru_forward(X, h0, Record(w))
    assert isinstance(hs, list) and len(hs) == 5
    h = h0[:, None]
    for t in range(5):
        h = np_cell(X[:, t:t + 1], h, w)
        assert hs[t].shape == (H, 1)
        np.testing.assert_allclose(hs[t], h, rtol=1e-13)


def test_forward_gradients_against_finite_differences_and_cells():
    w = random_weights()
    X = RNG.standard_normal((I, 4))
    h0 = RNG.standard_normal((H, 1))
    Rs = [RNG.standard_normal((H, 1)) for _ in range(4)]

    def loss_plain():
        return float(sum(np.sum(h * R) for h, R in zip(gru_forward(X, h0, Record(w)), Rs[:3])))

    def tape_grads(step):
        TAPE.reset()
        tw, tX, th = leaves(w), TAPE.leaf(X.copy(), True), TAPE.leaf(h0.copy(), True)
        hs = step(tX, th, tw)
        loss = reductions.sum(ops.emul(hs[0], Rs[0]))
        for h, R in zip(hs[1:3], Rs[1:3]):          # the last state is unused
            loss = ops.add(loss, reductions.sum(ops.emul(h, R)))
        g = grad(loss, [tX, th, tw])
        TAPE.reset()
        return g

    def by_cells(tX, th, tw):
        hs, h = [], th
        for t in range(4):
            h = gru_cell(ops.index(tX, (slice(None), slice(t, t + 1))), h, tw)
            hs.append(h)
        return hs

    fused = tape_grads(lambda tX, th, tw: gru_forward(tX, th, tw))
    composed = tape_grads(by_cells)
    np.testing.assert_allclose(fused[0], numeric_grad(loss_plain, X), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(fused[1], numeric_grad(loss_plain, h0), rtol=1e-6, atol=1e-9)
    for f in FIELDS:
        np.testing.assert_allclose(fused[2].fields[f], numeric_grad(loss_plain, w[f]), rtol=1e-6, atol=1e-9)
        np.testing.assert_allclose(fused[2].fields[f], composed[2].fields[f], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(fused[0], composed[0], rtol=1e-12, atol=1e-15)


def test_batched_forward_matches_single_sequences_and_finite_differences():
    w = random_weights(I, H)
    B, T = 3, 4
    Xs = [RNG.standard_normal((I, B)) for _ in range(T)]
    h0 = RNG.standard_normal((H, B))
    hs = gru_forward(Xs, h0, Record(w))
    assert len(hs) == T and all(h.shape == (H, B) for h in hs)
    for b in range(B):
        single = gru_forward(np.stack([x[:, b] for x in Xs], axis=1), h0[:, b], Record(w))
        for t in range(T):
            np.testing.assert_allclose(hs[t][:, b], single[t][:, 0], rtol=1e-13)
    R = RNG.standard_normal((H, B))
    TAPE.reset()
    tXs = [TAPE.leaf(x.copy(), True) for x in Xs]
    th, tw = TAPE.leaf(h0.copy(), True), leaves(w)
    out = gru_forward(tXs, th, tw)
    g = grad(ops.add(reductions.sum(ops.emul(out[-1], R)), reductions.sum(out[1])), [tXs, th, tw])
    TAPE.reset()

    def loss():
        states = gru_forward(Xs, h0, Record(w))
        return float(np.sum(states[-1] * R) + np.sum(states[1]))
    np.testing.assert_allclose(g[0][2], numeric_grad(loss, Xs[2]), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(g[1], numeric_grad(loss, h0), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(g[2].fields["uh"], numeric_grad(loss, w["uh"]), rtol=1e-6, atol=1e-9)


def test_shared_h0_vector_across_a_batch():
    w = Record(random_weights())
    Xs = [RNG.standard_normal((I, 2)) for _ in range(3)]
    h0 = RNG.standard_normal(H)
    hs = gru_forward(Xs, h0, w)
    np.testing.assert_allclose(hs[-1], gru_forward(Xs, np.stack([h0, h0], axis=1), w)[-1])
    TAPE.reset()
    th = TAPE.leaf(h0.copy(), True)
    g = grad(reductions.sum(gru_forward(Xs, th, w)[-1]), th)
    assert g.shape == (H,)
    TAPE.reset()


def test_grad_twice_on_the_same_tape_and_all_states_used():
    TAPE.reset()
    tw = leaves(random_weights())
    hs = gru_forward(RNG.standard_normal((I, 6)), np.zeros(H), tw)
    assert all(type(h) is Tracked for h in hs)
    loss = hs[0]
    for h in hs:
        loss = ops.add(loss, h)
    loss = reductions.sum(loss)
    a = grad(loss, tw.fields["wz"])
    b = grad(loss, tw.fields["wz"])
    np.testing.assert_array_equal(a, b)
    TAPE.reset()


def test_untracked_forward_returns_plain_arrays():
    hs = gru_forward(RNG.standard_normal((I, 2)), np.zeros(H), Record(random_weights()))
    assert all(type(h) is np.ndarray for h in hs)
    assert gru_forward([], np.zeros(H), Record(random_weights())) == []


@pytest.mark.parametrize("call, kind, words", [
    (lambda w: gru_cell(np.ones(I), np.ones(H), 3.0), "TypeError", ["record"]),
    (lambda w: gru_cell(np.ones(I), np.ones(H), Record({k: v for k, v in w.items() if k != "uh"})),
     "TypeError", ["uh"]),
    (lambda w: gru_cell(np.ones(I + 1), np.ones(H), Record(w)), "ShapeError", ["wz", "3x3", "3x2"]),
    (lambda w: gru_cell(np.ones(I), np.ones(H), Record({**w, "bh": np.ones(2)})), "ShapeError", ["bh"]),
    (lambda w: gru_cell(np.ones(I), np.ones(H), Record({**w, "wr": 0.5})), "ShapeError", ["wr"]),
    (lambda w: gru_cell(np.ones((I, 2)), np.ones((H, 3)), Record(w)), "ShapeError", ["batch"]),
    (lambda w: gru_forward(np.ones((I, 3)), np.ones((H, 2)), Record(w)), "ShapeError", ["list"]),
    (lambda w: gru_forward([np.ones(I), np.ones(I + 1)], np.ones(H), Record(w)), "ShapeError", ["step 1"]),
    (lambda w: gru_forward("abc", np.ones(H), Record(w)), "TypeError", ["string"]),
])
def test_errors(call, kind, words):
    with pytest.raises(LaminaError) as e:
        call(random_weights())
    assert e.value.kind == kind, e.value.message
    for word in words:
        assert word in e.value.message, e.value.message


def test_a_matrix_of_no_columns_is_a_sequence_of_no_steps(run):
    # Was a ShapeError claiming wz "must be a 3x0 matrix for input size 0", though X has 2 rows;
    # an empty list of steps already gave [].
    lines, _ = run("w = gru_init(2, 3, seed = 1)\n"
                   "print(gru_forward(zeros(2, 0), [0.0, 0.0, 0.0], w))\n"
                   "print(length(gru_forward(param(zeros(2, 0)), param([0.0, 0.0, 0.0]), w)))")
    TAPE.reset()
    assert lines == ["[]", "0"]
