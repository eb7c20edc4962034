"""compile(loss = f) with a Lamina function of (prediction, target): fit, evaluate and predict
through it (a function equal to mse trains to the bit as "mse" does; a Huber loss steps the weights
as torch's HuberLoss and SGD do), save_model writing its source and load_model reading it back, and
each refusal: a function that reads the program's variables, a file whose source holds more than
the definition, a saved function that touches files."""
import json

import numpy as np
import pytest

from lamina.errors import LaminaError
from lamina.files import EVERYTHING
from lamina.interpreter import Interpreter
from lamina.lang.scope import Host
from lamina.models.save import load_model

DATA = "seed(1)\nX = randn(40, 3)\nY = X * [1; -2; 0.5] + 0.1 * randn(40, 1)\n"
MSE = "function my_mse(p, y)\n    return mean((p - y) .^ 2)\nend function\n"


def compile_fn(text, name):
    """What the load_model builtin does (builtins/models.py), for calls from Python."""
    interp = Host(Interpreter, None, EVERYTHING).make(None, EVERYTHING)
    interp.run(text, f"<{name}>")
    return interp.get(name)


def test_a_function_equal_to_mse_trains_as_mse_does(run):
    """The same numbers up to rounding: mean((p - y) .^ 2) sums in another order than nn's mse."""
    _, interp = run(DATA + MSE + "a = input(3) |> dense(4, activation = \"tanh\") |> dense(1) |>\n"
                    "    compile(optimizer = adam(lr = 0.05), loss = my_mse, seed = 2)\n"
                    "b = input(3) |> dense(4, activation = \"tanh\") |> dense(1) |>\n"
                    "    compile(optimizer = adam(lr = 0.05), loss = \"mse\", seed = 2)\n"
                    "a = a.fit(X, Y, epochs = 4, batch_size = 8, validation_split = 0.25, verbose = 0)\n"
                    "b = b.fit(X, Y, epochs = 4, batch_size = 8, validation_split = 0.25, verbose = 0)\n"
                    "ea = evaluate(a, X, Y)\neb = evaluate(b, X, Y)\nfn = a.loss")
    a, b = interp.get("a"), interp.get("b")
    np.testing.assert_allclose(a.loss_history, b.loss_history, rtol=1e-13)
    np.testing.assert_allclose(a.val_loss_history, b.val_loss_history, rtol=1e-13)
    ea, eb = interp.get("ea").fields, interp.get("eb").fields
    assert list(ea) == list(eb) == ["loss"] and ea["loss"] == pytest.approx(eb["loss"], rel=1e-13)
    assert a.describe().splitlines()[0].startswith("Model: 3 inputs -> 1 output, loss my_mse, ")
    assert interp.get("fn") is interp.get("my_mse")


def test_a_huber_loss_steps_the_weights_as_torch_does(run):
    torch = pytest.importorskip("torch")
    _, interp = run(DATA + "function huber(p, y)\n    d = abs(p - y)\n"
                    "    return mean((d < 1) .* 0.5 .* d .^ 2 + (d >= 1) .* (d - 0.5))\nend function\n"
                    "net = input(3) |> dense(1) |> compile(optimizer = sgd(lr = 0.3), loss = huber, seed = 5)\n"
                    "w0 = net.weights[0]\nnet = net.fit(3 * X, Y, epochs = 1, batch_size = 40, shuffle = false, verbose = 0)")
    w0, X, Y = interp.get("w0").fields, interp.get("X"), interp.get("Y")
    w = torch.tensor(w0["w"], requires_grad=True)
    b = torch.tensor(w0["b"], requires_grad=True)
    loss = torch.nn.HuberLoss(delta=1.0)(torch.tensor(3 * X) @ w + b, torch.tensor(Y))
    loss.backward()
    net = interp.get("net")
    assert net.loss_history[0] == pytest.approx(loss.item(), rel=1e-14)
    after = net.get("weights")[0].fields
    np.testing.assert_allclose(after["w"], (w - 0.3 * w.grad).detach().numpy(), rtol=1e-13)
    np.testing.assert_allclose(after["b"], (b - 0.3 * b.grad).detach().numpy(), rtol=1e-13)


