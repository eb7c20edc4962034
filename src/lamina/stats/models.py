"""Small models: polynomial fits, logistic regression on the tape, k-means, PCA.

Linear regression with its inference table lives in linreg.py.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass

import numpy as np

from ..autodiff.tape import record
from ..errors import LaminaError
from ..printing import html_table
from ..values import (
    LibObject,
    Record,
    as_float,
    as_int,
    format_number,
    lamina_value,
    numeric,
    tensor_dtype,
)
from ..warnings import warn
from .args import matrix, no_nan, same_rows, shaped_like, vector
from .linreg import _names, finite
from .moments import power_scale
from .separation import separation
from .summary import coefficient_table, layout, short


def polyfit(x, y, degree):
    a = finite(vector(x, "polyfit's x"), "polyfit's x", "polyfit")
    b = finite(vector(y, "polyfit's y"), "polyfit's y", "polyfit")
    if a.size != b.size:
        raise LaminaError("ShapeError", f"polyfit needs x and y of the same length, but got {a.size} and {b.size}.")
    d = as_int(degree, "polyfit's degree", minimum=0)
    if a.size <= d:
        raise LaminaError("ValueError", f"polyfit of degree {d} needs at least {d + 1} points, but got {a.size}.")
    vander = np.vander(a.astype(np.float64), d + 1)
    # Columns scaled to about 1 (as NumPy's polyfit scales them): the powers of x far from 1
    # differ in size by orders of magnitude, and unscaled the rank test would drop the small ones.
    norms = power_scale(vander, axis=0)[0]
    coef, _, rank, _ = np.linalg.lstsq(vander / norms, b, rcond=None)
    if rank < d + 1:
        raise LaminaError("ValueError", f"polyfit of degree {d} needs at least {d + 1} distinct x values.")
    return lamina_value(coef / norms)


def polyval(p, x):
    """p[0] x^d + ... + p[d] by Horner's rule; differentiable in p (x^(d - i) for p[i]) and in x
    (the derivative polynomial)."""
    c = vector(p, "polyval's coefficients")
    xs = numeric(x, "polyval's x")
    powers = lambda: [np.power(xs, c.size - 1 - i) for i in range(c.size)]  # noqa: E731
    return record(lamina_value(np.polyval(c, xs)), (p, x),
                  (lambda g: shaped_like(np.array([np.sum(g * t) for t in powers()]), p),
                   lambda g: lamina_value(g * np.polyval(np.polyder(c).astype(c.dtype), xs))))


# -- logistic regression -------------------------------------------------------
SEPARATED = {"complete": "Complete separation: a line puts every 1 on one side and every 0 on the other",
             "quasi": "Quasi-complete separation: a line puts every 1 on one side and every 0 on the "
                      "other, with some of both on the line"}

@dataclass(frozen=True, eq=False)
class LogisticModel(LibObject):
    weights: np.ndarray
    intercept: float
    se: np.ndarray          # intercept first; NaN when l2 > 0
    z: np.ndarray
    p: np.ndarray
    terms: list
    loss_history: np.ndarray
    iterations: float
    converged: bool
    separation: str         # "complete", "quasi" or "none" (see separation.py)
    l2: float
    n: float
    type_name = "logistic model"

    def field_names(self) -> list[str]:
        return ["weights", "intercept", "coef", "se", "z", "p", "terms", "loss_history", "iterations",
                "converged", "separation", "l2", "n"]

    def get(self, name: str):
        if name == "coef":
            return np.concatenate([[self.intercept], self.weights])
        value = super().get(name)
        return value.copy() if isinstance(value, np.ndarray) else value

    def predict(self, X) -> np.ndarray:
        from scipy.special import expit
        A = matrix(X, "The predictors")
        if A.shape[1] != self.weights.size:
            raise LaminaError("ShapeError", f"This logistic model has {self.weights.size} weight(s), "
                              f"but the data has {A.shape[1]} column(s).")
        return expit(A @ self.weights + self.intercept)

    def describe(self) -> str:
        head, header, rows, foot = self._report()
        return "\n".join([head, ""] + ["  " + s for s in layout(header, rows)] + [""] + foot)

    def html(self) -> str:
        head, header, rows, foot = self._report()
        return html_table(header, rows, [False] + [True] * 4 + [False], caption=head, footer=foot)

    def _report(self) -> tuple:
        state = "converged" if self.converged else "did not converge"
        head = (f"Logistic regression (n = {int(self.n)}, {int(self.iterations)} iterations, {state}"
                + (f", l2 = {short(self.l2)})" if self.l2 else ")"))
        header, rows = coefficient_table(self.terms, self.get("coef"), self.se, self.z, self.p, "z")
        foot = [f"Mean log loss: {short(self.loss_history[-1], 4)}"]
        if self.separation != "none" and not self.l2:
            foot.append(SEPARATED[self.separation] + ": the maximum-likelihood estimate does not exist, "
                        "so these estimates, standard errors and p values mean nothing.")
        elif not self.converged:
            foot.append("The fit stopped at max_iter before converging: raise max_iter, or "
                        "standardize the predictors.")
        return head, header, rows, foot


def logreg(X, y, l2=0.0, max_iter=1000.0, names=None):
    """Maximum likelihood (with an optional L2 penalty) by L-BFGS on gradients from the tape."""
    A = finite(matrix(X, "logreg's predictors X"), "logreg's predictors X", "logreg")
    t = no_nan(vector(y, "logreg's labels y"), "logreg's labels y")
    same_rows(A, t, "logreg's X and y")
    if not np.all((t == 0) | (t == 1)):
        raise LaminaError("ValueError", "logreg's labels y must be 0 or 1.")
    if t.size == 0 or t.min() == t.max():
        raise LaminaError("ValueError", "logreg needs examples of both classes, but " +
                          (f"every label is {int(t[0])}." if t.size else "it has no examples."))
    penalty = as_float(l2, "logreg's l2")
    if not 0 <= penalty < np.inf:
        raise LaminaError("ValueError", f"logreg's l2 must be a finite number at least 0, not "
                          f"{format_number(penalty)}.")
    iters = as_int(max_iter, "logreg's max_iter", minimum=1)
    terms = ["(Intercept)"] + _names(names, A.shape[1])
    with _blas_threads(A.size):
        return _fit_logistic(A.astype(np.float64), t, penalty, iters, terms)


def _blas_threads(size: int):
    """One BLAS thread for a problem of fewer than TINY numbers, where the threads of NumPy's and
    SciPy's OpenBLAS (L-BFGS-B's, the separation programs') only wait on each other and on the
    machine: logreg of 32 rows took 3 - 14 ms with two threads, 3 ms with one (bench/NOTES.md)."""
    global _BLAS
    if size >= TINY:
        return contextlib.nullcontext()
    if _BLAS is None:
        import scipy.optimize  # noqa: F401  (SciPy's OpenBLAS loaded before the controller looks)
        from threadpoolctl import ThreadpoolController
        _BLAS = ThreadpoolController()
    return _BLAS.limit(limits=1, user_api="blas")


TINY = 1 << 16
_BLAS = None


def _fit_logistic(A: np.ndarray, t: np.ndarray, penalty: float, iters: int, terms: list) -> LogisticModel:
    from scipy import optimize, special

    n, d = A.shape
    # L-BFGS works on centred columns in units that make the loss's curvature about the same in
    # every weight (w = ws / scale, b = bs - center . w): far from 0 or on a large or small scale
    # the columns would leave it ill-conditioned, stopping early at wrong weights that it reports
    # as converged. The curvature of weight j is about (var_j / 4 + l2), so scale_j is
    # sqrt(var_j + 4 l2): the standard deviation without a penalty.
    center = A.mean(axis=0) if n else np.zeros(d)
    unit = power_scale(A - center, axis=0)[0]
    spread = np.sqrt(np.mean(((A - center) / unit) ** 2, axis=0) if n else np.zeros(d)) * unit
    scale = np.hypot(spread, 2 * np.sqrt(penalty))
    scale[scale == 0] = 1.0
    S = (A - center) / scale
    rank = np.linalg.matrix_rank(np.hstack([np.ones((n, 1)), S]))
    if rank < d + 1 and not penalty:
        raise LaminaError("ValueError", f"logreg's predictors are collinear (the design matrix has rank "
                          f"{rank} < {d + 1} columns): some column is a combination of others (or of "
                          f"the intercept), so its weight is not determined; drop it, or pass l2 > 0.")

    inv_scale2 = scale ** -2.0

    def loss_and_grad(theta):
        # binary_cross_entropy(S w + b, t, from = "logits") and its gradient, written out: the
        # tape would cost about 100 us an evaluation on a tiny problem (bench/NOTES.md)
        w, b = theta[:d], theta[d]
        z = S @ w + b
        loss = np.sum(np.maximum(z, 0.0) - z * t + np.log1p(np.exp(-np.abs(z)))) / n
        dz = (special.expit(z) - t) / n
        gw = S.T @ dz
        if penalty:
            loss += 0.5 * penalty * np.sum(w * w * inv_scale2)
            gw = gw + penalty * w * inv_scale2
        return float(loss), np.append(gw, np.sum(dz))

    history = [loss_and_grad(np.zeros(d + 1))[0]]

    def record_loss(intermediate_result):
        history.append(float(intermediate_result.fun))

    res = optimize.minimize(loss_and_grad, np.zeros(d + 1), jac=True, method="L-BFGS-B",
                            callback=record_loss,
                            options={"maxiter": iters, "gtol": 1e-10, "ftol": 1e-15})
    # coef = T (bs, ws): b = bs - center . (ws / scale), w = ws / scale
    T = np.eye(d + 1)
    T[0, 1:], T[1:, 1:] = -center / scale, np.diag(1 / scale)
    coef = T @ res.x[np.r_[d, :d]]
    b, w = float(coef[0]), coef[1:]
    design = np.hstack([np.ones((n, 1)), S])
    prob = special.expit(design @ res.x[np.r_[d, :d]])
    separated = separation(A, t, fitted=prob)
    converged = bool(res.success) and (separated == "none" or bool(penalty))
    if separated != "none" and not penalty:
        how = "perfectly" if separated == "complete" else \
            "but for examples of both classes on the line (quasi-complete separation)"
        warn(f"logreg: a line separates the two classes {how}, so the maximum-likelihood "
             "weights are infinite: the fit stopped at large weights and its standard errors "
             "mean nothing; pass l2 > 0 for a finite fit.", once_key="logreg: separation")
    elif not res.success:
        warn(f"logreg did not converge in {int(res.nit)} iterations (max_iter = {iters}); raise "
             "max_iter, or standardize the predictors.", once_key="logreg: not converged")
    se = z = pv = np.full(d + 1, np.nan)
    if not penalty:
        info = design.T @ (design * (prob * (1 - prob))[:, None])
        try:
            se = np.sqrt(np.diag(T @ np.linalg.inv(info) @ T.T))
            z = coef / se
            pv = 2 * special.ndtr(-np.abs(z))      # the normal's upper tail, as norm.sf computes it
        except np.linalg.LinAlgError:
            pass
    return LogisticModel(w.copy(), b, se, z, pv, terms,
                         np.array(history), float(res.nit), converged, separated, penalty, float(n))


# -- k-means ---------------------------------------------------------------------
def kmeans(X, k, rng: np.random.Generator, max_iter=300.0, restarts=10.0) -> Record:
    A = finite(matrix(X, "kmeans's data X"), "kmeans's data X", "kmeans").astype(np.float64)
    kk = as_int(k, "kmeans's k", minimum=1)
    if kk > A.shape[0]:
        raise LaminaError("ValueError", f"kmeans cannot make {kk} clusters from {A.shape[0]} rows.")
    distinct = np.unique(A, axis=0).shape[0]
    if kk > distinct:
        raise LaminaError("ValueError", f"kmeans cannot make {kk} clusters from {distinct} distinct "
                          f"rows (some cluster would be empty, or a copy of another), as R's kmeans "
                          f"refuses too; ask for at most {distinct}.")
    unit = float(power_scale(A))      # a power of 2: squared distances neither overflow nor underflow
    A = A / unit
    iters = as_int(max_iter, "kmeans's max_iter", minimum=1)
    tries = as_int(restarts, "kmeans's restarts", minimum=1)
    best = None
    for _ in range(tries):
        result = _lloyd(A, _plus_plus(A, kk, rng), iters)
        if best is None or result[2] < best[2]:
            best = result
    centers, labels, inertia, steps = best
    centers = (centers * unit).astype(tensor_dtype(X), copy=False)   # computed in float64, returned as the data
    return Record({"centers": lamina_value(centers), "labels": labels.astype(np.float64),
                   "inertia": float(inertia) * unit * unit, "iterations": float(steps)})


def _sq_dist(A, centers):
    return ((A[:, None, :] - centers[None, :, :]) ** 2).sum(axis=2)


def _plus_plus(A, k, rng):
    """k-means++: each next center drawn with probability proportional to squared distance."""
    centers = [A[rng.integers(A.shape[0])]]
    for _ in range(1, k):
        d2 = _sq_dist(A, np.array(centers)).min(axis=1)
        total = d2.sum()
        i = rng.integers(A.shape[0]) if total == 0 else rng.choice(A.shape[0], p=d2 / total)
        centers.append(A[i])
    return np.array(centers, dtype=np.float64)


def _lloyd(A, centers, iters):
    labels = None
    for step in range(1, iters + 1):
        d2 = _sq_dist(A, centers)
        new = d2.argmin(axis=1)
        if labels is not None and np.array_equal(new, labels):
            break
        labels = new
        for j in range(centers.shape[0]):
            members = A[labels == j]
            # An empty cluster takes the point farthest from its center.
            centers[j] = members.mean(axis=0) if len(members) else A[d2.min(axis=1).argmax()]
    inertia = _sq_dist(A, centers)[np.arange(A.shape[0]), labels].sum()
    return centers, labels, float(inertia), step


# -- principal components ------------------------------------------------------------
def pca(X, k=None) -> Record:
    A = finite(matrix(X, "pca's data X"), "pca's data X", "pca")
    n, d = A.shape
    if n < 2:
        raise LaminaError("ValueError", "pca needs at least 2 rows.")
    if d == 0:
        raise LaminaError("ValueError", f"pca needs at least one column (variable); X is {n}x0.")
    kk = min(n, d) if k is None else as_int(k, "pca's k", minimum=1)
    if kk > min(n, d):
        raise LaminaError("ValueError", f"pca of a {n}x{d} matrix has at most {min(n, d)} components, not {kk}.")
    center = A.mean(axis=0)
    unit = float(power_scale(A - center))   # a power of 2: s ** 2 neither overflows nor underflows
    _, s, vt = np.linalg.svd((A - center) / unit, full_matrices=False)
    # Fix each component's sign: its largest loading (by size) is positive.
    signs = np.sign(vt[np.arange(vt.shape[0]), np.abs(vt).argmax(axis=1)])
    vt = vt * np.where(signs == 0, 1.0, signs)[:, None]
    variance = s ** 2 / (n - 1)
    total = variance.sum()
    return Record({"components": lamina_value(vt[:kk]), "scores": lamina_value((A - center) @ vt[:kk].T),
                   "variance": lamina_value(variance[:kk] * unit * unit),
                   "ratio": lamina_value(variance[:kk] / total if total > 0 else np.full(kk, np.nan)),
                   "mean": lamina_value(center)})
