"""The layer protocol is the only way the model API knows a layer: a layer kind defined here,
in the test alone, compiles, fits, predicts, evaluates, prints, saves and loads."""
import importlib
import json
import pkgutil
from dataclasses import dataclass

import numpy as np
import pytest

import lamina.models.layers
from lamina.autodiff import ops
from lamina.builtins.registry import load_all
from lamina.errors import LaminaError
from lamina.models.compile import compile_model
from lamina.models.evaluate import evaluate, predict
from lamina.models.fit import fit
from lamina.files import EVERYTHING
from lamina.interpreter import Interpreter
from lamina.models.header import decoded
from lamina.models.layer import KINDS, DataShape, Layer, register
from lamina.models.layers.dense import dense_layer
from lamina.models.save import load_model, save_model
from lamina.models.spec import input_spec
from lamina.optim.registry import get


@dataclass(frozen=True)
class Scale(Layer):
    """y = x .* s + shift, with s a 1 x width row (starting at `start`) and no activation."""
    start: float
    kind = "scale"

    def parameters(self, data: DataShape) -> dict:
        return {"s": (1, data.width), "shift": (1, data.width)}

    def init(self, data, rng) -> list:
        return [np.full((1, data.width), self.start), rng.uniform(-0.1, 0.1, (1, data.width))]

    def forward(self, x, params, data, training, rng, logits=False):
        s, shift = params
        return ops.add(ops.emul(x, s), shift)

    def label(self) -> str:
        return f"scale({self.start:g})"


@pytest.fixture
def scale_kind():
    register(Scale)
    yield Scale
    del KINDS["scale"]


def data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((64, 3))
    return X, X @ np.array([[2.0], [-1.0], [0.5]]) + 0.3


def test_a_layer_defined_only_here_goes_through_the_whole_api(scale_kind, tmp_path):
    spec = dense_layer(input_spec(3.0).with_layer(Scale(1.0)), 1.0, "none")
    assert spec.parameter_counts() == [6, 4] and spec.widths() == [3, 3, 1]
    assert "scale(1)" in spec.describe() and spec.describe().endswith("total parameters: 10")
    net = compile_model(spec, get("adam").with_hp(lr=0.05), "mse", 3.0)
    weights = net.get("weights")
    assert list(weights[0].fields) == ["s", "shift"] and list(weights[1].fields) == ["w", "b"]
    np.testing.assert_array_equal(weights[0].fields["s"], np.ones((1, 3)))
    assert net.get("layers")[0].fields == {"kind": "scale", "start": 1.0}

    X, Y = data()
    trained = fit(net, X, Y, epochs=60, verbose=0)
    assert trained.loss_history[-1] < 0.01 * trained.loss_history[0]
    s, shift = (trained.get("weights")[0].fields[k] for k in ("s", "shift"))
    w, b = (trained.get("weights")[1].fields[k] for k in ("w", "b"))
    np.testing.assert_allclose(predict(trained, X), (X * s + shift) @ w + b, rtol=1e-12)
    assert evaluate(trained, X, Y).fields["loss"] < 0.01

    path = str(tmp_path / "scaled.npz")
    save_model(trained, path)
    back = load_model(path)
    assert back.spec.layers == trained.spec.layers
    np.testing.assert_array_equal(predict(back, X), predict(trained, X))
    again = [fit(m, X, Y, epochs=2, verbose=0) for m in (trained, back)]
    np.testing.assert_array_equal(again[0].loss_history, again[1].loss_history)


def test_a_file_with_a_kind_that_is_not_registered(scale_kind, tmp_path):
    spec = dense_layer(input_spec(3.0).with_layer(Scale(2.0)), 1.0, "none")
    path = tmp_path / "scaled.npz"
    save_model(compile_model(spec, get("adam"), "mse", 1.0), str(path))
    del KINDS["scale"]
    try:
        with pytest.raises(LaminaError) as e:
            load_model(str(path))
    finally:
        register(Scale)
    assert e.value.kind == "ValueError" and str(path) in e.value.message
    kinds = ", ".join(kind for kind in KINDS if kind != "scale")
    assert f"its header's layers[0].kind is \"scale\", and the layer kinds are {kinds}." in e.value.message


def test_compile_needs_a_last_layer_with_an_activation(scale_kind):
    with pytest.raises(LaminaError) as e:
        compile_model(input_spec(3.0).with_layer(Scale(1.0)), "adam", "mse", 1.0)
    assert e.value.kind == "ValueError" and "ends with scale(1)" in e.value.message


def compile_fn(text, name):
    """A saved function's source compiled back (what the load_model builtin does)."""
    interp = Interpreter(None, EVERYTHING)
    interp.run(text, f"<{name}>")
    return interp.get(name)


# The layer kinds of lamina/models/layers/ (this file registers one of its own for a test).
LAYERS = {kind: cls for kind, cls in KINDS.items() if cls.__module__.startswith("lamina.models.layers.")}
RECIPE = "docs/ARCHITECTURE.md, recipe 'A model layer'"


def test_every_layer_class_of_the_package_is_registered():
    for info in pkgutil.iter_modules(lamina.models.layers.__path__):
        module = importlib.import_module(f"lamina.models.layers.{info.name}")
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, Layer) and value.__module__ == module.__name__ \
                    and value.kind:     # a base class without a kind of its own is no layer kind
                assert KINDS.get(value.kind) is value, \
                    f"{value.__name__} of models/layers/{info.name}.py is not registered: decorate it with @register ({RECIPE}, step 1)"


@pytest.mark.parametrize("kind", sorted(LAYERS))
def test_every_layer_file_follows_the_recipe(run, kind):
    cls, spec = LAYERS[kind], load_all().get(kind)
    assert cls.example.startswith("input("), \
        f"{cls.__name__} needs example = 'input(...) |> {kind}(...)', a spec ending with it ({RECIPE}, step 1)"
    assert spec is not None and any(s.input.startswith("model spec") for s in spec.shapes), \
        (f"the layer {kind!r} ({cls.__module__}) has no builtin that appends it to a model spec: "
         f"add its overload to builtins/layers.py ({RECIPE}, step 2)")
    _, interp = run(f"s = {cls.example}")
    assert type(interp.get("s").layers[-1]) is cls


@pytest.mark.parametrize("kind", sorted(LAYERS))
def test_settings_survive_json_and_the_record_names_the_kind(run, kind):
    _, interp = run(f"s = {LAYERS[kind].example}")
    layer = interp.get("s").layers[-1]
    settings = json.loads(json.dumps(layer.settings()))
    back = type(layer).from_settings(decoded(settings, compile_fn, "settings"))     # functions compiled again
    assert back == layer or back.settings() == layer.settings()
    assert layer.record_fields()["kind"] == kind == layer.kind
    with pytest.raises(LaminaError, match="has no setting 'extra'"):
        type(layer).from_settings({**settings, "extra": 1})


def test_no_module_of_the_model_api_compares_layer_kinds():
    """Counting, splitting, compiling, printing and saving ask the protocol, never a kind's name."""
    import ast
    import pathlib

    import lamina.models
    root = pathlib.Path(lamina.models.__file__).parent
    found = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Compare) and any(isinstance(op, (ast.Eq, ast.NotEq)) for op in node.ops):
                names = [n.value for n in (node.left, *node.comparators) if isinstance(n, ast.Constant)]
                attrs = [n.attr for n in (node.left, *node.comparators) if isinstance(n, ast.Attribute)]
                if any(name in KINDS for name in names) or "kind" in attrs:
                    found.append(f"{path.relative_to(root)}:{node.lineno}")
    assert not found, found
