"""stats/formula.py: Wilkinson formulas over a table (formulaic underneath) with R's coefficient
names, and linreg(t, "y ~ ..."), checked against R's printed numbers and statsmodels' ols."""
import pathlib
import re

import numpy as np
import pytest

from lamina.errors import LaminaError
from lamina.stats import categories as K
from lamina.stats.formula import design, new_matrix, r_name
from lamina.stats.table import Table

DATA = pathlib.Path(__file__).parent / "data"
MTCARS = f'read_csv("{DATA / "mtcars.csv"}")'

# R 4.2.2: summary(lm(mpg ~ wt * factor(cyl), mtcars)), the coefficient table as print(summary(f))
# prints it, and print(coef(summary(f)), digits = 10) for the numbers to 10 digits.
R_LM_TABLE = """\
                Estimate Std. Error t value Pr(>|t|)    
(Intercept)       39.571      3.194  12.389 2.06e-12 ***
wt                -5.647      1.359  -4.154 0.000313 ***
factor(cyl)6     -11.162      9.355  -1.193 0.243584    
factor(cyl)8     -15.703      4.839  -3.245 0.003223 ** 
wt:factor(cyl)6    2.867      3.117   0.920 0.366199    
wt:factor(cyl)8    3.455      1.627   2.123 0.043440 *  """
R_LM = {  # Estimate, Std. Error, t value, Pr(>|t|)
    "(Intercept)": (39.571196013, 3.193940355, 12.389459921, 2.058359495e-12),
    "wt": (-5.647025261, 1.359497691, -4.153758626, 3.127578291e-04),
    "factor(cyl)6": (-11.162351500, 9.355346195, -1.193152158, 2.435843162e-01),
    "factor(cyl)8": (-15.703166937, 4.839464483, -3.244814998, 3.223215623e-03),
    "wt:factor(cyl)6": (2.866919322, 3.117329545, 0.919671559, 3.661987177e-01),
    "wt:factor(cyl)8": (3.454587335, 1.627261226, 2.122945769, 4.344036858e-02),
}
# R: F-statistic 32.3616809 on 5 and 26 DF, R-squared 0.8615610411
R_LM_F, R_LM_R2 = 32.3616809, 0.8615610411


def small() -> Table:
    return Table({"y": np.array([1.0, 2, 3, 4, 5, 6.5, 2, 3]), "x": np.array([1.0, 2, 3, 4, 5, 7, 2, 1]),
                  "z": np.array([3.0, 1, 2, 5, 4, 2, 2, 9]),
                  "g": ["A", "B", "A", "B", "C", "C", "A", "B"], "h": ["u", "v", "v", "u", "u", "v", "u", "v"],
                  "k": K.make(["lo", "hi", "lo", "mid", "hi", "lo", "mid", "hi"], levels=["mid", "lo", "hi", "none"]),
                  "one": ["a"] * 8})


def test_lm_wt_times_factor_cyl_prints_r_s_coefficient_table(lam):
    lines = lam.run(f'fit = linreg({MTCARS}, "mpg ~ wt * factor(cyl)")\nprint(fit)')
    start = lines.index("Coefficients:") + 1
    ours = [line.split() for line in lines[start:start + 7]]
    theirs = [line.split() for line in R_LM_TABLE.splitlines()]
    assert ours[0] == theirs[0]
    assert ours[1:] == theirs[1:]          # the same words: names, numbers as R rounds them, stars
    assert lines[0] == "Linear regression: mpg ~ wt * factor(cyl)  (n = 32)"
    assert "F-statistic: 32.36 on 5 and 26 DF, p-value: 2.258e-10" in lines


def test_lm_wt_times_factor_cyl_numbers_equal_r_s_to_8_digits(lam):
    fit = lam.eval(f'linreg({MTCARS}, "mpg ~ wt * factor(cyl)")')
    assert fit.get("terms") == list(R_LM)
    ours = np.column_stack([fit.get("coef"), fit.get("se"), fit.get("t"), fit.get("p")])
    np.testing.assert_allclose(ours, np.array(list(R_LM.values())), rtol=1e-8)
    np.testing.assert_allclose([fit.get("fstat"), fit.get("r2")], [R_LM_F, R_LM_R2], rtol=1e-8)