def test_the_prediction_has_the_outputs_shape_and_the_target_follows_it(run):
    lines, interp = run("seed(2)\nX = randn(6, 4, 2)\nY = randn(6, 4, 3)\n"
                        "function last_step(p, y)\n    print(size(p), size(y))\n"
                        "    return mean((p[:, 3, :] - y[:, 3, :]) .^ 2)\nend function\n"
                        "net = input(4, 2) |> gru(3, return_sequences = true) |>\n"
                        "    compile(loss = last_step, seed = 1)\n"
                        "r = evaluate(net, X, Y)\nP = predict(net, X)")
    assert lines == ["[6, 4, 3] [6, 4, 3]"]
    P, Y = interp.get("P"), interp.get("Y")
    assert interp.get("r").fields == {"loss": pytest.approx(np.mean((P[:, 3] - Y[:, 3]) ** 2), rel=1e-14)}


def test_float32_stays_float32(run):
    _, interp = run(DATA + MSE + 'net = input(3) |> dense(1) |> compile(loss = my_mse, seed = 2, dtype = "float32")\n'
                    "net = net.fit(X, Y, epochs = 2, verbose = 0)\nP = predict(net, X)")
    assert interp.get("P").dtype == np.float32 and interp.get("net").params[0].dtype == np.float32


@pytest.mark.parametrize("loss, kind, message", [
    ("(p, y) -> sum(p - y, 1)", "TypeError", "compile's loss (an anonymous function) must return one number (the "
                                             "batch's loss), but it returned a 32x1 matrix."),
    ("(p, y) -> \"low\"", "TypeError", "compile's loss (an anonymous function) must return one number (the "
                                       "batch's loss), but it returned a string."),
    ("(p, y) -> error(\"no\")", "Error", "no"),
])
def test_a_loss_that_does_not_give_a_number(run, loss, kind, message):
    with pytest.raises(LaminaError) as e:
        run(DATA + f"net = input(3) |> dense(1) |> compile(loss = {loss}, seed = 1)\nnet = net.fit(X, Y, verbose = 0)")
    assert (e.value.kind, e.value.message) == (kind, message)


def test_a_loss_that_is_neither_a_name_nor_a_function(run):
    with pytest.raises(LaminaError) as e:
        run("net = input(3) |> dense(1) |> compile(loss = 3)")
    assert e.value.kind == "TypeError" and e.value.message == (
        "compile's loss must be a loss's name such as \"mse\", or a function of (prediction, target) that "
        "returns a number, not a number.")
    with pytest.raises(LaminaError, match="compile needs a model with a layer at least"):
        run("net = input(3) |> compile(loss = mae)")


@pytest.mark.parametrize("define, loss, saved", [
    (MSE, "my_mse", {"function": "my_mse", "source": MSE.rstrip("\n")}),
    ("", "(p, y) -> mean(abs(p - y))", {"function": "f", "source": "f = (p, y) -> mean(abs(p - y))"}),
    ("", "mae", {"builtin": "mae"}),
])
def test_save_and_load_a_model_with_a_function_loss(run, tmp_path, define, loss, saved):
    path = tmp_path / "net.npz"
    _, interp = run(DATA + define + f"net = input(3) |> dense(2, activation = \"relu\") |> dense(1) |>\n"
                    f"    compile(optimizer = adam(lr = 0.05), loss = {loss}, seed = 3)\n"
                    f"net = net.fit(X, Y, epochs = 2, verbose = 0)\nsave_model(net, \"{path}\")\n"
                    f"back = load_model(\"{path}\")\n"
                    "more = [net.fit(X, Y, epochs = 2, verbose = 0), back.fit(X, Y, epochs = 2, verbose = 0)]\n"
                    "same = predict(back, X) == predict(net, X)")
    with np.load(path) as f:
        assert json.loads(str(f["meta"]))["loss"] == saved
    assert interp.get("same").all()
    more = interp.get("more")
    np.testing.assert_array_equal(more[0].loss_history, more[1].loss_history)
    assert interp.get("back").describe().splitlines()[0] == interp.get("net").describe().splitlines()[0]
    again = tmp_path / "again.npz"                # a loaded function saves again as it was read
    run(f"save_model(load_model(\"{path}\"), \"{again}\")")
    with np.load(again) as f:
        assert json.loads(str(f["meta"]))["loss"] == saved


