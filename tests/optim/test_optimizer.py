"""Every optimizer builtin through one table: immutability, parameter containers, gradient
forms, the registry, fields, and every error path."""
import importlib
import pkgutil

import numpy as np
import pytest

import lamina.optim

from lamina.autodiff.tape import TAPE
from lamina.builtins import optimizers as B
from lamina.builtins.registry import spec_of
from lamina.errors import LaminaError
from lamina.optim.base import Optimizer, Rule
from lamina.optim.registry import RULES, get
from lamina.values import Record

OPTIMIZERS = [spec_of(name).fn for name in RULES]      # each rule's constructor builtin
IDS = list(RULES)
table = pytest.mark.parametrize("make", OPTIMIZERS, ids=IDS)

M = np.array([[1.0, 2.0], [3.0, 4.0]])
V = np.array([0.5, -0.5, 1.5])


RECIPE = "docs/ARCHITECTURE.md, recipe 'An optimizer'"


def test_every_rule_written_in_optim_is_in_rules():
    for info in pkgutil.iter_modules(lamina.optim.__path__):
        module = importlib.import_module(f"lamina.optim.{info.name}")
        for value in vars(module).values():
            assert not isinstance(value, Rule) or RULES.get(value.name) is value, \
                f"the rule {value.name!r} of optim/{info.name}.py is not in RULES: add it to optim/registry.py ({RECIPE}, step 2)"


def test_every_rule_has_its_constructor_and_page():
    for name, rule in RULES.items():
        assert rule.summary and rule.example and rule.remark, \
            f"the rule {name!r} needs summary=, example= and remark= for its constructor's page ({RECIPE}, step 1)"
        spec = spec_of(name)
        assert spec is not None and spec.fn().rule is rule, \
            f"{name} is not its rule's constructor: builtins/optimizers.py registers one per rule of RULES"


@table
def test_stepping_returns_a_new_optimizer_and_leaves_the_old_one(make):
    opt = make([1.0, V.copy()], 0.1)
    once = B.optimizer_step(opt, [2.0, np.ones(3)])
    assert opt.get("_params")[0] == 1.0 and np.array_equal(opt.get("_params")[1], V)
    assert opt.get("_step") == 0 and once.get("_step") == 1
    assert once.get("_params")[0] != 1.0
    again = B.optimizer_step(opt, [2.0, np.ones(3)])
    assert again.get("_params")[0] == once.get("_params")[0]
    twice = B.optimizer_step(once, [2.0, np.ones(3)])
    assert twice.get("_params")[0] != once.get("_params")[0]


@table
def test_params_is_a_fresh_list_in_construction_order(make):
    TAPE.reset()
    w = TAPE.leaf(M.copy(), True)
    opt = make(Record({"w": w, "b": 0.5, "v": V}), lr=0.1)
    params = opt.get("_params")
    assert isinstance(params, list) and len(params) == 3
    assert np.array_equal(params[0], M) and params[1] == 0.5 and type(params[1]) is float
    # the optimizer's own arrays, not copies: a step never writes into one a value still holds
    stepped = B.optimizer_step(opt, Record({"w": np.ones((2, 2)), "b": 1.0, "v": np.ones(3)}))
    assert not np.array_equal(stepped.get("_params")[0], M)
    assert np.array_equal(params[0], M) and np.array_equal(opt.get("_params")[0], M)
    one = make(w, 0.1)
    assert len(one.get("_params")) == 1
    TAPE.reset()


@table
def test_gradient_forms(make):
    rec = make(Record({"a": 1.0, "b": M.copy()}), 0.1)
    by_record = B.optimizer_step(rec, Record({"b": np.ones((2, 2)), "a": 3.0}))
    by_list = B.optimizer_step(rec, [3.0, np.ones((2, 2))])
    for x, y in zip(by_record.get("_params"), by_list.get("_params")):
        np.testing.assert_array_equal(x, y)
    scalars = make([1.0, 2.0], 0.1)
    by_vector = B.optimizer_step(scalars, np.array([3.0, -1.0]))
    by_list = B.optimizer_step(scalars, [3.0, -1.0])
    assert by_vector.get("_params") == by_list.get("_params")
    one = make(1.0, 0.1)
    assert B.optimizer_step(one, np.array([3.0])).get("_params") == B.optimizer_step(one, 3.0).get("_params")
    TAPE.reset()
    tracked_grad = TAPE.leaf(np.ones((2, 2)), False)
    B.optimizer_step(make(M.copy(), 0.1), tracked_grad)
    TAPE.reset()


