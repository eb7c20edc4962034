"""Model summaries print the numbers R prints. The expected text below is R's own output for
summary(lm(dist ~ speed, cars)) and summary(lm(mpg ~ wt, mtcars)), two of the most printed
regressions there are (R 4.x); the data are R's cars and mtcars columns. Lamina's layout is
its own (two spaces apart, no Call: section), so the rows are compared as their numbers.

Then the rules underneath, each against what R gives: format(x, digits) for a vector
(summary.joint) and format.pval (summary.p_values)."""
from __future__ import annotations

import pytest

from lamina.interpreter import Interpreter
from lamina.stats.summary import joint, p_values

SPEED = [4, 4, 7, 7, 8, 9, 10, 10, 10, 11, 11, 12, 12, 12, 12, 13, 13, 13, 13, 14, 14, 14, 14, 15, 15,
         15, 16, 16, 17, 17, 17, 18, 18, 18, 18, 19, 19, 19, 20, 20, 20, 20, 20, 22, 23, 24, 24, 24, 24, 25]
DIST = [2, 10, 4, 22, 16, 10, 18, 26, 34, 17, 28, 14, 20, 24, 28, 26, 34, 34, 46, 26, 36, 60, 80, 20, 26,
        54, 32, 40, 32, 40, 50, 42, 56, 76, 84, 36, 46, 68, 32, 48, 52, 56, 64, 66, 54, 70, 92, 93, 120, 85]
MPG = [21.0, 21.0, 22.8, 21.4, 18.7, 18.1, 14.3, 24.4, 22.8, 19.2, 17.8, 16.4, 17.3, 15.2, 10.4, 10.4,
       14.7, 32.4, 30.4, 33.9, 21.5, 15.5, 15.2, 13.3, 19.2, 27.3, 26.0, 30.4, 15.8, 19.7, 15.0, 21.4]
WT = [2.620, 2.875, 2.320, 3.215, 3.440, 3.460, 3.570, 3.190, 3.150, 3.440, 3.440, 4.070, 3.730, 3.780,
      5.250, 5.424, 5.345, 2.200, 1.615, 1.835, 2.465, 3.520, 3.435, 3.840, 3.845, 1.935, 2.140, 1.513,
      3.170, 2.770, 3.570, 2.780]

CARS_R = """
Residuals:
    Min      1Q  Median      3Q     Max
-29.069  -9.525  -2.272   9.215  43.201

Coefficients:
            Estimate Std. Error t value Pr(>|t|)
(Intercept) -17.5791     6.7584  -2.601   0.0123 *
speed         3.9324     0.4155   9.464 1.49e-12 ***

Residual standard error: 15.38 on 48 degrees of freedom
Multiple R-squared:  0.6511,	Adjusted R-squared:  0.6438
F-statistic: 89.57 on 1 and 48 DF,  p-value: 1.49e-12
"""
MTCARS_R = """
Residuals:
    Min      1Q  Median      3Q     Max
-4.5432 -2.3647 -0.1252  1.4096  6.8727

Coefficients:
            Estimate Std. Error t value Pr(>|t|)
(Intercept)  37.2851     1.8776  19.858  < 2e-16 ***
wt           -5.3445     0.5591  -9.559 1.29e-10 ***

Residual standard error: 3.046 on 30 degrees of freedom
Multiple R-squared:  0.7528,	Adjusted R-squared:  0.7446
F-statistic: 91.38 on 1 and 30 DF,  p-value: 1.294e-10
"""


def _numbers(text: str) -> list[list[str]]:
    """Each line's words that hold a digit ("< 2e-16" as one word); lines without one left out."""
    lines = [[w.rstrip(",") for w in line.replace("< 2e-16", "<2e-16").split() if any(c.isdigit() for c in w)]
             for line in text.splitlines()]
    return [words for words in lines if words]


@pytest.mark.parametrize("x, y, xs, ys, r_text", [
    ("speed", "dist", SPEED, DIST, CARS_R), ("wt", "mpg", WT, MPG, MTCARS_R)])
def test_linreg_prints_the_numbers_r_prints(x, y, xs, ys, r_text, capsys):
    Interpreter().run(f"print(linreg(table({{{x} = {xs}, {y} = {ys}}}), \"{y}\", [\"{x}\"]))", "<test>")
    printed = capsys.readouterr().out
    body = printed[printed.index("Residuals:"):].replace("Signif. codes: 0 '***' 0.001 '**' 0.01 '*' 0.05 '.' 0.1 ' ' 1", "")
    assert _numbers(body) == _numbers(r_text)
    assert ("< 2e-16" in printed) == ("< 2e-16" in r_text)    # R's spacing of the bound, too


@pytest.mark.parametrize("values, digits, r_prints", [
    ([100000], 7, ["1e+05"]),                       # fixed would be wider than scientific
    ([123456], 7, ["123456"]),
    ([0.1 + 0.2], 7, ["0.3"]),
    ([3.141592653589793], 3, ["3.14"]),
    ([1.4680963, 0.3128569], 7, ["1.4680963", "0.3128569"]),
    ([0.001234, 123.4], 4, ["1.234e-03", "1.234e+02"]),
    ([0.00001234], 4, ["1.234e-05"]),
    ([1e-20], 7, ["1e-20"]),
    ([1234567.891], 7, ["1234568"]),
    ([-1.5, 2, 10], 7, ["-1.5", "2.0", "10.0"]),
    ([0.0, -0.0], 7, ["0", "0"]),
    ([float("nan"), 1.25], 7, ["NaN", "1.25"]),
])
def test_joint_formats_a_vector_as_r_format_does(values, digits, r_prints):
    assert joint(values, digits) == r_prints


@pytest.mark.parametrize("ps, digits, r_prints", [
    ([0.01231882, 1.49e-12], 3, ["0.0123", "1.49e-12"]),
    ([2.19e-05, 3.88e-09, 1.05e-05], 3, ["2.19e-05", "3.88e-09", "1.05e-05"]),
    ([3.88e-09, 0.000389], 3, ["3.88e-09", "0.000389"]),   # from 1e-4 up: the fixed group
    ([1e-20, 0.000222, 0.00106405], 3, ["< 2e-16", "0.000222", "0.001064"]),   # mpg ~ wt + cyl
    ([0.000389], 1, ["4e-04"]),                      # with 1 digit, 1e-4 goes with the small ones
    ([1e-20, 0.5], 3, ["<2e-16", "0.5"]),
    ([1e-20, 1.29e-10], 3, ["< 2e-16", "1.29e-10"]),
    ([1e-20], 4, ["< 2.2e-16"]),
    ([1e-20], 3, ["<2e-16"]),
    ([float("nan"), 0.5], 3, ["NaN", "0.5"]),
])
def test_p_values_are_written_as_format_pval_writes_them(ps, digits, r_prints):
    assert p_values(ps, digits) == r_prints


def test_a_halfway_number_prints_the_same_whatever_its_last_bit():
    # the third quartile of a fit's residuals whose exact value is 0.24225 (docs/models.md): BLAS
    # kernels leave it one bit above or below, and both must print as the exact value rounds
    import numpy as np

    from lamina.stats.anova_table import zapsmall as anova_zapsmall
    from lamina.stats.summary import zapsmall
    below, above = np.nextafter(0.24225, 0.0), np.nextafter(0.24225, 1.0)
    assert joint(zapsmall([-1.1665, below], 5), 4) == joint(zapsmall([-1.1665, above], 5), 4) == ["-1.1665", "0.2422"]
    assert anova_zapsmall(np.array([1.1665, below]), 5).tolist() == anova_zapsmall(np.array([1.1665, above]), 5).tolist()
