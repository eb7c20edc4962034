"""Model-fitting builtins: linreg, polyfit, polyval, logreg, kmeans, pca."""
from __future__ import annotations

import numpy as np

from ..errors import LaminaError
from ..rng import generator
from ..stats import linreg as LR
from ..stats import models as M
from ..stats.data import as_matrix
from ..stats import formula as F
from ..stats import glm as G
from ..stats.table import Table
from ..stats.tableops import design
from ..values import as_int, as_str, describe
from .autodiff import trains
from .registry import FLOAT64_STATISTICS, WHOLE_NUMBERS, GradCase, Shape, builtin, refuse_tracked

CATEGORY = "Statistics"
FACTORS = ("From a table, a text column among the predictors counts as categories, coded as R "
           "codes a factor: one 0/1 column per value except the first in sorted order (the "
           "reference), named after the column and the value (arm with values drug and placebo "
           "gives the term armplacebo, whose coefficient is the difference from drug).")
NO_INTERCEPT = ("Without an intercept the first text column among the predictors gets a column for "
                "every value, armdrug and armplacebo, since no intercept stands for its reference; "
                "later text columns still leave out their first value (R's lm(y ~ dose + arm - 1) "
                "codes them the same way).")
FORMULA = ("A formula (text with a ~) is read as R reads one, through the formulaic package: the "
           "response left of ~, terms right of it joined by + (x * g is x + g + x:g, an interaction; "
           "(a + b + c)^2 every interaction up to two; - 1 or + 0 drops the intercept; . is every "
           "other column), and inside a term the functions log, log2, log10, log1p, exp, expm1, sqrt, "
           "abs, sin, cos, tan, I (arithmetic as it is: I(x ^ 2)), poly (R's orthogonal polynomials), "
           "center, scale, factor (numbers as a factor: factor(cyl)) and C (C(g, Treatment(\"b\")) "
           "makes b the reference level). A text column is a factor with its values in sorted "
           "order, a category column one with its levels in their order; the first present level "
           "is the reference (treatment coding) and each other level a coefficient named as R names "
           "it: gB, x:gB, factor(cyl)6, poly(x, 2)1, I(x^2). Missing values, a factor with one "
           "level, a name that is no column or function and a formula with no terms are errors. "
           "Where R's model matrix would have more columns than its rank (a factor's interaction "
           "without its main effect, g:h alone), formulaic's coding, of full rank, is used instead, "
           "so the coefficients differ from R's, which reports some as NA.")


def _from_table(t: Table, response, predictors, fn: str, every_level: bool = False):
    """(X, y, names, response name) from a table, a response column and predictor columns; with
    every_level (no intercept) the first text column keeps its reference value too."""
    target = as_str(response, f"{fn}'s response column")
    if target not in t.names and any(c in target for c in "+*:()"):
        raise LaminaError("NameError", f"The table has no column '{target}'; if it is a formula, write ~ "
                          f"between the response and the predictors, as \"y ~ x + g\".")
    if not isinstance(t.get(target), np.ndarray):
        raise LaminaError("TypeError", f"{fn}'s response column '{target}' holds text; the response "
                          f"must be numeric" + (" (labels 0 and 1)." if fn == "logreg" else "."))
    if predictors is None:
        names = [k for k in t.numeric_names() if k != target]
    elif isinstance(predictors, list) and all(isinstance(s, str) for s in predictors):
        names = list(predictors)
    else:
        raise LaminaError("TypeError", f"{fn}'s predictors must be a list of column names, not {describe(predictors)}.")
    X, terms = design(t, names)
    if every_level:
        X, terms = _with_reference(t, names, X, terms)
    return X, as_matrix(t, [target])[:, 0], terms, target


def _formula_design(t: Table, formula: str, names, intercept, fn: str):
    """The formula's Design; names and intercept = false belong to the other call shapes."""
    if names is not None:
        raise LaminaError("TypeError", f"{fn} with a formula takes its predictors from the formula, "
                          f"so it takes no list of predictor names besides; add them to the formula.")
    if intercept is not True:
        raise LaminaError("TypeError", f"{fn} with a formula takes no intercept argument; write - 1 "
                          f"in the formula for a fit without one (\"{formula.split('~')[0].strip()} ~ x - 1\").")
    return F.design(t, formula, fn)


