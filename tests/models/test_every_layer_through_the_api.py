"""Every layer kind of lamina/models/layers/ in float32 and float64 through the whole model API
(issue 40): fit with its callbacks, predict, evaluate, save_model/load_model, the sweep, Ctrl-C,
the notebook's display of the model and plot(net).

The kinds are test_layer_protocol's LAYERS (the registry, no list of names here); each case is
its class's `example` spec made a classifier of CLASSES classes, trained by a Lamina program on
a few random rows whose form follows from the spec's input shape and what its first layer says
about itself (TOKENS). A new layer file is held to all of it without a line of this module.
"""
from __future__ import annotations

import contextlib
import functools
import html.parser
import io
import re

import numpy as np
import pytest
from test_fit_interrupt import batches_with      # how tests press Ctrl-C inside fit's batches
from test_layer_protocol import LAYERS

from lamina.autodiff.tape import TAPE
from lamina.interpreter import Interpreter
from lamina.kernel.display import value_bundle
from lamina.lang.scope import mangle
from lamina.stats.figures import close

CLASSES, ROWS, HELD_OUT, BATCH, LR = 3, 12, 6, 4, 0.01
CASES = [(kind, dtype) for kind in sorted(LAYERS) for dtype in ("float32", "float64")]

# A first layer that reads tokens (whole numbers below its `vocab`) rather than numbers: the one
# thing the input's shape does not say. Keyed by the attribute the layer has, not by its kind.
TOKENS = {"vocab": lambda layer, dims: f"floor({layer.vocab} * rand({dims}))"}


def made(source: str, **values) -> Interpreter:
    """A fresh interpreter that holds `values` as top-level variables and has run `source`."""
    interp = Interpreter()
    for name, value in values.items():
        interp.namespace[mangle(name)] = value
    with contextlib.redirect_stdout(io.StringIO()):
        interp.run(source, "<test>")
    return interp


def classifier(example: str):
    """(Lamina code of the spec: the example made a classifier, the example's spec)."""
    spec = made(f"s = {example}").get("s")
    last = spec.layers[-1]
    if last.activation == "softmax" and spec.shapes[-1].shape == (CLASSES,):
        return example, spec
    flat = " |> flatten()" if spec.shapes[-1].rank > 1 else ""
    return f'{example}{flat} |> dense({CLASSES}, activation = "softmax")', spec


def features(spec, rows: int) -> str:
    """Lamina code of `rows` examples of the spec's input, in the form its first layer reads."""
    dims = ", ".join(map(str, (rows, *spec.example)))
    first = spec.layers[0]
    rule = next((make for attribute, make in TOKENS.items() if hasattr(first, attribute)), None)
    return rule(first, dims) if rule else f"randn({dims})"


# The training every test reads: a schedule (lr_step, a callback that sets each epoch's rate)
# and early stopping (a callback that keeps the best validated epoch's weights) on.
PROGRAM = """\
seed(7)
X = {X}
Y = randint(0, {classes}, {rows})
Xv = {Xv}
Yv = randint(0, {classes}, {held_out})
spec = {spec}
halving = lr_step(lr = {lr}, every = 1, factor = 0.5)
start = compile(spec, loss = "cross_entropy", optimizer = halving, seed = 4, dtype = "{dtype}")
net = fit(start, X, Y, epochs = 2, batch_size = {batch}, validation_data = [Xv, Yv], early_stopping = 1, verbose = 0)
p = predict(net, X)
e = evaluate(net, X, Y)
ev = evaluate(net, Xv, Yv)
"""


@functools.cache
def trained(kind: str, dtype: str) -> dict:
    """The program's variables, run once per case (every test below reads them)."""
    spec_code, example = classifier(LAYERS[kind].example)
    interp = made(PROGRAM.format(X=features(example, ROWS), Xv=features(example, HELD_OUT), spec=spec_code,
                                 classes=CLASSES, rows=ROWS, held_out=HELD_OUT, lr=LR, dtype=dtype, batch=BATCH))
    values = {name: interp.get(name) for name in ["X", "Y", "start", "net", "p", "e", "ev"]}
    return values | {"spec_code": spec_code, "layers": len(example.layers)}


@pytest.fixture(autouse=True)
def fresh_tape():
    """As the `run` fixture leaves it: fit's batches write to the one tape."""
    yield
    TAPE.reset()


@pytest.fixture(params=CASES, ids=[f"{k}-{d}" for k, d in CASES])
def case(request):
    kind, dtype = request.param
    return trained(kind, dtype), np.dtype(dtype)


def test_fit_keeps_the_dtype_and_its_callbacks_ran(case):
    v, dtype = case
    net = v["net"]
    assert net.get("dtype") == dtype.name and not net.interrupted
    assert all(w.dtype == dtype for w in net.params) and all(b.dtype == dtype for b in net.buffers)
    assert all(a.dtype == dtype for state in net.optimizer.state for a in state.values())
    assert net.epochs == 2 and np.all(np.isfinite(net.loss_history))
    # the schedule's callback halved the rate after epoch 0
    np.testing.assert_array_equal(net.lr_history, [LR, LR / 2])
    # early stopping's (patience 1): the weights are those of the better validated epoch, whose
    # validation loss evaluate gives again
    val = net.val_loss_history
    best = int(np.argmin(val))
    assert val.size == 2 and (1 if net.weights_epoch is None else net.weights_epoch) == best
    assert v["ev"].fields["loss"] == val[best]