@pytest.mark.parametrize("source, words", [
    ("k = 2\nnet = input(3) |> dense(1) |> compile(loss = (p, y) -> k * mean(abs(p - y)))",
     "save_model cannot save the model's loss (the anonymous function): it reads the program's variable k."),
    ("function scale(p)\n    return 2 * p\nend function\nfunction twice(p, y)\n    return mean(abs(scale(p) - y))\n"
     "end function\nnet = input(3) |> dense(1) |> compile(loss = twice)",
     "save_model cannot save the model's loss (twice): it reads the program's variable scale."),
    ("function weighted(w)\n    return (p, y) -> w * mean(abs(p - y))\nend function\n"
     "net = input(3) |> dense(1) |> compile(loss = weighted(2))",
     "save_model cannot save the model's loss (the anonymous function): it captures w from the function it was made in."),
])
def test_a_function_that_does_not_stand_alone_is_not_saved(run, tmp_path, source, words):
    with pytest.raises(LaminaError) as e:
        run(source + f"\nsave_model(net, \"{tmp_path / 'x.npz'}\")")
    assert e.value.kind == "ValueError" and e.value.message.startswith(words), e.value.message
    assert "pass what it needs as a parameter" in e.value.message
    assert not (tmp_path / "x.npz").exists()


def crafted(run, tmp_path, loss_record):
    good = tmp_path / "good.npz"
    run(MSE + f"save_model(input(3) |> dense(1) |> compile(loss = my_mse, seed = 1), \"{good}\")")
    with np.load(good) as f:
        arrays = {k: f[k] for k in f.files}
    meta = json.loads(str(arrays["meta"]))
    meta["loss"] = loss_record
    arrays["meta"] = np.array(json.dumps(meta))
    path = tmp_path / "crafted.npz"
    with open(path, "wb") as f:
        np.savez(f, **arrays)
    return path, good


@pytest.mark.parametrize("record, words", [
    ({"function": "my_mse", "source": MSE + "print(\"ran\")\n"}, "its header's loss's source is not one "
     "definition of the function my_mse (and nothing else)"),
    ({"function": "my_mse", "source": "my_mse = 3"}, "its header's loss's source is not one definition"),
    ({"function": "other", "source": MSE}, "its header's loss's source is not one definition of the function other"),
    ({"function": "my_mse", "source": "function my_mse(p, y"}, "its header's loss's source does not parse"),
    ({"function": "print(1)", "source": MSE}, "its header's loss does not hold a function's name and source text"),
    ({"builtin": "mae; print(1)"}, "its header's loss.builtin is not a builtin's name"),
    ({"function": "my_mse"}, "its header's loss is not a saved function"),
])
def test_a_file_whose_function_is_not_one_definition_is_refused_before_anything_runs(run, tmp_path, record, words):
    path, _ = crafted(run, tmp_path, record)
    with pytest.raises(LaminaError) as e:
        run(f"net = load_model(\"{path}\")")
    assert e.value.kind == "ValueError" and words in e.value.message, e.value.message


def test_a_function_read_from_a_file_may_not_touch_files(run, tmp_path):
    target = tmp_path / "written.txt"
    source = (f"function my_mse(p, y)\n    write_csv(table([1, 2], [\"a\"]), \"{target}\")\n"
              "    return mean((p - y) .^ 2)\nend function")
    path, good = crafted(run, tmp_path, {"function": "my_mse", "source": source})
    with pytest.raises(LaminaError) as e:
        run(DATA + f"net = load_model(\"{path}\")\nnet = net.fit(X, Y, verbose = 0)")
    assert e.value.kind == "PermissionError" and not target.exists()


def test_load_model_from_python_needs_a_compiler_for_a_function(run, tmp_path):
    _, good = crafted(run, tmp_path, None)
    with pytest.raises(LaminaError) as e:
        load_model(str(good))
    assert "its header's loss is a Lamina function, which only load_model called from Lamina can read" in e.value.message
    assert load_model(str(good), compile_fn).loss.name == "my_mse"
