"""dropout: the global generator, the scale, rate 0, the gradient, errors."""
import numpy as np
import pytest

from lamina.autodiff.grad import grad
from lamina.autodiff.tape import TAPE
from lamina.builtins.random import seed
from lamina.errors import LaminaError
from lamina.nn.dropout import dropout


def test_seed_program_prints_only_zeros_and_twos(run):
    lines, _ = run("seed(3)\nkept = dropout(ones(1, 8), 0.5)\nprint(\"{kept}\")\nprint(sum(kept > 0))")
    values = lines[0].strip("[]").split(", ")     # in a string, a 1 x n matrix is written as its row
    assert len(values) == 8 and set(values) <= {"0", "2"}
    assert int(lines[1]) == values.count("2")


def test_same_seed_same_mask():
    seed(7.0)
    a = dropout(np.ones((4, 5)), 0.3)
    seed(7.0)
    b = dropout(np.ones((4, 5)), 0.3)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(np.unique(a), [0.0, 1 / 0.7])


def test_keep_fraction():
    seed(1.0)
    kept = dropout(np.ones(100_000), 0.25)
    assert abs(np.mean(kept > 0) - 0.75) < 0.01
    assert abs(np.mean(kept) - 1.0) < 0.02


def test_rate_zero_is_the_identity():
    x = np.array([1.0, 2.0])
    assert dropout(x, 0.0) is x


def test_scalar_input_gives_a_float():
    seed(0.0)
    assert dropout(3.0, 0.5) in (0.0, 6.0)


def test_gradient_is_the_mask_times_the_scale():
    TAPE.reset()
    seed(2.0)
    x = TAPE.leaf(np.arange(1.0, 11.0), True)
    y = dropout(x, 0.4)
    from lamina.autodiff import reductions
    g = grad(reductions.sum(y), x)
    np.testing.assert_allclose(g, (y.value > 0) / 0.6)
    TAPE.reset()


@pytest.mark.parametrize("rate", [1.0, -0.1, 1.5])
def test_rate_outside_zero_to_one_is_a_value_error(rate):
    with pytest.raises(LaminaError) as e:
        dropout(np.ones(3), rate)
    assert e.value.kind == "ValueError" and "rate" in e.value.message


def test_non_numeric_arguments():
    with pytest.raises(LaminaError, match="TypeError|string"):
        dropout("x", 0.5)
    with pytest.raises(LaminaError):
        dropout(np.ones(2), "half")
