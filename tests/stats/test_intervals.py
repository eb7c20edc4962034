"""confint and predict's intervals (stats/intervals.py), against R 4.2's confint, predict.lm and
confint.default on mtcars (printed output and sprintf("%.10g") values) and statsmodels'
conf_int and get_prediction().summary_frame; bad new data is a clear error."""
from __future__ import annotations

import numpy as np
import pytest

from lamina.errors import LaminaError
from test_anova import FORMULAS, MTCARS, _words, run, value

# R: confint(lm(mpg ~ wt * factor(cyl), mtcars)), sprintf("%.10g")
R_LOWER = [33.00595759, -8.441512787, -30.39254101, -25.65082865, -3.540843327, 0.1097039799]
R_UPPER = [46.13643444, -2.852537736, 8.067838013, -5.755505226, 9.274681971, 6.79947069]
R_CONFINT = """                     2.5 %    97.5 %
(Intercept)      33.005958 46.136434
wt               -8.441513 -2.852538
factor(cyl)6    -30.392541  8.067838
factor(cyl)8    -25.650829 -5.755505
wt:factor(cyl)6  -3.540843  9.274682
wt:factor(cyl)8   0.109704  6.799471"""


def mat(X) -> str:
    """A NumPy matrix as a Lamina matrix literal."""
    return "[" + "; ".join(", ".join(repr(float(v)) for v in row) for row in np.atleast_2d(X)) + "]"


FIT_R = [25.45363286, 16.19449633, 16.73239957]     # R: predict(f3, nd)
NEW = "nd = table({wt = [2.5, 3.5, 4.2], cyl = [4, 8, 6]})\n"


def test_confint_of_a_linear_model_is_r_s_t_interval():
    printed, it = run(FORMULAS + "ci = confint(big)\nprint(ci)")
    ci = value(it, "ci")
    np.testing.assert_allclose(ci.get("lower"), R_LOWER, rtol=1e-9)
    np.testing.assert_allclose(ci.get("upper"), R_UPPER, rtol=1e-9)
    assert ci.get("term") == ["(Intercept)", "wt", "factor(cyl)6", "factor(cyl)8", "wt:factor(cyl)6", "wt:factor(cyl)8"]
    lines = printed.splitlines()
    assert lines[0] == "95% confidence intervals (t with 26 degrees of freedom): a table of term, lower, upper"
    assert _words("\n".join(lines[1:])) == _words(R_CONFINT)


@pytest.mark.parametrize("level, header", [(0.9, ["5", "%", "95", "%"]), (0.99, ["0.5", "%", "99.5", "%"]),
                                           (0.975, ["1.25", "%", "98.75", "%"])])
def test_confint_names_its_columns_by_the_percentages_as_r_does(level, header):
    printed, _ = run(f"print(confint(f1, level = {level}))")
    assert printed.splitlines()[1].split() == header


def test_confint_at_another_level_is_r_s():
    # R: confint(lm(mpg ~ wt, mtcars), level = 0.99) prints 32.121659 42.448593 / -6.881997 -3.806946
    printed, it = run("ci = confint(f1, level = 0.99)\nprint(ci)")
    assert _words(printed)[2:] == [["(Intercept)", "32.121659", "42.448593"], ["wt", "-6.881997", "-3.806946"]]


def test_confint_equals_statsmodels_conf_int():
    sm = pytest.importorskip("statsmodels.api")
    rng = np.random.default_rng(7)
    X = rng.normal(size=(25, 3))
    y = X @ [1.0, -2.0, 0.5] + 3 + rng.normal(size=25)
    expected = sm.OLS(y, sm.add_constant(X)).fit().conf_int(alpha=0.2)
    _, it = run(f"ci = confint(linreg({mat(X)}, {y.tolist()}), level = 0.8)")
    ci = value(it, "ci")
    np.testing.assert_allclose(ci.get("lower"), expected[:, 0], rtol=1e-10)
    np.testing.assert_allclose(ci.get("upper"), expected[:, 1], rtol=1e-10)


def test_confint_of_a_logistic_regression_is_wald_as_statsmodels():
    sm = pytest.importorskip("statsmodels.api")
    from test_anova import AM, HP
    from test_r_printing import WT
    X = np.column_stack([WT, HP])
    expected = sm.Logit(np.array(AM, float), sm.add_constant(X)).fit(disp=0).conf_int()
    _, it = run("ci = confint(logreg(hcat(wt, hp), am))")
    ci = value(it, "ci")
    np.testing.assert_allclose(ci.get("lower"), expected[:, 0], rtol=1e-5)
    np.testing.assert_allclose(ci.get("upper"), expected[:, 1], rtol=1e-5)


