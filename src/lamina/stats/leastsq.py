"""Least squares of tall data (linreg, each iteration of glm) through the R of a QR of [A b]
(small data, up to SMALL numbers, through A's own SVD, which is quicker there).

The singular values and V' of A are those of R (p x p), and Q'b is R's last column, so neither
A's own SVD (whose U is n x p, as large as A) nor a second pass over A is needed. R comes from
CholeskyQR2 (Fukaya, Nakatsukasa, Yanagisawa and Yamamoto 2014: the Cholesky factor of A'A, then
again of Q1'Q1 with Q1 = A R1^-1; three matrix products, which BLAS runs at full speed) when A is
well conditioned, where it is as accurate as Householder's QR, and from LAPACK's Householder QR
otherwise (collinear or nearly collinear columns, an exact fit). On 10^6 rows and 104 columns
on two cores, CholeskyQR2 took 1.1 s, Householder 3.2 - 5.1 s, and lstsq then an SVD of A (as
linreg did before) 16 s.
"""
from __future__ import annotations

import numpy as np

# Above this condition number of R1 the first Cholesky factor may have lost too much (its error
# grows as the square of the condition number), and Householder's QR is used instead.
CHOLESKY_UP_TO = 1e5
# Up to this many numbers in [A b], A's own SVD is quickest (a glm of 32 rows: 15 us an
# iteration, the QR and R's SVD 23 us, CholeskyQR2 80 us, all in the calls' overhead).
SMALL = 1 << 16


def least_squares(Ab: np.ndarray) -> tuple:
    """(coef, rank, singular values, V') of the least squares of b on A, given [A b] (n x (p + 1),
    n > p, in Fortran order; overwritten), as np.linalg.lstsq's (its rank test too)."""
    n, p = Ab.shape[0], Ab.shape[1] - 1
    if Ab.size <= SMALL:
        u, sv, vt = np.linalg.svd(Ab[:, :p], full_matrices=False)
        qtb = u.T @ Ab[:, p]
    else:
        r = r_factor(Ab)
        u, sv, vt = np.linalg.svd(r[:p, :p])
        qtb = u.T @ r[:p, p]
    rank = int(np.count_nonzero(sv > np.finfo(np.float64).eps * max(n, p) * sv[0])) if p else 0
    coef = vt[:rank].T @ (qtb[:rank] / sv[:rank])
    return coef, rank, sv, vt


def r_factor(Ab: np.ndarray) -> np.ndarray:
    """The upper-triangular R (p + 1 square) of a QR of Ab (n x (p + 1), Fortran order; overwritten).
    Each column is first divided by a power of 2 near its norm (exact, and undone on R's columns),
    so that columns of different units do not make A look ill conditioned."""
    from scipy.linalg import LinAlgError, cholesky, qr
    from scipy.linalg.blas import dtrsm
    gram = Ab.T @ Ab
    norms = np.sqrt(np.diag(gram))
    scale = np.where((norms > 0) & np.isfinite(norms), np.exp2(np.round(np.log2(np.where(norms > 0, norms, 1.0)))), 1.0)
    Ab /= scale
    r = None
    if Ab.shape[0] > 4 * Ab.shape[1] and np.isfinite(gram).all():
        try:
            r1 = cholesky(gram / np.outer(scale, scale), check_finite=False)
            if np.abs(np.diag(r1)).min() > 0 and np.linalg.cond(r1) <= CHOLESKY_UP_TO:
                q1 = dtrsm(1.0, r1, Ab, side=1, overwrite_b=True)        # Ab R1^-1, in place
                r = cholesky(q1.T @ q1, check_finite=False) @ r1
        except LinAlgError:         # A'A not positive definite: collinear columns
            pass
    if r is None:
        _, r = qr(Ab, mode="raw", overwrite_a=True, check_finite=False)    # "r" would be n x (p + 1)
    return r * scale
