"""residuals, fitted and influence (stats/diagnostics.py), R's lowess, and plot(fit)'s four panels
(stats/diagnostic_plots.py), against R 4.2's hatvalues, rstandard, cooks.distance and lowess on
mtcars and statsmodels' get_influence."""
from __future__ import annotations

import numpy as np
import pytest

from lamina.errors import LaminaError
from lamina.stats import figures
from lamina.stats.diagnostics import lowess
from test_anova import FORMULAS, MTCARS, run, value
from test_intervals import mat
from test_r_printing import MPG, WT
from test_stats_figures import check_png


def test_influence_of_a_linear_model_is_r_s():
    _, it = run(FORMULAS + "inf = influence(big)")
    inf = value(it, "inf")
    # R: hatvalues, rstandard and cooks.distance of lm(mpg ~ wt * factor(cyl), mtcars), rows 1-5
    np.testing.assert_allclose(inf.get("leverage")[:5], [0.4672479257, 0.2198143721, 0.09127117772,
                                                        0.155425866, 0.1131411032], rtol=1e-8)
    np.testing.assert_allclose(inf.get("std_resid")[:5], [-0.06992167465, 0.2699997671, -1.572315356,
                                                         0.8573076505, 1.029496496], rtol=1e-8)
    np.testing.assert_allclose(inf.get("cooks")[:5], [0.000714652019, 0.003423210987, 0.04138351858,
                                                     0.02254279012, 0.02253535359], rtol=1e-7)
    assert inf.names == ["leverage", "std_resid", "cooks"]
    np.testing.assert_allclose(inf.get("leverage").sum(), 6, rtol=1e-12)     # the trace: p


def test_influence_equals_statsmodels_get_influence():
    sm = pytest.importorskip("statsmodels.api")
    rng = np.random.default_rng(11)
    X = rng.normal(size=(30, 3))
    y = X @ [0.5, 1.0, -1.0] + rng.standard_t(3, size=30)
    expected = sm.OLS(y, sm.add_constant(X)).fit().get_influence()
    _, it = run(f"inf = influence(linreg({mat(X)}, {y.tolist()}))")
    inf = value(it, "inf")
    np.testing.assert_allclose(inf.get("leverage"), expected.hat_matrix_diag, rtol=1e-10)
    np.testing.assert_allclose(inf.get("std_resid"), expected.resid_studentized_internal, rtol=1e-9)
    np.testing.assert_allclose(inf.get("cooks"), expected.cooks_distance[0], rtol=1e-9)


def test_a_linear_model_s_residuals_of_every_type_are_y_minus_fitted():
    _, it = run("r = [residuals(f1), residuals(f1, type = \"pearson\"), residuals(f1, type = \"deviance\"), "
                "residuals(f1, type = \"working\"), residuals(f1, type = \"response\")]\nf = fitted(f1)")
    expected = np.array(MPG) - value(it, "f")
    for r in value(it, "r"):
        np.testing.assert_allclose(r, expected, atol=1e-12)
    # R: lm(mpg ~ wt, mtcars)'s first fitted value and residual
    np.testing.assert_allclose(value(it, "f")[0], 23.28261065, rtol=1e-9)


@pytest.mark.parametrize("code, message", [
    ("residuals(f1, type = \"studentized\")",
     "residuals' type is \"response\", \"pearson\", \"deviance\" or \"working\", not \"studentized\"."),
    ("fitted(logreg(wt, am))", "fitted takes a linear model (linreg) or a generalized linear model (glm); for a "
     "logistic regression fit glm(t, \"y ~ x\", family = \"binomial\"), which gives logreg's numbers."),
    ("influence(3)", "influence takes a fitted linear model (linreg) or generalized linear model (glm), not a number."),
])
def test_bad_arguments_are_clear_errors(code, message):
    with pytest.raises(LaminaError) as e:
        run(code)
    assert e.value.message == message


def test_a_point_of_leverage_one_has_no_standardized_residual():
    # the second predictor is 1 at row 3 alone, so the fit passes through that row whatever its y
    _, it = run("X = [0, 1, 2, 3, 4, 5, 6; 0, 0, 0, 1, 0, 0, 0]'\n"
                "inf = influence(linreg(X, [1, 2.5, 2, 4, 5.5, 6, 7]))")
    inf = value(it, "inf")
    assert inf.get("leverage")[3] == pytest.approx(1.0)
    assert np.isnan(inf.get("std_resid")[3]) and np.isnan(inf.get("cooks")[3])
    assert not np.isnan(inf.get("std_resid")[[0, 1, 2, 4, 5, 6]]).any()