@table
def test_fields_and_describe(make):
    opt = make(1.0, 0.05)
    assert opt.get("lr") == 0.05 and opt.get("name") == make.__lamina_builtin__
    assert set(opt.field_names()) >= {"name", "lr", "_params", "_step"}
    assert make.__lamina_builtin__ in opt.describe()
    with pytest.raises(LaminaError) as e:
        opt.get("bogus")
    assert e.value.kind == "NameError"


def error(call):
    with pytest.raises(LaminaError) as e:
        call()
    return e.value


@table
def test_construction_errors(make):
    name = make.__lamina_builtin__
    e = error(lambda: make(1.0, 0.1, learning_rate=0.1))
    assert e.kind == "TypeError" and "learning_rate" in e.message and "lr" in e.message
    assert all(k in e.message for k in RULES[name].defaults)
    e = error(lambda: make(1.0, -0.1))
    assert e.kind == "ValueError" and "lr" in e.message and "-0.1" in e.message
    e = error(lambda: make(1.0, "fast"))
    assert e.kind == "TypeError"
    e = error(lambda: make([1.0, "w"], 0.1))
    assert e.kind == "TypeError" and "1" in e.message and "string" in e.message
    e = error(lambda: make([], 0.1))
    assert e.kind == "ValueError"
    first_other = next((k for k in RULES[name].defaults if k in ("momentum", "beta1", "rho")), None)
    if first_other:
        e = error(lambda: make(1.0, 0.1, **{first_other: 1.0}))
        assert e.kind == "ValueError" and first_other in e.message


@table
def test_step_errors_name_the_parameter_and_shapes(make):
    opt = make([1.0, M.copy()], 0.1)
    e = error(lambda: B.optimizer_step(opt, [1.0, np.ones(3)]))
    assert e.kind == "ShapeError" and "parameter 1" in e.message
    assert "vector of length 3" in e.message and "2x2" in e.message
    e = error(lambda: B.optimizer_step(opt, [1.0]))
    assert e.kind == "ValueError" and "1 gradients for 2" in e.message
    e = error(lambda: B.optimizer_step(opt, Record({"a": 1.0})))
    assert e.kind == "TypeError" and "record" in e.message
    rec = make(Record({"w": M.copy(), "b": 0.0}), 0.1)
    e = error(lambda: B.optimizer_step(rec, Record({"w": np.ones((2, 2))})))
    assert e.kind == "ValueError" and "b" in e.message
    e = error(lambda: B.optimizer_step(rec, Record({"w": np.ones((2, 3)), "b": 0.0})))
    assert e.kind == "ShapeError" and "'w'" in e.message and "2x3" in e.message
    e = error(lambda: B.optimizer_step(make(M.copy(), 0.1), np.ones(4)))
    assert e.kind == "ShapeError" and "the parameter" in e.message
    e = error(lambda: B.optimizer_step(make(1.0, 0.1), "g"))
    assert e.kind == "TypeError"
    e = error(lambda: B.optimizer_step(make(lr=0.1), 1.0))
    assert e.kind == "ValueError" and "no parameters" in e.message


def test_lr_given_twice_is_a_type_error(run):
    e = error(lambda: run("opt = adam(1.0, 0.1, lr = 0.2)"))
    assert e.kind == "TypeError" and "lr" in e.message


def test_optimizer_step_needs_an_optimizer():
    e = error(lambda: B.optimizer_step(Record({"lr": 0.1}), 1.0))
    assert e.kind == "TypeError" and "optimizer" in e.message


