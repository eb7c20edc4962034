"""grad(): structure of results, zeros, repeat calls, errors, stale values, warnings."""
import numpy as np
import pytest

import lamina.builtins.autodiff as B
from lamina.autodiff import functions, ops, reductions
from lamina.autodiff.grad import grad
from lamina.autodiff.tape import TAPE, record
from lamina.errors import LaminaError
from lamina.values import Record, Tracked


def tape_error(fn, *args) -> str:
    with pytest.raises(LaminaError) as info:
        fn(*args)
    assert info.value.kind == "TapeError"
    return info.value.message


def test_gradient_of_a_record_and_nested_list_keeps_the_structure():
    p = B.param(Record({"w": np.array([1.0, -1.0]), "b": 0.5, "more": [2.0, np.ones((2, 2))]}))
    x = np.array([2.0, 3.0])
    inner = ops.add(reductions.sum(ops.emul(p.fields["w"], x)), p.fields["b"])
    loss = ops.add(ops.epow(inner, 2.0), ops.mul(p.fields["more"][0], 3.0))
    g = grad(loss, p)
    assert isinstance(g, Record) and list(g.fields) == ["w", "b", "more"]
    np.testing.assert_array_equal(g.fields["w"], [-2.0, -3.0])       # 2 * (-0.5) * x
    assert g.fields["b"] == -1.0 and type(g.fields["b"]) is float
    assert g.fields["more"][0] == 3.0
    np.testing.assert_array_equal(g.fields["more"][1], np.zeros((2, 2)))


def test_unrelated_wrt_gets_zeros_of_its_shape():
    a, b, m = B.param(2.0), B.param(5.0), B.param(np.ones((2, 3)))
    ga, gb, gm = grad(ops.mul(a, a), [a, b, m])
    assert (ga, gb) == (4.0, 0.0) and type(gb) is float
    np.testing.assert_array_equal(gm, np.zeros((2, 3)))


@pytest.mark.ownership
def test_grad_can_be_called_again_and_its_results_are_not_shared():
    w = B.param(np.array([1.0, 2.0, 3.0]))
    loss = reductions.sum(ops.emul(ops.add(w, w), w))               # 2 w.^2: gradient 4w
    g1 = grad(loss, w)
    g1[:] = 99.0                                                     # the caller owns its result
    g2 = grad(loss, w)
    np.testing.assert_array_equal(g2, [4.0, 8.0, 12.0])
    g3, g4 = grad(loss, [w, w])
    assert g3 is not g4 and not np.shares_memory(g3, g4)


@pytest.mark.ownership
def test_a_fresh_gradient_is_handed_out_without_a_copy_and_a_held_one_is_copied():
    """grad hands out the array a VJP made when nothing else holds it (no copy); an array a VJP
    closure still holds (or a view) is copied, so the caller still owns what it gets."""
    made = []

    def fresh_vjp(g):
        out = g * np.array([1.0, 2.0])
        made.append(id(out))
        return out
    kept, big = np.array([5.0, 6.0]), np.array([7.0, 8.0, 9.0])
    w = B.param(np.array([3.0, 4.0]))
    v = B.param(np.array([1.0, 1.0]))
    u = B.param(np.array([2.0, 2.0]))
    y = record(1.0, (w, v, u), (fresh_vjp, lambda g: kept, lambda g: big[:2]))
    gw, gv, gu = grad(y, [w, v, u])
    assert id(gw) == made[0]                                         # handed out as made
    assert gv is not kept and not np.shares_memory(gv, kept)         # the closure holds it
    assert not np.shares_memory(gu, big) and gu.base is None         # a view: copied
    gv[:] = 99.0
    gu[:] = 99.0
    np.testing.assert_array_equal(grad(y, v), [5.0, 6.0])
    np.testing.assert_array_equal(kept, [5.0, 6.0])
    np.testing.assert_array_equal(big, [7.0, 8.0, 9.0])


