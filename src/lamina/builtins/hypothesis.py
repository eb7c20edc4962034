"""Hypothesis-test builtins: t_test, chisq_test, corr_test (the numerics are in stats/hypothesis.py)."""
from __future__ import annotations

from ..errors import LaminaError
from ..stats import hypothesis as H
from ..stats.table import Table
from .registry import FLOAT64_STATISTICS, Shape, builtin, refuse_tracked

CATEGORY = "Statistics"
RESULT = ("The result prints as R prints a test (method, data, statistic, df, p-value, alternative "
          "hypothesis, confidence interval, estimates) and its fields hold the numbers: statistic, "
          "df, p")
SIDES = ("alternative = \"less\" or \"greater\" makes the test one-sided (the interval then has "
         "one infinite end); conf_level sets the interval's level (0.95 by default).")


@builtin("t_test", pure="a test result", tracked="refuses", category=CATEGORY,
         probes=["t_test(p)", "t_test([1, 2, 3], p)", "t_test(c, mu = p[0])"],
         float64_results=(FLOAT64_STATISTICS, ("result",)),
         shapes=[Shape("t_test(x)", "vector", "test result", "One sample: is the mean 0 (or mu = m)?"),
                 Shape("t_test(x, y)", "two vectors", "test result",
                       "Welch's two-sample test: do the means differ? (unequal variances)"),
                 Shape("t_test(x, y, equal_var = true)", "two vectors", "test result",
                       "Student's two-sample test with a pooled variance."),
                 Shape("t_test(x, y, paired = true)", "two vectors of one length", "test result",
                       "The paired test: the one-sample test of x - y."),
                 Shape("t_test(t, \"col\", by = \"group\")", "table, numeric column, column with two groups",
                       "test result", "The two-sample test of a column between two groups of rows.")],
         summary="Student's t test of a mean, of two means (Welch's by default) or of paired "
                 "differences, with its confidence interval, as R's t.test.",
         examples=["x = [5.1, 4.9, 5.6, 5.8, 6.0, 5.4, 5.2, 5.9]\ny = [6.2, 5.8, 6.4, 6.9, 6.1, 6.6, 7.0]\n"
                   "r = t_test(x, y)\nprint(r)\nprint(round(r.p, 6), round(r.df, 3), round(r.ci, 4))",
                   "before = [200, 185, 210, 190, 205]\nafter = [192, 180, 199, 191, 196]\n"
                   "r = t_test(before, after, paired = true)\nprint(round(r.statistic, 4), r.df, round(r.p, 5), r.estimate)",
                   "r = t_test([0.2, 0.4, -0.1, 0.5, 0.3], mu = 0, alternative = \"greater\")\n"
                   "print(round(r.p, 5), round(r.ci, 4))",
                   "t = table({dose = [1, 2, 3, 4, 5, 6], arm = [\"a\", \"b\", \"a\", \"b\", \"a\", \"b\"]})\n"
                   "print(t_test(t, \"dose\", by = \"arm\", equal_var = true))"],
         notes="With samples of sizes n, means m and variances s^2 (dividing by n - 1): the "
               "one-sample t = (m - mu) / (s / sqrt(n)) with n - 1 degrees of freedom; Welch's "
               "two-sample t = (mx - my - mu) / se with se^2 = sx^2 / nx + sy^2 / ny and the "
               "Welch-Satterthwaite df = se^4 / ((sx^2/nx)^2 / (nx - 1) + (sy^2/ny)^2 / (ny - 1)); "
               "with equal_var = true the pooled variance sp^2 = ((nx - 1) sx^2 + (ny - 1) sy^2) / "
               "(nx + ny - 2) gives se = sp sqrt(1/nx + 1/ny) and df = nx + ny - 2; paired = true "
               "tests the differences x - y. The p-value comes from Student's t distribution "
               "(student_t(df)) and the interval is the estimate +- the t quantile times se. "
               + SIDES + " " + RESULT + ", ci (for the mean, the mean difference or the difference "
               "in means mx - my), estimate (the mean; the two means; the mean difference), stderr, "
               "method and alternative. The table form is R's t.test(col ~ group, data = t): the "
               "groups are the column's two values in sorted order, the first one x. NaN in the "
               "data, or a missing group in by, is a ValueError (drop_missing(t) removes those rows first), as are constant "
               "data (se = 0: values all equal, or differing by rounding alone, as R's \"data are "
               "essentially constant\"; a sample whose max - min is at most 10 eps max |x| has "
               "variance 0) and too few values. The numbers agree with SciPy's ttest_1samp, "
               "ttest_ind and ttest_rel.")
def t_test(x, y=None, by=None, mu=0.0, paired=False, equal_var=False, alternative="two-sided",
           conf_level=0.95):
    refuse_tracked("t_test", (x, y, mu))
    settings = dict(mu=mu, paired=paired, equal_var=equal_var, alternative=alternative, conf_level=conf_level)
    if isinstance(x, Table):
        return H.t_test_by(x, column=y, by=by, **settings)
    if by is not None:
        raise LaminaError("TypeError", "t_test's by names a column of a table: t_test(t, \"col\", by = \"group\").")
    return H.t_test(x, y=y, **settings)


