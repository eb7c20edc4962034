"""Review 4 of the linear algebra builtins: cases found wrong and fixed (values against SciPy,
torch and exact arithmetic; errors by kind and message)."""
import contextlib
import io

import numpy as np
import scipy.linalg as sl
from builtin_checks import error, fresh_tape  # noqa: F401  (fresh_tape: autouse)

import lamina.builtins.decompositions as D
import lamina.builtins.linalg as L
from lamina.interpreter import Interpreter


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
