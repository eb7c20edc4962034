"""Linear algebra (autodiff/linalg.py, autodiff/decompositions.py): values against NumPy, SciPy
and exact arithmetic, the sign conventions of the decompositions, the errors for singular,
non-square, asymmetric, indefinite or non-finite input, and gradients at their edges against torch."""
from __future__ import annotations

import contextlib
import io
import math

import numpy as np
import pytest
import scipy.linalg as sl
from builtin_checks import error, fresh_tape  # noqa: F401  (fresh_tape: autouse)

import lamina.builtins.decompositions as D
import lamina.builtins.linalg as L
import lamina.builtins.mathfns as M
from lamina.autodiff import ops
from lamina.autodiff.grad import grad
from lamina.autodiff.tape import TAPE
from lamina.errors import LaminaError
from lamina.interpreter import Interpreter
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


def run(source: str) -> list[str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        Interpreter().run(source, "<test>")
    return out.getvalue().splitlines()


def test_det_is_the_exact_lu_product_without_partial_overflow():
    # The LU product (SciPy, torch) is exact here; NumPy's exp(log|det|) was not: 3.0000000000000004,
    # 5.000000000000001, -2.0000000000000004.
    assert run("print(det([3;]), det([2, 1; 1, 3]), det([1, 2; 3, 4]), det(eye(3) .* 3))") == ["3 5 -2 27"]
    A = np.array([[2.0, 1.0], [1.0, 3.0]])
    assert L.det(A) == sl.det(A) == 5.0
    # No partial product of the LU diagonal overflows or underflows (SciPy and torch give Inf
    # and 0 here, NumPy 1 and 1): only a determinant out of range does.
    assert L.det(np.diag([2.0 ** 600, 2.0 ** 600, 2.0 ** -600, 2.0 ** -600])) == 1.0
    assert L.det(np.diag([2.0 ** -600, 2.0 ** -600, 2.0 ** 600, 2.0 ** 600])) == 1.0
    assert L.det(np.eye(400) * 10) == np.inf and L.det(-np.eye(401) * 10) == -np.inf
    # A float32 matrix's determinant is a (float64) number, taken in float64.
    assert L.det(np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32)) == -2.0
    assert L.det(np.eye(20, dtype=np.float32) * 100) == sl.det(np.eye(20) * 100) == 1e40


def test_logdet_is_numpys_slogdet_where_det_is_positive_and_nan_or_minus_inf_elsewhere(rng):
    for A in (spd(rng, 4), well_conditioned(rng, 3), np.array([[0.0, 3.0], [-2.0, 0.0]]),   # a row swap, a negative pivot
              np.eye(400) * 10, np.diag([2.0 ** -600] * 3), np.array([[5.0]])):
        sign, log_abs = np.linalg.slogdet(A)
        assert sign == 1.0
        assert L.logdet(A) == pytest.approx(log_abs, rel=1e-14)
    assert L.logdet(np.eye(400) * 10) == pytest.approx(400 * math.log(10), rel=1e-15)   # det overflows
    assert math.isnan(L.logdet(np.array([[1.0, 2.0], [3.0, 4.0]])))                     # det -2
    assert L.logdet(np.array([[1.0, 2.0], [2.0, 4.0]])) == -math.inf                   # singular
    assert math.isnan(L.logdet(np.array([[1.0, np.nan], [0.0, 1.0]])))
    assert L.logdet(np.zeros((0, 0))) == 0.0
    assert L.logdet(np.array([[2.0, 1.0], [1.0, 3.0]], dtype=np.float32)) == pytest.approx(math.log(5.0), rel=1e-7)
    assert "square matrix" in error("ShapeError", L.logdet, np.ones((2, 3)))


