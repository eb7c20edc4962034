"""Matrix decompositions as records: eig and eigh {values, vectors}, svd {U, S, V}, qr {Q, R},
and chol (the lower factor L). LAPACK (through NumPy and SciPy) computes them.

Results are made unique so that a program prints the same numbers on every machine: eigenvalues
ascending, singular values descending, each eigenvector (and each column of U, V moving with
it) with its largest entry positive (the first, on ties), and R with a diagonal >= 0.

eigh, svd, qr and chol are differentiable (eig is not: the builtin refuses tracked input). The
VJPs are the standard ones (Giles 2008, Townsend 2016, Murray 2016, Walter and Lehmann 2018);
they are undefined, and give Inf or NaN, where the decomposition is not smooth: repeated
eigenvalues or singular values (for the vectors), and a rank-deficient matrix for svd and qr,
both to working precision (NumPy's matrix_rank tolerance), since rounding rarely leaves an
exact tie or an exact 0.
eigh and chol work on the symmetric part (A + A') / 2 of a matrix that must be symmetric, so
their gradients are symmetric: the gradient within symmetric matrices.

chol is differentiable twice (autodiff/tape.py "Second order"): when `TAPE.keeping` its VJP is
computed on the tape from chol(A) again, with products and inverses there. eigh, svd and qr
are first order only: a keep sweep through them is a TapeError naming them.
"""
from __future__ import annotations

import numpy as np

from ..errors import LaminaError, shape_str
from ..values import Record, Tracked, format_number
from .indexing import masked
from .linalg import inv, matrix, square
from .ops import add, emul, transpose
from .products import matmul
from .tape import TAPE, record, second_order

SYMMETRY_RTOL = 1e-8       # |A - A'| up to this times max |A| counts as rounding (float64)
SYMMETRY_RTOL_FLOAT32 = float(np.sqrt(np.finfo(np.float32).eps))   # float32 rounds ~5e8 times coarser


def finite(A: np.ndarray, what: str) -> np.ndarray:
    if not np.isfinite(A).all():
        bad = "NaN" if np.isnan(A).any() else "Inf"
        raise LaminaError("ValueError", f"{what} needs finite numbers, but the {shape_str(A.shape)} matrix "
                          f"contains {bad}; LAPACK cannot decompose it.")
    return A


def symmetric_part(A: np.ndarray, what: str, other: str) -> np.ndarray:
    """(A + A') / 2 of a matrix that is symmetric up to rounding (in its dtype's precision, as
    sample's float32 probabilities are checked); otherwise a ValueError."""
    gap = np.abs(A - A.T)
    rtol = SYMMETRY_RTOL_FLOAT32 if A.dtype == np.float32 else SYMMETRY_RTOL
    if gap.size and gap.max() > rtol * np.abs(A).max():
        i, j = np.unravel_index(int(np.argmax(gap)), gap.shape)
        raise LaminaError("ValueError", f"{what} needs a symmetric matrix, but A[{i}, {j}] = "
                          f"{format_number(float(A[i, j]))} and A[{j}, {i}] = {format_number(float(A[j, i]))}; "
                          f"{other}")
    return (A + A.T) / 2


def _sym(G: np.ndarray) -> np.ndarray:
    return (G + G.T) / 2


def column_signs(M: np.ndarray) -> np.ndarray:
    """+1 or -1 per column: the sign of its largest entry (the first, on ties; +1 for a zero column)."""
    if M.shape[0] == 0:
        return np.ones(M.shape[1], dtype=M.dtype)
    s = np.sign(M[np.argmax(np.abs(M), axis=0), np.arange(M.shape[1])])
    s[s == 0] = 1.0
    return s


def negligible(values: np.ndarray, scale: float, n: int) -> np.ndarray:
    """Where `values` are 0 to working precision: within n eps of `scale` (NumPy's matrix_rank
    tolerance), the rounding error of a decomposition of an n x n matrix of norm `scale`."""
    return np.abs(values) <= n * np.finfo(values.dtype).eps * scale