@pytest.mark.ownership
def test_the_cross_entropy_gradient_held_by_its_vjp_is_copied():
    scores = B.param(np.array([[1.0, 2.0, 0.5], [0.1, 0.2, 3.0]]))
    from lamina.nn.losses import cross_entropy
    loss = cross_entropy(scores, np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]))
    first = grad(loss, scores)
    expected = first.copy()
    first[:] = 99.0
    np.testing.assert_array_equal(grad(loss, scores), expected)


@pytest.mark.ownership
def test_accumulation_never_writes_into_a_shared_gradient():
    x = B.param(np.array([1.0, 2.0]))
    y = ops.add(ops.add(x, x), x)      # identity VJPs hand the same array to every parent
    z = ops.emul(y, y)
    g = grad(reductions.sum(z), [x, y])
    np.testing.assert_array_equal(g[1], 2 * y.value)
    np.testing.assert_array_equal(g[0], 3 * 2 * y.value)


def test_grad_with_respect_to_an_intermediate_value():
    x = B.param(3.0)
    y = ops.mul(x, x)
    assert grad(ops.mul(y, 2.0), [y, x]) == [2.0, 12.0]
    assert grad(y, y) == 1.0


def test_a_vector_built_from_tracked_numbers_is_one_target_of_its_shape():
    # The value passed is what is differentiated against (torch, JAX): no guess from how it was
    # built. Before, [a, a] counted as a "pack" of its numbers and gave [11, 11] here.
    a = B.param(1.0)
    v = ops.build_vector([a, a])
    loss = reductions.sum(ops.emul(v, np.array([1.0, 10.0])))
    np.testing.assert_array_equal(grad(loss, v), [1.0, 10.0])
    assert grad(loss, [a]) == [11.0]
    b = B.param(2.0)
    m = ops.build_matrix([[a, b], [b, a]])
    weights = np.array([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(grad(reductions.sum(ops.emul(m, weights)), m), weights)
    assert grad(reductions.sum(ops.emul(m, weights)), [a, b]) == [5.0, 5.0]


def test_only_reached_entries_and_live_parents_are_visited():
    def explode(g):
        raise AssertionError("this VJP must not run")
    x = B.param(1.0)
    TAPE.reset()
    y = B.param(2.0)
    out = record(x.value * y.value, [x, y], [explode, lambda g: g * 1.0])   # x is stale: no edge
    record(5.0, [y], [explode])                                              # unreached entry
    assert grad(out, y) == 1.0


# -- errors --------------------------------------------------------------------
def test_loss_errors():
    w = B.param(np.ones(3))
    assert "plain number" in tape_error(grad, 3.0, w)
    msg = tape_error(grad, ops.emul(w, 2.0), w)
    assert "vector of length 3" in msg and "sum()" in msg and "mean()" in msg
    assert "string" in tape_error(grad, "loss", w)
    loss = reductions.sum(w)
    TAPE.reset()
    v = B.param(1.0)
    assert "tape_reset()" in tape_error(grad, loss, v)


def test_wrt_must_be_tracked():
    w = B.param(1.0)
    msg = tape_error(grad, ops.mul(w, w), [w, 2.0])
    assert "{arg:wrt}[1]" in msg and "param()" in msg


def test_grad_builtin_requires_wrt():
    with pytest.raises(LaminaError) as info:
        B.grad(B.param(1.0))
    assert "wrt" in info.value.message


# -- stale values (the seed's bug) ---------------------------------------------
def test_stale_values_never_alias_new_nodes_and_are_reported():
    w = B.param(np.array([1.0, 2.0]))
    loss = reductions.sum(ops.emul(w, w))
    np.testing.assert_array_equal(grad(loss, w), [2.0, 4.0])
    old_ids = set(range(TAPE.first_node, TAPE.next_node))
    B.tape_reset()
    assert TAPE.size() == 0
    # The seed's engine restarted numbering at 0, so these new nodes took the stale ids and
    # grad(..., wrt = w) silently returned the gradient of whichever new node got w's index.
    fresh = [B.param(np.array([3.0, 4.0]))]
    for _ in range(2 * len(old_ids)):
        fresh.append(ops.emul(fresh[-1], 1.0))
    assert not old_ids & {t.node for t in fresh}
    assert min(t.node for t in fresh) > max(old_ids)
    new_loss = reductions.sum(fresh[-1])
    msg = tape_error(grad, new_loss, w)
    assert msg.startswith("{arg:wrt} was recorded before tape_reset()") and "param()" in msg


def test_stale_check_comes_before_any_complaint_about_the_loss():
    w = B.param(1.0)
    B.tape_reset()
    assert "recorded before tape_reset()" in tape_error(grad, 3.0, w)
    assert "{arg:wrt}.inner[0] was recorded" in tape_error(grad, 3.0, Record({"inner": [w]}))


def test_a_stale_value_still_works_as_a_constant():
    w = B.param(np.array([1.0, 2.0]))
    B.tape_reset()
    x = B.param(np.array([3.0, 5.0]))
    loss = reductions.sum(ops.emul(w, x))
    assert loss.value == 13.0
    np.testing.assert_array_equal(grad(loss, x), [1.0, 2.0])
    assert TAPE.size() == 3                  # x, the product, the sum: w added no leaf
    np.testing.assert_array_equal(grad(loss, B.param(w)), [0.0, 0.0])  # re-wrapped: a new leaf


def test_the_error_names_the_variable_in_a_program(run):
    with pytest.raises(LaminaError) as info:
        run("w = {wz = param([1.0, 2.0])}\nloss = sum(w.wz .^ 2)\ntape_reset()\n"
            "x = param(1.0)\ng = grad(x * 2, wrt = w)\n")
    assert info.value.message.startswith("w.wz was recorded before tape_reset()")
    assert "param()" in info.value.message


# -- param, track, tape_size, warnings -----------------------------------------
def test_param_shares_a_float_array_converts_others_and_keeps_structure():
    # Sharing is safe because nothing writes into an array another value holds; the programs
    # in tests/programs/optimizers/param_shares_no_writes.lam try every way a program could.
    src = np.array([1.0, 2.0])
    p = B.param(src)
    assert p.value is src and p.trainable
    whole = B.param(np.array([1, 2]))
    assert whole.value.dtype == np.float64 and np.array_equal(whole.value, [1.0, 2.0])
    t = B.track([1.0, Record({"a": src})])
    assert type(t[0]) is Tracked and not t[0].trainable and isinstance(t[1], Record)
    again = B.param(p)
    assert again.node != p.node and again.value is p.value
    with pytest.raises(LaminaError) as info:
        B.param("text")
    assert info.value.kind == "TypeError"


def test_tape_size_counts_leaves_and_operations():
    B.tape_reset()
    w = B.param(np.array([1.0, 2.0]))
    reductions.sum(ops.emul(w, w))
    ops.add(np.ones(2), np.ones(2))
    assert B.tape_size() == 3.0
    B.tape_reset()
    assert B.tape_size() == 0.0


def test_warning_once_past_the_tape_limit(capsys):
    assert B.tape_limit(10) == 5_000_000.0
    x = B.param(1.0)
    for _ in range(30):
        x = ops.mul(x, 1.0)
    err = capsys.readouterr().err
    assert err.count("warning") == 1 and "tape_reset()" in err
    B.tape_reset()
    for _ in range(5):
        B.param(1.0)
    assert capsys.readouterr().err == ""


def test_nan_gradient_with_a_finite_loss_warns(capsys):
    w = B.param(0.0)
    v = B.param(np.array([1.0, 2.0]))
    loss = ops.add(ops.mul(functions.sqrt(w), 0.0), reductions.sum(v))   # d sqrt(w)/dw = Inf at 0
    g = grad(loss, Record({"w": w, "v": v}))
    assert np.isnan(g.fields["w"])
    err = capsys.readouterr().err
    assert err.count("warning") == 1 and "wrt.w" in err and "wrt.v" not in err
    grad(ops.mul(functions.log(w), 1.0), w)                             # loss -Inf: no warning
    assert capsys.readouterr().err == ""