def _with_reference(t: Table, names: list, X: np.ndarray, terms: list):
    """X and terms with the first text column's reference indicator put before its others."""
    for at, n in enumerate(names):
        c = t.get(n)
        if not isinstance(c, np.ndarray):
            # Every column before it is numeric, one column each, so its block starts at `at`.
            first = min(c)
            column = np.array([s == first for s in c], dtype=np.float64)
            return np.insert(X, at, column, axis=1), terms[:at] + [n + first] + terms[at:]
    return X, terms


@builtin("linreg", elsewhere={"lm": "R"},
         pure="a value", tracked="refuses", category=CATEGORY,
         probes=["linreg(q, p)", "linreg([0, 1; 1, 0; 1, 1; 0, 0], p)"],
         float64_results=(FLOAT64_STATISTICS, ("result",)),
         shapes=[Shape("linreg(X, y)", "n x k matrix (or vector), vector of n", "linear model",
                       "Least squares with an intercept, and its inference table."),
                 Shape("linreg(X, y, names = [...], intercept = false)", "the same, k names, bool", "linear model",
                       "Named predictors; no intercept."),
                 Shape("linreg(t, \"y\", [\"a\", \"b\"])", "table, response column, predictor columns", "linear model",
                       "Regress one column of a table on others (on every other numeric column when no list is "
                       "given); text columns become indicator columns."),
                 Shape("linreg(t, \"y ~ x * g\")", "table, formula", "linear model",
                       "A Wilkinson formula, as R's lm(y ~ x * g, t): factors, interactions, transforms.")],
         summary="Fits a linear regression by least squares and reports, like R's summary(lm(...)), "
                 "the coefficients with standard errors, t values and p values, R^2 and the F test.",
         examples=["x = [1, 2, 3, 4, 5, 6]\ny = [2.1, 3.9, 6.2, 7.8, 10.1, 12.2]\nfit = linreg(x, y)\n"
                   "print(round(fit.coef, 3), round(fit.r2, 4))\nprint(fit)",
                   "t = table({y = [3.1, 4.0, 5.2, 6.8, 7.1, 8.9], dose = [1, 2, 3, 1, 2, 3],\n"
                   "           arm = [\"drug\", \"drug\", \"drug\", \"placebo\", \"placebo\", \"placebo\"]})\n"
                   "fit = linreg(t, \"y\", [\"dose\", \"arm\"])\nprint(fit.terms, round(fit.coef, 4))",
                   "X = [1, 0; 2, 1; 3, 0; 4, 1; 5, 0; 6, 1]\ny = [3.1, 6.9, 7.2, 10.8, 11.1, 15.2]\n"
                   "fit = linreg(X, y, names = [\"dose\", \"treated\"])\nprint(fit.terms, round(fit.p, 4))\n"
                   "print(round(X * fit.weights + fit.intercept, 2))",
                   "t = table({y = [3.1, 4.0, 5.2, 6.8, 7.1, 8.9, 4.2, 6.1], dose = [1, 2, 3, 1, 2, 3, 4, 4],\n"
                   "           arm = [\"drug\", \"drug\", \"drug\", \"placebo\", \"placebo\", \"placebo\", \"drug\", \"placebo\"]})\n"
                   "fit = linreg(t, \"y ~ dose * arm\")\nprint(fit)"],
         notes="With n rows and p coefficients (the intercept first, then one per column of X) the "
               "fit solves min |y - A b|^2 for A = [1, X] (an SVD via NumPy's lstsq). The residual "
               "variance is sigma^2 = RSS / (n - p), the coefficients' covariance sigma^2 (A'A)^-1, "
               "so se = sqrt of its diagonal, t = coef / se, and p = 2 P(T > |t|) under Student's t "
               "with n - p degrees of freedom (SciPy). R^2 = MSS / (MSS + RSS), where the explained sum "
               "of squares MSS is that of the fitted values about their mean (about 0 without an "
               "intercept, as R does), adjusted R^2 = 1 - (1 - R^2)(n - 1) / (n - p), and the F "
               "statistic (MSS / k) / sigma^2, with k slopes, tests them all against zero; neither "
               "is ever negative, and an exact fit has R^2 = 1 and F = Inf. A response with nothing "
               "to explain (every value the same, or every value 0 without an intercept) has R^2, "
               "adjusted R^2, F and its p-value NaN (R warns \"essentially perfect fit\" there). "
               "Fields: coef, se, t, p, terms (aligned, intercept first), intercept, weights (the slopes), r2, adj_r2, sigma, df, fstat, f_p, "
               "fitted, residuals, n; predictions are X * fit.weights + fit.intercept. NaN or Inf "
               "in X or y, collinear columns, repeated names and too few rows are ValueErrors. " + FACTORS + " " + NO_INTERCEPT
               + " " + FORMULA)
