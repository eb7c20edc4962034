"""The gru layer: its forward against a NumPy transcription of the equations and against the
gru_forward builtin, its fused BPTT against finite differences and (where the formulas agree)
against torch.nn.GRU, the spec rules, and a fit that learns."""
import numpy as np
import pytest

from lamina.autodiff import ops, reductions
from lamina.autodiff.cases import GradCase
from lamina.autodiff.grad import grad
from lamina.autodiff.gradcheck import check
from lamina.autodiff.tape import TAPE
from lamina.errors import LaminaError
from lamina.models.layer import DataShape, reshaped
from lamina.models.layers.gru import GRU
from lamina.nn.gru import FIELDS, gru_forward
from lamina.values import Record

M, T, I, H = 3, 4, 2, 5


def sig(v):
    return 1 / (1 + np.exp(-v))


def reference(X, w, steps, return_sequences):
    """Cho et al. 2014 row by row: X is m x (steps * features), step after step."""
    m, n_in = X.shape[0], X.shape[1] // steps
    h = np.zeros((m, w["uz"].shape[0]))
    states = []
    for t in range(steps):
        x = X[:, t * n_in:(t + 1) * n_in]
        z = sig(x @ w["wz"].T + h @ w["uz"].T + w["bz"].T)
        r = sig(x @ w["wr"].T + h @ w["ur"].T + w["br"].T)
        hh = np.tanh(x @ w["wh"].T + (r * h) @ w["uh"].T + w["bh"].T)
        h = (1 - z) * h + z * hh
        states.append(h)
    return np.hstack(states) if return_sequences else h


def weights(rng, n_in=I, n_h=H):
    return {f: rng.normal(scale=0.5, size=(n_h, {"w": n_in, "u": n_h, "b": 1}[f[0]])) for f in FIELDS}


def forward(layer, X, w):
    """The layer on X, m x (T * I) rows, as the m x T x I batch it reads; its output as the matrix
    of its rows (m x (T * H) with return_sequences)."""
    data = DataShape((T, I))
    out = layer.forward(reshaped(X, (M, T, I)), [w[f] for f in FIELDS], data, training=False, rng=None)
    return reshaped(out, (M, -1))


@pytest.mark.parametrize("return_sequences", [False, True])
def test_forward_matches_the_equations(return_sequences):
    rng = np.random.default_rng(1)
    X, w = rng.standard_normal((M, T * I)), weights(rng)
    out = forward(GRU(H, return_sequences), X, w)
    assert out.shape == ((M, T * H) if return_sequences else (M, H))
    np.testing.assert_allclose(out, reference(X, w, T, return_sequences), rtol=1e-12, atol=1e-13)


