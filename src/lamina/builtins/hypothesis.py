"""Hypothesis-test builtins: t_test, chisq_test, corr_test (the numerics are in stats/hypothesis.py),
wilcox_test, kruskal_test, shapiro_test (stats/rank_tests.py), fisher_test and prop_test
(stats/count_tests.py)."""
from __future__ import annotations

from ..errors import LaminaError
from ..stats import count_tests as C
from ..stats import hypothesis as H
from ..stats import rank_tests as R
from ..stats.table import Table
from .registry import FLOAT64_STATISTICS, Shape, builtin, refuse_tracked

CATEGORY = "Statistics"
RESULT = ("The result prints as R prints a test (method, data, statistic, df, p-value, alternative "
          "hypothesis, confidence interval, estimates) and its fields hold the numbers: statistic, "
          "df, p")
NO_DF = ("The result prints as R prints a test (method, data, statistic, p-value, alternative hypothesis"
         ", confidence interval, estimates) and its fields hold the numbers: statistic, p")
SIDES = ("alternative = \"less\" or \"greater\" makes the test one-sided (the interval then has "
         "one infinite end); conf_level sets the interval's level (0.95 by default).")


@builtin("t_test", elsewhere={"ttest_ind": "SciPy"},
         pure="a test result", tracked="refuses", category=CATEGORY,
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


@builtin("wilcox_test", pure="a test result", tracked="refuses", category=CATEGORY,
         probes=["wilcox_test(p)", "wilcox_test([1, 2, 3], p, conf_int = true)", "wilcox_test(c, mu = p[0])"],
         float64_results=(FLOAT64_STATISTICS, ("result",)),
         shapes=[Shape("wilcox_test(x)", "vector", "test result",
                       "Signed rank test: is the distribution centred on 0 (or mu = m)?"),
                 Shape("wilcox_test(x, y, paired = true)", "two vectors of one length", "test result",
                       "The signed rank test of the differences x - y."),
                 Shape("wilcox_test(x, y)", "two vectors", "test result",
                       "Rank sum (Mann-Whitney) test: is one sample shifted from the other?"),
                 Shape("wilcox_test(x, y, conf_int = true)", "vectors", "test result",
                       "With the Hodges-Lehmann estimate and its confidence interval."),
                 Shape("wilcox_test(t, \"col\", by = \"group\")", "table, numeric column, column with two groups",
                       "test result", "The rank sum test of a column between two groups of rows.")],
         summary="Wilcoxon's signed rank test (one sample or paired) or rank sum test (two samples, "
                 "Mann-Whitney), exact for small samples, as R's wilcox.test.",
         examples=["x = [1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30]\n"
                   "y = [0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29]\n"
                   "r = wilcox_test(x, y, paired = true)\nprint(r)\nprint(r.statistic, round(r.p, 5))",
                   "x = [0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46]\ny = [1.15, 0.88, 0.90, 0.74, 1.21]\n"
                   "r = wilcox_test(x, y, alternative = \"greater\", conf_int = true)\nprint(r)",
                   "r = wilcox_test([1.1, 2.2, 2.2, 3.5, 4.1, 0.7, 2.9], mu = 1, exact = false)\nprint(r.method)\nprint(round(r.p, 5))",
                   "t = table({dose = [3.1, 2.2, 4.5, 1.9, 5.0, 2.4, 3.8], arm = [\"a\", \"b\", \"a\", \"b\", \"a\", \"b\", \"a\"]})\n"
                   "print(wilcox_test(t, \"dose\", by = \"arm\"))"],
         notes="One sample (or the differences x - y of pairs): the values d = x - mu, less those equal "
               "to 0, are ranked by |d| and V is the sum of the ranks of the positive ones. Two samples of "
               "m and n values: W is the sum of the ranks of x - mu among all the values, less m (m + 1) / 2 "
               "(the number of pairs with x - mu > y; SciPy's Mann-Whitney U of x). Tied values share their "
               "mean rank. The p-value is exact (the null distribution counted, R's psignrank and pwilcox) "
               "when exact = true, or by default when there are fewer than 50 values (in each sample); "
               "with ties, or a difference of 0, it cannot be, and the normal approximation with the tie "
               "correction of the variance is used, with a warning that says so (\"cannot compute exact "
               "p-value with ties\", as R's). correct = false leaves out the approximation's continuity "
               "correction of 1/2. conf_int = true adds the Hodges-Lehmann estimate, the median of the "
               "Walsh averages (x_i + x_j) / 2 (\"(pseudo)median\") or of the differences x_i - y_j "
               "(\"difference in location\"), and its interval: order statistics of those by the exact "
               "distribution, or by the normal approximation found with R's root finder and its "
               "tolerance of 1e-4, so the digits are R's. " + SIDES + " " + NO_DF + ", ci and estimate "
               "with conf_int = true, method and alternative. The numbers agree with R's wilcox.test (up to "
               "R 4.5; R 4.6 computes exact p-values with ties too) and SciPy's wilcoxon and mannwhitneyu. "
               "The table form is R's wilcox.test(col ~ group, data = t): the groups are the column's two "
               "values in sorted order, the first one x. NaN is a ValueError (drop_missing(t) removes "
               "those rows first), and so is exact = true for samples too large to count the distribution in "
               "a second or so (more than 1000 values; two samples of 171 each, or 20 and 12,500).")
def wilcox_test(x, y=None, by=None, mu=0.0, paired=False, exact=None, correct=True, conf_int=False,
                alternative="two-sided", conf_level=0.95):
    refuse_tracked("wilcox_test", (x, y, mu))
    return R.wilcox_test(x, y=y, by=by, mu=mu, paired=paired, exact=exact, correct=correct,
                         conf_int=conf_int, alternative=alternative, conf_level=conf_level)


@builtin("kruskal_test", pure="a test result", tracked="refuses", category=CATEGORY,
         probes=["kruskal_test(p, c)", "kruskal_test([p, [1, 2, 3]])"],
         shapes=[Shape("kruskal_test(groups)", "list of vectors", "test result",
                       "Do the groups come from one distribution?"),
                 Shape("kruskal_test(x, g)", "vector, labels of one length", "test result",
                       "The same, with a group label (number or text) per value."),
                 Shape("kruskal_test(t, \"col\", by = \"group\")", "table, numeric column, group column",
                       "test result", "The test of a column between the groups of rows.")],
         summary="The Kruskal-Wallis rank sum test: do k groups come from one distribution? As R's "
                 "kruskal.test.",
         examples=["r = kruskal_test([[2.9, 3.0, 2.5, 2.6, 3.2], [3.8, 2.7, 4.0, 2.4], [2.8, 3.4, 3.7, 2.2, 2.0]])\n"
                   "print(r)",
                   "x = [12, 15, 11, 20, 22, 19, 30, 28, 25]\ng = [\"a\", \"a\", \"a\", \"b\", \"b\", \"b\", \"c\", \"c\", \"c\"]\n"
                   "r = kruskal_test(x, g)\nprint(round(r.statistic, 4), r.df, round(r.p, 5))",
                   "t = table({y = [5.1, 4.8, 6.2, 6.0, 7.3, 7.1], dose = [1, 1, 2, 2, 3, 3]})\n"
                   "print(kruskal_test(t, \"y\", by = \"dose\"))"],
         notes="All N values are ranked together (ties share their mean rank); with R_i the sum of "
               "the ranks in group i of n_i values, H = (12 / (N (N + 1)) sum(R_i^2 / n_i) - 3 (N + 1)) / "
               "(1 - sum(t^3 - t) / (N^3 - N)), the denominator correcting for groups of t tied values, and "
               "the p-value is P(chi2(k - 1) > H). " + RESULT + " and method. The groups are a list's "
               "items in order, or the distinct labels of g (numbers or text) in sorted order; the table "
               "form is R's kruskal.test(col ~ group, data = t). It needs at least two groups, each with a "
               "value; NaN, or a missing label, is a ValueError (drop_missing(t) removes those rows first), "
               "and so are values all equal. The numbers agree with R's kruskal.test and SciPy's kruskal.")
def kruskal_test(x, g=None, by=None):
    refuse_tracked("kruskal_test", (x, g))
    return R.kruskal_test(x, g=g, by=by)


@builtin("shapiro_test", pure="a test result", tracked="refuses", category=CATEGORY,
         probes=["shapiro_test(p)"],
         shapes=[Shape("shapiro_test(x)", "vector of 3 to 5000 values", "test result",
                       "Could the values come from a normal distribution?")],
         summary="The Shapiro-Wilk test of normality, as R's shapiro.test.",
         examples=["mpg = [21.0, 21.0, 22.8, 21.4, 18.7, 18.1, 14.3, 24.4, 22.8, 19.2, 17.8, 16.4, 17.3, 15.2, 10.4, 10.4,\n"
                   "       14.7, 32.4, 30.4, 33.9, 21.5, 15.5, 15.2, 13.3, 19.2, 27.3, 26.0, 30.4, 15.8, 19.7, 15.0, 21.4]\n"
                   "r = shapiro_test(mpg)\nprint(r)\nprint(round(r.statistic, 5), round(r.p, 4))"],
         notes="W = (sum a_i x_(i))^2 / sum (x_i - mean)^2, with x_(i) the sorted values and a_i weights "
               "from the expected normal order statistics; a small W (a small p-value) says the values are "
               "not normal. W and its p-value come from Royston's algorithm (AS R94, 1995), which R's "
               "shapiro.test and SciPy's shapiro both implement, for 3 to 5000 values; more or fewer is a "
               "ValueError, as are values all equal and NaN (drop_missing(x) removes it). " + NO_DF
               + " and method.")
def shapiro_test(x):
    refuse_tracked("shapiro_test", (x,))
    return R.shapiro_test(x)


@builtin("fisher_test", pure="a test result", tracked="refuses", category=CATEGORY,
         probes=["fisher_test(q[0:2, :])"],
         float64_results=(FLOAT64_STATISTICS, ("result",)),
         shapes=[Shape("fisher_test(M)", "2 x 2 matrix of counts", "test result",
                       "Fisher's exact test of independence, with the odds ratio and its interval.")],
         summary="Fisher's exact test of independence in a 2 x 2 table, with the conditional maximum "
                 "likelihood odds ratio and its confidence interval, as R's fisher.test.",
         examples=["tea = [3, 1; 1, 3]\nr = fisher_test(tea)\nprint(r)",
                   "r = fisher_test([3, 1; 1, 3], alternative = \"greater\")\nprint(round(r.p, 4), round(r.ci, 7))",
                   "r = fisher_test([2, 15; 10, 3], alternative = \"less\")\nprint(round(r.p, 7), round(r.estimate, 8), r.ci)"],
         notes="With the table's row and column totals fixed, its first cell follows the hypergeometric "
               "distribution when rows and columns are independent (odds ratio 1), and the noncentral one "
               "at another odds ratio. The two-sided p-value sums the probabilities of the tables no more "
               "likely than the one observed (a relative slack of 1e-7, as R); a one-sided one is a tail. "
               "The estimate is the conditional maximum likelihood odds ratio (where the noncentral mean "
               "equals the first cell), not the sample's ad / bc; the interval's ends are the odds ratios at "
               "which a tail has probability (1 - conf_level) / 2. Both are found with R's root finder and "
               "its tolerance (about 1.2e-4), so the digits are R's: 6.408309 for [3, 1; 1, 3], where "
               "SciPy's odds_ratio(kind = \"conditional\") solves exactly and gives 6.408320. " + SIDES + " "
               "The fields: p, ci, estimate (the odds ratio), observed (the table), method and alternative; "
               "there is no statistic. The p-value agrees with SciPy's fisher_exact. The counts must be "
               "whole and at least 0; a larger table is a ShapeError (chisq_test tests it), and NaN a "
               "ValueError.")
def fisher_test(M, alternative="two-sided", conf_level=0.95):
    refuse_tracked("fisher_test", (M,))
    return C.fisher_test(M, alternative=alternative, conf_level=conf_level)


@builtin("prop_test", pure="a test result", tracked="refuses", category=CATEGORY,
         probes=["prop_test(p, [10, 10, 10, 10])", "prop_test(3, 10, p = c[0] / 2 + 0.25)"],
         float64_results=(FLOAT64_STATISTICS, ("result",)),
         shapes=[Shape("prop_test(x, n)", "successes and trials: numbers", "test result",
                       "Is the proportion 1/2 (or p = p0)? With Wilson's interval."),
                 Shape("prop_test(x, n)", "two vectors of k counts", "test result",
                       "Are the k proportions equal? (or equal to p = [...])"),
                 Shape("prop_test(M)", "k x 2 matrix of successes and failures", "test result",
                       "The same, a row per group.")],
         summary="The test of one proportion, or of the equality of several, by the chi-squared "
                 "statistic with Yates' correction and Wilson's score interval, as R's prop.test.",
         examples=["smokers = [83, 90, 129, 70]\npatients = [86, 93, 136, 82]\nr = prop_test(smokers, patients)\nprint(r)",
                   "r = prop_test(83, 86, p = 0.9)\nprint(r)",
                   "r = prop_test([15, 25], [50, 50])\nprint(round(r.statistic, 4), round(r.p, 5), round(r.ci, 5))"],
         notes="With x successes out of n: one proportion, X^2 = (|x - n p0| - c)^2 / (n p0 (1 - p0)) on "
               "1 degree of freedom, where c = min(1/2, |x - n p0|) is Yates' continuity correction, and "
               "the interval is Wilson's score interval with the same correction. k proportions: "
               "X^2 = sum((|O - E| - c)^2 / E) over the k x 2 table of successes and failures, with E from the "
               "pooled proportion sum(x) / sum(n) (df = k - 1) or from given p (df = k); the correction "
               "applies only when k <= 2, and two proportions get the interval for p1 - p2, the estimate's "
               "normal approximation widened by c (1/n1 + 1/n2). correct = false leaves the correction out. "
               "One-sided alternatives (for one proportion, or two) take the signed root of X^2 as a "
               "normal z. " + SIDES + " " + RESULT + ", ci (one or two proportions), estimate (the "
               "proportions x / n), observed and expected (the k x 2 tables), method and alternative. A "
               "warning says when an expected count is below 5. x must lie between 0 and n, n be "
               "positive, p strictly between 0 and 1; NaN is a ValueError. The numbers agree with R's "
               "prop.test and with SciPy's chi2_contingency on the k x 2 table.")
def prop_test(x, n=None, p=None, alternative="two-sided", conf_level=0.95, correct=True):
    refuse_tracked("prop_test", (x, n, p))
    return C.prop_test(x, n=n, p=p, alternative=alternative, conf_level=conf_level, correct=correct)
