"""Linear algebra builtins: values against NumPy and SciPy, the sign conventions of the
decompositions, and the errors for singular, non-square, asymmetric, indefinite or non-finite input."""
import math

import numpy as np
import pytest
import scipy.linalg as sl
from builtin_checks import error, fresh_tape  # noqa: F401  (fresh_tape: autouse)

import lamina.builtins.decompositions as D
import lamina.builtins.linalg as L
from lamina.autodiff.tape import TAPE
from lamina.values import Record, Tracked


@pytest.fixture
def rng():
    return np.random.default_rng(4321)


def well_conditioned(rng, n):
    return rng.standard_normal((n, n)) + n * np.eye(n)


def spd(rng, n):
    b = rng.standard_normal((n, n))
    return b @ b.T / n + np.eye(n)


# -- inv, det, trace, outer, kron ----------------------------------------------
def test_inv_det_trace_match_scipy(rng):
    for n in (1, 2, 5):
        A = well_conditioned(rng, n)
        np.testing.assert_allclose(L.inv(A), sl.inv(A), rtol=1e-12, atol=1e-14)
        assert L.det(A) == pytest.approx(sl.det(A), rel=1e-12)
        assert L.trace(A) == np.trace(A)
    assert L.inv(np.zeros((0, 0))).shape == (0, 0) and L.det(np.zeros((0, 0))) == 1.0
    assert L.trace(np.zeros((0, 0))) == 0.0 and L.det(np.array([[1.0, 2.0], [2.0, 4.0]])) == 0.0


def test_inv_refuses_singular_matrices_and_those_singular_to_working_precision():
    assert "singular" in error("ValueError", L.inv, np.array([[1.0, 2.0], [2.0, 4.0]]))
    assert "singular" in error("ValueError", L.inv, np.zeros((3, 3)))
    hilbert = sl.hilbert(14)                   # condition number ~1e18: the inverse would be noise
    message = error("ValueError", L.inv, hilbert)
    assert "working precision" in message and "reciprocal condition number" in message
    assert "working precision" in error("ValueError", L.solve, hilbert, np.ones(14))
    np.testing.assert_allclose(L.inv(sl.hilbert(6)) @ sl.hilbert(6), np.eye(6), atol=1e-6)


def test_square_only_and_nan_passes_through():
    for fn in (L.inv, L.det, L.trace):
        for bad in (np.ones((2, 3)), np.ones(3), 2.0):
            assert "square matrix" in error("ShapeError", fn, bad)
    assert np.isnan(L.inv(np.array([[1.0, math.nan], [0.0, 1.0]]))).any()
    assert math.isnan(L.det(np.array([[1.0, math.nan], [0.0, 1.0]])))


def test_outer_and_kron_match_numpy(rng):
    u, v = rng.standard_normal(3), rng.standard_normal(4)
    np.testing.assert_array_equal(L.outer(u, v), np.outer(u, v))
    A, B = rng.standard_normal((2, 3)), rng.standard_normal((3, 2))
    np.testing.assert_array_equal(L.kron(A, B), np.kron(A, B))
    np.testing.assert_array_equal(L.kron(u, v), np.kron(u, v))
    np.testing.assert_array_equal(L.kron(u, B), np.kron(u[:, None], B))     # a vector is a column
    np.testing.assert_array_equal(L.kron(A, v), np.kron(A, v[:, None]))
    np.testing.assert_array_equal(L.kron(2.0, A), 2.0 * A)
    assert L.kron(2.0, 3.0) == 6.0
    assert "two vectors" in error("ShapeError", L.outer, A, v)


# -- solve: square and least squares -------------------------------------------
def test_solve_square_matches_scipy(rng):
    A, b, B = well_conditioned(rng, 4), rng.standard_normal(4), rng.standard_normal((4, 2))
    np.testing.assert_allclose(L.solve(A, b), sl.solve(A, b), rtol=1e-12)
    np.testing.assert_allclose(L.solve(A, B), sl.solve(A, B), rtol=1e-12)