def test_lm_matches_statsmodels_ols_with_the_same_formula(lam):
    smf = pytest.importorskip("statsmodels.formula.api")
    pd = pytest.importorskip("pandas")
    frame = pd.read_csv(DATA / "mtcars.csv")
    cases = [("mpg ~ wt * factor(cyl) + log(hp)", "mpg ~ wt * C(cyl) + np.log(hp)"),
             ("mpg ~ wt + I(wt ^ 2) + hp:wt", "mpg ~ wt + I(wt ** 2) + hp:wt"),
             ("log(mpg) ~ hp + I(hp^2) + factor(am) - 1", "np.log(mpg) ~ hp + I(hp ** 2) + C(am) - 1")]
    for ours_text, theirs_text in cases:
        fit = lam.eval(f'linreg({MTCARS}, "{ours_text}")')
        ref = smf.ols(theirs_text, frame).fit()
        # statsmodels' names (patsy's), written as R's, and in R's order (patsy puts factors first)
        names = [re.sub(r"C\((\w+)\)\[(?:T\.)?(\w+)\]", r"factor(\1)\2", s).replace("np.log", "log")
                 .replace("Intercept", "(Intercept)").replace(" ** ", "^").replace("hp:wt", "wt:hp")
                 for s in ref.params.index]
        order = [names.index(term) for term in fit.get("terms")]
        for field, theirs, rtol in [("coef", ref.params, 1e-9), ("se", ref.bse, 1e-9), ("p", ref.pvalues, 1e-7)]:
            np.testing.assert_allclose(fit.get(field), theirs.to_numpy()[order], rtol=rtol, err_msg=ours_text)


# Each formula's colnames(model.matrix(f, d)) in R 4.2.2, for d = small() written out as CSV.
@pytest.mark.parametrize("formula, r_columns", [
    ("y ~ g:x", ["(Intercept)", "gA:x", "gB:x", "gC:x"]),
    ("y ~ x:g", ["(Intercept)", "x:gA", "x:gB", "x:gC"]),
    ("y ~ g*x", ["(Intercept)", "gB", "gC", "x", "gB:x", "gC:x"]),
    ("y ~ x + g:z", ["(Intercept)", "x", "gA:z", "gB:z", "gC:z"]),
    ("y ~ g*h", ["(Intercept)", "gB", "gC", "hv", "gB:hv", "gC:hv"]),
    ("y ~ x:z + g", ["(Intercept)", "gB", "gC", "x:z"]),
    ("y ~ (x + g + h)^2", ["(Intercept)", "x", "gB", "gC", "hv", "x:gB", "x:gC", "x:hv", "gB:hv", "gC:hv"]),
    ("y ~ .", ["(Intercept)", "x", "z", "gB", "gC", "hv", "klo", "khi"]),
    ("y ~ g + h - 1", ["gA", "gB", "gC", "hv"]),
    ("y ~ x - 1 + g", ["x", "gA", "gB", "gC"]),
    ("y ~ I(x ^ 2) + log(x+1) + I(x/2) + I(x^-1)", ["(Intercept)", "I(x^2)", "log(x + 1)", "I(x/2)", "I(x^-1)"]),
    ("y ~ poly(x, 2)", ["(Intercept)", "poly(x, 2)1", "poly(x, 2)2"]),
    ('y ~ C(g, Treatment("B"))', ["(Intercept)", 'C(g, Treatment("B"))A', 'C(g, Treatment("B"))C']),
    ("y ~ factor(x)", ["(Intercept)", "factor(x)2", "factor(x)3", "factor(x)4", "factor(x)5", "factor(x)7"]),
])
def test_coefficient_names_are_r_s(formula, r_columns):
    t = small() if formula != "y ~ ." else small().select(["y", "x", "z", "g", "h", "k"])
    assert design(t, formula, "linreg").columns == r_columns


def test_terms_and_assign_follow_r():
    d = design(small(), "y ~ x * g + log(z)", "glm")
    # R: attr(terms(f), "term.labels") and attr(model.matrix(f, d), "assign")
    assert d.terms == ["x", "g", "log(z)", "x:g"]
    assert d.assign == [0, 1, 2, 2, 3, 4, 4]
    assert d.intercept and d.response == "y" and d.variables == ["g", "x", "z"]
    assert design(small(), "log(y) ~ x - 1", "glm").response == "log(y)"


def test_a_category_s_first_present_level_is_the_reference():
    d = design(small(), "y ~ k", "linreg")       # levels mid, lo, hi, none; none unused
    assert d.columns == ["(Intercept)", "klo", "khi"]
    k = ["lo", "hi", "lo", "mid", "hi", "lo", "mid", "hi"]
    np.testing.assert_array_equal(d.X[:, 1:], [[v == "lo", v == "hi"] for v in k])


