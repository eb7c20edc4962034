"""Each optimizer over several steps: against an independent NumPy transcription of
LIBRARY.md's table, against torch.optim where the rule is the same, and the seed's numbers."""
import math

import numpy as np
import pytest

from lamina.optim.base import make
from lamina.optim.registry import RULES

STEPS = 6
RNG = np.random.default_rng(11)
W0 = RNG.standard_normal((3, 2))
GRADS = [RNG.standard_normal((3, 2)) for _ in range(STEPS)]


def reference(name, hp, w, grads):
    """LIBRARY.md's update rules, element by element, written independently of lamina.optim."""
    w = w.copy()
    a = np.zeros_like(w)   # first slot: v / m / s / G / Eg
    b = np.zeros_like(w)   # second slot: v (adam family) / u / Ed
    lr = hp["lr"]
    for t, g in enumerate(grads, start=1):
        for j in np.ndindex(w.shape):
            gj = g[j]
            if name in ("sgd", "nesterov_sgd"):
                a[j] = hp["momentum"] * a[j] + gj
                w[j] -= lr * (a[j] if name == "sgd" else gj + hp["momentum"] * a[j])
            elif name in ("adam", "adamw", "nadam"):
                b1, b2, eps = hp["beta1"], hp["beta2"], hp["eps"]
                if name == "adamw":
                    w[j] -= lr * hp["weight_decay"] * w[j]
                a[j] = b1 * a[j] + (1 - b1) * gj
                b[j] = b2 * b[j] + (1 - b2) * gj * gj
                if name == "nadam":
                    num = b1 * a[j] / (1 - b1 ** (t + 1)) + (1 - b1) * gj / (1 - b1 ** t)
                    w[j] -= lr * num / (math.sqrt(b[j] / (1 - b2 ** t)) + eps)
                else:
                    w[j] -= lr * (a[j] / (1 - b1 ** t)) / (math.sqrt(b[j] / (1 - b2 ** t)) + eps)
            elif name == "adamax":
                a[j] = hp["beta1"] * a[j] + (1 - hp["beta1"]) * gj
                b[j] = max(hp["beta2"] * b[j], abs(gj))
                w[j] -= lr / (1 - hp["beta1"] ** t) * a[j] / (b[j] + hp["eps"])
            elif name == "rmsprop":
                a[j] = hp["rho"] * a[j] + (1 - hp["rho"]) * gj * gj
                w[j] -= lr * gj / (math.sqrt(a[j]) + hp["eps"])
            elif name == "adagrad":
                a[j] += gj * gj
                w[j] -= lr * gj / (math.sqrt(a[j]) + hp["eps"])
            elif name == "adadelta":
                a[j] = hp["rho"] * a[j] + (1 - hp["rho"]) * gj * gj
                d = math.sqrt(b[j] + hp["eps"]) / math.sqrt(a[j] + hp["eps"]) * gj
                b[j] = hp["rho"] * b[j] + (1 - hp["rho"]) * d * d
                w[j] -= lr * d
            else:
                raise AssertionError(name)
    return w


def run_steps(name, w0=W0, grads=GRADS, **settings):
    opt = make(RULES[name], w0, **settings)
    for g in grads:
        opt = opt.step(g)
    return opt.get("_params")[0], opt


# Parameters of any rank: a rank-3 one and a rank-4 one (a 3 x 3 x 1 x 8 convolution kernel).
RANKED_RNG = np.random.default_rng(12)
RANKED = {shape: (RANKED_RNG.standard_normal(shape), [RANKED_RNG.standard_normal(shape) for _ in range(STEPS)])
          for shape in ((2, 3, 4), (3, 3, 1, 8))}


SETTINGS = {"sgd": [{}, {"lr": 0.1, "momentum": 0.8}], "nesterov_sgd": [{}, {"lr": 0.05, "momentum": 0.5}],
            "adam": [{}, {"lr": 0.1, "beta1": 0.5}], "adamw": [{}, {"lr": 0.1, "weight_decay": 0.3}],
            "nadam": [{}, {"lr": 0.05}], "adamax": [{}, {"lr": 0.05, "beta2": 0.9}],
            "rmsprop": [{}, {"lr": 0.01, "rho": 0.5}], "adagrad": [{}, {"lr": 0.5}],
            "adadelta": [{}, {"lr": 0.5, "rho": 0.9, "eps": 1e-6}]}