def linreg(X, y, names=None, intercept=True):
    refuse_tracked("linreg", (X, y))
    response = "y"
    if isinstance(X, Table) and F.is_formula(y):
        d = _formula_design(X, formula=y, names=names, intercept=intercept, fn="linreg")
        return LR.fit(d.X, y=d.y, intercept=d.intercept, names=d.columns[d.intercept:],
                      response=d.response, formula=d)
    if isinstance(X, Table):
        X, y, names, response = _from_table(X, response=y, predictors=names, fn="linreg",
                                            every_level=intercept is False)
    return LR.fit(X, y=y, intercept=intercept, names=names, response=response)


@builtin("polyfit", pure="a value", tracked="refuses", category=CATEGORY,
         probes=["polyfit(p, p .* 2, 1)"],
         float64_results=(FLOAT64_STATISTICS, ("result",)),
         shapes=[Shape("polyfit(x, y, degree)", "two vectors of n, whole number", "vector of degree + 1",
                       "Least-squares polynomial coefficients, highest power first.")],
         summary="Fits a polynomial of a given degree to points by least squares; returns its "
                 "coefficients, highest power first (as MATLAB and NumPy do).",
         examples=["x = [0, 1, 2, 3, 4]\ny = x .^ 2 - 2 * x + 1\nprint(round(polyfit(x, y, 2), 6))",
                   "p = polyfit([1, 2, 3], [2, 4, 6], 1)\nprint(round(p, 6), round(polyval(p, 10), 6))"],
         notes="Solves the least-squares problem on the Vandermonde matrix [x^d, ..., x, 1] (NumPy's "
               "lstsq). It needs more distinct x values than the degree; NaN or Inf in x or y is a "
               "ValueError. "
               "Evaluate the result with polyval.")
def polyfit(x, y, degree):
    refuse_tracked("polyfit", (x, y))
    return M.polyfit(x, y=y, degree=degree)


@builtin("polyval", pure="a value", category=CATEGORY,
         shapes=[Shape("polyval(p, x)", "coefficients (highest power first), number or tensor", "same shape as x",
                       "The polynomial evaluated at each element of x.")],
         summary="Evaluates a polynomial, given by its coefficients highest power first, at x.",
         examples=["print(polyval([1, 0, -1], [0, 1, 2, 3]))"],
         notes="Horner's rule (NumPy's polyval): p[0] * x^d + ... + p[d]. Elementwise on tensors. "
               "Differentiable in p and in x.",
         grad=[GradCase(((4,), (3,))), GradCase(((3,), ())), GradCase(((1,), (2, 2))), GradCase(((3,), (2, 3)))])
def polyval(p, x):
    return M.polyval(p, x=x)