def test_poly_is_r_s_orthogonal_polynomial():
    # R: coef(lm(y ~ poly(x, 2), d)) = 3.5833333 4.4854261 -0.2727724 on the first six rows of small()
    t = small().take(np.arange(6))
    d = design(t, "y ~ poly(x, 2)", "linreg")
    coef = np.linalg.lstsq(d.X, d.y, rcond=None)[0]
    np.testing.assert_allclose(coef, [3.5833333, 4.4854261, -0.2727724], atol=5e-8)


def test_new_matrix_builds_the_fit_s_columns_for_new_rows():
    d = design(small(), "y ~ poly(x, 2) + factor(z) + g", "linreg")
    rows = [6, 0, 3]
    again = new_matrix(d, small().take(np.array(rows)).select(["x", "z", "g"]), "predict")
    np.testing.assert_allclose(again, d.X[rows])


@pytest.mark.parametrize("new, message", [
    (Table({"x": np.array([1.0]), "g": ["D"]}),
     "predict's new data has g = 'D', a level the fit never saw (its levels: A, B, C)."),
    (Table({"x": np.array([1.0])}), "predict's new data has no column 'g', which the formula \"y ~ x * g\" reads."),
])
def test_new_matrix_refuses_a_missing_column_or_an_unseen_level(new, message):
    d = design(small(), "y ~ x * g", "linreg")
    with pytest.raises(LaminaError) as info:
        new_matrix(d, new, "predict")
    assert info.value.message == message


def test_new_matrix_names_an_unseen_level_of_a_factor_expression():
    d = design(small(), "y ~ factor(x) + C(g, Treatment(\"B\"))", "linreg")
    with pytest.raises(LaminaError) as info:
        new_matrix(d, Table({"x": np.array([2.0, 6.0]), "g": ["A", "B"]}), "predict")
    assert info.value.message == ("predict's new data gives '6', a level the fit never saw, in a factor of the "
                                  "formula \"y ~ factor(x) + C(g, Treatment(\"B\"))\".")
    d = design(small(), "y ~ factor(x)", "linreg")
    with pytest.raises(LaminaError) as info:
        new_matrix(d, Table({"x": np.array([2.0, 6.0])}), "predict")
    assert info.value.message == ("predict's new data gives '6', a level the fit never saw, in factor(x) "
                                  "(levels: 1, 2, 3, 4, 5, 7).")


def test_r_names_of_formulaic_names():
    assert [r_name(s) for s in ["Intercept", "g[T.B]", "x:g[T.B]", "g[A]:h[T.v]", "I(x ** 2)",
                                "poly(x, 2)[1]", "C(g, Treatment('b'))[T.a]", "I(x / 2)"]] == \
        ["(Intercept)", "gB", "x:gB", "gA:hv", "I(x^2)", "poly(x, 2)1", 'C(g, Treatment("b"))a', "I(x/2)"]


FUNCTIONS = "I, C, Treatment, factor, poly, log, log2, log10, log1p, exp, expm1, sqrt, abs, sin, cos, tan, center, scale"


