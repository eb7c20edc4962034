"""Linear algebra builtins: the matrix decompositions eig, eigh, svd, qr and chol
(lamina.autodiff.decompositions holds the math)."""
from __future__ import annotations

from ..autodiff import decompositions as D
from ..values import numeric, numeric_or_tracked
from .registry import GradCase, Shape, builtin, refuse_tracked

CATEGORY = "Linear algebra"
UNIQUE = ("Signs are fixed so that every machine prints the same numbers: each eigenvector or "
          "singular vector has its largest entry (the first, on ties) positive.")
NOT_SMOOTH = ("Where the decomposition is not smooth (values repeated, or a matrix rank-deficient, "
              "to working precision) the gradient of the vectors is undefined and comes out Inf or NaN.")


def _arg(x, name: str):
    return numeric_or_tracked(x, f"{name}'s argument")


@builtin("eigh", pure="a record", category=CATEGORY,
         shapes=[Shape("eigh(A)", "symmetric n x n matrix", "record {values, vectors}",
                       "values: the n eigenvalues, ascending; vectors: n x n, eigenvector i in column i.")],
         summary="Eigenvalues and eigenvectors of a symmetric matrix (a covariance, a Hessian): "
                 "A * vectors = vectors .* values'.",
         examples=["e = eigh([2, 1; 1, 2])\nprint(e.values)\nprint(round(e.vectors, 4))",
                   "C = [4, 2, 0.6; 2, 2, 0.4; 0.6, 0.4, 1]\ne = eigh(C)\n"
                   "print(round(reverse(e.values) ./ sum(e.values), 4))   # share of variance, largest first"],
         notes="LAPACK's symmetric solver (NumPy's eigh): the eigenvalues are real and ascending "
               "(reverse(e.values) for largest first) and the eigenvectors orthonormal, so "
               "vectors * vectors' is eye(n). A must be symmetric up to rounding (|A - A'| at most "
               "1e-8 times its largest element, or 3.5e-4, the square root of float32's eps, for float32; "
               "(A + A') / 2 is used); otherwise a ValueError points "
               "at eig. It needs finite numbers. " + UNIQUE + " Differentiable (Giles' formulas): "
               "the gradient is symmetric, the gradient within symmetric matrices. " + NOT_SMOOTH,
         grad=[GradCase(((3, 3),), domain="spd"), GradCase(((1, 1),), domain="spd")])
def eigh(A):
    return D.eigh(_arg(A, "eigh"))


@builtin("eig", pure="a record", tracked="refuses", category=CATEGORY,
         probes=["eig([1, 2; 2, 1] .* p[0])", "eig(q[0:2, :])"],
         float32_probes=["eig(q[0:2, :])", "eig(float32([1, 2; 3, 1]))"],
         shapes=[Shape("eig(A)", "n x n matrix", "record {values, vectors}",
                       "values: the n eigenvalues, ascending; vectors: unit eigenvectors in columns.")],
         summary="Eigenvalues and eigenvectors of a square matrix whose eigenvalues are real.",
         examples=["e = eig([2, 0; 1, 3])\nprint(e.values)\nprint(round(e.vectors, 4))",
                   "P = [0.9, 0.1; 0.5, 0.5]   # a Markov chain: eigenvalue 1 of P'\n"
                   "e = eig(P')\nstationary = e.vectors[:, 1] ./ sum(e.vectors[:, 1])\nprint(round(stationary, 4))"],
         notes="LAPACK's general solver (NumPy's eig); a symmetric A goes to the symmetric solver, as "
               "in Julia, and gives what eigh gives. The eigenvalues are sorted ascending, each "
               "eigenvector has length 1. Lamina's numbers are real, so a matrix with complex "
               "eigenvalues (a rotation, say) is a ValueError that shows one of them; a pair that "
               "is real to working precision (a repeated eigenvalue with a single eigenvector: "
               "LAPACK finds those of [5, -1; 9, -1] as 2 ± 5e-8i) counts as real. It needs "
               "finite numbers. " + UNIQUE + " Not differentiable: a tracked A is a TypeError "
               "(eigh is differentiable).")
def eig(A):
    refuse_tracked("eig", (A,))
    return D.eig(numeric(A, "eig's argument"))