@builtin("logreg", pure="a value", tracked="refuses", category=CATEGORY,
         probes=["logreg(q, [1, 1, 1, 0])"],
         float64_results=(FLOAT64_STATISTICS, ("result",)),
         shapes=[Shape("logreg(X, y)", "n x k matrix (or vector), vector of 0/1 labels", "logistic model",
                       "Maximum-likelihood logistic regression with an intercept."),
                 Shape("logreg(X, y, l2 = 0.1)", "the same, penalty", "logistic model",
                       "With an L2 penalty on the weights (not the intercept)."),
                 Shape("logreg(t, \"y\", [\"a\", \"b\"])", "table, label column, predictor columns", "logistic model",
                       "From the columns of a table."),
                 Shape("logreg(t, \"am ~ wt + g\")", "table, formula", "generalized linear model",
                       "R's glm(am ~ wt + g, binomial, t): the binomial GLM, by IRLS.")],
         summary="Fits a logistic regression, P(y = 1) = sigmoid(X * w + b), trained on the autodiff "
                 "tape; reports the weights with standard errors, z and p values.",
         examples=["X = [0.5; 1.0; 1.5; 2.0; 2.5; 3.0; 3.5; 4.0]\ny = [0, 0, 1, 0, 1, 0, 1, 1]\n"
                   "fit = logreg(X, y)\nprint(round(fit.weights, 3), round(fit.intercept, 3))\n"
                   "prob = sigmoid(X * fit.weights + fit.intercept)\nprint(accuracy(y, prob > 0.5))\nprint(fit)",
                   "fit = logreg([1, 2, 3, 4], [0, 0, 1, 1])\nprint(fit.converged, fit.separation)\n"
                   "# the estimates where the fit stopped depend on the machine's last bits; the note does not\n"
                   "print(split(string(fit), \"\\n\")[-1])"],
         notes="The loss is the mean binary cross-entropy of the logits X * w + b (plus l2 / 2 * "
               "sum(w .^ 2) when l2 > 0), minimized by SciPy's L-BFGS with its gradient written out "
               "(X'(p - y) / n), off the tape: tracked values made before the call stay on the tape. "
               "loss_history holds the loss at "
               "the start and after each iteration (plot(fit) draws it). Without a penalty the "
               "standard errors come from the observed information (X'WX)^-1 with W = p(1 - p), and "
               "p values from the normal distribution, as R's glm and statsmodels report; with l2 > 0 "
               "they are NaN. X must hold finite numbers (no NaN or Inf), l2 must be finite and at "
               "least 0, and labels must be 0 or 1, with both classes present; collinear predictors are a "
               "ValueError, as in linreg, unless l2 > 0 settles their weights. Data that a line "
               "separates has no finite maximum-likelihood fit: completely (every 1 on one side, every "
               "0 on the other) or quasi-completely (the same, with examples of both classes on the "
               "line). logreg finds out by linear programming (as R's detectseparation does), warns, "
               "says so under the printed table and in the field separation (\"complete\", \"quasi\" "
               "or \"none\"), and reports converged = false; pass l2 > 0 for a finite fit. A fit "
               "that reaches max_iter also warns and reports converged = false. Fields: weights, "
               "intercept, coef (the intercept first), se, z, p, terms, loss_history, iterations, "
               "converged, separation, l2, n. " + FACTORS + " With a formula (text with a ~) logreg "
               "fits R's glm(formula, binomial) by iteratively reweighted least squares and returns "
               "that generalized linear model, as glm(t, formula, family = \"binomial\") does: the "
               "same coefficients, standard errors and p values as R, R's summary(glm) printout, "
               "glm's fields (separation among them) and its warnings; it takes no l2 (R's glm has "
               "no penalty), and max_iter counts its iterations (25 unless given). " + FORMULA)
def logreg(X, y, names=None, l2=0.0, max_iter=1000.0):
    refuse_tracked("logreg", (X, y))
    if isinstance(X, Table) and F.is_formula(y):
        return _logistic_glm(X, formula=y, names=names, l2=l2, max_iter=max_iter)
    if isinstance(X, Table):
        X, y, names, _ = _from_table(X, response=y, predictors=names, fn="logreg")
    with trains("logreg"):
        return M.logreg(X, y=y, l2=l2, max_iter=max_iter, names=names)


