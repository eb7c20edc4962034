"""fit and train_loop update a private copy of the optimizer in place: the same numbers as the
immutable update, the parameters' dtype kept, and no value a program holds ever changed."""
from dataclasses import replace

import numpy as np
import pytest

from lamina.optim.base import make
from lamina.optim.loop import train_loop
from lamina.optim.registry import RULES

pytestmark = pytest.mark.ownership      # .ci/run runs these on every Python


def gradients(rng, params, steps):
    return [[rng.standard_normal(np.shape(p)) if isinstance(p, np.ndarray) else float(rng.standard_normal())
             for p in params] for _ in range(steps)]


@pytest.mark.parametrize("scratch", [False, True])
@pytest.mark.parametrize("name", list(RULES))
def test_the_in_place_update_gives_the_immutable_update_bit_for_bit(name, scratch):
    rng = np.random.default_rng(3)
    start = [rng.standard_normal((4, 3)), rng.standard_normal((1, 3)), 0.7]
    opt = make(RULES[name], start)
    before = [np.copy(p) for p in opt.params]
    rule = RULES[name]
    pure_w, pure_s = list(opt.params), list(opt.state)      # the rule's pure update, by hand
    mine, value = opt.private(scratch=scratch), opt
    for t, grads in enumerate(gradients(rng, start, 5), start=1):
        for i, gw in enumerate(grads):
            pure_w[i], pure_s[i] = rule.update(pure_w[i], gw, pure_s[i], opt.hp, t)
        mine, value = mine.advance_in_place(grads), value.advance(grads)
    assert mine.t == value.t == 5
    for result in (mine, value):
        for a, b in zip(result.params, pure_w):
            assert np.array_equal(a, b)
        for sa, sb in zip(result.state, pure_s):
            assert sa.keys() == sb.keys() and all(np.array_equal(sa[k], sb[k]) for k in sa)
    assert [type(p) for p in mine.params] == [type(p) for p in value.params] == [np.ndarray, np.ndarray, float]
    for p, b in zip(opt.params, before):                   # the optimizer it was copied from
        assert np.array_equal(p, b)


@pytest.mark.parametrize("name", list(RULES))
def test_the_in_place_update_keeps_float32_parameters_and_state_float32(name):
    rng = np.random.default_rng(4)
    opt = make(RULES[name], [rng.standard_normal((5, 2))])
    f32 = replace(opt, params=(opt.params[0].astype(np.float32),),
                  state=({k: v.astype(np.float32) for k, v in opt.state[0].items()},))
    stepped = f32.private().advance_in_place([rng.standard_normal((5, 2)).astype(np.float32)])
    assert stepped.params[0].dtype == np.float32
    assert all(v.dtype == np.float32 for v in stepped.state[0].values())


def test_train_loop_leaves_a_bound_optimizer_as_it_was():
    w = np.array([0.5, -1.0])
    opt = make(RULES["adam"], w, lr=0.1)
    from lamina.autodiff import ops, reductions
    loss_fn = lambda p: reductions.sum(ops.epow(p, 2.0))
    out = train_loop(loss_fn, w, 20, optimizer=opt, returning="all")
    assert np.array_equal(opt.params[0], w) and opt.t == 0
    assert np.all(np.abs(out.fields["params"]) < np.abs(w))
    assert out.fields["optimizer"].t == 20


def test_a_ctrl_c_during_the_in_place_update_waits_for_it_to_finish():
    import os
    import signal
    from dataclasses import replace as swap

    from lamina.autodiff import ops, reductions
    from lamina.optim.adam import adam_in_place
    from lamina.optim.train_step import train_step

    calls = []

    def interrupted(w, g, state, hp, t, scratch):    # Ctrl-C pressed after the first parameter
        if not calls:
            os.kill(os.getpid(), signal.SIGINT)
        calls.append(t)
        adam_in_place(w, g, state, hp, t, scratch)

    start = [np.array([1.0, -2.0]), np.array([0.5])]
    opt = make(swap(RULES["adam"], update_in_place=interrupted), start, lr=0.1).private()
    with pytest.raises(KeyboardInterrupt):
        train_step(opt, lambda p: reductions.sum(ops.add(reductions.sum(ops.epow(p[0], 2.0)), p[1])))
    assert calls == [1, 1] and opt.t == 1              # both parameters and the count: all or nothing
    assert np.all(opt.params[0] != start[0]) and np.all(opt.params[1] != start[1])


def test_a_private_copy_with_scratch_has_its_own_and_hands_out_none():
    rng = np.random.default_rng(5)
    opt = make(RULES["adam"], [rng.standard_normal((3, 2)), 0.5])
    mine = opt.private(scratch=True)
    assert opt.scratch == () and len(mine.scratch) == 2 and mine.scratch[1] is None
    assert mine.scratch[0].shape == (3, 2) and not np.shares_memory(mine.scratch[0], mine.params[0])
    other = mine.private(scratch=True)
    assert not np.shares_memory(other.scratch[0], mine.scratch[0])
    assert mine.private().scratch == () and mine.without_scratch().scratch == ()
    assert mine.without_scratch().params is mine.params
    assert make(RULES["rmsprop"], [np.zeros(2)]).private(scratch=True).scratch == ()   # no in-place rule


@pytest.mark.parametrize("scale", [1.0, 1e-9])
def test_adam_in_place_with_scratch_against_torch(scale):
    """Many steps of fit's path (a private copy with scratch, float64) against torch.optim.Adam,
    also where eps is as large as sqrt(v) (scale 1e-9): epsilon is folded as torch folds it."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(6)
    w0 = rng.standard_normal((4, 3))
    grads = [scale * rng.standard_normal((4, 3)) for _ in range(40)]
    mine = make(RULES["adam"], [w0], lr=0.01).private(scratch=True)
    p = torch.tensor(w0.copy(), requires_grad=True)
    opt = torch.optim.Adam([p], lr=0.01)
    for g in grads:
        mine.advance_in_place([g])
        p.grad = torch.tensor(g)
        opt.step()
    np.testing.assert_allclose(mine.params[0], p.detach().numpy(), rtol=1e-12, atol=1e-14)