@builtin("svd", pure="a record", category=CATEGORY,
         shapes=[Shape("svd(A)", "m x n matrix", "record {U, S, V}",
                       "A = U * diag(S) * V' with k = min(m, n): U m x k, S k values descending, V n x k.")],
         summary="The singular value decomposition: A = U diag(S) V', with orthonormal columns in U "
                 "and V and singular values S >= 0 in decreasing order.",
         examples=["d = svd([3, 0; 4, 5])\nprint(round(d.S, 6))\nprint(round(d.U .* d.S' * d.V', 10))",
                   "X = [2, 1; 1, 3; 0, 1]\nd = svd(X)\nprint(size(d.U), size(d.V), round(d.S[0] / d.S[1], 4))"],
         notes="The thin SVD (LAPACK via NumPy; Julia's svd): for an m x n A with k = min(m, n), U "
               "is m x k, S holds k values and V is n x k, and U .* S' * V' rebuilds A. V is V "
               "itself, not its transpose. S[0] is norm(A, 2) and S[0] / S[end] the condition "
               "number. It needs finite numbers. " + UNIQUE.replace("eigenvector or singular vector",
                                                                     "column of U (with its column of V)")
               + " Differentiable (Townsend's formulas). " + NOT_SMOOTH,
         grad=[GradCase(((3, 2),)), GradCase(((2, 3),)), GradCase(((3, 3),))])
def svd(A):
    return D.svd(_arg(A, "svd"))


@builtin("qr", pure="a record", category=CATEGORY,
         shapes=[Shape("qr(A)", "m x n matrix", "record {Q, R}",
                       "A = Q * R with k = min(m, n): Q m x k with orthonormal columns, R k x n upper triangular.")],
         summary="The QR decomposition: A = Q R, Q with orthonormal columns, R upper triangular with a "
                 "diagonal >= 0.",
         examples=["d = qr([3, 1; 4, 2])\nprint(round(d.Q, 4))\nprint(round(d.R, 4))\nprint(round(d.Q * d.R, 10))",
                   "X = [1, 0; 1, 1; 1, 2; 1, 3]\ny = [1, 3, 4, 7]\nd = qr(X)\n"
                   "print(round(solve(d.R, d.Q' * y), 10))   # least squares, as solve(X, y)"],
         notes="The reduced QR (Householder, LAPACK via NumPy). Signs are fixed so that R's "
               "diagonal is >= 0, which makes the decomposition unique for a matrix of full column "
               "rank and the same on every machine. It needs finite numbers. Differentiable (Walter "
               "and Lehmann; a wide matrix by its leading square block); for a matrix with linearly "
               "dependent columns (to working precision) the gradient is NaN.",
         grad=[GradCase(((3, 2),)), GradCase(((3, 3),), domain="invertible"), GradCase(((2, 4),))])
def qr(A):
    return D.qr(_arg(A, "qr"))


@builtin("chol", twice=True, pure="a value", category=CATEGORY,
         shapes=[Shape("chol(A)", "symmetric positive definite n x n matrix", "n x n matrix",
                       "L, lower triangular with a positive diagonal, with L * L' = A.")],
         summary="The Cholesky factor of a symmetric positive definite matrix: the lower triangular L "
                 "with A = L L'.",
         examples=["L = chol([4, 2; 2, 5])\nprint(L, L * L')",
                   "seed(1)\nS = [1, 0.8; 0.8, 1]\nz = randn(2, 5000)\nx = chol(S) * z   # correlated draws\n"
                   "print(round(corr(x'), 1))"],
         notes="Returns the matrix L itself (as NumPy; Julia's cholesky(A).L, the transpose of "
               "MATLAB's chol). A must be symmetric up to rounding, as for eigh, and positive "
               "definite: otherwise a ValueError gives its smallest eigenvalue (a covariance matrix "
               "of linearly dependent variables is only semi-definite). It needs finite numbers. "
               "Uses: drawing correlated normals (L * z), solving with a covariance. Differentiable "
               "(Murray's formulas): the gradient is symmetric, the gradient within symmetric matrices.",
         grad=[GradCase(((3, 3),), domain="spd"), GradCase(((1, 1),), domain="spd")])
def chol(A):
    return D.chol(_arg(A, "chol"))