def test_forward_agrees_with_the_gru_forward_builtin():
    rng = np.random.default_rng(2)
    X, w = rng.standard_normal((M, T * I)), weights(rng)
    steps = [np.ascontiguousarray(X[:, t * I:(t + 1) * I].T) for t in range(T)]   # I x m each
    states = gru_forward(steps, np.zeros((H, M)), Record(w))
    out = forward(GRU(H, True), X, w)
    for t, s in enumerate(states):
        np.testing.assert_allclose(out[:, t * H:(t + 1) * H], s.T, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("return_sequences", [False, True])
def test_gradients_match_finite_differences(return_sequences):
    layer = GRU(H, return_sequences)
    shapes = [{"w": (H, I), "u": (H, H), "b": (H, 1)}[f[0]] for f in FIELDS]
    problems = check(f"gru_layer:{return_sequences}",
                     lambda x, *ws: layer.forward(x, list(ws), DataShape((T, I)), False, None),
                     GradCase(((M, T, I), *shapes)))
    assert not problems, problems


def test_the_whole_batch_is_one_tape_entry():
    rng = np.random.default_rng(3)
    TAPE.reset()
    w = {f: TAPE.leaf(v, True) for f, v in weights(rng).items()}
    before = TAPE.size()
    GRU(H).forward(rng.standard_normal((M, T, I)), [w[f] for f in FIELDS], DataShape((T, I)), False, None)
    assert TAPE.size() - before == 1
    TAPE.reset()


def test_against_torch_where_the_formulas_agree():
    """torch's candidate is tanh(W_in x + b_in + r * (W_hn h + b_hn)) and its new state
    (1 - z) * n + z * h: with uh = 0 (and W_hn = 0, b_hn = 0) the candidates agree, and
    torch's z is our 1 - z when its z weights and bias are ours negated."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(4)
    X, w = rng.standard_normal((M, T * I)), weights(rng)
    w["uh"] = np.zeros((H, H))
    gru = torch.nn.GRU(I, H, batch_first=True).double()
    with torch.no_grad():
        gru.weight_ih_l0.copy_(torch.tensor(np.vstack([w["wr"], -w["wz"], w["wh"]])))
        gru.weight_hh_l0.copy_(torch.tensor(np.vstack([w["ur"], -w["uz"], w["uh"]])))
        gru.bias_ih_l0.copy_(torch.tensor(np.concatenate([w["br"], -w["bz"], w["bh"]]).ravel()))
        gru.bias_hh_l0.zero_()
    xt = torch.tensor(X.reshape(M, T, I), requires_grad=True)
    states, _ = gru(xt)
    R = rng.standard_normal((M, T * H))
    (states.reshape(M, T * H) * torch.tensor(R)).sum().backward()

    TAPE.reset()
    x = TAPE.leaf(X, True)
    leaves = {f: TAPE.leaf(v, True) for f, v in w.items()}
    out = forward(GRU(H, True), x, leaves)
    np.testing.assert_allclose(out.value, states.detach().numpy().reshape(M, T * H), rtol=1e-10, atol=1e-12)
    g = grad(reductions.sum(ops.emul(out, R)), [x, leaves["wz"], leaves["uz"], leaves["bz"],
                                                leaves["wr"], leaves["ur"], leaves["wh"], leaves["bh"]])
    TAPE.reset()
    H3 = slice(0, H), slice(H, 2 * H), slice(2 * H, 3 * H)
    ih, hh, bih = gru.weight_ih_l0.grad.numpy(), gru.weight_hh_l0.grad.numpy(), gru.bias_ih_l0.grad.numpy()
    want = [xt.grad.numpy().reshape(M, T * I), -ih[H3[1]], -hh[H3[1]], -bih[H3[1]].reshape(H, 1),
            ih[H3[0]], hh[H3[0]], ih[H3[2]], bih[H3[2]].reshape(H, 1)]
    for got, expected in zip(g, want):
        np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-11)


def test_shapes_through_a_spec(run):
    lines, interp = run('s = input(20, 8) |> gru(32) |> dense(1)\n'
                        't = input(20, 8) |> gru(16, return_sequences = true) |> gru(4) |> dense(1)\n'
                        'print(s.inputs, s.outputs)\nprint(s.layers[0])\nprint(t.layers[0])')
    assert lines == ["160 1", '{kind="gru", units=32, return_sequences=false}',
                     '{kind="gru", units=16, return_sequences=true}']
    t = interp.get("t")
    assert [d.width for d in t.shapes] == [160, 320, 4, 1] and t.shapes[1].steps == 20
    assert t.parameter_counts()[:2] == [3 * (16 * 8 + 16 * 16 + 16), 3 * (4 * 16 + 4 * 4 + 4)]


@pytest.mark.parametrize("source, kind, words", [
    ('input(8) |> gru(4)', "ShapeError", "input(steps, features)"),
    ('input(3, 2) |> dense(4) |> gru(4)', "ShapeError", "no steps"),
    ('input(3, 2) |> gru(0)', "ValueError", "at least 1"),
    ('input(3, 2) |> gru()', "TypeError", "number of units"),
    ('input(3, 2) |> gru(4, return_sequences = 1)', "TypeError", "true or false"),
    ('input(3, 2) |> gru(4, sequences = true)', "TypeError", "sequences"),
    ('gru([1, 2], 4)', "TypeError", "model spec"),
    ('input(3, 0)', "ValueError", "features"),
])
def test_errors(run, source, kind, words):
    with pytest.raises(LaminaError) as e:
        run(source)
    assert e.value.kind == kind and words in e.value.message, e.value.message


def test_a_fit_learns_the_sum_of_each_sequence(run):
    lines, interp = run('seed(1)\nX = randn(256, 6)\nY = X * ones(6, 1)\n'
                        'net = input(6, 1) |> gru(8) |> dense(1) |> compile(optimizer = adam(lr = 0.03), seed = 2)\n'
                        'net = net.fit(X, Y, epochs = 40, verbose = 0)\n'
                        'print(size(X), size(predict(net, X)))')
    assert lines == ["[256, 6] [256, 1]"]
    net = interp.get("net")
    assert net.loss_history[-1] < 0.05 * net.loss_history[0]
    weights_of = net.get("weights")[0].fields
    assert list(weights_of) == list(FIELDS) and weights_of["wz"].shape == (8, 1)


def test_wrong_width_names_the_steps(run):
    with pytest.raises(LaminaError) as e:
        run('net = input(6, 2) |> gru(3) |> dense(1) |> compile(seed = 0)\npredict(net, ones(4, 6))')
    assert e.value.kind == "ShapeError" and "input(6, 2)" in e.value.message \
        and "12 columns (6 steps of 2" in e.value.message, e.value.message


def test_a_sequence_of_one_step_is_printed_as_one_step(run):
    # was "3 inputs (1 steps of 3)" and "1 steps x 3"
    out, _ = run("print(input(1, 3) |> gru(2, return_sequences = true))")
    assert out == ["Model spec: 3 inputs (1 step of 3) (not compiled yet)",
                   "  #  layer                            output shape  parameters",
                   "  ------------------------------------------------------------",
                   "     input(1, 3)                      m x 1 x 3              0",
                   "  0  gru(2, return_sequences = true)  m x 1 x 2             36",
                   "  total parameters: 36"]


def test_predicts_shape_error_says_one_step(run):
    with pytest.raises(LaminaError) as e:
        run("net = input(1, 3) |> gru(2) |> dense(1) |> compile(seed = 1)\npredict(net, [1, 2; 3, 4])")
    assert "X needs 3 columns (1 step of 3, step after step)" in e.value.message
