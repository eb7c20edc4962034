"""stats/leastsq.py: the least squares of linreg and glm (through A's SVD when small, else the R of
a QR of [A b], by CholeskyQR2 for a well-conditioned A and Householder's QR otherwise), against
NumPy's lstsq and QR."""
import numpy as np
import pytest

from lamina.stats.leastsq import least_squares, r_factor


def _data(rng, n, p, units=1.0):
    A = rng.normal(size=(n, p))
    A[:, 0] = 1.0
    A[:, -1] *= units                   # a column in other units (thousands of dollars, grams, ...)
    return A, A @ rng.normal(size=p) + rng.normal(size=n)


def _solve(A, b):
    return least_squares(np.asfortranarray(np.column_stack([A, b])))


# small ones through A's own SVD, the others (over SMALL numbers) through the R of a QR
@pytest.mark.parametrize("n, p, units", [(12, 3, 1.0), (2000, 8, 1.0), (3000, 6, 1e-5), (20000, 5, 1.0),
                                         (5000, 40, 1e6), (30000, 4, 1e-5)])
def test_equals_numpy_s_lstsq(rng, n, p, units):
    A, b = _data(rng, n, p, units)
    coef, rank, sv, vt = _solve(A, b)
    ref, _, ref_rank, ref_sv = np.linalg.lstsq(A, b, rcond=None)
    assert rank == ref_rank == p
    np.testing.assert_allclose(A @ coef, A @ ref, rtol=1e-12, atol=1e-12 * np.abs(b).max())
    np.testing.assert_allclose(sv, ref_sv, rtol=1e-10, atol=1e-14 * ref_sv[0])
    # V' up to the sign of each row: (A'A)^-1, what the standard errors come from, as A's own SVD gives it
    _, s, v = np.linalg.svd(A, full_matrices=False)
    cov = (v.T / s ** 2) @ v
    np.testing.assert_allclose((vt.T / sv ** 2) @ vt, cov, rtol=1e-9, atol=1e-10 * np.abs(cov).max())


@pytest.mark.parametrize("case", ["well conditioned", "nearly collinear", "collinear", "exact fit", "few rows"])
def test_r_is_householder_s_up_to_signs(rng, case):
    n = 10 if case == "few rows" else 4000
    A, b = _data(rng, n, 6)
    if case == "nearly collinear":
        A[:, 2] = A[:, 1] + 1e-7 * rng.normal(size=n)
    elif case == "collinear":
        A[:, 2] = 2 * A[:, 1] - A[:, 3]
    elif case == "exact fit":
        b = A @ np.arange(6.0)
    Ab = np.column_stack([A, b])
    expected = np.abs(np.linalg.qr(Ab, mode="r"))
    got = np.abs(r_factor(np.asfortranarray(Ab)))
    np.testing.assert_allclose(got, expected, rtol=1e-7, atol=1e-9 * expected.max())


def test_collinear_columns_have_the_rank_numpy_finds(rng):
    A, b = _data(rng, 500, 5)
    A[:, 4] = A[:, 1] - 3 * A[:, 2]
    assert _solve(A, b)[1] == np.linalg.lstsq(A, b, rcond=None)[2] == 4