def test_prediction_and_confidence_intervals_are_r_s():
    _, it = run(FORMULAS + NEW + "p = predict(big, nd, interval = \"prediction\")\n"
                "c = predict(big, nd, interval = \"confidence\", level = 0.9, se = true)\n"
                "v = predict(big, nd)")
    p, c = value(it, "p"), value(it, "c")
    # R: predict(f3, nd, interval = "prediction") and (..., "confidence", level = 0.9, se.fit = TRUE)
    fit = FIT_R
    np.testing.assert_allclose(p.get("fit"), fit, rtol=1e-8)
    np.testing.assert_allclose(p.get("lower"), [20.16263204, 10.9044335, 8.489782594], rtol=1e-9)
    np.testing.assert_allclose(p.get("upper"), [30.74463368, 21.48455916, 24.97501654], rtol=1e-9)
    np.testing.assert_allclose(c.get("lower"), [24.09992298, 14.84331282, 11.31611375], rtol=1e-9)
    np.testing.assert_allclose(c.get("se"), [0.7936770976, 0.792195897, 3.175556349], rtol=1e-9)
    assert p.names == ["fit", "lower", "upper"] and c.names == ["fit", "se", "lower", "upper"]
    np.testing.assert_allclose(value(it, "v"), fit, rtol=1e-8)


def test_intervals_equal_statsmodels_summary_frame():
    sm = pytest.importorskip("statsmodels.api")
    rng = np.random.default_rng(3)
    X = rng.uniform(0, 10, size=(30, 2))
    y = 2 + X @ [0.7, -1.1] + rng.normal(scale=2, size=30)
    X0 = rng.uniform(0, 12, size=(4, 2))
    frame = sm.OLS(y, sm.add_constant(X)).fit().get_prediction(sm.add_constant(X0, has_constant="add")) \
        .summary_frame(alpha=0.05)
    _, it = run(f"fit = linreg({mat(X)}, {y.tolist()})\n"
                f"c = predict(fit, {mat(X0)}, interval = \"confidence\", se = true)\n"
                f"p = predict(fit, {mat(X0)}, interval = \"prediction\")")
    c, p = value(it, "c"), value(it, "p")
    np.testing.assert_allclose(c.get("fit"), frame["mean"], rtol=1e-10)
    np.testing.assert_allclose(c.get("se"), frame["mean_se"], rtol=1e-10)
    np.testing.assert_allclose(c.get("lower"), frame["mean_ci_lower"], rtol=1e-10)
    np.testing.assert_allclose(p.get("upper"), frame["obs_ci_upper"], rtol=1e-10)


def test_predict_without_new_data_gives_the_fit_s_own_rows():
    _, it = run("v = predict(f3)\np = predict(f1, interval = \"confidence\")")
    fit = value(it, "f3")
    np.testing.assert_allclose(value(it, "v"), fit.fitted, rtol=1e-12)
    assert value(it, "p").nrows == 32


def test_a_fit_from_a_table_s_columns_predicts_a_table_with_those_columns():
    printed, it = run("t = table({mpg = mpg, wt = wt, hp = hp})\nfit = linreg(t, \"mpg\", [\"wt\", \"hp\"])\n"
                      "v = predict(fit, table({hp = [100, 200], wt = [3, 2]}))")
    fit = value(it, "fit")
    np.testing.assert_allclose(value(it, "v"), fit.coef[0] + fit.coef[1] * np.array([3, 2]) + fit.coef[2] * np.array([100, 200]))


@pytest.mark.parametrize("code, message", [
    ("predict(big, table({wt = [3]}))",
     "predict's new data has no column 'cyl', which the formula \"mpg ~ wt * factor(cyl)\" reads."),
    ("predict(big, table({wt = [3], cyl = [5]}))",
     "predict's new data gives '5', a level the fit never saw, in factor(cyl) (levels: 4, 6, 8)."),
    ("predict(big, [3, 4])",
     "predict of a model fitted from the formula \"mpg ~ wt * factor(cyl)\" takes its new data as a table "
     "with the columns the formula reads (cyl, wt), not a vector of length 2."),
    ("predict(small, table({wt = [3]}), interval = \"both\")",
     "predict's interval is \"confidence\", \"prediction\" or \"none\", not \"both\"."),
    ("predict(small, table({wt = [3]}), interval = \"confidence\", level = 95)",
     "predict's level is a probability between 0 and 1 (0.95 for 95% intervals), not 95."),
    ("predict(small, table({wt = [3]}), type = \"response\")",
     "predict's type (\"link\" or \"response\") is for a GLM; a linear model predicts the response itself."),
    ("predict(linreg(t[:, [\"mpg\", \"wt\", \"hp\"]], \"mpg\", [\"wt\", \"hp\"]), table({wt = [3]}))",
     "predict's new data has no column 'hp', a predictor of the fit (its predictors: wt, hp); a fit made "
     "from a formula takes the table's own columns and factors."),
    ("predict(linreg([1, 2; 3, 5; 4, 4; 6, 1], [1, 2, 3, 5]), [1, 2, 3])",
     "predict's new data needs one column per predictor of the fit (2: x0, x1), but has 1."),
    ("confint(small, level = 1)", "confint's level is a probability between 0 and 1 (0.95 for 95% intervals), not 1."),
    ("confint(kmeans([1, 2; 3, 4; 5, 6], 2, seed = 1))",
     "confint takes a fitted linear model (linreg) or generalized linear model (glm), not a record."),
])
def test_bad_new_data_and_settings_are_clear_errors(code, message):
    with pytest.raises(LaminaError) as e:
        run(FORMULAS + code)
    assert e.value.message == message


