"""Differentiable linear algebra beyond `*`: dot, solve (square or least squares), inv, det,
logdet, trace, outer and kron. NumPy and SciPy (LAPACK) do the numerics; this module checks shapes, turns
LAPACK's failures into Lamina errors, and records each result's VJP.

A square matrix is factorized once by LU; one whose reciprocal condition number (LAPACK's
estimate, in the 1-norm) is below the precision of its dtype (float64 or float32) is singular to working precision, and
inv and solve refuse it rather than return noise. NaN or Inf in a square matrix passes through
to the result (NaN in, NaN out); least squares needs finite numbers (LAPACK's SVD would fail).

Second order (autodiff/tape.py): when `TAPE.keeping`, each VJP computes with tape operations on
the operands as given (ops, products.matmul, and these functions themselves: inv's gradient
from inv(A) again, solve's from solve with A'), so a kept gradient is recorded and can be
differentiated again, to any order. det's kept gradient is det(A) inv(A)', which needs an
invertible A.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from ..errors import LaminaError, describe_shape, shape_str
from ..values import Tracked, format_number, tensor_dtype, value_of
from .indexing import reshaped
from .ops import add, emul, neg, sub, transpose
from .products import einsum, matmul, shaped
from .tape import TAPE, record, second_order

EPS = float(np.finfo(np.float64).eps)


@second_order
def dot(a, b):
    """The sum of elementwise products of two tensors of the same shape (a number)."""
    x = a.value if type(a) is Tracked else a
    y = b.value if type(b) is Tracked else b
    sx, sy = np.shape(x), np.shape(y)
    if sx != sy:
        raise LaminaError("ShapeError", f"dot needs two operands of the same shape, but got "
                          f"{describe_shape(sx)} and {describe_shape(sy)}.")
    if not sx:
        return emul(a, b)
    return record(float(np.vdot(x, y)), (a, b), (lambda g: emul(g, b) if TAPE.keeping else g * y,
                                                 lambda g: emul(g, a) if TAPE.keeping else g * x))


def square(A, what: str) -> np.ndarray:
    """A checked to be a square matrix (the ShapeError names `what`, e.g. `inv(A)`)."""
    if np.ndim(A) != 2 or A.shape[0] != A.shape[1]:
        raise LaminaError("ShapeError", f"{what} needs a square matrix, not {describe_shape(np.shape(A))}.")
    return A


def matrix(A, what: str) -> np.ndarray:
    if np.ndim(A) != 2:
        raise LaminaError("ShapeError", f"{what} needs a matrix, not {describe_shape(np.shape(A))}.")
    return A


def lu(A: np.ndarray, what: str):
    """LU factors of a square A; the ValueError of a matrix singular to working precision."""
    import scipy.linalg as sla  # here, not at the top: SciPy takes a fifth of a second to import
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sla.LinAlgWarning)   # an exactly zero pivot: rcond is 0
        factors = sla.lu_factor(A, check_finite=False)
    if np.isfinite(A).all():
        # rcond is that of A / 2^k for 2^k near max|A|: the same number, but LAPACK's estimate
        # is 0 where A's 1-norm overflows or its inverse's would (elements near 1e308, 1e-308).
        scale = math.ldexp(1.0, math.frexp(float(np.abs(A).max()))[1] - 1)
        LU = np.tril(factors[0], -1) + np.triu(factors[0]) / scale
        anorm = float((np.abs(A) / scale).sum(axis=0).max())
        gecon = sla.lapack.get_lapack_funcs("gecon", (LU,))
        rcond = float(gecon(LU, anorm, norm="1")[0])
        eps = EPS if A.dtype == np.float64 else float(np.finfo(A.dtype).eps)
        if not rcond >= eps:
            how = "singular" if rcond == 0 else (f"singular to working precision (its reciprocal "
                                                 f"condition number is {format_number(rcond)}, below "
                                                 f"the {A.dtype} precision {eps:.2g})")
            raise LaminaError("ValueError", f"{what}: the {shape_str(A.shape)} matrix is {how}, so "
                              f"{'it has no inverse' if what.startswith('inv') else 'A x = b has no unique solution'}"
                              f"; check for linearly dependent rows or columns.")
    return factors


def lu_solve(factors, B: np.ndarray, trans: int = 0) -> np.ndarray:
    """The solution of A x = B (trans 1: A' x = B) from A's LU factors."""
    from scipy.linalg import lu_solve
    return lu_solve(factors, B, trans=trans, check_finite=False)


@second_order
def inv(a):
    """The inverse of a square matrix; its VJP is -Y' G Y' for Y = inv(A)."""
    A = square(a.value if type(a) is Tracked else a, "inv(A)")
    if np.isnan(A).any():                     # LAPACK's pivoting can step around a NaN
        Y = np.full(A.shape, np.nan, A.dtype)
    else:
        Y = lu_solve(lu(A, "inv(A)"), np.eye(len(A), dtype=A.dtype)) if A.size else np.zeros((0, 0), A.dtype)
    return record(Y, (a,), (lambda g: _inverse_slope(g, a) if TAPE.keeping else -(Y.T @ g @ Y.T),))


def _inverse_slope(g, a):
    """-Y' G Y' on the tape, Y = inv(A) computed again there."""
    Yt = transpose(inv(a))
    return neg(matmul(matmul(Yt, g), Yt))


@second_order
def det(a):
    """The determinant. Its gradient is the adjugate's transpose, taken from an SVD so that it is
    exact for a singular matrix too: adj(A)' = det(U) det(V) U diag(prod of the other s) V'."""
    A = square(a.value if type(a) is Tracked else a, "det(A)")
    # A NaN anywhere makes the determinant NaN (LAPACK's pivoting can step around one: NumPy
    # gives det([NaN, 1; 1, 1]) = 0).
    out = math.nan if np.isnan(A).any() else _lu_det(A) if A.size else 1.0

    def vjp(g):
        if not A.size:
            return np.zeros((0, 0), A.dtype)
        if TAPE.keeping:
            return _det_slope(g, a, A)
        if not np.isfinite(A).all():
            return np.full(A.shape, np.nan, dtype=A.dtype)
        U, s, Vt = np.linalg.svd(A)
        others = _products_of_others(s.tolist()).astype(A.dtype)
        sign = np.sign(np.linalg.det(U) * np.linalg.det(Vt))     # +-1, not NumPy's +-0.9999999999999996
        return (g * sign) * (U * others) @ Vt
    return record(out, (a,), (vjp,))


def _det_slope(g, a, A: np.ndarray):
    """det's gradient on the tape: g det(A) inv(A)' (the adjugate's transpose of an invertible A)."""
    if not np.isfinite(A).all():
        return np.full(A.shape, np.nan, dtype=A.dtype)
    inverse = _inverse_kept(a, A, "det(A)", "det(A) inv(A)' (the first-order gradient, without keep, "
                            "is defined at a singular matrix too)")
    return emul(emul(g, det(a)), transpose(inverse))


@second_order
def logdet(a):
    """log(det(A)) as the sum of the logs of |u_ii| on the diagonal of A's LU factors (no overflow
    where det(A) would): NaN where det(A) < 0 (or A holds a NaN), -Inf where A is singular, as
    torch.logdet. Its gradient is inv(A)' (NaN where the value is not finite)."""
    A = square(value_of(a), "logdet(A)")
    if not A.size:
        return record(0.0, (a,), (lambda g: np.zeros((0, 0), A.dtype),))
    import scipy.linalg as sla
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sla.LinAlgWarning)   # an exactly zero pivot
        factors = sla.lu_factor(A, check_finite=False)
    u = np.diag(factors[0])
    swaps = np.count_nonzero(factors[1] != np.arange(len(A)))
    negative = (swaps + np.count_nonzero(u < 0)) % 2
    with np.errstate(divide="ignore", invalid="ignore"):
        out = math.nan if np.isnan(A).any() or np.isnan(u).any() else (
            -math.inf if not u.all() else math.nan if negative else float(np.log(np.abs(u)).sum()))

    def vjp(g):
        if not math.isfinite(out):
            return np.full(A.shape, np.nan, A.dtype)
        if TAPE.keeping:
            return emul(g, transpose(_inverse_kept(a, A, "logdet(A)", "inv(A)'")))
        return g * lu_solve(factors, np.eye(len(A), dtype=A.dtype), trans=1)
    return record(out, (a,), (vjp,))


def _inverse_kept(a, A: np.ndarray, what: str, rule: str):
    """inv(a) on the tape for a kept gradient `rule` of `what`; a matrix singular to working
    precision is a ValueError that says so."""
    try:
        return inv(a)
    except LaminaError as e:
        if e.kind != "ValueError":
            raise
        raise LaminaError("ValueError", f"{what}: the gradient kept on the tape (grad with keep = true) "
                          f"is {rule}, but the {shape_str(A.shape)} matrix is singular to working "
                          f"precision.") from None


def _products_of_others(s: list) -> np.ndarray:
    """prod(s[j] for j != i) for each i: a product of s[:i] times one of s[i + 1:], each with
    its power of 2 carried apart (as _lu_det) so that no partial product overflows."""
    n = len(s)
    head, tail = [(1.0, 0)] * (n + 1), [(1.0, 0)] * (n + 1)
    for i in range(n):
        m, e = math.frexp(head[i][0] * s[i])
        head[i + 1] = (m, head[i][1] + e)
        m, e = math.frexp(tail[n - i][0] * s[n - 1 - i])
        tail[n - 1 - i] = (m, tail[n - i][1] + e)
    mantissas = np.array([head[i][0] * tail[i + 1][0] for i in range(n)])
    with np.errstate(over="ignore", under="ignore"):
        return np.ldexp(mantissas, np.array([head[i][1] + tail[i + 1][1] for i in range(n)], dtype=int))


def _lu_det(A: np.ndarray) -> float:
    """The product of the LU diagonal, its power of 2 carried apart so that no partial product
    overflows or underflows: det(diag([1e200, 1e200, 1e-200, 1e-200])) is 1. (NumPy's det goes
    through exp(log|det|) and misses whole numbers: det([2, 1; 1, 3]) = 5.000000000000001;
    SciPy's and torch's plain product give Inf for the diagonal one.)"""
    import scipy.linalg as sla
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sla.LinAlgWarning)   # an exactly zero pivot
        LU, pivots = sla.lu_factor(A.astype(np.float64), check_finite=False)   # a number is float64
    mantissa, exponent = -1.0 if np.count_nonzero(pivots != np.arange(len(A))) % 2 else 1.0, 0
    for u in np.diag(LU).tolist():
        mantissa, e = math.frexp(mantissa * u)
        exponent += e
    with np.errstate(over="ignore", under="ignore"):
        return float(np.ldexp(mantissa, exponent))


