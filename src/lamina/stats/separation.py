"""Whether a line separates the two classes of a logistic regression, found by linear programming.

With D = [1, X] and s = 2 y - 1 (+1 for class 1, -1 for class 0), the rows m_i = s_i D_i say on
which side of a direction b each example should lie. The data are
    completely separated when some b has m_i . b > 0 for every row: the likelihood approaches 1
        along b, so no finite maximum exists;
    quasi-completely separated when some b has m_i . b >= 0 for every row and > 0 for at least
        one: the likelihood still grows without bound along b (the rows on the line are fitted,
        the others pushed to probability 0 or 1);
    overlapping otherwise, and then the maximum-likelihood estimate exists and is unique
(Albert and Anderson 1984). Two linear programs decide it, as R's detectseparation does (Konis
2007), over b in the box [-1, 1] on columns centred and scaled to unit size:
    quasi:    maximize sum_i m_i . b   subject to m_i . b >= 0;  positive means separated;
    complete: maximize t               subject to m_i . b >= t, t <= 1;  positive means complete.
A maximum-likelihood fit usually proves overlap on its own (`_overlap_proved`), and then the
programs, a millisecond or more, are not run.
"""
from __future__ import annotations

import numpy as np

TOLERANCE = 1e-7      # per row: margins below it count as 0 (rounding, not a separating line)


def _margins(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The rows m_i = s_i D_i, on columns centred and scaled to unit size."""
    # Centred columns: with the intercept the same lines separate, and far from 0 (years, 1e8 + x)
    # the margins would otherwise be rounding-sized next to the column's size.
    X = X - X.mean(axis=0) if X.shape[0] else X
    design = np.hstack([np.ones((X.shape[0], 1)), X])
    size = np.abs(design).max(axis=0)
    design = design / np.where(size > 0, size, 1.0)
    return (2 * y - 1)[:, None] * design


def separation(X: np.ndarray, y: np.ndarray, fitted: np.ndarray | None = None) -> str:
    """"complete", "quasi" or "none" for predictors X (n x d) and labels y of 0s and 1s; fitted,
    the probabilities of a maximum-likelihood fit, may prove "none" without the programs."""
    m = _margins(X, y)
    n, k = m.shape
    if fitted is not None and _overlap_proved(m, np.abs(y - fitted)):
        return "none"
    from scipy.optimize import linprog
    box = [(-1.0, 1.0)] * k
    quasi = linprog(-m.sum(axis=0), A_ub=-m, b_ub=np.zeros(n), bounds=box, method="highs")
    if quasi.status != 0 or -quasi.fun <= TOLERANCE * n:
        return "none"
    # variables (b, t): minimize -t subject to -m b + t <= 0
    complete = linprog(np.append(np.zeros(k), -1.0), A_ub=np.hstack([-m, np.ones((n, 1))]),
                       b_ub=np.zeros(n), bounds=box + [(0.0, 1.0)], method="highs")
    return "complete" if complete.status == 0 and -complete.fun > TOLERANCE else "quasi"


def _overlap_proved(m: np.ndarray, lam: np.ndarray) -> bool:
    """Whether weights lam > 0 (one per row) with m' lam = 0 show the quasi program's optimum
    to be at most TOLERANCE n, so that it would answer "none" (Stiemke's lemma: such weights
    exist exactly when no b has m b >= 0 with some > 0). A maximum-likelihood fit's score,
    sum_i (y_i - p_i) D_i = 0, is m' lam = 0 for lam_i = |y_i - p_i|; the least-norm step
    removes what is left of it. For b in the box with m b >= 0, lam' m b = (m' lam)' b, so
    sum(m b) <= |m' lam|_1 / min(lam), which must stay within the tolerance with room for
    the rounding of m' lam."""
    lam = lam - np.linalg.lstsq(m.T, m.T @ lam, rcond=None)[0]
    n, k = m.shape
    rounding = 4 * (n + k) * np.finfo(float).eps * np.abs(m).T @ np.abs(lam)
    return bool(lam.min() > 0 and (np.abs(m.T @ lam) + rounding).sum() <= lam.min() * TOLERANCE * n)