def _gaps(values: np.ndarray, scale: float) -> np.ndarray:
    """F[i, j] = 1 / (values[j] - values[i]) off the diagonal, 0 on it; Inf for values repeated
    to working precision (negligible differences), where the vectors are not smooth."""
    d = values[None, :] - values[:, None]
    d[negligible(d, scale, len(values))] = 0.0
    np.fill_diagonal(d, 1.0)
    with np.errstate(divide="ignore"):
        F = 1.0 / d
    np.fill_diagonal(F, 0.0)
    return F


def eigh(a):
    A = square(a.value if type(a) is Tracked else a, "eigh(A)")
    S = symmetric_part(finite(A, "eigh(A)"), "eigh(A)", "for a general square matrix use eig(A).")
    w, V = np.linalg.eigh(S)
    V = V * column_signs(V)

    def vjp_vectors(G):                       # the n x n gaps only when a gradient needs them
        return _sym(V @ (_gaps(w, float(np.abs(w).max(initial=0.0))) * (V.T @ G)) @ V.T)
    values = record(w, (a,), (lambda g: _sym((V * g) @ V.T),))
    vectors = record(V, (a,), (vjp_vectors,))
    return Record({"values": values, "vectors": vectors})


def eig(A: np.ndarray):
    """Real eigenvalues and eigenvectors of a square matrix (not differentiable)."""
    A = finite(square(A, "eig(A)"), "eig(A)")
    if np.array_equal(A, A.T):
        return eigh(A)
    w, V = np.linalg.eig(A)
    if np.iscomplexobj(w) and np.any(w.imag != 0):
        w, V = _nearly_real(A)
    w, V = np.real(w), np.real(V)
    order = np.argsort(w, kind="stable")
    w, V = w[order], V[:, order]
    return Record({"values": w, "vectors": V * column_signs(V)})


def _nearly_real(A: np.ndarray):
    """The eigenvalues and unit eigenvectors of A, whose eigenvalues LAPACK found complex, if
    they are real to working precision; otherwise the ValueError. A defective double eigenvalue
    (a Jordan block: eig([5, -1; 9, -1]) is 2, 2) comes out as lam +- mu i with mu near
    sqrt(eps) |A|. It is real when a change of A within rounding moves it by mu: that change is
    mu |y' x| for its unit left and right eigenvectors y and x (|y' x| is 1 for a rotation)."""
    import scipy.linalg as sla
    w, left, V = sla.eig(A, left=True, check_finite=False)
    change = np.abs(w.imag) * np.abs(np.sum(left.conj() * V, axis=0))
    real = change <= 10 * len(A) * np.finfo(A.dtype).eps * np.linalg.norm(A)
    if not real.all():
        z = w[np.argmax(np.where(real, 0.0, np.abs(w.imag)))]
        raise LaminaError("ValueError", f"eig(A): the {shape_str(A.shape)} matrix has complex eigenvalues "
                          f"(such as {format_number(float(z.real))} ± {format_number(abs(float(z.imag)))}i), "
                          "and Lamina's numbers are real. A symmetric matrix has real ones (eigh).")
    V = np.real(V)
    return np.real(w).astype(A.dtype), (V / np.linalg.norm(V, axis=0)).astype(A.dtype)


def svd(a):
    A = finite(matrix(a.value if type(a) is Tracked else a, "svd(A)"), "svd(A)")
    U, s, Vt = np.linalg.svd(A, full_matrices=False)
    signs = column_signs(U)
    U, Vt = U * signs, signs[:, None] * Vt
    V = Vt.T.copy()
    # Townsend's F[i, j] = 1 / (s[j]^2 - s[i]^2) enters only as F[i, j] s[j] and s[i] F[i, j],
    # taken as 1 / (s[j] - s[i]) / (1 + s[i] / s[j]) and 1 / (s[j] - s[i]) / (1 + s[j] / s[i]):
    # s .^ 2 would overflow (underflow) for a matrix of elements beyond 1e154 (below 1e-154),
    # 1e19 (1e-19) in float32. Singular values 0 to working precision count as 0 (rank
    # deficiency: Inf or NaN).
    # Computed in the VJP that needs them (k x k each: an untracked svd pays nothing).
    def weights(for_u: bool):
        top = float(s.max(initial=0.0))
        s0 = np.where(negligible(s, top, max(A.shape)), 0.0, s)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = s0[:, None] / s0[None, :]
            W = _gaps(s0, top) / (1 + (ratio if for_u else ratio.T))
            inv_s = 1.0 / s0
        np.fill_diagonal(W, 0.0)
        return W, inv_s

    def vjp_u(G):
        Fu, inv_s = weights(True)
        inner = Fu * (U.T @ G - G.T @ U)
        return U @ inner @ Vt + ((G - U @ (U.T @ G)) * inv_s) @ Vt

    def vjp_v(G):
        Fv, inv_s = weights(False)
        inner = Fv * (V.T @ G - G.T @ V)
        return U @ inner @ Vt + (U * inv_s) @ (G.T - (G.T @ V) @ Vt)
    return Record({"U": record(U, (a,), (vjp_u,)), "S": record(s, (a,), (lambda g: (U * g) @ Vt,)),
                   "V": record(V, (a,), (vjp_v,))})


