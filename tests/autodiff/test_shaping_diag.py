"""diag: a vector to a diagonal matrix and a matrix to its diagonal (autodiff/shaping.py), as
NumPy's np.diag and np.diagonal give them, with each form's gradient the other form."""
import numpy as np
import pytest

from lamina.autodiff import ops, reductions
from lamina.autodiff.grad import grad
from lamina.autodiff.tape import TAPE
from lamina.builtins.registry import load_all
from lamina.errors import LaminaError

DIAG = load_all()["diag"].fn


@pytest.mark.parametrize("k", [0, 1, 2, -1, -3])
def test_a_vector_becomes_the_diagonal_of_a_square_matrix_as_numpy_places_it(k):
    v = np.array([1.5, -2.0, 3.25])
    np.testing.assert_array_equal(DIAG(v, float(k)), np.diag(v, k))


@pytest.mark.parametrize("shape", [(3, 3), (2, 4), (4, 2), (1, 5)])
@pytest.mark.parametrize("k", [0, 1, -1, 3, -4, 6])
def test_a_matrix_gives_its_diagonal_as_numpy_reads_it(shape, k):
    a = np.arange(1.0, 1.0 + np.prod(shape)).reshape(shape)
    got = DIAG(a, float(k))
    assert got.shape == np.diagonal(a, k).shape and got.base is None       # a fresh vector
    np.testing.assert_array_equal(got, np.diagonal(a, k))


def test_float32_stays_float32_and_a_mask_becomes_numbers():
    assert DIAG(np.ones(3, dtype=np.float32)).dtype == np.float32
    assert DIAG(np.ones((2, 2), dtype=np.float32)).dtype == np.float32
    np.testing.assert_array_equal(DIAG(np.array([True, False])), [[1.0, 0.0], [0.0, 0.0]])


def test_each_form_passes_back_the_gradient_through_the_other():
    rng = np.random.default_rng(4)
    W, c = rng.standard_normal((4, 4)), rng.standard_normal(3)
    v = TAPE.leaf(rng.standard_normal(3), True)
    a = TAPE.leaf(rng.standard_normal((3, 4)), True)
    np.testing.assert_array_equal(grad(_weighted(DIAG(v, -1.0), W), v), [W[1, 0], W[2, 1], W[3, 2]])
    expected = np.zeros((3, 4))
    expected[[0, 1, 2], [1, 2, 3]] = c
    np.testing.assert_array_equal(grad(_weighted(DIAG(a, 1.0), c), a), expected)


def _weighted(y, w):
    return reductions.sum(ops.emul(y, w))


def test_a_program_builds_a_diagonal_and_reads_it_back(run):
    assert run("A = [1, 2, 3; 4, 5, 6; 7, 8, 9]\nprint(diag(diag(A)), sum(diag(A)) == trace(A))") == \
        ["[1, 0, 0; 0, 5, 0; 0, 0, 9] true"]


@pytest.mark.parametrize("source, kind, words", [
    ("diag(3)", "TypeError", "diag takes a vector (to make a diagonal matrix) or a matrix"),
    ("diag([1, 2], 0.5)", "TypeError", "diag's offset k must be a whole number, not 0.5"),
    ("diag(zeros(2, 2, 2))", "ShapeError", "diag"),
])
def test_bad_input_is_named(run, source, kind, words):
    with pytest.raises(LaminaError) as info:
        run(source)
    assert info.value.kind == kind and words in info.value.message