@second_order
def trace(a):
    """The sum of the diagonal of a square matrix."""
    A = square(a.value if type(a) is Tracked else a, "trace(A)")
    n = len(A)
    return record(float(np.trace(A)), (a,), (lambda g: emul(g, np.eye(n, dtype=A.dtype)) if TAPE.keeping
                                             else g * np.eye(n, dtype=A.dtype),))


@second_order
def outer(a, b):
    """u v' for two vectors: an m x n matrix."""
    u = a.value if type(a) is Tracked else a
    v = b.value if type(b) is Tracked else b
    for x in (u, v):
        if np.ndim(x) != 1:
            raise LaminaError("ShapeError", f"outer(u, v) takes two vectors, not {describe_shape(np.shape(x))}; "
                              "for matrices see kron(A, B).")
    return record(np.outer(u, v), (a, b), (lambda g: matmul(g, b) if TAPE.keeping else g @ v,
                                            lambda g: matmul(a, g) if TAPE.keeping else u @ g))


@second_order
def kron(a, b):
    """The Kronecker product: block (i, j) is A[i, j] * B. A vector is a column; two vectors give
    a vector; a number scales the other operand."""
    x = a.value if type(a) is Tracked else a
    y = b.value if type(b) is Tracked else b
    sx, sy = np.shape(x), np.shape(y)
    dtype = tensor_dtype(x, y)
    x, y = np.asarray(x, dtype=dtype), np.asarray(y, dtype=dtype)
    X = np.reshape(x, (1, 1) if not sx else (sx[0], 1) if len(sx) == 1 else sx)
    Y = np.reshape(y, (1, 1) if not sy else (sy[0], 1) if len(sy) == 1 else sy)
    (m, n), (p, q) = X.shape, Y.shape
    out = np.kron(X, Y)
    if len(sx) <= 1 and len(sy) <= 1:
        out = out.reshape(-1) if sx or sy else float(out[0, 0])

    def part(g, pattern: str, other: np.ndarray, shape: tuple):
        back = np.einsum(pattern, np.reshape(g, (m, p, n, q)), other)
        return back.reshape(shape) if shape else float(back.sum())

    def kept(g, pattern: str, other, other_shape: tuple, shape: tuple):
        back = einsum(pattern, [reshaped(g, (m, p, n, q)), shaped(other, other_shape)])
        return shaped(back, shape)

    def vjp_a(g):
        if TAPE.keeping:
            return kept(g, "ikjl,kl->ij", b, (p, q), sx)
        return part(g, "ikjl,kl->ij", Y, sx)

    def vjp_b(g):
        if TAPE.keeping:
            return kept(g, "ikjl,ij->kl", a, (m, n), sy)
        return part(g, "ikjl,ij->kl", X, sy)
    return record(out, (a, b), (vjp_a, vjp_b))