def test_solve_non_square_is_least_squares_like_numpy_lstsq(rng):
    X, y, Y = rng.standard_normal((20, 3)), rng.standard_normal(20), rng.standard_normal((20, 2))
    np.testing.assert_allclose(L.solve(X, y), np.linalg.lstsq(X, y, rcond=None)[0], rtol=1e-12)
    np.testing.assert_allclose(L.solve(X, Y), np.linalg.lstsq(X, Y, rcond=None)[0], rtol=1e-12)
    W, b = rng.standard_normal((2, 5)), rng.standard_normal(2)
    x = L.solve(W, b)
    np.testing.assert_allclose(x, np.linalg.pinv(W) @ b, rtol=1e-12)    # the solution of least norm
    np.testing.assert_allclose(W @ x, b, rtol=1e-12)


def test_least_squares_errors():
    collinear = np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]])
    message = error("ValueError", L.solve, collinear, np.ones(3))
    assert "rank 1" in message and "columns are linearly dependent" in message
    assert "rows are linearly dependent" in error("ValueError", L.solve, collinear.T, np.ones(2))
    assert "NaN or Inf" in error("ValueError", L.solve, np.array([[1.0, math.nan], [1, 1], [1, 2]]), np.ones(3))
    assert "NaN or Inf" in error("ValueError", L.solve, np.array([[1.0, 0], [1, 1], [1, 2]]),
                                 np.array([1.0, math.inf, 2.0]))
    error("ShapeError", L.solve, np.ones((3, 2)), np.ones(2))


# -- norms -------------------------------------------------------------------
@pytest.mark.parametrize("p", [None, 1.0, 1.5, 2.0, 3.0, math.inf])
def test_vector_norms_match_numpy(p, rng):
    v = rng.standard_normal(7)
    assert L.norm(v, p) == pytest.approx(np.linalg.norm(v, 2 if p is None else p), rel=1e-13)


@pytest.mark.parametrize("p", [None, "fro", 2.0, 1.0, math.inf])
def test_matrix_norms_match_numpy(p, rng):
    A = rng.standard_normal((4, 3))
    assert L.norm(A, p) == pytest.approx(np.linalg.norm(A, p), rel=1e-13)


def test_norm_edges():
    assert L.norm(np.array([1e200, 1e200])) == pytest.approx(math.sqrt(2) * 1e200, rel=1e-15)
    assert L.norm(np.array([1e-200, 1e-200]), 3.0) == pytest.approx(2 ** (1 / 3) * 1e-200, rel=1e-14)
    assert L.norm(np.zeros(0)) == 0.0 and L.norm(np.zeros((0, 3)), 2.0) == 0.0 and L.norm(-2.5) == 2.5
    assert math.isnan(L.norm(np.array([math.inf, math.nan]))) and L.norm(np.array([math.inf, 1.0])) == math.inf
    assert math.isnan(L.norm(np.array([[math.nan, 1.0]]), 2.0))
    assert "at least 1" in error("ValueError", L.norm, np.ones(2), 0.5)
    assert "takes p =" in error("ValueError", L.norm, np.ones((2, 2)), 3.0)
    error("ValueError", L.norm, np.ones(2), "fro")
    error("ValueError", L.norm, np.ones(2), "nuc")
    error("TypeError", L.norm, np.ones(2), np.ones(2))


# -- decompositions ------------------------------------------------------------
def largest_entry_positive(M):
    i = np.argmax(np.abs(M), axis=0)
    return np.all(M[i, np.arange(M.shape[1])] > 0)


def same_up_to_column_signs(a, b):
    s = np.sign(np.sum(a * b, axis=0))
    np.testing.assert_allclose(a, b * s, atol=1e-10)


def test_eigh_matches_scipy_with_its_sign_convention(rng):
    A = spd(rng, 5)
    e = D.eigh(A)
    w, V = sl.eigh(A)
    np.testing.assert_allclose(e.get("values"), w, rtol=1e-12)
    same_up_to_column_signs(e.get("vectors"), V)
    assert largest_entry_positive(e.get("vectors"))
    np.testing.assert_allclose(e.get("vectors") @ np.diag(w) @ e.get("vectors").T, A, atol=1e-12)
    nearly = A.copy()
    nearly[0, 1] += 1e-13                     # rounding-level asymmetry is accepted
    np.testing.assert_allclose(D.eigh(nearly).get("values"), w, rtol=1e-12)


