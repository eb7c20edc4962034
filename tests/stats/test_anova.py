"""anova (stats/anova.py): nested linear models compared and the sequential table, against R 4.2's
anova on mtcars (the numbers R prints, and its unrounded values from sprintf("%.10g")) and
statsmodels' anova_lm; what makes models incomparable is a clear error."""
from __future__ import annotations

import contextlib
import io

import numpy as np
import pytest

from lamina.errors import LaminaError
from lamina.interpreter import Interpreter
from test_r_printing import MPG, WT, _numbers

CYL = [6, 6, 4, 6, 8, 6, 8, 4, 4, 6, 6, 8, 8, 8, 8, 8, 8, 4, 4, 4, 4, 8, 8, 8, 8, 4, 4, 4, 8, 6, 8, 4]
HP = [110, 110, 93, 110, 175, 105, 245, 62, 95, 123, 123, 180, 180, 180, 205, 215, 230, 66, 52, 65, 97,
      150, 150, 245, 175, 66, 91, 113, 264, 175, 335, 109]
AM = [1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1]
# mtcars as Lamina, and the models of R's lm(mpg ~ wt), lm(mpg ~ wt + factor(cyl)) and
# lm(mpg ~ wt * factor(cyl)) fitted from matrices whose columns are R's
MTCARS = (f"mpg = {MPG}\nwt = {WT}\ncyl = {CYL}\nhp = {HP}\nam = {AM}\n"
          "c6 = cyl == 6\nc8 = cyl == 8\n"
          "f1 = linreg(wt, mpg, names = [\"wt\"])\n"
          "f2 = linreg(hcat(wt, c6, c8), mpg, names = [\"wt\", \"cyl6\", \"cyl8\"])\n"
          "f3 = linreg(hcat(wt, c6, c8, wt .* c6, wt .* c8), mpg, "
          "names = [\"wt\", \"cyl6\", \"cyl8\", \"wt:cyl6\", \"wt:cyl8\"])\n")


def run(code: str):
    """(what the program printed, its variables)."""
    it = Interpreter()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        it.run(MTCARS + code, "<test>")
    return out.getvalue(), it


def value(it, name):
    return it.namespace["L_" + name]


R_THREE = """
  Res.Df    RSS Df Sum of Sq      F  Pr(>F)
1     30 278.32
2     28 183.06  2    95.263 7.9443 0.00203 **
3     26 155.89  2    27.170 2.2658 0.12386
"""


def test_three_nested_models_print_the_numbers_r_prints():
    printed, it = run("a = anova(f1, f2, f3)\nprint(a)")
    lines = printed.splitlines()
    # a model fitted from a matrix is named by its response (y) and coefficient names
    assert lines[:5] == ["Analysis of Variance Table", "", "Model 1: y ~ wt",
                         "Model 2: y ~ wt + cyl6 + cyl8", "Model 3: y ~ wt + cyl6 + cyl8 + wt:cyl6 + wt:cyl8"]
    assert _numbers("\n".join(lines[5:9])) == _numbers(R_THREE)
    assert lines[9:] == ["---", "Signif. codes: 0 '***' 0.001 '**' 0.01 '*' 0.05 '.' 0.1 ' ' 1"]
    a = value(it, "a")
    # R: sprintf("%.10g") of anova(f1, f2, f3)'s columns
    np.testing.assert_allclose(a.get("rss"), [278.3219375, 183.0586477, 155.8888004], rtol=1e-9)
    np.testing.assert_allclose(a.get("F")[1:], [7.94427031, 2.265769024], rtol=1e-8)
    np.testing.assert_allclose(a.get("p")[1:], [0.002029623739, 0.1238570261], rtol=1e-8)
    assert np.isnan(a.get("F")[0]) and np.isnan(a.get("p")[0]) and np.isnan(a.get("df")[0])
    assert list(a.get("res_df")) == [30, 28, 26] and list(a.get("df")[1:]) == [2, 2]
    assert a.get("rows") == ["1", "2", "3"]


def test_the_larger_model_first_gives_negative_changes_and_the_same_test():
    # R: anova(f3, f1) prints Df -4, Sum of Sq -122.43, F 5.105, Pr(>F) 0.003587
    printed, it = run("print(anova(f3, f1))")
    assert _numbers(printed.split("Model 2: y ~ wt\n")[1].split("---")[0]) == _numbers("""
      Res.Df    RSS Df Sum of Sq     F   Pr(>F)
    1     26 155.89
    2     30 278.32 -4   -122.43 5.105 0.003587 **""")