def _logistic_glm(t: Table, formula: str, names, l2, max_iter):
    """logreg of a formula: R's glm(formula, binomial, t), by IRLS (stats/glm.py)."""
    if names is not None:
        raise LaminaError("TypeError", "logreg with a formula takes its predictors from the formula, "
                          "so it takes no list of predictor names besides; add them to the formula.")
    if l2 != 0:
        raise LaminaError("ValueError", "logreg with a formula fits R's glm(formula, binomial), which "
                          "has no penalty; for l2 > 0 give the predictors as a list of columns: "
                          "logreg(t, \"y\", [\"x\"], l2 = 0.1).")
    return G.glm(t, y=formula, family="binomial", max_iter=G.MAX_ITER if max_iter == 1000.0 else max_iter,
                 fn="logreg")


@builtin("kmeans", pure="a record", tracked="refuses", category=CATEGORY,
         probes=["kmeans(q, 2, seed = 1)"],
         float64_results=(WHOLE_NUMBERS, ("result.labels",)),
         shapes=[Shape("kmeans(X, k)", "n x d matrix (rows are points), count", "record {centers, labels, inertia, iterations}",
                       "k clusters by Lloyd's algorithm from k-means++ starts."),
                 Shape("kmeans(X, k, seed = n, restarts = r)", "the same, whole numbers", "record",
                       "With its own seed, keeping the best of r starts.")],
         summary="Groups the rows of a matrix into k clusters, each point in the cluster of the "
                 "nearest center, minimizing the total squared distance (the inertia).",
         examples=["X = [1, 1; 1.5, 2; 1, 1.5; 8, 8; 8.5, 9; 9, 8]\nr = kmeans(X, 2, seed = 1)\n"
                   "print(r.labels, round(r.centers, 3))\nprint(round(r.inertia, 4))"],
         notes="Each start picks centers by k-means++ (each new center drawn with probability "
               "proportional to its squared distance from the centers so far), then alternates "
               "assigning points to the nearest center and moving each center to its points' mean "
               "until no label changes (or max_iter steps); the start with the lowest inertia wins "
               "(restarts = 10 by default). Draws from the global generator, or from its own when "
               "seed is given. Labels count from 0 in the order the centers were found. An empty "
               "cluster takes the point farthest from its center.")
def kmeans(X, k, seed=None, restarts=10.0, max_iter=300.0):
    refuse_tracked("kmeans", (X,))
    rng = generator() if seed is None else np.random.default_rng(as_int(seed, "kmeans's seed", minimum=0))
    return M.kmeans(X, k=k, rng=rng, max_iter=max_iter, restarts=restarts)


@builtin("pca", pure="a record", tracked="refuses", category=CATEGORY,
         probes=["pca(q)"],
         shapes=[Shape("pca(X)", "n x d matrix (rows are observations)", "record {components, scores, variance, ratio, mean}",
                       "Every principal component."),
                 Shape("pca(X, k)", "matrix, count", "record", "The first k components.")],
         summary="Principal component analysis: the orthogonal directions along which the data "
                 "varies most, the variance along each, and the data's coordinates in them.",
         examples=["X = [2.5, 2.4; 0.5, 0.7; 2.2, 2.9; 1.9, 2.2; 3.1, 3.0; 2.3, 2.7; 2, 1.6; 1, 1.1; 1.5, 1.6; 1.1, 0.9]\n"
                   "p = pca(X)\nprint(round(p.components, 4))\nprint(round(p.ratio, 4))\nprint(size(pca(X, 1).scores))"],
         notes="Centers the columns and takes the SVD of the centered data: the rows of components "
               "are the directions (unit vectors, largest variance first), variance the sample "
               "variance along each (divided by n - 1), ratio its share of the total, and scores = "
               "(X - mean) * components' (one row per observation). Each component's sign is fixed so "
               "that its largest entry is positive, which makes results repeatable. Columns on very "
               "different scales dominate; standardize them first if that is not wanted.")
def pca(X, k=None):
    refuse_tracked("pca", (X,))
    return M.pca(X, k=k)
