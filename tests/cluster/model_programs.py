"""Programs whose sweeps read a model spec or a model that holds Lamina functions (a custom
layer's, compile's loss = f), made at the top level: test_package.py runs them in this process,
test_ray.py on Ray. Each program computes `direct`, the same training run in the program, for
the sweep's numbers to equal exactly."""
from __future__ import annotations

import numpy as np
from sweep_helpers import run

DATA = """\
seed(1)
X = randn(200, 4)
Y = X * [2; -1; 0; 0.5] + 0.5
"""

# A custom layer whose weight shape is a function of its input's shape, made outside train.
SPEC = DATA + """\
function affine(p, x)
    return x * p.w + p.b
end function
spec = input(4) |> custom_layer("affine", params = {w = s -> [s[0], 1], b = [1, 1]}, init = {b = "zeros"}, forward = affine)
function train(config)
    net = spec |> compile(optimizer = adam(lr = config.lr), seed = 2)
    net = net.fit(X, Y, epochs = 5, verbose = 0)
    return {loss = evaluate(net, X, Y).loss}
end function
direct = [train({lr = 0.01}).loss, train({lr = 0.1}).loss]
t = sweep(train, {lr = [0.01, 0.1]}, seed = 1{workers})
"""

# A compiled model with a Lamina loss, fitted 2 epochs outside: the sweep fits it further, so
# its weights, adam's state and its histories must all arrive.
MODEL = DATA + """\
function my_loss(p, y)
    return mean(abs(p - y))
end function
net = input(4) |> dense(3, activation = "tanh") |> dense(1) |> compile(loss = my_loss, optimizer = adam(lr = 0.05), seed = 3)
net = net.fit(X, Y, epochs = 2, verbose = 0)
function more(config)
    m = net.fit(X, Y, epochs = config.epochs, verbose = 0)
    return {loss = evaluate(m, X, Y).loss, first = m.loss_history[0], trained = m.epochs}
end function
direct = [more({epochs = 1}), more({epochs = 3})]
t = sweep(more, {epochs = [1, 3]}, seed = 1{workers})
"""

# parallel_map of a function reading a model with a custom layer and a Lamina loss.
MAPPED = DATA + """\
function halved(p, x)
    return x * p.w / 2
end function
net = input(4) |> custom_layer("halved", params = {w = [4, 1]}, forward = halved) |> compile(loss = (p, y) -> mean((p - y) .^ 2), seed = 5)
function fitted(epochs)
    return evaluate(net.fit(X, Y, epochs = epochs, verbose = 0), X, Y).loss
end function
direct = map([1, 2, 4], fitted)
mapped = parallel_map(fitted, [1, 2, 4]{workers})
"""


def sweep_and_direct(program: str, workers: str = ""):
    """The sweep's table and the numbers the program computed directly."""
    _, interp = run(program.replace("{workers}", workers))
    return interp.get("t"), interp.get("direct")


def assert_spec_sweep_equals_direct(program_workers: str = "") -> None:
    t, direct = sweep_and_direct(SPEC, program_workers)
    assert t.columns["error"] == ["", ""]
    np.testing.assert_array_equal(t.columns["loss"], direct)
    assert direct[0] != direct[1] and all(np.isfinite(direct))


def assert_model_sweep_equals_direct(program_workers: str = "") -> None:
    t, direct = sweep_and_direct(MODEL, program_workers)
    assert t.columns["error"] == ["", ""]
    for name in ["loss", "first", "trained"]:
        np.testing.assert_array_equal(t.columns[name], [d.fields[name] for d in direct])
    assert list(t.columns["trained"]) == [3, 5]


def assert_map_equals_direct(program_workers: str = "") -> None:
    _, interp = run(MAPPED.replace("{workers}", program_workers))
    mapped, direct = interp.get("mapped"), interp.get("direct")
    np.testing.assert_array_equal(mapped, direct)
    assert len(set(np.asarray(direct).tolist())) == 3
