"""linreg's F line gives its p-value as R's print.summary.lm does: 4 digits, bound < 2.2e-16."""
from scipy import stats


def test_the_f_line_p_value_has_four_digits_and_r_bound(lam):
    out = lam.run("print(linreg([1, 0; 2, 1; 3, 0; 4, 1; 5, 0; 6, 1], [3.1, 6.9, 7.2, 10.8, 11.1, 15.2]))")
    f = float(out[-1].split("F-statistic: ")[1].split(" ")[0])
    assert f"{stats.f.sf(1873.4, 2, 3):.4g}" == "2.263e-05"
    assert out[-1].startswith("F-statistic: 1873 on 2 and 3 DF") and f == 1873
    assert out[-1].endswith("p-value: 2.263e-05")
    out = lam.run("x = range(100)\nprint(linreg(x, x * 2 + sin(x) * 0.01))")
    assert out[-1].endswith("DF, p-value: < 2.2e-16")