def test_lowess_is_r_s():
    x = np.array([1, 2, 2, 3, 5, 8, 8, 8, 9, 10, 12, 15.0])
    y = np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8.0])
    # R: lowess(x, y)$y and lowess(x, y, f = 0.3, iter = 0)$y
    np.testing.assert_allclose(lowess(x, y)[1], [2.194788282, 2.520889563, 2.520889563, 2.962835406, 3.993211624,
                                                4.958738414, 4.958738414, 4.958738414, 4.787766809, 4.600745233,
                                                5.755782578, 7.265351768], rtol=1e-9)
    np.testing.assert_allclose(lowess(x, y, 0.3, 0)[1], [3, 2.5, 2.5, 1, 5, 5.666666667, 5.666666667, 5.666666667,
                                                        5, 3, 5, 8], rtol=1e-9)
    # R: lowess(mtcars$wt, mtcars$mpg)$y[1:5]
    np.testing.assert_allclose(lowess(np.array(WT), np.array(MPG))[1][:5],
                               [31.50709268, 30.62374722, 28.72819769, 27.88053945, 26.18178727], rtol=1e-9)


def test_lowess_of_many_points_agrees_with_statsmodels():
    """Past delta = 1% of the range R's lowess interpolates: at 3,000 points it fits about 100
    lines, as statsmodels' lowess with the same delta does (which agrees with R to about 1e-6)."""
    sl = pytest.importorskip("statsmodels.nonparametric.smoothers_lowess")
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 10, 3000)
    y = np.sin(x) + rng.normal(scale=0.3, size=3000)
    for frac in (2 / 3, 0.1):
        expected = sl.lowess(y, x, frac=frac, it=3, delta=0.01 * np.ptp(x))
        xs, smooth = lowess(x, y, frac)
        np.testing.assert_allclose(xs, expected[:, 0])
        np.testing.assert_allclose(smooth, expected[:, 1], atol=1e-5)
    line = 3 * x - 2
    np.testing.assert_allclose(lowess(x, line)[1], np.sort(line), atol=1e-9)


def test_plot_of_a_fit_draws_r_s_four_panels(lam, tmp_path):
    path = tmp_path / "fit.png"
    lam.run(MTCARS + "plot(f3, title = \"mpg\")\nsavefig(path)", path=str(path))
    check_png(path)
    lam.run(MTCARS + "plot(f3)")
    fig = figures._state["fig"]
    assert [ax.get_title() for ax in fig.axes] == ["Residuals vs Fitted", "Q-Q Residuals", "Scale-Location",
                                                   "Residuals vs Leverage"]
    assert [ax.get_xlabel() for ax in fig.axes] == ["Fitted values", "Theoretical Quantiles", "Fitted values", "Leverage"]
    first = fig.axes[0]
    # the points are the residuals against the fitted values; the three largest are labelled by row
    points = first.collections[0].get_offsets()
    f3 = lam.interp.get("f3")
    np.testing.assert_allclose(points[:, 0], f3.fitted)
    np.testing.assert_allclose(points[:, 1], f3.residuals)
    labelled = sorted(int(t.get_text()) for t in first.texts)
    assert labelled == sorted(np.argsort(-np.abs(f3.residuals))[:3].tolist())
    figures.close()


def test_plot_of_a_fit_starts_a_figure_of_its_own(lam, capsys):
    lam.run(MTCARS + "plot([1, 2])\nplot(f1)")
    assert len(figures._state["fig"].axes) == 4
    assert "plot of a fitted model draws its four panels in a figure of their own, so the figure drawn " \
           "before it, never saved or shown, is dropped" in capsys.readouterr().err
    figures.close()
    assert lam.error(MTCARS + "plot(f1, xlabel = \"x\")").message == (
        "plot of a fitted model draws four panels, each with its own axis labels; it takes only title = \"...\" "
        "(the figure's title).")
    lam.run(MTCARS + "figure()\nplot(f1)")     # an empty figure is taken over without a word
    assert len(figures._state["fig"].axes) == 4 and capsys.readouterr().err == ""
    figures.close()


# -- GLMs --
from test_anova import GLMS  # noqa: E402


