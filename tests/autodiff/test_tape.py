"""The autodiff API (param, grad, detach, track, the tape) and gradients through indexing and
shaping, at their edges, checked against torch."""
import pytest

from lamina.errors import LaminaError

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("value, what", [('"x"', "a string"), ("true", "a bool"),
                                         ("{a = 1}", "a record"), ('[1, "a"]', "a list")])
def test_storing_a_non_number_into_a_tracked_tensor_is_the_plain_type_error(run, value, what):
    # it was an InternalError (NumPy's "could not convert string to float"), and `true` was
    # silently stored as 1, where a plain tensor refuses both with a TypeError
    for target in ("[1.0, 2.0, 3.0]", "param([1.0, 2.0, 3.0])"):
        with pytest.raises(LaminaError) as err:
            run(f"w = {target}\nw[0:2] = {value}")
        assert err.value.kind == "TypeError"
        assert f"Only numbers and tensors can be stored into a tensor, not {what}." in str(err.value)


@pytest.mark.parametrize("rounds", [False, True])
def test_the_gradient_check_catches_a_nan_gradient(rounds):
    # `|got - want| > tol` is false for NaN, so a VJP that gave NaN passed the generic check
    import numpy as np

    from lamina.autodiff import gradcheck
    from lamina.autodiff.cases import GradCase
    from lamina.autodiff.tape import record
    from lamina.values import Tracked

    def nan_square(a):
        x = a.value if type(a) is Tracked else a
        return record(x * x, [a], [lambda g: g * 2 * x * np.where(x > 0, np.nan, 1.0)])
    from lamina.warnings import CHANNEL
    seen = set(CHANNEL.seen)
    try:          # grad's NaN warning (once per place) must not be used up for later tests
        problems = gradcheck.check("nan_square", nan_square, GradCase(((4,),), rounds=rounds))
    finally:
        CHANNEL.seen = seen
    assert len(problems) == 1 and "gradient for argument 0 differs from finite differences" in problems[0]
    assert "nan" in problems[0]


def test_tape_size_counts_entries_recorded_since_the_reset_even_when_freed(run, capsys):
    # tape_size's page called them "live entries", and grad's promised a warning of its own
    # when the tape holds far more entries than the loss needs; that warning was removed when
    # values came to own their history (freed entries still count; only tape_limit warns)
    from lamina.builtins.registry import load_all, spec_of
    out = run("tape_reset()\nfor i = 1 to 300\n    w = param(1.0)\n    l = w * 2\nend for\n"
              "v = param(2.0)\nprint(tape_size(), grad(v * 3, wrt = v))")
    assert out == ["601 3"]
    assert capsys.readouterr().err == ""
    load_all()
    assert "live" not in spec_of("tape_size").summary
    assert "recorded on the autodiff tape since the last tape_reset()" in spec_of("tape_size").summary
    assert "live" not in spec_of("tape_limit").summary
    assert "live entries" not in spec_of("tape_limit").notes
    assert "far more entries than the loss" not in spec_of("grad").notes
    assert "is warned once, as it records, not by grad" in spec_of("grad").notes


def test_a_plain_wrt_is_named_before_the_plain_loss_it_gave(run):
    # a loop that takes an optimizer's (plain) params back as w: the loss is plain because w is,
    # and the error blamed the loss, saying that gradients are first order, instead of naming w
    src = ("w = param([1.0, 2.0])\nopt = sgd(w, lr = 0.1)\nfor i = 1 to 3\n"
           "    g = grad(sum(w .* w), wrt = w)\n    opt = optimizer_step(opt, g)\n"
           "    w = opt.params\nend for\n")
    with pytest.raises(LaminaError) as err:
        run(src)
    assert err.value.kind == "TapeError"
    assert err.value.message == ("w is a vector of length 2 that is not tracked; grad differentiates "
                                 "with respect to values made by param() or track().")
    # a gradient of a gradient (wrt tracked, loss plain) still says gradients are first order
    with pytest.raises(LaminaError) as err:
        run("w = param(2.0)\ng = grad(w ^ 3, wrt = w)\nh = grad(g, wrt = w)\n")
    assert "first order" in err.value.message