def test_the_sequential_table_of_a_model_without_intercept_is_r_s():
    # R: anova(lm(mpg ~ wt + hp - 1, mtcars)); zapsmall keeps one decimal of 10105.7 (5 - log10 of
    # it is 0.995, which R's round() takes as 1)
    printed, it = run("a = anova(linreg(hcat(wt, hp), mpg, names = [\"wt\", \"hp\"], intercept = false))\nprint(a)")
    assert printed.splitlines()[:3] == ["Analysis of Variance Table", "", "Response: y"]
    assert _numbers(printed.split("---")[0]) == _numbers("""
              Df  Sum Sq Mean Sq F value    Pr(>F)
    wt         1 10105.7 10105.7 78.9176 6.684e-10 ***
    hp         1    95.0    95.0  0.7419    0.3959
    Residuals 30  3841.6   128.1""")
    a = value(it, "a")
    np.testing.assert_allclose(a.get("sum_sq"), [10105.69394, 95.00439117, 3841.611666], rtol=1e-9)
    np.testing.assert_allclose(a.get("p")[:2], [6.684156432e-10, 0.3958820726], rtol=1e-8)
    assert a.get("rows") == ["wt", "hp", "Residuals"]


def test_the_sequential_table_equals_statsmodels_anova_lm():
    sm = pytest.importorskip("statsmodels.formula.api")
    from statsmodels.stats.anova import anova_lm
    import pandas as pd
    rng = np.random.default_rng(41)
    n = 40
    d = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n), "c": rng.uniform(0, 3, size=n)})
    d["y"] = 1 + 0.5 * d.a - 0.3 * d.b + 0.8 * d.c + rng.normal(scale=0.7, size=n)
    expected = anova_lm(sm.ols("y ~ a + b + c", d).fit(), typ=1)
    code = (f"X = hcat({list(d.a)}, {list(d.b)}, {list(d.c)})\n"
            f"a = anova(linreg(X, {list(d.y)}, names = [\"a\", \"b\", \"c\"]))\n")
    _, it = run(code)
    a = value(it, "a")
    np.testing.assert_allclose(a.get("sum_sq"), expected["sum_sq"], rtol=1e-10)
    np.testing.assert_allclose(a.get("mean_sq"), expected["mean_sq"], rtol=1e-10)
    np.testing.assert_allclose(a.get("F")[:3], expected["F"][:3], rtol=1e-9)
    np.testing.assert_allclose(a.get("p")[:3], expected["PR(>F)"][:3], rtol=1e-8)
    assert list(a.get("df")) == list(expected["df"])


def test_comparison_equals_statsmodels_anova_lm_of_two_models():
    sm = pytest.importorskip("statsmodels.formula.api")
    from statsmodels.stats.anova import anova_lm
    import pandas as pd
    d = pd.DataFrame({"mpg": MPG, "wt": WT, "hp": HP})
    expected = anova_lm(sm.ols("mpg ~ wt", d).fit(), sm.ols("mpg ~ wt + hp", d).fit())
    _, it = run("a = anova(f1, linreg(hcat(wt, hp), mpg, names = [\"wt\", \"hp\"]))")
    a = value(it, "a")
    np.testing.assert_allclose(a.get("rss"), expected["ssr"], rtol=1e-10)
    np.testing.assert_allclose(a.get("F")[1], expected["F"][1], rtol=1e-9)
    np.testing.assert_allclose(a.get("p")[1], expected["Pr(>F)"][1], rtol=1e-8)


def test_no_stars_and_no_legend_when_no_p_is_below_a_tenth():
    printed, _ = run("print(anova(f1, linreg(hcat(wt, am), mpg, names = [\"wt\", \"am\"])))")
    assert "Signif. codes" not in printed and "*" not in printed


@pytest.mark.parametrize("code, message", [
    ("anova(f1, linreg(wt[0:30], mpg[0:30], names = [\"wt\"]))",
     "anova compares models fitted to the same rows, but model 1 has 32 rows and model 2 has 30."),
    ("anova(f1, linreg(hcat(wt, hp), mpg .* 2, names = [\"wt\", \"hp\"]))",
     "anova compares models of one response, but model 2's response (y) differs from model 1's (y)."),
    ("anova(f1, linreg(hp, mpg, names = [\"hp\"]))",
     "anova compares nested models, but model 1's column wt is not in the span of model 2's columns "
     "((Intercept), hp); the smaller model's terms must all be in the larger."),
    ("anova(linreg(hcat(wt, hp), mpg, names = [\"wt\", \"hp\"]), linreg(hcat(wt, am), mpg, names = [\"wt\", \"am\"]))",
     "anova compares nested models, but model 1's column hp is not in the span of model 2's columns "
     "((Intercept), wt, am); the smaller model's terms must all be in the larger."),
    ("anova(f1, f3, test = \"Chisq\")", "anova compares linear models by F; test = \"Chisq\" is for GLMs."),
    ("anova(f1, f3, test = \"LRT\")", "anova's test is \"Chisq\" or \"F\", not \"LRT\"."),
    ("anova(logreg(wt, am))", "anova takes a linear model (linreg) or a generalized linear model (glm); "
     "for a logistic regression fit glm(t, \"y ~ x\", family = \"binomial\"), which gives logreg's numbers."),
    ("anova([1, 2, 3])", "anova takes a fitted linear model (linreg) or generalized linear model (glm), "
     "not a vector of length 3."),
    ("anova()", "anova needs a fitted model: anova(fit), or anova(fit1, fit2) to compare nested models."),
])
def test_models_that_cannot_be_compared_are_clear_errors(code, message):
    with pytest.raises(LaminaError) as e:
        run(code)
    assert e.value.message == message