def test_a_glm_s_residuals_and_influence_are_r_s():
    _, it = run(GLMS + "d = residuals(q2)\np = residuals(q2, type = \"pearson\")\nw = residuals(q2, type = \"working\")\n"
                "r = residuals(q2, type = \"response\")\ninf = influence(q2)\nb = residuals(g1)\nbi = influence(g1)")
    q2 = value(it, "q2")
    # R: residuals(q2, "deviance" / "pearson" / "working"), rstandard, cooks.distance, hatvalues, rows 1-3
    np.testing.assert_allclose(value(it, "d")[:3], [-0.09219249459, -0.04308784418, -0.09546731472], rtol=1e-8)
    np.testing.assert_allclose(value(it, "p")[:3], [-0.08938137791, -0.04247122496, -0.09245379059], rtol=1e-8)
    np.testing.assert_allclose(value(it, "w")[:3], [-0.08938137791, -0.04247122496, -0.09245379059], rtol=1e-8)
    np.testing.assert_allclose(value(it, "r"), q2.y - q2.fitted)
    inf = value(it, "inf")
    np.testing.assert_allclose(inf.get("std_resid")[:3], [-0.8172308067, -0.3811926027, -0.8533995562], rtol=1e-7)
    np.testing.assert_allclose(inf.get("cooks")[:3], [0.009694299618, 0.001985678565, 0.01458451916], rtol=1e-6)
    np.testing.assert_allclose(inf.get("leverage")[:3], [0.04427691482, 0.04048668656, 0.06020097242], rtol=1e-7)
    # R: glm(am ~ wt, binomial, mtcars): residuals (deviance), rstandard, cooks.distance, hatvalues
    np.testing.assert_allclose(value(it, "b")[:3], [0.6353853984, 0.9848344331, 0.3598458390], rtol=1e-7)
    bi = value(it, "bi")
    np.testing.assert_allclose(bi.get("std_resid")[:3], [0.6795581633, 1.0428462929, 0.3785303791], rtol=1e-6)
    np.testing.assert_allclose(bi.get("cooks")[:3], [0.018405615691, 0.042434911096, 0.003942789343], rtol=1e-6)
    np.testing.assert_allclose(bi.get("leverage")[:3], [0.12577908459, 0.10816226129, 0.09628499959], rtol=1e-6)


def test_a_glm_s_residuals_equal_statsmodels():
    """statsmodels' Gamma family computes the residuals at Lamina's fitted means (the two IRLS stop
    by different rules, so their own fits differ in the fifth digit). A log link's working weights
    are mu'(eta)^2 / V(mu) = mu^2 / mu^2 = 1 for the Gamma family, so its leverage is that of the
    least-squares hat matrix of X."""
    sm = pytest.importorskip("statsmodels.api")
    rng = np.random.default_rng(9)
    X = rng.uniform(0, 2, size=(50, 2))
    y = rng.gamma(3.0, np.exp(0.5 + X @ [0.4, -0.2]) / 3.0)
    family = sm.families.Gamma(sm.families.links.Log())
    _, it = run(f"g = glm({mat(X)}, {y.tolist()}, family = \"gamma\", link = \"log\")\n"
                "d = residuals(g)\np = residuals(g, type = \"pearson\")\nw = residuals(g, type = \"working\")\n"
                "h = influence(g).leverage")
    mu = value(it, "g").fitted
    np.testing.assert_allclose(value(it, "d"), family.resid_dev(y, mu), rtol=1e-12)   # signed
    np.testing.assert_allclose(value(it, "p"), (y - mu) / np.sqrt(family.variance(mu)), rtol=1e-12)
    np.testing.assert_allclose(value(it, "w"), (y - mu) * family.link.deriv(mu), rtol=1e-12)
    A = sm.add_constant(X)
    np.testing.assert_allclose(value(it, "h"), np.diag(A @ np.linalg.solve(A.T @ A, A.T)), rtol=1e-10)


def test_plot_of_a_glm_draws_r_s_glm_panels(lam):
    lam.run(GLMS + "plot(g2)")
    fig = figures._state["fig"]
    assert [ax.get_xlabel() for ax in fig.axes] == ["Predicted values", "Theoretical Quantiles", "Predicted values", "Leverage"]
    assert [ax.get_ylabel() for ax in fig.axes] == ["Residuals", "Std. deviance resid.", "\u221a|Std. Pearson resid.|",
                                                    "Std. Pearson resid."]
    g2 = lam.interp.get("g2")
    np.testing.assert_allclose(fig.axes[0].collections[0].get_offsets()[:, 0], g2.linear_predictor)
    figures.close()