# -- GLMs --
from test_anova import GLMS  # noqa: E402

Q_NEW = "nd = table({wt = [2.5, 3.5], hp = [100, 200]})\n"


def test_a_glm_predicts_on_the_link_and_response_scales_as_r():
    _, it = run(GLMS + Q_NEW + "r = predict(q2, nd, type = \"response\", se = true)\n"
                "l = predict(q2, nd, se = true)\nv = predict(q2, nd)\nown = predict(q2)")
    r, l = value(it, "r"), value(it, "l")
    # R: predict(q2, nd, type = "response" / "link", se.fit = TRUE)
    np.testing.assert_allclose(r.get("fit"), [23.98414519, 16.85076095], rtol=1e-8)
    np.testing.assert_allclose(r.get("se"), [0.6239118159, 0.4501554291], rtol=1e-7)
    np.testing.assert_allclose(l.get("fit"), [3.177392995, 2.824395816], rtol=1e-9)
    np.testing.assert_allclose(l.get("se"), [0.02601351063, 0.02671424931], rtol=1e-7)
    np.testing.assert_allclose(value(it, "v"), l.get("fit"))
    np.testing.assert_allclose(value(it, "own"), value(it, "q2").linear_predictor)


def test_a_glm_s_prediction_equals_statsmodels():
    sm = pytest.importorskip("statsmodels.api")
    rng = np.random.default_rng(5)
    X = rng.uniform(0, 2, size=(60, 2))
    y = rng.poisson(np.exp(0.3 + X @ [0.8, -0.5]))
    X0 = rng.uniform(0, 2, size=(3, 2))
    res = sm.GLM(y, sm.add_constant(X), family=sm.families.Poisson()).fit()
    frame = res.get_prediction(sm.add_constant(X0, has_constant="add")).summary_frame()
    link = res.get_prediction(sm.add_constant(X0, has_constant="add"), which="linear").summary_frame()
    _, it = run(f"g = glm({mat(X)}, {y.astype(float).tolist()}, family = \"poisson\")\n"
                f"r = predict(g, {mat(X0)}, type = \"response\", se = true)\nl = predict(g, {mat(X0)}, se = true)\n"
                f"ci = confint(g)")
    np.testing.assert_allclose(value(it, "r").get("fit"), frame["mean"], rtol=1e-8)
    # statsmodels stops its IRLS by another rule than R's (Lamina's): the last digits differ
    np.testing.assert_allclose(value(it, "r").get("se"), frame["mean_se"], rtol=1e-5)
    np.testing.assert_allclose(value(it, "l").get("se"), link["se"], rtol=1e-5)
    np.testing.assert_allclose(value(it, "ci").get("lower"), res.conf_int()[:, 0], rtol=1e-6)


def test_confint_of_a_glm_is_r_s_confint_default():
    printed, it = run(GLMS + "ci = confint(q2)\nprint(ci)")
    ci = value(it, "ci")
    # R: confint.default(q2)
    np.testing.assert_allclose(ci.get("lower"), [3.686441477, -0.2521667345, -0.002347577269], rtol=1e-7)
    np.testing.assert_allclose(ci.get("upper"), [3.965298869, -0.1418065974, -0.0007726329884], rtol=1e-7)
    assert printed.splitlines()[0] == ("95% confidence intervals (Wald, normal quantiles): a table of term, "
                                       "lower, upper")


@pytest.mark.parametrize("code, message", [
    ("predict(q2, nd, interval = \"confidence\")",
     "predict gives a GLM's predictions with their standard errors (se = true), not intervals: interval = "
     "\"confidence\" and \"prediction\" are for linear models. For a Wald interval of the link take fit +- "
     "1.96 se with type = \"link\"."),
    ("predict(q2, nd, type = \"mean\")", "predict's type is \"link\" or \"response\", not \"mean\"."),
    ("predict(q2, nd, se = 1)", "predict's se must be true or false, not a number."),
    ("predict(glm(t, \"mpg ~ wt\", family = \"gaussian\", offset = \"hp\"), nd)",
     "predict cannot give new rows the offset this GLM was fitted with (a vector for the fit's own rows); "
     "predict(fit) gives the fit's rows, or refit without the offset."),
])
def test_bad_glm_predictions_are_clear_errors(code, message):
    with pytest.raises(LaminaError) as e:
        run(GLMS + Q_NEW + code)
    assert e.value.message == message