@pytest.mark.parametrize("name, settings", [(n, s) for n, ss in SETTINGS.items() for s in ss])
def test_against_numpy_reference(name, settings):
    got, opt = run_steps(name, **settings)
    assert opt.t == STEPS
    np.testing.assert_allclose(got, reference(name, opt.hp, W0, GRADS), rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("shape", list(RANKED), ids=["rank3", "rank4"])
@pytest.mark.parametrize("name, settings", [(n, ss[-1]) for n, ss in SETTINGS.items()])
def test_parameters_of_rank_3_and_4_against_numpy_reference(name, settings, shape):
    w0, grads = RANKED[shape]
    got, opt = run_steps(name, w0, grads, **settings)
    assert got.shape == shape and opt.state[0] and all(np.shape(v) == shape for v in opt.state[0].values())
    np.testing.assert_allclose(got, reference(name, opt.hp, w0, grads), rtol=1e-13, atol=1e-15)


def test_every_rule_is_in_the_table():
    assert set(SETTINGS) == set(RULES)


def test_defaults_follow_the_library_table():
    want = {"sgd": {"lr": 0.01, "momentum": 0.0}, "nesterov_sgd": {"lr": 0.01, "momentum": 0.9},
            "adam": {"lr": 0.001, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8},
            "adamw": {"lr": 0.001, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8, "weight_decay": 0.01},
            "nadam": {"lr": 0.001, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8},
            "adamax": {"lr": 0.002, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8},
            "rmsprop": {"lr": 0.001, "rho": 0.9, "eps": 1e-8}, "adagrad": {"lr": 0.01, "eps": 1e-8},
            "adadelta": {"lr": 1.0, "rho": 0.95, "eps": 1e-8}}
    assert {n: r.defaults for n, r in RULES.items()} == want


@pytest.mark.parametrize("name, settings, want", [
    ("nesterov_sgd", {"lr": 0.05, "momentum": 0.9}, 0.715), ("adamw", {"lr": 0.05}, 0.9495),
    ("nadam", {"lr": 0.05}, 0.9263), ("adamax", {"lr": 0.05}, 0.95), ("rmsprop", {"lr": 0.05}, 0.8419),
    ("adagrad", {"lr": 0.05}, 0.95), ("adadelta", {}, 0.9996)])
def test_seed_one_step_numbers(name, settings, want):
    opt = make(RULES[name], 1.0, **settings).step(np.array([3.0]))
    assert round(opt.get("_params")[0], 4) == want


def test_seed_twenty_adam_steps():
    x, y = np.array([1.0, 2.0, 3.0, 4.0]), np.array([2.0, 4.0, 6.0, 8.0])
    opt = make(RULES["adam"], 0.0, lr=0.1)
    for _ in range(20):
        w = opt.get("_params")[0]
        opt = opt.step(float(np.mean(2 * (w * x - y) * x)))
    assert round(opt.get("_params")[0], 4) == 1.7775


# torch.optim, in settings where its rule is exactly the table's. sgd, nesterov_sgd, adam, adamw,
# rmsprop (alpha = rho), adagrad and adadelta are the same rules as written. Two need a setting:
#   nadam: torch.optim.NAdam multiplies beta1 by a momentum schedule 1 - 0.5*0.96^(t*momentum_decay);
#          with momentum_decay = 1e9 that factor is exactly 1 (0.96^1e9 underflows to 0): the table's rule;
#   adamax: torch adds eps to abs(g) inside the max, the table adds it to u; with eps = 0 they agree.
def torch_cases(torch):
    o = torch.optim
    return [
        ("sgd", {"lr": 0.1, "momentum": 0.0}, lambda p: o.SGD(p, lr=0.1)),
        ("sgd", {"lr": 0.1, "momentum": 0.8}, lambda p: o.SGD(p, lr=0.1, momentum=0.8)),
        ("nesterov_sgd", {"lr": 0.05, "momentum": 0.9},
         lambda p: o.SGD(p, lr=0.05, momentum=0.9, nesterov=True)),
        ("adam", {"lr": 0.1}, lambda p: o.Adam(p, lr=0.1)),
        ("adamw", {"lr": 0.1, "weight_decay": 0.3}, lambda p: o.AdamW(p, lr=0.1, weight_decay=0.3)),
        ("nadam", {"lr": 0.05}, lambda p: o.NAdam(p, lr=0.05, momentum_decay=1e9)),
        ("adamax", {"lr": 0.05, "eps": 0.0}, lambda p: o.Adamax(p, lr=0.05, eps=0.0)),
        ("rmsprop", {"lr": 0.01, "rho": 0.8}, lambda p: o.RMSprop(p, lr=0.01, alpha=0.8, eps=1e-8)),
        ("adagrad", {"lr": 0.5}, lambda p: o.Adagrad(p, lr=0.5, eps=1e-8)),
        ("adadelta", {"lr": 0.5, "rho": 0.9}, lambda p: o.Adadelta(p, lr=0.5, rho=0.9, eps=1e-8)),
    ]


@pytest.fixture
def torch64():
    """torch with float64 as the default dtype: torch.optim keeps its step counters and NAdam's
    momentum product in the default dtype, and float32 there costs about 1e-7 in the result."""
    torch = pytest.importorskip("torch")
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    yield torch
    torch.set_default_dtype(old)


def test_against_torch_optim(torch64):
    torch = torch64
    for name, settings, make_torch in torch_cases(torch):
        p = torch.tensor(W0.copy(), requires_grad=True)
        opt = make_torch([p])
        for g in GRADS:
            p.grad = torch.tensor(g)
            opt.step()
        got, _ = run_steps(name, **settings)
        np.testing.assert_allclose(got, p.detach().numpy(), rtol=1e-12, atol=1e-14, err_msg=name)


@pytest.mark.parametrize("shape", list(RANKED), ids=["rank3", "rank4"])
def test_parameters_of_rank_3_and_4_against_torch_optim(torch64, shape):
    torch = torch64
    w0, grads = RANKED[shape]
    for name, settings, make_torch in torch_cases(torch):
        p = torch.tensor(w0.copy(), requires_grad=True)
        opt = make_torch([p])
        for g in grads:
            p.grad = torch.tensor(g)
            opt.step()
        got, _ = run_steps(name, w0, grads, **settings)
        np.testing.assert_allclose(got, p.detach().numpy(), rtol=1e-12, atol=1e-14, err_msg=name)