@pytest.mark.parametrize("formula, kind, message", [
    ("y ~ x + zz", "NameError", "The formula \"y ~ x + zz\" names 'zz', which is no column of the table "
                                "(its columns are g, h, k, one, x, y, z)."),
    ("y ~ log(zz)", "NameError", "The formula \"y ~ log(zz)\" names 'zz', which is no column of the table "
                                 "(its columns are g, h, k, one, x, y, z)."),
    ("y ~ foo(x)", "NameError", f"The formula \"y ~ foo(x)\" calls foo(), which is no function a formula "
                                f"knows; it knows {FUNCTIONS}."),
    ("y ~ 0", "ValueError", "The formula \"y ~ 0\" has no terms (not even the intercept), so linreg has "
                            "nothing to fit; write \"y ~ 1\" for the mean alone."),
    ("y ~ x - 1 - x", "ValueError", "The formula \"y ~ x - 1 - x\" has no terms (not even the intercept), "
                                    "so linreg has nothing to fit; write \"y ~ 1\" for the mean alone."),
    ("y ~ x + one", "ValueError", "The formula \"y ~ x + one\" has the factor one with one level, \"a\", so "
                                  "it cannot tell rows apart; leave it out of linreg's formula."),
    ("y + x", "ValueError", "linreg needs a formula with the response left of ~ and the predictors right "
                            "of it, as \"y ~ x + g\", but got \"y + x\"."),
    ("~ x", "ValueError", "The formula \"~ x\" has no response left of ~; linreg needs one, as \"y ~ x + g\"."),
    ("y ~ x +", "ValueError", "linreg cannot read the formula \"y ~ x +\": Operator `+` has insuffient "
                              "arguments and/or is misplaced."),
    ("g ~ x", "TypeError", "linreg's response g holds text; the response must be one numeric column."),
    ("y ~ log(x - 3)", "ValueError", "The formula \"y ~ log(x - 3)\" gives log(x - 3) = NaN in row 1; linreg "
                                     "needs finite numbers (a log of 0 or of a negative number?), so drop or "
                                     "change those rows first."),
    ("y ~ np.sin(x)", "ValueError", f"The formula \"y ~ np.sin(x)\" calls np.sin; a formula may call only a "
                                    f"function by name: {FUNCTIONS}."),
    ("y ~ x[0]", "ValueError", f"The formula \"y ~ x[0]\" has \"x[0]\", which uses subscript; a formula's "
                               f"expressions hold columns, numbers, text, arithmetic and calls of {FUNCTIONS}."),
])
def test_bad_formulas_are_errors_that_name_the_problem(formula, kind, message):
    with pytest.raises(LaminaError) as info:
        design(small(), formula, "linreg")
    assert (info.value.kind, info.value.message) == (kind, message)


def test_a_formula_cannot_reach_python(tmp_path):
    """Everything a formula evaluates is checked first: no import, no attribute, no builtin."""
    target = tmp_path / "written"
    for formula in [f'y ~ I(__import__("pathlib").Path("{target}").touch())',
                    f'y ~ I(open("{target}", "w"))', 'y ~ I(x.__class__)', 'y ~ I([c for c in x])']:
        with pytest.raises(LaminaError):
            design(small(), formula, "linreg")
    assert not target.exists()


def test_missing_values_and_dates_are_refused_with_the_column_named(lam):
    t = Table({"y": np.array([1.0, 2, np.nan, 4]), "x": np.array([1.0, 2, 3, 5])})
    with pytest.raises(LaminaError) as info:
        design(t, "y ~ x", "glm")
    assert info.value.message == ("Column 'y' has missing values, which glm does not drop unasked (R's "
                                  "na.omit would); drop those rows first with drop_missing(t).")


@pytest.mark.parametrize("source, message", [
    ('linreg(t, "y ~ x", ["x"])', "linreg with a formula takes its predictors from the formula, so it takes "
                                  "no list of predictor names besides; add them to the formula."),
    ('linreg(t, "y ~ x", intercept = false)', "linreg with a formula takes no intercept argument; write - 1 in "
                                              "the formula for a fit without one (\"y ~ x - 1\")."),
])
def test_linreg_s_other_arguments_do_not_mix_with_a_formula(lam, source, message):
    err = lam.error(source, t=small())
    assert err.message == message


def test_the_other_call_shapes_keep_working(lam):
    t = small()
    by_columns = lam.eval('linreg(t, "y", ["x", "g"])', t=t)
    by_formula = lam.eval('linreg(t, "y ~ x + g")', t=t)
    assert by_columns.get("terms") == by_formula.get("terms") == ["(Intercept)", "x", "gB", "gC"]
    np.testing.assert_allclose(by_columns.get("coef"), by_formula.get("coef"), rtol=1e-12)
    assert lam.eval('linreg(t, "y", ["x"])', t=t).get("terms") == ["(Intercept)", "x"]



def test_an_interaction_s_factors_and_columns_follow_r_s_variable_order():
    """R writes g:k as k:g when k appears first, and varies k fastest; so do the columns here."""
    t = Table({"y": np.arange(12.0), "g": list("ABC") * 4, "k": list("ppqqrrppqqrr")})
    d = design(t, "y ~ k + g + g:k", "linreg")
    # R 4.2.2: colnames(model.matrix(y ~ k + g + g:k, d)), attr(terms(...), "term.labels")
    assert d.columns == ["(Intercept)", "kq", "kr", "gB", "gC", "kq:gB", "kr:gB", "kq:gC", "kr:gC"]
    assert d.terms == ["k", "g", "k:g"]
    g, k = np.array(t.columns["g"].cells()), np.array(t.columns["k"].cells())
    for j, name in enumerate(d.columns[5:], start=5):
        np.testing.assert_array_equal(d.X[:, j], (k == name[1]) & (g == name[4]), err_msg=name)
