"""Linear algebra builtins: products, solve, inv, det, logdet, trace, norm (lamina.autodiff.linalg and
norms hold the math); the decompositions are in decompositions.py."""
from __future__ import annotations

import math

from ..autodiff import linalg, norms
from ..values import as_float, numeric_or_tracked
from .registry import Const, GradCase, Shape, builtin, refuse_tracked

CATEGORY = "Linear algebra"
SQUARE = [GradCase(((3, 3),), domain="invertible"), GradCase(((1, 1),), domain="invertible")]


def _arg(x, name: str):
    return numeric_or_tracked(x, f"{name}'s argument")


@builtin("dot", twice=True, pure="a number", category=CATEGORY,
         shapes=[Shape("dot(a, b)", "two tensors of the same shape", "number",
                       "The sum of the elementwise products.")],
         summary="The inner product: the sum of a .* b for two vectors (or matrices) of the same shape.",
         examples=["print(dot([1, 2, 3], [4, 5, 6]))"],
         notes="For matrices this is the sum over all elements (the Frobenius inner product). "
               "Shapes must match exactly.",
         grad=[GradCase(((), ())), GradCase(((4,), (4,))), GradCase(((2, 3), (2, 3)))])
def dot(a, b):
    return linalg.dot(_arg(a, "dot"), _arg(b, "dot"))


@builtin("solve", twice=True, pure="a value", category=CATEGORY,
         shapes=[Shape("solve(A, b)", "n x n matrix, vector of length n", "vector", "x with A * x = b."),
                 Shape("solve(A, B)", "n x n matrix, n x k matrix", "n x k matrix",
                       "One solution per column of B."),
                 Shape("solve(X, y)", "m x n matrix (m > n), vector of length m", "vector of length n",
                       "The least-squares solution: x minimizing the sum of (X * x - y) .^ 2."),
                 Shape("solve(A, b)", "m x n matrix (m < n), vector of length m", "vector of length n",
                       "The solution of A * x = b with the smallest norm.")],
         summary="Solves the linear system A x = b without forming the inverse of A; for a non-square "
                 "A, the least-squares solution. The same as A \\ b.",
         examples=["A = [4, 1; 2, 3]\nx = solve(A, [11, 13])\nprint(x, A * x)",
                   "X = [1, 0; 1, 1; 1, 2; 1, 3]   # an intercept and a slope\ny = [1, 3, 4, 7]\n"
                   "print(round(solve(X, y), 10))"],
         notes="A square A is factorized by LU (LAPACK); a singular one, or one singular to working "
               "precision (LAPACK's estimate of its reciprocal condition number below 2.2e-16, "
               "1.2e-7 for a float32 matrix, where the answer would be noise), is a ValueError. A "
               "NaN in a square system gives NaN. A non-square A gives the least-squares solution "
               "(LAPACK's gelsd, as NumPy's "
               "lstsq): for a tall A (more equations than unknowns) the x that minimizes the sum "
               "of squared residuals, the regression coefficients of y on the columns of X; for a "
               "wide A the solution of smallest norm. It needs finite numbers and full rank: "
               "linearly dependent columns (rows) are a ValueError, since the solution would not "
               "be unique. Differentiable in both A and b: for a square A the gradient for b is "
               "solve(A', g) and for A its negative outer product with x; for a non-square A, the "
               "gradient of pinv(A) b.",
         grad=[GradCase(((3, 3), (3,)), domain="invertible"), GradCase(((2, 2), (2, 3)), domain="invertible"),
               GradCase(((5, 2), (5,))), GradCase(((4, 3), (4, 2))), GradCase(((2, 4), (2,))),
               GradCase(((2, 3), (2, 2)))])
def solve(A, b):
    return linalg.solve(_arg(A, "solve"), _arg(b, "solve"))