def qr(a):
    A = finite(matrix(a.value if type(a) is Tracked else a, "qr(A)"), "qr(A)")
    Q, R = np.linalg.qr(A, mode="reduced")
    d = np.sign(np.diag(R))
    d[d == 0] = 1.0
    Q, R = Q * d, d[:, None] * R
    m, n = A.shape

    def back(Qb, Rb):
        if m >= n:
            return _qr_tall_back(Q, R, Qb, Rb)
        # A = [X | Y] with X = Q U square and R = [U | Q' Y]
        Y, Rb2 = A[:, m:], Rb[:, m:]
        return np.hstack([_qr_tall_back(Q, R[:, :m], Qb + Y @ Rb2.T, Rb[:, :m]), Q @ Rb2])
    return Record({"Q": record(Q, (a,), (lambda g: back(g, np.zeros(R.shape, R.dtype)),)),
                   "R": record(R, (a,), (lambda g: back(np.zeros(Q.shape, Q.dtype), g),))})


def _qr_tall_back(Q, R, Qb, Rb):
    """Ā = (Q̄ + Q copyltu(M)) R^-T with M = R R̄' - Q̄' Q (copyltu: the lower triangle mirrored)."""
    from scipy.linalg import solve_triangular
    if negligible(np.diag(R), float(np.abs(R).max(initial=0.0)), max(Q.shape)).any():
        # R is singular to working precision: A has dependent columns
        return np.full(Q.shape[:1] + R.shape[1:], np.nan, dtype=Q.dtype)
    M = R @ Rb.T - Qb.T @ Q
    M = np.tril(M) + np.tril(M, -1).T
    return solve_triangular(R, (Qb + Q @ M).T, lower=False, check_finite=False).T


@second_order
def chol(a):
    A = square(a.value if type(a) is Tracked else a, "chol(A)")
    S = symmetric_part(finite(A, "chol(A)"), "chol(A)", "a Cholesky factor exists only for a "
                       "symmetric positive definite matrix.")
    try:
        L = np.linalg.cholesky(S)
    except np.linalg.LinAlgError:
        low = float(np.linalg.eigvalsh(S)[0])
        raise LaminaError("ValueError", f"chol(A): the {shape_str(A.shape)} matrix is not positive definite "
                          f"(its smallest eigenvalue is {format_number(low)}, not clearly above 0); a covariance "
                          f"matrix of linearly dependent variables is only semi-definite.") from None

    def vjp(Lb):
        if TAPE.keeping:
            return _chol_slope(Lb, a, len(L))
        from scipy.linalg import solve_triangular
        P = np.tril(L.T @ Lb)
        P[np.diag_indices_from(P)] /= 2
        X = solve_triangular(L, P, trans="T", lower=True, check_finite=False)      # L^-T P
        return _sym(solve_triangular(L, X.T, trans="T", lower=True, check_finite=False).T)
    return record(L, (a,), (vjp,))


def _chol_slope(Lb, a, n: int):
    """chol's VJP on the tape, from L = chol(A) computed again there: sym(L^-T P L^-1) with P the
    lower triangle of L' Lb, its diagonal halved (a constant mask)."""
    L = chol(a)
    half_lower = np.tril(np.ones((n, n))) - np.eye(n) / 2
    P = masked(matmul(transpose(L), Lb), half_lower)
    L_inv = inv(L)
    M = matmul(matmul(transpose(L_inv), P), L_inv)
    return emul(add(M, transpose(M)), 0.5)