def test_registry_get():
    opt = get("adam")
    assert isinstance(opt, Optimizer) and not opt.bound and opt.get("lr") == 0.001
    bound = opt.bind([1.0, 2.0])
    assert bound.bound and bound.get("_params") == [1.0, 2.0]
    assert get(bound) is bound
    e = error(lambda: get("adamm"))
    assert e.kind == "ValueError" and "adam" in e.message and "sgd" in e.message
    assert error(lambda: get(3.0)).kind == "TypeError"


def test_with_hp_changes_settings_only():
    opt = spec_of("adam").fn(1.0, 0.1).step(3.0)
    faster = opt.with_hp(lr=0.5)
    assert faster.get("lr") == 0.5 and faster.t == opt.t and faster.state == opt.state
    assert error(lambda: opt.with_hp(lr=-1.0)).kind == "ValueError"


def test_params_keeps_the_structure_the_parameters_were_given_in(run):
    lines, _ = run("""
raw = gru_init(2, 3, seed = 1)
opt = adam(raw, lr = 0.1)
g = grad(sum(gru_forward([0.5, -0.3; 0.2, 0.4], [0.0, 0.0, 0.0], param(raw))[1]), wrt = param(raw))
tape_reset()
w = param(raw)
g = grad(sum(gru_forward([0.5, -0.3; 0.2, 0.4], [0.0, 0.0, 0.0], w)[1]), wrt = w)
opt = optimizer_step(opt, g)
print(type(opt.params), length(opt._params))
hs = gru_forward([0.5, -0.3; 0.2, 0.4], [0.0, 0.0, 0.0], opt.params)
print(length(hs), size(hs[1]))
print(all(opt.params.wz == opt._params[0]), all(opt.params.bh == opt._params[8]))
p = {w = [1.0, 2.0], b = 0.5}
o = optimizer_step(sgd(p, 0.1), {w = [1.0, 1.0], b = 1.0})
print(o.params)
print(optimizer_step(sgd([1.0, 2.0], 0.5), [1.0, 1.0]).params, optimizer_step(sgd(3.0, 0.5), 1.0).params)
""")
    assert lines == ["record 9", "2 [3, 1]", "true true", "{w=[0.9, 1.9], b=0.4}", "[0.5, 1.5] 2.5"]
    with pytest.raises(LaminaError) as e:
        run("print(adam(lr = 0.1).params)")
    assert "settings only" in e.value.message


@table
def test_a_track_value_is_frozen_and_the_others_train_as_alone(make):
    # track() marks a value not trainable: the optimizer keeps it and its state as they are
    # (torch.optim skips a tensor without requires_grad); the trainable ones step exactly as
    # they would in an optimizer of their own.
    TAPE.reset()
    from lamina.builtins.autodiff import param, track
    opt = make(Record({"w": param(M.copy()), "b": track(V.copy())}), 0.1)
    alone = make(Record({"w": param(M.copy())}), 0.1)
    g = np.array([[0.5, -1.0], [2.0, 0.25]])
    for _ in range(3):
        opt = B.optimizer_step(opt, Record({"w": g, "b": np.ones(3)}))
        alone = B.optimizer_step(alone, Record({"w": g}))
    assert np.array_equal(opt.get("params").fields["b"], V)
    assert all(np.array_equal(v, 0.0 * V) for v in opt.state[1].values())
    assert np.array_equal(opt.get("params").fields["w"], alone.get("params").fields["w"])
    assert opt.describe().endswith("2 parameters (1 frozen), 3 steps>")



# -- the loop written by hand (issue 36) ----------------------------------------------------
def _run(source: str) -> list[str]:
    import contextlib
    import io

    from lamina.interpreter import Interpreter
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        Interpreter().run(source, "prog.lam")
    return out.getvalue().splitlines()


@pytest.mark.parametrize("made_from", ["w", "0.0"])
def test_a_loop_that_differentiates_against_one_param_every_step_is_refused(made_from):
    # PyTorch's loop: w never moves, so every gradient would be taken at 0 while the optimizer
    # drifts (to 5 after 50 steps); the second step is refused
    with pytest.raises(LaminaError) as info:
        _run(f"w = param(0.0)\nopt = sgd({made_from}, 0.1)\nfor i = 1 to 50\n"
             "    opt = optimizer_step(opt, grad((w - 5) ^ 2, wrt = w))\nend for")
    err = info.value
    assert err.kind == "TapeError" and err.span.line == 4
    assert "taken at 0, now 1" in err.message and "q = param(opt.params)" in err.message