def test_logdet_gradient_is_the_inverse_transposed_and_nan_where_the_value_is_not_finite(rng):
    A = well_conditioned(rng, 3)
    (x,) = [TAPE.leaf(A.copy(), True)]
    np.testing.assert_allclose(grad(L.logdet(x), x), np.linalg.inv(A).T, rtol=1e-13, atol=1e-15)
    for bad in (np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[1.0, 2.0], [2.0, 4.0]])):
        y = TAPE.leaf(bad, True)
        assert np.isnan(grad(ops.add(L.logdet(y), 0.0), y)).all()


def test_inv_and_solve_of_matrices_with_huge_or_tiny_elements_are_not_singular():
    # The 1-norm of the first overflows to Inf, the inverse's of the second would: LAPACK's
    # condition estimate was 0 ("singular") for these well-conditioned matrices.
    A = np.array([[1e308, 1e308], [0.0, 1e308]])
    np.testing.assert_array_equal(L.inv(A), np.linalg.inv(A))
    np.testing.assert_array_equal(L.solve(A, np.array([1e308, 1e308])), [0.0, 1.0])
    assert run("print(inv([1e308, 1e308; 0, 1e308]))") == ["[1e-308, -1e-308; 0, 1e-308]"]
    assert run("print(inv([1e-308, 0; 0, 1e-308]))") == ["[1e+308, 0; 0, 1e+308]"]
    T = np.array([[1e-38, 0.0], [0.0, 2e-38]], dtype=np.float32)
    np.testing.assert_array_equal(L.inv(T), np.linalg.inv(T))
    np.testing.assert_array_equal(L.solve(T, np.array([1e-38, 1e-38], dtype=np.float32)),
                                  np.linalg.solve(T, np.array([1e-38, 1e-38], dtype=np.float32)))
    # Singular ones are still refused, whatever their scale.
    assert "is singular" in error("ValueError", L.inv, np.array([[1e-300, 2e-300], [2e-300, 4e-300]]))


def test_norm_refuses_a_tracked_p():
    # The derivative in p is not 0, but norm passed none: grad(norm(v, p), wrt = p) gave 0.
    msg = error("TypeError", run, "v = param([3, 4])\np = param(3.0)\nprint(grad(norm(v, p), wrt = [v, p]))")
    assert "norm's p does not take tracked values" in msg
    assert run("v = param([3, 4])\nprint(grad(norm(v, detach(param(3.0))), wrt = v))") == \
        ["[0.4448513517305355, 0.7908468475209521]"]


def test_eig_of_a_defective_matrix_with_a_real_double_eigenvalue_is_real():
    # [5, -1; 9, -1] has trace 4 and determinant 4: the eigenvalue 2 twice, one eigenvector
    # [1, 3] / sqrt(10). LAPACK returns 2 +- 4.65e-08i, and eig said "complex eigenvalues".
    e = D.eig(np.array([[5.0, -1.0], [9.0, -1.0]]))
    np.testing.assert_allclose(e.get("values"), [2.0, 2.0], rtol=1e-7)
    np.testing.assert_allclose(e.get("vectors"), np.array([[1.0, 1.0], [3.0, 3.0]]) / np.sqrt(10), rtol=1e-7)
    assert run("print(eig([5, -1; 9, -1]).values, eig([2, 0, 0; 0, 5, -1; 0, 9, -1]).values)") == ["[2, 2] [2, 2, 2]"]
    # A rotation, however small its angle, still has complex eigenvalues.
    assert "complex eigenvalues (such as 1 ± 1e-09i)" in error(
        "ValueError", D.eig, np.array([[np.cos(1e-9), -np.sin(1e-9)], [np.sin(1e-9), np.cos(1e-9)]]))
    assert "complex eigenvalues (such as 0 ± 1i)" in error("ValueError", D.eig, np.array([[0.0, -1.0], [1.0, 0.0]]))


def leaves(*arrays):
    return [TAPE.leaf(np.asarray(a, dtype=float), True) for a in arrays]


@pytest.mark.parametrize("bad, printed", [
    ("0 / 0", "[NaN, NaN] [[NaN, NaN; NaN, NaN], [NaN, NaN]]"),
    ("1 / 0", "[NaN, Inf] [[NaN, NaN; NaN, -Inf], [NaN, Inf]]")])
