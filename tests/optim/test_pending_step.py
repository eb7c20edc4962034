"""optimizer_step's pending update (optim/base.py, optim/ownership.py): the numbers of the
immutable update bit for bit, written into the old optimizer's arrays only when nothing else
holds it, and an optimizer, weights or gradients a program still holds never changed."""
import copy
import pickle
import weakref
from dataclasses import replace

import numpy as np
import pytest

from lamina.errors import LaminaError
from lamina.optim import base
from lamina.optim.base import make
from lamina.optim.ownership import sole
from lamina.optim.registry import RULES

pytestmark = pytest.mark.ownership      # .ci/run runs these on every Python

IN_PLACE = [name for name, rule in RULES.items() if rule.update_in_place is not None]


def start(rng):
    return [rng.standard_normal((4, 3)), rng.standard_normal((1, 3)), 0.7]


def gradients(rng, steps):
    return [[rng.standard_normal((4, 3)), rng.standard_normal((1, 3)), float(rng.standard_normal())]
            for _ in range(steps)]


def assert_same(a, b):
    assert a.t == b.t
    for x, y in zip(a.params, b.params):
        assert type(x) is type(y) and np.array_equal(x, y)
    for sx, sy in zip(a.state, b.state):
        assert sx.keys() == sy.keys() and all(np.array_equal(sx[k], sy[k]) for k in sx)


@pytest.fixture
def copies(monkeypatch):
    """How many times a pending step worked on a private() copy instead of in place."""
    made = []
    original = base.Optimizer.private
    monkeypatch.setattr(base.Optimizer, "private", lambda self: made.append(1) or original(self))
    return made


def test_adam_has_an_in_place_form():
    assert "adam" in IN_PLACE


@pytest.mark.parametrize("name", IN_PLACE)
def test_a_chain_of_steps_on_a_rebound_name_is_in_place_and_bit_for_bit(name, copies):
    rng = np.random.default_rng(5)
    params = start(rng)
    eager = make(RULES[name], params, lr=0.01)
    opt = make(RULES[name], params, lr=0.01)
    w0 = weakref.ref(opt.params[0])                # a weak reference: not a holder
    for grads in gradients(rng, 6):
        eager = eager.advance(grads)               # today's immutable update, copying
        copies.clear()
        opt = opt.step(grads)
        assert opt._pending is not None
        assert_same(opt, eager)                    # reading applies the step
        assert copies == []                        # the old optimizer was held by nobody else
    assert opt.params[0] is w0()                   # one set of arrays, updated in place
    assert np.array_equal(params[0], start(np.random.default_rng(5))[0])   # the weights given


@pytest.mark.parametrize("name", IN_PLACE)
def test_an_old_optimizer_still_held_is_left_as_it_was(name, copies):
    rng = np.random.default_rng(6)
    opt = make(RULES[name], start(rng), lr=0.01)
    before = copy.deepcopy((opt.params, opt.state))
    grads, more = gradients(rng, 2)
    new = opt.step(grads)
    assert_same(new, opt.advance(grads))
    assert copies == [1, 1]                        # the step's and advance's private copies
    assert opt.t == 0
    for x, y in zip(opt.params, before[0]):
        assert np.array_equal(x, y)
    for sx, sy in zip(opt.state, before[1]):
        assert all(np.array_equal(sx[k], sy[k]) for k in sx)
    assert_same(opt.step(grads), new)              # stepping the old one again: the same result
    assert_same(new.step(more), new.advance(more))


def test_two_pending_steps_from_one_optimizer_each_get_their_own_numbers():
    rng = np.random.default_rng(7)
    opt = make(RULES["adam"], start(rng))
    g1, g2 = gradients(rng, 2)
    one, two = opt.step(g1), opt.step(g2)
    del opt
    assert_same(two, make(RULES["adam"], start(np.random.default_rng(7))).advance(g2))
    assert_same(one, make(RULES["adam"], start(np.random.default_rng(7))).advance(g1))


def test_an_optimizer_sharing_arrays_through_with_hp_is_left_as_it_was():
    rng = np.random.default_rng(8)
    opt = make(RULES["adam"], start(rng), lr=0.01)
    faster = opt.with_hp(lr=0.1)                   # shares opt's parameter and state arrays
    kept = [np.copy(p) for p in faster.params]
    new = opt.step(gradients(rng, 1)[0])
    del opt
    new.params
    assert all(np.array_equal(p, k) for p, k in zip(faster.params, kept)) and faster.t == 0


@pytest.mark.parametrize("name", IN_PLACE)
def test_parameters_a_loop_still_holds_get_new_arrays_and_the_state_stays_in_place(name, copies):
    # the hand-written loop: p = opt.params hands out the optimizer's own arrays (param(p) wraps
    # them), and p still holds them when the next step is applied
    rng = np.random.default_rng(14)
    eager = make(RULES[name], start(rng), lr=0.01)
    opt = make(RULES[name], start(np.random.default_rng(14)), lr=0.01)
    m0 = weakref.ref(opt.state[0][RULES[name].slots[0]])
    for grads in gradients(rng, 5):
        eager = eager.advance(grads)                   # today's immutable update, copying
        copies.clear()
        p = opt.get("_params")
        assert p[0] is opt.params[0]                   # no copy handed out
        kept = copy.deepcopy(p)
        opt = opt.step(grads)
        assert_same(opt, eager)                        # reading applies the step
        assert copies == []                            # no private() copy of the whole optimizer
        assert opt.params[0] is not p[0] and opt.params[1] is not p[1]
        assert all(np.array_equal(a, b) for a, b in zip(p, kept))   # what was handed out is as it was
    assert opt.state[0][RULES[name].slots[0]] is m0()  # the state arrays written in place