@builtin("inv", twice=True, pure="a value", category=CATEGORY,
         shapes=[Shape("inv(A)", "n x n matrix", "n x n matrix", "The inverse: inv(A) * A is eye(n).")],
         summary="The inverse of a square matrix.",
         examples=["A = [4, 7; 2, 6]\nprint(round(inv(A), 10))\nprint(round(inv(A) * A, 10))"],
         notes="Computed from an LU factorization (LAPACK). A singular matrix, or one singular to "
               "working precision (reciprocal condition number below 2.2e-16, 1.2e-7 for float32), "
               "is a ValueError; a NaN gives NaN. To solve A x = b, solve(A, b) (or A \\ b) is "
               "faster and more accurate than inv(A) * b. Differentiable: the gradient is "
               "-inv(A)' * g * inv(A)'.",
         grad=SQUARE + [GradCase(((4, 4),), domain="invertible")])
def inv(A):
    return linalg.inv(_arg(A, "inv"))


@builtin("det", twice=True, pure="a number", category=CATEGORY,
         shapes=[Shape("det(A)", "n x n matrix", "number", "The determinant.")],
         summary="The determinant of a square matrix.",
         examples=["print(round(det([4, 7; 2, 6]), 10), det([1, 2; 2, 4]), det(eye(3)))"],
         notes="Computed from an LU factorization (LAPACK), so for a large matrix it can overflow "
               "to Inf or underflow to 0 long before the matrix is singular. The determinant of the empty 0x0 "
               "matrix is 1. Differentiable: the gradient is the transposed adjugate (det(A) "
               "inv(A)' for an invertible A), computed from an SVD so that it is exact for a "
               "singular matrix too. Differentiable twice: the kept gradient (grad with keep = true) "
               "is det(A) inv(A)' on the tape, so there a matrix singular to working precision is a "
               "ValueError. For a log-likelihood, logdet(A) stays finite where det(A) overflows.",
         grad=SQUARE + [GradCase(((3, 3),)), GradCase(((2, 2),))])
def det(A):
    return linalg.det(_arg(A, "det"))


@builtin("logdet", twice=True, pure="a number", category=CATEGORY,
         shapes=[Shape("logdet(A)", "n x n matrix", "number", "log(det(A)), without forming det(A).")],
         summary="The logarithm of the determinant of a square matrix, finite where det(A) itself "
                 "would overflow or underflow.",
         examples=["A = [4, 1; 1, 3]\nprint(round(logdet(A), 10), round(log(det(A)), 10))",
                   "A = 10 * eye(400)     # det(A) = 10^400, beyond the largest float\n"
                   "print(det(A), round(logdet(A), 6), round(400 * log(10), 6))",
                   "print(logdet([1, 2; 3, 4]), logdet([1, 2; 2, 4]))   # det -2, and 0"],
         notes="The sum of log |u_ii| over the diagonal of A's LU factors (LAPACK), so a "
               "covariance matrix's log-determinant, which a multivariate normal log-likelihood "
               "needs, stays finite for any size. Where det(A) < 0 it is NaN (the log of a negative "
               "number, as torch.logdet), for a singular matrix -Inf, and for the empty 0x0 matrix 0 "
               "(det is 1). Differentiable twice: the gradient is inv(A)' (NaN where the value is NaN "
               "or -Inf); the kept gradient (grad with keep = true) computes inv(A) on the tape, so "
               "there a matrix singular to working precision is a ValueError.",
         grad=[GradCase(((3, 3),), domain="spd"), GradCase(((1, 1),), domain="spd"),
               GradCase(((4, 4),), domain="spd")])
def logdet(A):
    return linalg.logdet(_arg(A, "logdet"))


@builtin("trace", twice=True, pure="a number", category=CATEGORY,
         shapes=[Shape("trace(A)", "n x n matrix", "number", "The sum of the diagonal.")],
         summary="The trace of a square matrix: the sum of its diagonal elements.",
         examples=["print(trace([1, 2; 3, 4]), trace(eye(5)))"],
         notes="trace(A) is also the sum of the eigenvalues of A, and trace(A' * B) is dot(A, B). "
               "Differentiable: the gradient is g times the identity.",
         grad=[GradCase(((3, 3),)), GradCase(((1, 1),))])
def trace(A):
    return linalg.trace(_arg(A, "trace"))


@builtin("outer", twice=True, pure="a value", category=CATEGORY,
         shapes=[Shape("outer(u, v)", "vectors of lengths m and n", "m x n matrix", "u * v': element (i, j) is u[i] v[j].")],
         summary="The outer product of two vectors: the m x n matrix of all products u[i] * v[j].",
         examples=["print(outer([1, 2], [1, 10, 100]))"],
         notes="The same as u * v' (a vector is a column). Both arguments must be vectors. "
               "Differentiable: u gets g * v and v gets g' * u.",
         grad=[GradCase(((3,), (2,))), GradCase(((1,), (4,)))])