# -- fitted from formulas: R's own printout, term names included --
R_SEQUENTIAL = """Analysis of Variance Table

Response: mpg
               Df Sum Sq Mean Sq  F value    Pr(>F)
wt              1 847.73  847.73 141.3883 5.133e-12 ***
factor(cyl)     2  95.26   47.63   7.9443   0.00203 **
wt:factor(cyl)  2  27.17   13.58   2.2658   0.12386
Residuals      26 155.89    6.00
---"""
R_TWO = """Analysis of Variance Table

Model 1: mpg ~ wt
Model 2: mpg ~ wt * factor(cyl)
  Res.Df    RSS Df Sum of Sq     F   Pr(>F)
1     30 278.32
2     26 155.89  4    122.43 5.105 0.003587 **
---"""
FORMULAS = ("t = read_csv(\"tests/stats/data/mtcars.csv\")\n"
            "small = linreg(t, \"mpg ~ wt\")\nbig = linreg(t, \"mpg ~ wt * factor(cyl)\")\n")


def _words(text: str) -> list[list[str]]:
    """Each line's words (Lamina's columns are two spaces apart, R's one)."""
    return [line.split() for line in text.splitlines()]


@pytest.mark.parametrize("call, r_text", [("anova(big)", R_SEQUENTIAL), ("anova(small, big)", R_TWO)])
def test_a_formula_fit_prints_what_r_prints(call, r_text):
    """R 4.2.2: print(anova(lm(mpg ~ wt * factor(cyl), mtcars))) and print(anova(lm(mpg ~ wt,
    mtcars), lm(mpg ~ wt * factor(cyl), mtcars))), word for word up to the legend; a factor and
    an interaction are one term each, with R's term labels."""
    printed, _ = run(FORMULAS + f"print({call})")
    assert _words(printed.split("---")[0] + "---") == _words(r_text)


def test_a_formula_fit_s_terms_group_its_columns():
    _, it = run(FORMULAS + "a = anova(big)")
    a = value(it, "a")
    assert a.get("rows") == ["wt", "factor(cyl)", "wt:factor(cyl)", "Residuals"]
    assert list(a.get("df")) == [1, 2, 2, 26]
    # R: sprintf("%.10g") of anova(f3)
    np.testing.assert_allclose(a.get("sum_sq"), [847.72525, 95.26328987, 27.16984731, 155.8888004], rtol=1e-9)
    np.testing.assert_allclose(a.get("F")[:3], [141.3883258, 7.94427031, 2.265769024], rtol=1e-8)
    np.testing.assert_allclose(a.get("p")[:3], [5.132753021e-12, 0.002029623739, 0.1238570261], rtol=1e-8)


@pytest.mark.parametrize("values, r_gives", [
    ([10105.69394, 95.00439117, 3841.611666], [10105.7, 95.0, 3841.6]),   # R: zapsmall(x, 5)
    ([2.16861724, 0.198511582], [2.16862, 0.19851]),
    ([167.3148, 130.6936, 85.7716], [167.315, 130.694, 85.772]),
    ([847.72525, 95.26328987, 155.8888004], [847.73, 95.26, 155.89]),
    ([1e-20, 5.0], [0.0, 5.0]),
])
def test_anova_zaps_as_r_s_zapsmall(values, r_gives):
    from lamina.stats.anova_table import zapsmall
    assert zapsmall(np.array(values), 5).tolist() == r_gives


# -- GLMs: R 4.2.2's anova(..., test = "Chisq") and (..., test = "F"), the tests R >= 4.4 picks itself --
GLMS = ("t = read_csv(\"tests/stats/data/mtcars.csv\")\n"
        "g1 = glm(t, \"am ~ wt\", family = \"binomial\")\ng2 = glm(t, \"am ~ wt + hp\", family = \"binomial\")\n"
        "q1 = glm(t, \"mpg ~ wt\", family = \"gamma\", link = \"log\")\n"
        "q2 = glm(t, \"mpg ~ wt + hp\", family = \"gamma\", link = \"log\")\n")