def test_a_held_parameter_of_a_rule_without_an_in_place_form_gets_a_new_array():
    opt = make(RULES["rmsprop"], [np.ones(3), 2.0], lr=0.1).private()
    w = opt.params[0]
    held = opt.advance_in_place([np.ones(3), 1.0], held=(True, False))
    assert held is opt and opt.params[0] is not w and np.array_equal(w, np.ones(3))
    assert_same(opt, make(RULES["rmsprop"], [np.ones(3), 2.0], lr=0.1).advance([np.ones(3), 1.0]))


@pytest.mark.parametrize("hold", ["param array", "state array", "view", "params tuple", "state dict"])
def test_the_ownership_proof_sees_every_other_holder(hold):
    opt = make(RULES["adam"], start(np.random.default_rng(9))).private()
    assert sole(opt)
    held = {"param array": lambda: opt.params[0], "state array": lambda: opt.state[1]["v"],
            "view": lambda: opt.params[0][1:], "params tuple": lambda: opt.params,
            "state dict": lambda: opt.state[0]}[hold]()
    assert not sole(opt)
    del held
    assert sole(opt)
    other = opt
    assert not sole(opt)
    del other


def test_a_view_as_a_parameter_is_never_written_in_place(copies):
    data = np.arange(12.0).reshape(4, 3)
    opt = make(RULES["adam"], [data])
    object.__setattr__(opt, "params", (data[1:],))       # a parameter that is a view
    object.__setattr__(opt, "state", ({"m": np.zeros((3, 3)), "v": np.zeros((3, 3))},))
    new = opt.step([np.ones((3, 3))])
    del opt
    new.params
    assert copies == [1] and np.array_equal(data, np.arange(12.0).reshape(4, 3))


def test_a_read_only_parameter_is_never_written_in_place(copies):
    opt = make(RULES["adam"], [np.arange(3.0)])
    opt.params[0].flags.writeable = False
    new = opt.step([np.ones(3)])
    del opt
    assert_same(new, make(RULES["adam"], [np.arange(3.0)]).advance([np.ones(3)]))
    assert copies == [1, 1]


def test_a_pending_step_only_reads_the_gradients_it_holds():
    rng = np.random.default_rng(10)
    params, grads = start(rng), gradients(rng, 1)[0]
    kept = copy.deepcopy(grads)
    new = make(RULES["adam"], params).step(grads)
    new.params
    assert all(np.array_equal(a, b) for a, b in zip(grads, kept))
    assert_same(new, make(RULES["adam"], params).advance(kept))


@pytest.mark.parametrize("how", ["pickle", "deepcopy", "copy"])
def test_a_pending_optimizer_pickles_and_copies_with_its_step_applied(how):
    rng = np.random.default_rng(11)
    params, grads = start(rng), gradients(rng, 1)[0]
    new = make(RULES["adam"], params).step(grads)
    moved = {"pickle": lambda x: pickle.loads(pickle.dumps(x)), "deepcopy": copy.deepcopy,
             "copy": copy.copy}[how](new)
    assert moved._pending is None and new._pending is None
    assert_same(moved, make(RULES["adam"], params).advance(grads))


def test_describe_and_fields_of_a_pending_optimizer():
    opt = make(RULES["adam"], [np.zeros(2), 1.0], lr=0.5).step([np.ones(2), 1.0])
    assert opt.describe() == "<optimizer adam(lr=0.5, beta1=0.9, beta2=0.999, eps=1e-08), 2 parameters, 1 step>"
    opt = make(RULES["adam"], [np.zeros(2), 1.0], lr=0.5).step([np.ones(2), 1.0])
    assert opt.get("_step") == 1.0
    # Adam's first step moves every parameter by lr against the gradient's sign
    assert np.allclose(opt.get("_params")[0], [-0.5, -0.5], rtol=1e-7) and abs(opt.get("_params")[1] - 0.5) < 1e-7
    with pytest.raises(AttributeError):
        opt.no_such_field


def interrupting(rule, after: int):
    """`rule` whose in-place update is stopped by an interrupt after `after` parameters,
    once; every other call is the rule's own."""
    calls = []

    def update_in_place(w, g, state, hp, t, scratch):
        calls.append(1)
        if len(calls) == after + 1:
            w += 1000.0                                 # a part-written parameter
            raise KeyboardInterrupt
        rule.update_in_place(w, g, state, hp, t, scratch)
    return replace(rule, update_in_place=update_in_place)


def test_an_interrupted_step_on_a_copy_stays_pending_and_applies_later():
    rng = np.random.default_rng(12)
    params, grads = start(rng), gradients(rng, 1)[0]
    opt = make(interrupting(RULES["adam"], 1), params)
    new = opt.step(grads)                               # opt still held: the step works on a copy
    with pytest.raises(KeyboardInterrupt):
        new.params
    assert_same(new, make(RULES["adam"], params).advance(grads))
    assert_same(opt, make(RULES["adam"], params))


def test_an_interrupted_step_in_place_says_its_parameters_are_lost():
    rng = np.random.default_rng(13)
    params, grads = start(rng), gradients(rng, 1)[0]
    new = make(interrupting(RULES["adam"], 1), params).step(grads)
    with pytest.raises(KeyboardInterrupt):
        new.params
    with pytest.raises(LaminaError) as e:
        new.get("_params")
    assert e.value.kind == "ValueError" and "interrupted" in e.value.message
    assert new.get("_step") == 1.0 and new.get("lr") == 0.001     # its settings are still there