@second_order
def solve(a, b):
    """x with A x = b: for a square A the unique solution (LU), otherwise the least-squares
    solution, of minimum norm when A is wider than tall (LAPACK's gelsd). b is a vector or a
    matrix of right-hand sides."""
    A = matrix(a.value if type(a) is Tracked else a, "solve(A, b)")
    B = b.value if type(b) is Tracked else b
    if np.ndim(B) not in (1, 2) or B.shape[0] != A.shape[0]:
        raise LaminaError("ShapeError", f"solve(A, b) needs b with as many rows as A ({A.shape[0]}), "
                          f"not {describe_shape(np.shape(B))}.")
    if A.shape[0] != A.shape[1]:
        return _least_squares(a, b, A, B)
    # The VJP for b solves A' y = g with the same LU factors (none for a NaN or empty A: a
    # second factorization of a non-finite A could meet an exactly zero pivot and fail).
    factors = None if np.isnan(A).any() or not A.size else lu(A, "solve(A, b)")
    if factors is None:                       # as inv: a NaN in A makes every unknown NaN
        x = np.full(B.shape, np.nan if A.size else 0.0, tensor_dtype(A, B))
    else:
        x = lu_solve(factors, B)

    def vjp_b(g):
        if factors is None:
            return np.full(B.shape, np.nan if A.size else 0.0, B.dtype)
        if TAPE.keeping:
            return solve(transpose(a), g)
        return lu_solve(factors, g, trans=1)

    def vjp_a(g):
        gb = vjp_b(g)
        if TAPE.keeping:
            x_kept = solve(a, b)
            return neg(outer(gb, x_kept) if x.ndim == 1 else matmul(gb, transpose(x_kept)))
        return -np.outer(gb, x) if x.ndim == 1 else -gb @ x.T
    return record(x, (a, b), (vjp_a, vjp_b))