def test_a_record_loop_against_fixed_leaves_names_the_field():
    with pytest.raises(LaminaError) as info:
        _run("p = param({w = [1.0, 2.0], b = 0.0})\nopt = adam(p, lr = 0.1)\n"
             "for i = 1 to 3\n    opt = optimizer_step(opt, grad(sum(p.w .^ 2) + p.b ^ 2, wrt = p))\n"
             "end for")
    assert info.value.kind == "TapeError" and "parameter 'w'" in info.value.message


def test_gradients_taken_at_the_optimizers_parameters_step_freely():
    # fresh leaves each step (also a look-ahead point and a rate of 0) are never refused
    lines = _run("opt = sgd(2.0, 0.0)\nw = param(2.0)\n"
                 "opt = optimizer_step(opt, grad(w ^ 2, wrt = w))\n"
                 "opt = optimizer_step(opt, grad(w ^ 2, wrt = w))\n"
                 "opt = sgd(opt.params, 0.1)\n"
                 "for i = 1 to 5\n    tape_reset()\n    ahead = param(opt.params + 0.01)\n"
                 "    opt = optimizer_step(opt, grad(ahead ^ 2, wrt = ahead))\nend for\n"
                 "print(round(opt.params, 10))")
    x = 2.0
    for _ in range(5):
        x -= 0.1 * 2 * (x + 0.01)
    assert float(lines[0]) == round(x, 10)


def test_lr_sets_this_steps_rate_and_the_result_keeps_it():
    # a schedule by hand, against the same SGD arithmetic in NumPy
    lines = _run("opt = sgd({w = [1.0, -2.0], b = 0.5}, lr = 0.1)\n"
                 "for i = 1 to 4\n    tape_reset()\n    q = param(opt.params)\n"
                 "    loss = sum(q.w .^ 2) + q.b ^ 2\n"
                 "    opt = optimizer_step(opt, grad(loss, wrt = q), lr = 0.1 / i)\nend for\n"
                 "print(opt.params.w[0], opt.params.w[1], opt.params.b, opt.lr)")
    w, b = np.array([1.0, -2.0]), 0.5
    for i in range(1, 5):
        lr = 0.1 / i
        w, b = w - lr * (2 * w), b - lr * (2 * b)
    assert [float(x) for x in lines[0].split()] == [w[0], w[1], b, 0.1 / 4]


@table
def test_lr_is_checked_as_the_constructor_checks_it(make):
    opt = make([1.0], 0.1)
    with pytest.raises(LaminaError) as info:
        B.optimizer_step(opt, [1.0], lr=-1.0)
    assert info.value.kind == "ValueError" and "lr" in info.value.message
    assert B.optimizer_step(opt, [1.0], lr=0.5).get("lr") == 0.5 and opt.get("lr") == 0.1



@pytest.mark.parametrize("name", IDS)
def test_a_step_makes_one_optimizer_with_the_gradients_origins(name, monkeypatch):
    # a rule without an in-place form built a second Optimizer per step (dataclasses.replace,
    # to set the origins on the one advance had made)
    from lamina.interpreter import Interpreter
    from lamina.lang.scope import mangle
    interp = Interpreter()
    interp.run(f"w = param([1.0, -2.0])\nopt = {name}(w)\ng = grad(sum(w .^ 2), wrt = w)", "t.lam")
    opt, w = interp.get("opt"), interp.get("w")
    g = interp.namespace[mangle("g")]        # as the program holds it: the gradient grad handed out
    made, init = [], Optimizer.__init__
    monkeypatch.setattr(Optimizer, "__init__", lambda self, *a, **k: made.append(1) or init(self, *a, **k))
    new = B.optimizer_step(opt, g)
    assert len(made) == 1
    assert (new.origins, new.t, opt.origins) == ((w.node,), 1, (w.node,))
    by_hand = opt.advance([np.array([2.0, -4.0])], (7,))     # either form of advance takes them
    assert by_hand.origins == (7,) and opt.advance([np.array([2.0, -4.0])]).origins == (w.node,)
    np.testing.assert_array_equal(new.params[0], by_hand.params[0])
    TAPE.reset()