def test_predict_and_evaluate_agree_with_numpy(case):
    v, dtype = case
    p, y = v["p"], v["Y"].astype(int)
    assert p.shape == (ROWS, CLASSES) and p.dtype == dtype
    np.testing.assert_allclose(p.sum(axis=1), 1, rtol=1e-5 if dtype == np.float32 else 1e-12)
    probs = p.astype(np.float64)[np.arange(ROWS), y]
    loss, accuracy = -np.mean(np.log(probs)), np.mean(p.argmax(axis=1) == y)
    np.testing.assert_allclose(v["e"].fields["loss"], loss, rtol=1e-5 if dtype == np.float32 else 1e-12)
    assert v["e"].fields["accuracy"] == accuracy


def test_save_and_load_predict_the_same_numbers(case, tmp_path):
    v, dtype = case
    path = str(tmp_path / "net.npz")
    back = made(f'save_model(net, "{path}")\nback = load_model("{path}")\nq = predict(back, X)',
                net=v["net"], X=v["X"])
    assert back.get("back").get("dtype") == dtype.name
    q = back.get("q")
    assert q.dtype == dtype
    np.testing.assert_array_equal(q, v["p"])


SWEPT = """\
spec = {spec}
function train(c)
    m = compile(spec, loss = "cross_entropy", optimizer = adam(lr = c.lr), seed = 4, dtype = "{dtype}")
    m = m.fit(X, Y, epochs = 2, batch_size = {batch}, verbose = 0)
    return {{loss = evaluate(m, X, Y).loss, first = m.loss_history[0]}}
end function
direct = [train({{lr = 0.01}}), train({{lr = 0.05}})]
t = sweep(train, {{lr = [0.01, 0.05]}}, seed = 1)
"""


def test_the_sweep_trains_as_the_program_does(case):
    v, dtype = case
    run = made(SWEPT.format(spec=v["spec_code"], dtype=dtype.name, batch=BATCH), X=v["X"], Y=v["Y"])
    t, direct = run.get("t"), run.get("direct")
    assert t.columns["error"] == ["", ""]
    for name in ("loss", "first"):
        np.testing.assert_array_equal(t.columns[name], [d.fields[name] for d in direct])
    assert direct[0].fields["loss"] != direct[1].fields["loss"]


def test_ctrl_c_returns_a_usable_model_with_the_notice(case, monkeypatch, capsys):
    v, dtype = case
    done = batches_with(monkeypatch, at_call=5, how="signal")     # epoch 1 (from 0), its 2nd batch
    run = made(f"cut = fit(start, X, Y, epochs = 2, batch_size = {BATCH}, verbose = 0)\nq = predict(cut, X)",
               start=v["start"], X=v["X"], Y=v["Y"])
    cut, q = run.get("cut"), run.get("q")
    assert cut.interrupted and cut.epochs == 1 and len(done) == 5
    for w, finished in zip(cut.params, done[-1].params):
        assert w.dtype == dtype
        np.testing.assert_array_equal(w, finished)
    assert capsys.readouterr().err.startswith("warning: fit stopped by Ctrl-C after 1 complete epoch; it "
                                              "returns the model trained so far (interrupted = true).")
    assert q.shape == (ROWS, CLASSES) and q.dtype == dtype and np.all(np.isfinite(q))


class Cells(html.parser.HTMLParser):
    """The text of each table row's cells."""

    def __init__(self, text: str):
        super().__init__()
        self.rows, self.cell = [], None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self.cell = ""

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self.rows[-1].append(self.cell)
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data


def outputs_of(net, layers: int, x: np.ndarray) -> np.ndarray:
    """x through the model's first `layers` layers, each asked by the protocol alone."""
    spec, h = net.spec, x.reshape(x.shape[0], *net.spec.example).astype(net.dtype)
    flat = list(net.buffers)
    for i, (layer, params) in enumerate(zip(spec.layers[:layers], net.layer_params())):
        part = spec.buffer_slices[i]
        if part.start == part.stop:
            h = layer.forward(h, params, spec.shapes[i], training=False, rng=None)
        else:
            h, _ = layer.forward_buffers(h, params, flat[part], spec.shapes[i], training=False, rng=None)
    return np.asarray(h)


def test_the_notebook_shows_the_layers_row(case):
    v, _ = case
    net, i = v["net"], v["layers"] - 1            # the example's own layer
    layer = net.spec.layers[i]
    shape = " x ".join(["m", *map(str, outputs_of(net, i + 1, v["X"]).shape[1:])])
    count = sum(w.size for w in net.layer_params()[i])
    want = [str(i), layer.label(), shape, str(count)]
    bundle = value_bundle(net)
    plain = [re.split(r"\s{2,}", line.strip()) for line in bundle["text/plain"].splitlines()]
    assert want in plain, bundle["text/plain"]
    assert want in Cells(bundle["text/html"]).rows, bundle["text/html"]


def test_plot_of_the_fitted_model_saves_a_png(case, tmp_path):
    v, _ = case
    path = tmp_path / "loss.png"
    close()
    try:
        made(f'plot(net)\nsavefig("{path}", dpi = 40)', net=v["net"])
    finally:
        close()
    png = path.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert int.from_bytes(png[16:20], "big") > 0 and int.from_bytes(png[20:24], "big") > 0