@second_order
def _least_squares(a, b, A: np.ndarray, B: np.ndarray):
    for what, v in (("A", A), ("b", B)):
        if not np.isfinite(v).all():
            raise LaminaError("ValueError", f"solve(A, b) with a non-square A ({shape_str(A.shape)}) finds the "
                              f"least-squares solution, which needs finite numbers, but {what} contains "
                              f"NaN or Inf.")
    x, _, rank, _ = np.linalg.lstsq(A, B, rcond=None)
    m, n = A.shape
    if rank < min(m, n):
        which = "columns" if m > n else "rows"
        raise LaminaError("ValueError", f"solve(A, b): the {shape_str(A.shape)} matrix A has rank {rank}, "
                          f"less than {min(m, n)}: its {which} are linearly dependent, so the "
                          f"least-squares solution is not unique. Remove the redundant {which}.")
    column = B.ndim == 1
    X, Bm = (x.reshape(-1, 1), B.reshape(-1, 1)) if column else (x, B)

    # The VJPs of x = pinv(A) b for A of full rank, with P = pinv(A) and residual r = b - A x:
    # b gets P' g; A gets -(P' g) x' + r (P P' g)' + (P' x)(g - P A g)'.
    pinv = []                      # computed once, by whichever VJP runs first

    def grads(g):
        G = g.reshape(-1, 1) if column else g
        if not pinv:
            pinv.append(np.linalg.pinv(A))
        P = pinv[0]
        gb = P.T @ G
        ga = -gb @ X.T + (Bm - A @ X) @ (P @ gb).T + (P.T @ X) @ (G - P @ (A @ G)).T
        return ga, (gb.reshape(-1) if column else gb)

    def vjp(i: int):
        return lambda g: _least_squares_kept(g, a, b, column)[i] if TAPE.keeping else grads(g)[i]
    return record(x, (a, b), (vjp(0), vjp(1)))


def _least_squares_kept(g, a, b, column: bool):
    """The least-squares VJPs (grads in _least_squares) on the tape, with pinv(A) as
    inv(A' A) A' (A tall) or A' inv(A A') (A wide), its value for a matrix of full rank."""
    m, n = np.shape(value_of(a))
    G, Bm = (shaped(g, (n, 1)), shaped(b, (m, 1))) if column else (g, b)
    X = shaped(solve(a, b), (n, 1)) if column else solve(a, b)
    At = transpose(a)
    try:
        P = matmul(inv(matmul(At, a)), At) if m > n else matmul(At, inv(matmul(a, At)))
    except LaminaError as e:
        if e.kind != "ValueError":
            raise
        form = "inv(A' A) A'" if m > n else "A' inv(A A')"
        raise LaminaError("ValueError", f"solve(A, b): the gradient of a least-squares solution kept on "
                          f"the tape (grad with keep = true) takes pinv(A) as {form}, but for this "
                          f"{shape_str((m, n))} matrix that product is singular to working precision.") from None
    Pt = transpose(P)
    gb = matmul(Pt, G)
    ga = add(add(neg(matmul(gb, transpose(X))), matmul(sub(Bm, matmul(a, X)), transpose(matmul(P, gb)))),
             matmul(matmul(Pt, X), transpose(sub(G, matmul(P, matmul(a, G))))))
    return ga, (shaped(gb, (m,)) if column else gb)