# -- parameters of any rank (issue 39) ------------------------------------------------------
W3 = np.arange(24.0).reshape(2, 3, 4) / 10 - 1
K4 = np.sin(np.arange(72.0)).reshape(3, 3, 1, 8)      # a 3 x 3 x 1 x 8 convolution kernel
ARRAYS = "seed(4)\nW = randn(2, 3, 4)\nK = randn(3, 3, 1, 8)\nG3 = randn(2, 3, 4)\nG4 = randn(3, 3, 1, 8)\n"


def test_sgd_steps_parameters_of_rank_3_and_4_in_a_program(run):
    _, interp = run(ARRAYS + "opt = sgd({w = W, k = K}, lr = 0.1)\nopt = optimizer_step(opt, {w = G3, k = G4})\n"
                    "p = opt.params\nq = optimizer_step(opt, [G3, G4], lr = 0.5).params")
    W, K, G3, G4 = (interp.get(name) for name in ("W", "K", "G3", "G4"))
    p, q = interp.get("p").fields, interp.get("q").fields
    np.testing.assert_array_equal(p["w"], W - 0.1 * G3)
    np.testing.assert_array_equal(p["k"], K - 0.1 * G4)
    np.testing.assert_array_equal(q["k"], p["k"] - 0.5 * G4)
    assert q["w"].shape == (2, 3, 4) and q["k"].shape == (3, 3, 1, 8)


def test_adam_steps_a_rank_4_parameter_by_its_gradient_taken_in_a_program(run):
    # one adam step from zero moments: m = (1-b1) g and v = (1-b2) g^2, so mh = g and vh = g^2
    _, interp = run(ARRAYS + "opt = adam(K, lr = 0.01)\nk = param(opt.params)\n"
                    "g = grad((k[1, 2, 0, 5] - 4) ^ 2 + 3 * k[0, 0, 0, 0], wrt = k)\n"
                    "opt = optimizer_step(opt, g)\np = opt.params")
    K = interp.get("K")
    g = np.zeros_like(K)
    g[1, 2, 0, 5] = 2 * (K[1, 2, 0, 5] - 4)
    g[0, 0, 0, 0] = 3.0
    np.testing.assert_array_equal(interp.get("g"), g)
    np.testing.assert_allclose(interp.get("p"), K - 0.01 * g / (np.abs(g) + 1e-8), rtol=1e-15, atol=0)


@table
def test_every_optimizer_steps_a_rank_3_parameter_as_the_same_numbers_in_a_matrix(make):
    G3 = np.cos(3 * W3)
    ranked = B.optimizer_step(B.optimizer_step(make([W3.copy(), 2.0], 0.1), [G3, 1.0]), [G3 ** 2, 1.0])
    flat = B.optimizer_step(B.optimizer_step(make([W3.reshape(6, 4), 2.0], 0.1), [G3.reshape(6, 4), 1.0]),
                            [G3.reshape(6, 4) ** 2, 1.0])
    w = ranked.get("params")[0]
    assert w.shape == (2, 3, 4) and all(np.shape(s) == (2, 3, 4) for s in ranked.state[0].values())
    np.testing.assert_array_equal(w, flat.get("params")[0].reshape(2, 3, 4))
    assert ranked.get("params")[1] == flat.get("params")[1]


def test_a_gradient_of_another_rank_names_the_parameter_and_both_shapes():
    opt = B.optimizer_step(spec_of("sgd").fn(Record({"w": W3.copy(), "k": K4.copy()}), 0.1),
                           Record({"w": np.ones((2, 3, 4)), "k": np.ones((3, 3, 1, 8))}))
    e = error(lambda: B.optimizer_step(opt, Record({"w": np.ones((2, 12)), "k": np.ones((3, 3, 8))})))
    assert e.kind == "ShapeError"
    assert e.message == "The gradient for parameter 'w' is a 2x12 matrix, but the parameter is a 2x3x4 array."