def outer(u, v):
    return linalg.outer(_arg(u, "outer"), _arg(v, "outer"))


@builtin("kron", twice=True, pure="a value", category=CATEGORY,
         shapes=[Shape("kron(A, B)", "m x n and p x q matrices", "mp x nq matrix",
                       "Block (i, j) is A[i, j] * B."),
                 Shape("kron(u, v)", "two vectors", "vector", "The products u[i] v[j], i slowest.")],
         summary="The Kronecker product: every element of A times the whole of B, as blocks.",
         examples=["print(kron([1, 2; 3, 4], [1, 1]'))", "print(kron(eye(2), [1, 2; 3, 4]))",
                   "print(kron([1, 2], [1, 10]))"],
         notes="A vector counts as a column (as everywhere), so kron(u, v) of two vectors is a "
               "vector and kron(v, B) stacks blocks v[i] B; a number scales the other operand. "
               "Differentiable in both operands.",
         grad=[GradCase(((2, 3), (3, 2))), GradCase(((3,), (2,))), GradCase(((2,), (2, 2))),
               GradCase(((), (2, 2))), GradCase(((2, 2), ()))])
def kron(A, B):
    return linalg.kron(_arg(A, "kron"), _arg(B, "kron"))


def _p(p):
    refuse_tracked("norm's p", (p,))          # norm passes no gradient to p
    return p if p is None or isinstance(p, str) else as_float(p, "norm's p")


@builtin("norm", pure="a number", category=CATEGORY,
         shapes=[Shape("norm(v)", "vector", "number", "The Euclidean length: sqrt(sum(v .^ 2))."),
                 Shape("norm(v, p)", "vector, p >= 1 or Inf", "number",
                       "The p-norm: sum(abs(v) .^ p) ^ (1 / p); Inf: the largest abs(v)."),
                 Shape("norm(A)", "matrix", "number", "The Frobenius norm: sqrt(sum(A .^ 2))."),
                 Shape("norm(A, p)", "matrix, 2, 1, Inf or \"fro\"", "number",
                       "2: the largest singular value; 1: the largest column sum of abs(A); Inf: "
                       "the largest row sum.")],
         summary="The length of a vector (any p-norm) or the size of a matrix (Frobenius, spectral, "
                 "1 or Inf norm).",
         examples=["print(norm([3, 4]), norm([3, -4], 1), norm([3, -4], 1 / 0))",
                   "A = [1, 2; 3, 4]\nprint(round(norm(A), 6), round(norm(A, 2), 6), norm(A, 1), norm(A, 1 / 0))"],
         notes="As NumPy: norm(A) of a matrix is the Frobenius norm (Julia agrees), norm(A, 2) its "
               "spectral norm (Julia's opnorm; MATLAB's norm(A)). A number's norm is its absolute "
               "value; an empty tensor's is 0. p below 1 is not a norm and is a ValueError; a tracked p is "
               "a TypeError (no gradient flows to p). Large "
               "values do not overflow: the vector is scaled by its largest element first. A NaN "
               "gives NaN. Differentiable: the gradient of the 2-norm is v / norm(v), 0 at the zero "
               "vector; where the norm has a kink a subgradient is taken (sign 0 at 0; the first "
               "of tied largest elements, columns or rows); the spectral norm's gradient is u1 v1' "
               "of the top singular vectors.",
         grad=[GradCase(((4,),)), GradCase(((4,), Const(1.0)), domain="away_from_zero"),
               GradCase(((4,), Const(3.0))), GradCase(((4,), Const(math.inf))), GradCase(((3, 2),)),
               GradCase(((3, 2), Const(2.0))), GradCase(((3, 2), Const(1.0)), domain="away_from_zero"),
               GradCase(((3, 2), Const(math.inf)), domain="away_from_zero"), GradCase(((),), domain="away_from_zero")])
def norm(x, p=None):
    return norms.norm(_arg(x, "norm"), _p(p))
