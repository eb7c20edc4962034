"""compile: weights from the seed, the optimizer forms, losses and their pairing, errors."""
import numpy as np
import pytest

from lamina.errors import LaminaError
from lamina.models.model import Model

NET = 'spec = input(2) |> dense(4, activation = "relu") |> dense(1, activation = "none")\n'


def model(run, source):
    _, interp = run(NET + source)
    return interp.get("net")


def test_weights_come_from_the_seed_and_are_glorot_uniform(run):
    lines, interp = run(NET + 'a = compile(spec, seed = 7)\nb = compile(spec, seed = 7)\n'
                        'c = compile(spec, seed = 8)\n'
                        'print(a.weights[0].w == b.weights[0].w, a.weights[1].w == b.weights[1].w)\n'
                        'print(all(a.weights[0].w == c.weights[0].w))')
    assert lines == ["[1, 1, 1, 1; 1, 1, 1, 1] [1; 1; 1; 1]", "false"]
    a = interp.get("a")
    rng = np.random.default_rng(7)
    w0 = rng.uniform(-np.sqrt(6 / 6), np.sqrt(6 / 6), (2, 4))
    w1 = rng.uniform(-np.sqrt(6 / 5), np.sqrt(6 / 5), (4, 1))
    got = a.get("weights")
    np.testing.assert_array_equal(got[0].fields["w"], w0)
    np.testing.assert_array_equal(got[1].fields["w"], w1)
    assert got[0].fields["b"].shape == (1, 4) and not got[0].fields["b"].any()


def test_without_a_seed_the_global_generator_decides(run):
    lines, _ = run(NET + 'seed(3)\na = compile(spec)\nseed(3)\nb = compile(spec)\nc = compile(spec)\n'
                   'print(a.seed == b.seed, a.seed == c.seed)')
    assert lines == ["true false"]


@pytest.mark.parametrize("optimizer, name, lr", [
    ('"adam"', "adam", 0.001), ('"sgd"', "sgd", 0.01), ('adam(lr = 0.05)', "adam", 0.05),
    ('rmsprop(lr = 0.02, rho = 0.8)', "rmsprop", 0.02),
    ('lr_plateau(lr = 0.1, patience = 5, base = "sgd")', "sgd", 0.1),
    ('lr_step(0.3, 2)', "adam", 0.3),
])
def test_the_optimizer_forms(run, optimizer, name, lr):
    net = model(run, f'net = compile(spec, optimizer = {optimizer}, seed = 1)')
    opt = net.optimizer
    assert opt.rule.name == name and opt.hp["lr"] == lr and opt.t == 0
    assert [p.shape for p in opt.params] == [(2, 4), (1, 4), (4, 1), (1, 1)]


def test_an_optimizer_value_contributes_its_settings_only(run):
    net = model(run, 'w = param(1.0)\nopt = optimizer_step(adam(w, lr = 0.2, beta1 = 0.5), 1.0)\n'
                     'net = compile(spec, optimizer = opt, seed = 1)')
    assert net.optimizer.t == 0 and net.optimizer.hp["beta1"] == 0.5 and net.optimizer.hp["lr"] == 0.2
    assert not net.optimizer.state[0]["m"].any()


def test_defaults_are_adam_and_mse(run):
    net = model(run, 'net = compile(spec, seed = 2)')
    assert isinstance(net, Model) and net.optimizer.rule.name == "adam" and net.loss.name == "mse"
    assert net.schedule is None and net.epochs == 0 and net.get("loss_history").shape == (0,)


def test_fields_and_summary(run):
    lines, _ = run(NET + 'net = compile(spec, optimizer = "adam", loss = "mae", seed = 7)\n'
                   'print(net.inputs, net.outputs, net.loss, net.seed, net.epochs)\n'
                   'print(net.optimizer.lr, net.schedule, length(net.weights), net.layers[1].units)\n'
                   'print(net)')
    assert lines[0] == "2 1 mae 7 0"
    assert lines[1] == "0.001 none 2 1"
    assert lines[2] == "Model: 2 inputs -> 1 output, loss mae, optimizer adam(lr = 0.001), seed 7"
    assert lines[-2].strip() == "total parameters: 17" and lines[-1].strip() == "not trained yet"


@pytest.mark.parametrize("source, kind, words", [
    ('net = compile(spec, optimizer = "adamm")', "ValueError", "no optimizer called 'adamm'"),
    ('net = compile(spec, optimizer = 3)', "TypeError", "compile's optimizer"),
    ('net = compile(spec, loss = "hinge")', "ValueError", "no loss \"hinge\""),
    ('net = compile(input(2) |> dense(3, activation = "relu"), loss = "cross_entropy")',
     "ValueError", "\"softmax\" (or \"none\", for raw scores), but it is \"relu\""),
    ('net = compile(input(2) |> dense(1, activation = "tanh"), loss = "binary_cross_entropy")',
     "ValueError", "\"sigmoid\""),
    ('net = compile(input(2) |> dense(1, activation = "softmax"), loss = "cross_entropy")',
     "ValueError", "at least 2 units"),
    ('net = compile(input(2))', "ValueError", "ends with a dense layer"),
    ('net = compile(spec |> dropout(0.5))', "ValueError", "ends with a dense layer"),
    ('net = compile([1, 2])', "TypeError", "model spec"),
    ('net = compile(compile(spec), seed = 1)', "TypeError", "compiled model"),
    ('net = compile(spec, seed = -1)', "ValueError", "at least 0"),
    ('net = compile(spec, seed = 1.5)', "TypeError", "whole number"),
])
def test_errors(run, source, kind, words):
    with pytest.raises(LaminaError) as e:
        run(NET + source)
    assert e.value.kind == kind and words in e.value.message, e.value.message


@pytest.mark.parametrize("activation, loss", [("softmax", "cross_entropy"), ("none", "cross_entropy"),
                                              ("sigmoid", "binary_cross_entropy"),
                                              ("none", "binary_cross_entropy"), ("tanh", "mse"),
                                              ("softmax", "mae")])
def test_allowed_pairings(run, activation, loss):
    net = model(run, f'net = input(2) |> dense(3, activation = "{activation}") |> compile(loss = "{loss}")')
    assert net.loss.name == loss