def test_solve_gradient_of_a_non_finite_singular_matrix_passes_nan_not_a_crash(run, bad, printed):
    # The VJP refactorized A' with NumPy, which raised LinAlgError (an InternalError) on the
    # exactly zero pivot; it now reuses the forward LU factors (NaN or Inf in, NaN or Inf out).
    torch = pytest.importorskip("torch")
    assert run(f"w = param([{bad}, 0; 0, 0])\nb = param([1, 2])\nx = solve(w, b)\n"
               "print(x, grad(sum(x), wrt = [w, b]))") == [printed]
    # The factors serve the VJP of a finite A with a matrix right-hand side as before.
    rng = np.random.default_rng(7)
    A, B, W = rng.standard_normal((3, 3)) + 3 * np.eye(3), rng.standard_normal((3, 2)), rng.standard_normal((3, 2))
    lA, lB = leaves(A, B)
    gA, gB = grad(M.sum_(ops.emul(L.solve(lA, lB), W)), [lA, lB])
    tA, tB = (torch.tensor(a, requires_grad=True) for a in (A, B))
    (torch.linalg.solve(tA, tB) * torch.tensor(W)).sum().backward()
    np.testing.assert_allclose(gA, tA.grad.numpy(), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(gB, tB.grad.numpy(), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("scale", [1e-160, 1e155, 1e200, 1e307])
def test_svd_vector_gradients_of_huge_and_tiny_matrices_are_finite(scale):
    # U and V do not change with the scale of A, so their gradients scale by 1 / scale; squaring
    # the singular values overflowed (underflowed) and gave NaN (torch gives NaN past 1e154 too).
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    A, WU, WV = rng.standard_normal((3, 2)), rng.standard_normal((3, 2)), rng.standard_normal((2, 2))
    tA = torch.tensor(A, requires_grad=True)
    U, _, Vh = torch.linalg.svd(tA, full_matrices=False)
    signs = torch.sign(U.detach()[torch.argmax(U.detach().abs(), 0), torch.arange(2)])
    ((U * signs * torch.tensor(WU)).sum() + (Vh.T * signs * torch.tensor(WV)).sum()).backward()
    (lA,) = leaves(A * scale)
    d = D.svd(lA)
    (g,) = grad(ops.add(M.sum_(ops.emul(d.get("U"), WU)), M.sum_(ops.emul(d.get("V"), WV))), [lA])
    np.testing.assert_allclose(g * scale, tA.grad.numpy(), rtol=1e-10)


def test_qr_gradient_of_dependent_columns_is_nan_as_documented(run):
    # qr's page: "for a matrix with linearly dependent columns the gradient is NaN". R's last
    # diagonal element came out 2e-15, not 0, and the gradient was rounding noise around 1e14.
    torch = pytest.importorskip("torch")
    assert run("v = param([1, 2; 2, 4; 3, 6])\nprint(grad(sum(qr(v).Q), wrt = v))\n"
               "print(grad(sum(qr(v).R), wrt = v))") == ["[NaN, NaN; NaN, NaN; NaN, NaN]"] * 2
    # The working-precision tolerance leaves a matrix of condition number 1e8 alone.
    rng = np.random.default_rng(3)
    Q1, _ = np.linalg.qr(rng.standard_normal((4, 3)))
    Q2, _ = np.linalg.qr(rng.standard_normal((3, 3)))
    A = Q1 @ np.diag([1.0, 1e-4, 1e-8]) @ Q2.T
    WU, WQ = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    (lA,) = leaves(A)
    (g,) = grad(ops.add(M.sum_(ops.emul(D.svd(lA).get("U"), WU)), M.sum_(ops.emul(D.qr(lA).get("Q"), WQ))), [lA])
    tA = torch.tensor(A, requires_grad=True)
    U, _, _ = torch.linalg.svd(tA, full_matrices=False)
    su = torch.sign(U.detach()[torch.argmax(U.detach().abs(), 0), torch.arange(3)])
    Qt, Rt = torch.linalg.qr(tA)
    sq = torch.sign(torch.diagonal(Rt.detach()))
    ((U * su * torch.tensor(WU)).sum() + (Qt * sq * torch.tensor(WQ)).sum()).backward()
    np.testing.assert_allclose(g, tA.grad.numpy(), rtol=1e-6)


def test_svd_and_eigh_vector_gradients_at_rounded_rank_loss_and_repeats_are_not_finite(run):
    # "Where the decomposition is not smooth (repeated values, a rank-deficient matrix) the
    # gradient of the vectors ... comes out Inf or NaN": the rank and the repeats are to working
    # precision (as solve's rank), not exact, else the gradient was noise of size 1e14.
    lines = run("v = param([1, 2; 2, 4; 3, 6])\nprint(all(isfinite(grad(sum(svd(v).U), wrt = v))))\n"
                "print(all(isfinite(grad(sum(svd(v).S), wrt = v))))\n"
                "q = qr([1, 2, 0; 3, 1, 1; 0, 2, 5]).Q\nC = q * [1, 0, 0; 0, 1, 0; 0, 0, 2] * q'\n"
                "C = (C + C') ./ 2\nprint(eigh(C).values[0] == eigh(C).values[1])\nw = param(C)\n"
                "print(any(isfinite(grad(sum(eigh(w).vectors), wrt = w))))")
    assert lines == ["false", "true", "false", "false"]


def test_det_gradient_has_no_partial_product_overflow():
    # The gradient of det(diag(d)) is diag(the product of the other d): 2^-600, 2^-600, 2^600,
    # 2^600. That product was taken left to right, 2^1200 overflowed, and the gradient was NaN
    # although det is 1 and every cofactor is a float.
    torch = pytest.importorskip("torch")
    d = [2.0 ** 600, 2.0 ** 600, 2.0 ** -600, 2.0 ** -600]
    (lA,) = leaves(np.diag(d))
    (g,) = grad(L.det(lA), [lA])
    np.testing.assert_array_equal(g, np.diag([2.0 ** -600, 2.0 ** -600, 2.0 ** 600, 2.0 ** 600]))
    # and stays the adjugate's transpose for an ordinary and a singular matrix (torch; exact cofactors)
    A = np.array([[4.0, 7.0, 2.0], [3.0, 6.0, 1.0], [2.0, 5.0, 3.0]])
    (lA,) = leaves(A)
    tA = torch.tensor(A, requires_grad=True)
    torch.linalg.det(tA).backward()
    np.testing.assert_allclose(grad(L.det(lA), [lA])[0], tA.grad.numpy(), rtol=1e-12)
    (lS,) = leaves([[1.0, 2.0], [2.0, 4.0]])
    np.testing.assert_allclose(grad(L.det(lS), [lS])[0], [[4.0, -2.0], [-2.0, 1.0]], rtol=1e-14)


@pytest.mark.parametrize("program, printed", [
    # LAPACK's pivoting stepped around a NaN pivot: det was 0 and inv held Inf
    ("print(det([NaN, 1; 1, 1]), det([1, NaN; 1, 1]), det([1, 2; 3, NaN]))", "NaN NaN NaN"),
    ("print(inv([NaN, 1; 1, 1]))", "[NaN, NaN; NaN, NaN]"),
    ("print(solve([NaN, 1; 1, 1], [1, 2]), solve([NaN, 1; 1, 1], [1, 2; 3, 4]))",
     "[NaN, NaN] [NaN, NaN; NaN, NaN]"),
    ("print(det(float32([NaN, 1; 1, 1])), dtype(inv(float32([NaN, 1; 1, 1]))))", "NaN float32"),
])
def test_a_nan_in_a_square_matrix_gives_nan(run, program, printed):
    assert run(program) == [printed]