R_BINOMIAL = """Analysis of Deviance Table

Model: binomial, link: logit

Response: am

Terms added sequentially (first to last)


     Df Deviance Resid. Df Resid. Dev  Pr(>Chi)
NULL                    31     43.230
wt    1   24.054        30     19.176 9.369e-07 ***
hp    1    9.117        29     10.059  0.002532 **
---"""
R_GAMMA = """Analysis of Deviance Table

Model: Gamma, link: log

Response: mpg

Terms added sequentially (first to last)


     Df Deviance Resid. Df Resid. Dev       F    Pr(>F)
NULL                    31    2.73529
wt    1  2.16862        30    0.56667 162.860 2.003e-13 ***
hp    1  0.19851        29    0.36816  14.908 0.0005826 ***
---"""
R_GAMMA_TWO = """Analysis of Deviance Table

Model 1: mpg ~ wt
Model 2: mpg ~ wt + hp
  Resid. Df Resid. Dev Df Deviance      F    Pr(>F)
1        30    0.56667
2        29    0.36816  1  0.19851 14.908 0.0005826 ***
---"""
R_BINOMIAL_TWO = """Analysis of Deviance Table

Model 1: am ~ wt
Model 2: am ~ wt + hp
  Resid. Df Resid. Dev Df Deviance Pr(>Chi)
1        30     19.176
2        29     10.059  1    9.117 0.002532 **
---"""
R_POISSON = """Analysis of Deviance Table

Model: poisson, link: log

Response: count

Terms added sequentially (first to last)


      Df Deviance Resid. Df Resid. Dev  Pr(>Chi)
NULL                     71     409.04
spray  5   310.71        66      98.33 < 2.2e-16 ***
---"""


@pytest.mark.parametrize("call, r_text", [
    ("anova(g2)", R_BINOMIAL), ("anova(q2)", R_GAMMA), ("anova(q1, q2)", R_GAMMA_TWO),
    ("anova(g1, g2)", R_BINOMIAL_TWO),
    ("anova(glm(read_csv(\"tests/stats/data/insectsprays.csv\"), \"count ~ spray\", family = \"poisson\"))", R_POISSON)])
def test_a_glm_s_analysis_of_deviance_prints_what_r_prints(call, r_text):
    printed, _ = run(GLMS + f"print({call})")
    assert _words(printed.split("---")[0] + "---") == _words(r_text)


def test_a_glm_s_tests_are_r_s_to_ten_digits():
    _, it = run(GLMS + "b = anova(g2)\ng = anova(q2)\nf = anova(g1, g2, test = \"F\")\nc = anova(q1, q2, test = \"Chisq\")")
    b, g = value(it, "b"), value(it, "g")
    # R: sprintf("%.10g") of anova(g2, test = "Chisq") and anova(q2, test = "F")
    np.testing.assert_allclose(b.get("deviance")[1:], [24.05364847, 9.116974335], rtol=1e-8)
    np.testing.assert_allclose(b.get("p")[1:], [9.368857375e-07, 0.002532484812], rtol=1e-7)
    np.testing.assert_allclose(g.get("deviance")[1:], [2.16861724, 0.198511582], rtol=1e-8)
    np.testing.assert_allclose(g.get("F")[1:], [162.8595793, 14.90789252], rtol=1e-7)
    np.testing.assert_allclose(g.get("p")[1:], [2.002770361e-13, 0.0005826154478], rtol=1e-6)
    assert b.get("rows") == ["NULL", "wt", "hp"] and list(b.get("res_df")) == [31, 30, 29]
    # an F test of a fixed dispersion has infinite denominator df: the chi-squared p of F * df
    from scipy import stats
    f, c = value(it, "f"), value(it, "c")
    assert f.get("p")[1] == pytest.approx(stats.chi2.sf(f.get("F")[1], 1), rel=1e-12)
    assert c.get("p")[1] == pytest.approx(stats.chi2.sf(c.get("deviance")[1] / value(it, "q2").dispersion, 1), rel=1e-12)


def test_glms_of_different_families_or_kinds_are_not_compared():
    with pytest.raises(LaminaError) as e:
        run(GLMS + "anova(glm(t, \"am ~ wt\", family = \"binomial\", link = \"probit\"), g2)")
    assert e.value.message == ("anova compares GLMs of one family and link, but model 1 is binomial with link "
                               "probit and model 2 is binomial with link logit.")
    with pytest.raises(LaminaError) as e:
        run(GLMS + "anova(linreg(t, \"am ~ wt\"), g2)")
    assert e.value.message == ("anova compares models of one kind, but got a generalized linear model and a "
                               "linear model; fit a linear model with glm(..., family = \"gaussian\") to compare it with a GLM.")
