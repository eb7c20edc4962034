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
"""
from __future__ import annotations

import numpy as np

TOLERANCE = 1e-7      # per row: margins below it count as 0 (rounding, not a separating line)


def separation(X: np.ndarray, y: np.ndarray) -> str:
    """"complete", "quasi" or "none" for predictors X (n x d) and labels y of 0s and 1s."""
    from scipy.optimize import linprog
    # Centred columns: with the intercept the same lines separate, and far from 0 (years, 1e8 + x)
    # the margins would otherwise be rounding-sized next to the column's size.
    X = X - X.mean(axis=0) if X.shape[0] else X
    design = np.hstack([np.ones((X.shape[0], 1)), X])
    size = np.abs(design).max(axis=0)
    design = design / np.where(size > 0, size, 1.0)
    m = (2 * y - 1)[:, None] * design
    n, k = m.shape
    box = [(-1.0, 1.0)] * k
    quasi = linprog(-m.sum(axis=0), A_ub=-m, b_ub=np.zeros(n), bounds=box, method="highs")
    if quasi.status != 0 or -quasi.fun <= TOLERANCE * n:
        return "none"
    # variables (b, t): minimize -t subject to -m b + t <= 0
    complete = linprog(np.append(np.zeros(k), -1.0), A_ub=np.hstack([-m, np.ones((n, 1))]),
                       b_ub=np.zeros(n), bounds=box + [(0.0, 1.0)], method="highs")
    return "complete" if complete.status == 0 and -complete.fun > TOLERANCE else "quasi"