@builtin("chisq_test", pure="a test result", tracked="refuses", category=CATEGORY,
         probes=["chisq_test(p)", "chisq_test([10, 20, 30, 40], p = p ./ sum(p))"],
         float64_results=(FLOAT64_STATISTICS, ("result",)),
         shapes=[Shape("chisq_test(M)", "r x c matrix of counts", "test result",
                       "Independence of the rows and columns of a contingency table."),
                 Shape("chisq_test(x, y)", "two vectors or lists of labels of one length", "test result",
                       "Independence of two categorical variables (their table of counts)."),
                 Shape("chisq_test(counts)", "vector of counts", "test result",
                       "Goodness of fit: are the categories equally likely?"),
                 Shape("chisq_test(counts, p = probs)", "vector of counts, probabilities", "test result",
                       "Goodness of fit to given probabilities.")],
         summary="Pearson's chi-squared test of independence in a contingency table, or of "
                 "goodness of fit of counts to probabilities, as R's chisq.test.",
         examples=["M = [12, 5; 7, 16]\nr = chisq_test(M)\nprint(r)\nprint(round(r.expected, 3))",
                   "r = chisq_test([18, 22, 20, 40], p = [0.2, 0.2, 0.2, 0.4])\nprint(r.statistic, r.df, round(r.p, 4))",
                   "smoker = [\"yes\", \"no\", \"no\", \"yes\", \"no\", \"no\", \"yes\", \"no\"]\n"
                   "sick = [1, 0, 0, 1, 1, 0, 1, 0]\nr = chisq_test(smoker, sick)\nprint(r.observed, round(r.p, 4))"],
         notes="X^2 = sum((O - E)^2 / E) over the cells, with the expected counts E = row total * "
               "column total / n for a table (df = (r - 1)(c - 1)) and E = n p for counts against "
               "probabilities p (uniform by default; df = k - 1). On a 2 x 2 table Yates' continuity "
               "correction subtracts min(0.5, |O - E|) from each |O - E| (correct = false turns it "
               "off), as R and SciPy's chi2_contingency do. The p-value is P(chi2(df) > X^2). chisq_test(x, y) "
               "counts each pair of values, with rows and columns in sorted order (the table is r.observed). "
               + RESULT + ", observed, expected, residuals (Pearson's, (O - E) / sqrt(E)) and method; "
               "there is no confidence interval or estimate. When an expected count is below 5 a "
               "warning says that the chi-squared approximation may be poor. Negative or NaN counts, "
               "a row or column of zeros, and probabilities that do not sum to 1 are ValueErrors; so "
               "is a missing label in x or y (NaN, or text that drop_missing counts as missing: empty, "
               "NA, N/A, NaN, nan), which is never counted as a category: drop_missing(t) removes "
               "those rows first, as for every test.")
def chisq_test(x, y=None, p=None, correct=True):
    refuse_tracked("chisq_test", (x, y, p))
    return H.chisq_test(x, y=y, p=p, correct=correct)


@builtin("corr_test", pure="a test result", tracked="refuses", category=CATEGORY,
         probes=["corr_test(p, [1, 3, 2, 5])", 'corr_test([1, 3, 2, 5], p, method = "spearman")'],
         float64_results=(FLOAT64_STATISTICS, ("result",)),
         shapes=[Shape("corr_test(x, y)", "two vectors of one length", "test result",
                       "Is Pearson's correlation 0? With a confidence interval."),
                 Shape("corr_test(x, y, method = \"spearman\")", "two vectors", "test result",
                       "The same for Spearman's rank correlation rho.")],
         summary="Tests whether two variables are correlated (Pearson's r, or Spearman's rho), as "
                 "R's cor.test.",
         examples=["x = [1.2, 2.4, 3.1, 4.8, 5.0, 6.3, 7.7, 8.1]\ny = [2.0, 2.9, 3.3, 5.1, 4.6, 6.8, 7.1, 8.9]\n"
                   "r = corr_test(x, y)\nprint(r)\nprint(round(r.estimate, 6), round(r.ci, 4))",
                   "r = corr_test([1, 2, 3, 4, 5, 6], [2, 1, 4, 3, 6, 5], method = \"spearman\")\n"
                   "print(round(r.estimate, 4), round(r.p, 4))"],
         notes="t = r sqrt(n - 2) / sqrt(1 - r^2) with n - 2 degrees of freedom, where r is "
               "Pearson's correlation of x and y, or for method = \"spearman\" Pearson's correlation "
               "of their ranks (ties share their mean rank). Pearson's interval is Fisher's: "
               "tanh(atanh(r) +- z / sqrt(n - 3)) with z the normal quantile (it needs n >= 4). "
               "Spearman's p-value uses the same t approximation as SciPy's spearmanr (R uses an "
               "exact test for small samples without ties, so its p-value may differ there) and has "
               "no interval. " + SIDES + " " + RESULT + ", ci (Pearson only), estimate (r or rho), "
               "method and alternative. It needs at least 3 pairs; NaN, unequal lengths and a "
               "constant variable are errors.")
def corr_test(x, y, method="pearson", alternative="two-sided", conf_level=0.95):
    refuse_tracked("corr_test", (x, y))
    return H.corr_test(x, y=y, method=method, alternative=alternative, conf_level=conf_level)