def test_eig_real_eigenvalues_sorted_and_symmetric_input_as_eigh(rng):
    S = well_conditioned(rng, 4)
    A = S @ np.diag([3.0, -1.0, 2.0, 0.5]) @ np.linalg.inv(S)
    e = D.eig(A)
    np.testing.assert_allclose(e.get("values"), [-1.0, 0.5, 2.0, 3.0], rtol=1e-10)
    V = e.get("vectors")
    np.testing.assert_allclose(A @ V, V * e.get("values"), atol=1e-10)
    np.testing.assert_allclose(np.linalg.norm(V, axis=0), 1.0, rtol=1e-12)
    assert largest_entry_positive(V)
    B = spd(rng, 3)
    assert D.eig(B) == D.eigh(B)
    assert "complex eigenvalues (such as 0 ± 1i)" in error("ValueError", D.eig, np.array([[0.0, -1.0], [1.0, 0.0]]))


def test_svd_matches_scipy_thin(rng):
    for shape in ((5, 3), (3, 5), (4, 4)):
        A = rng.standard_normal(shape)
        d = D.svd(A)
        U, s, Vt = sl.svd(A, full_matrices=False)
        np.testing.assert_allclose(d.get("S"), s, rtol=1e-12)
        assert d.get("U").shape == U.shape and d.get("V").shape == Vt.T.shape
        same_up_to_column_signs(d.get("U"), U)
        same_up_to_column_signs(d.get("V"), Vt.T)
        assert largest_entry_positive(d.get("U"))
        np.testing.assert_allclose(d.get("U") * d.get("S") @ d.get("V").T, A, atol=1e-12)
    empty = D.svd(np.zeros((0, 3)))
    assert empty.get("U").shape == (0, 0) and empty.get("V").shape == (3, 0)


def test_qr_matches_scipy_with_a_nonnegative_diagonal(rng):
    for shape in ((5, 3), (3, 5), (4, 4)):
        A = rng.standard_normal(shape)
        d = D.qr(A)
        Q, R = sl.qr(A, mode="economic")
        signs = np.sign(np.diag(R))
        np.testing.assert_allclose(d.get("Q"), Q * signs, atol=1e-12)
        np.testing.assert_allclose(d.get("R"), signs[:, None] * R, atol=1e-12)
        assert np.all(np.diag(d.get("R")) >= 0) and np.allclose(np.tril(d.get("R"), -1), 0)
        np.testing.assert_allclose(d.get("Q") @ d.get("R"), A, atol=1e-12)


def test_chol_matches_scipy(rng):
    A = spd(rng, 4)
    Lo = D.chol(A)
    np.testing.assert_allclose(Lo, sl.cholesky(A, lower=True), rtol=1e-12)
    assert "not positive definite" in error("ValueError", D.chol, np.array([[1.0, 2.0], [2.0, 1.0]]))
    assert "not positive definite" in error("ValueError", D.chol, np.array([[1.0, 1.0], [1.0, 1.0]]))


@pytest.mark.parametrize("name", ["eig", "eigh", "svd", "qr", "chol"])
def test_decompositions_refuse_non_finite_and_bad_shapes(name):
    fn = getattr(D, name)
    for bad in (math.nan, math.inf):
        A = np.eye(2)
        A[0, 0] = bad
        assert "needs finite numbers" in error("ValueError", fn, A)
    error("ShapeError", fn, np.ones(3))
    if name in ("eig", "eigh", "chol"):
        assert "square matrix" in error("ShapeError", fn, np.ones((2, 3)))


def test_symmetric_decompositions_refuse_asymmetric_matrices():
    A = np.array([[2.0, 1.0], [0.5, 2.0]])
    assert "use eig(A)" in error("ValueError", D.eigh, A)
    assert "symmetric" in error("ValueError", D.chol, A)


def test_eig_refuses_tracked_input_and_the_others_record():
    error("TypeError", D.eig, TAPE.leaf(np.eye(2), True))
    A = TAPE.leaf(spd(np.random.default_rng(1), 3), True)
    for out in (D.eigh(A), D.svd(A), D.qr(A)):
        assert isinstance(out, Record) and all(type(v) is Tracked for v in out.fields.values())
    assert type(D.chol(A)) is Tracked
