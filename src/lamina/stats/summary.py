"""Text layout for tables, model summaries and other readable printouts."""
from __future__ import annotations

import html
import math

import numpy as np

from ..errors import display_width
from ..printing import format_number, html_table


def short(x: float, digits: int = 6) -> str:
    """A number rounded to `digits` significant digits, printed the Lamina way."""
    x = float(x)
    if x != x or x in (float("inf"), float("-inf")) or x == 0:
        return format_number(x)
    rounded = float(f"{x:.{digits}g}")
    if rounded == int(rounded) and abs(rounded) >= 10 ** digits:    # 9.0072e+15, not 9007200000000000.0
        return f"{rounded:.{digits}g}"
    return format_number(rounded)


def joint(values, digits: int = 7) -> list[str]:
    """Numbers printed side by side as R's format(x, digits) prints a vector (its formatReal):
    each needs at most `digits` significant digits; all share fixed notation with the decimals
    the most demanding one needs (R prints the interval 1.4680963, 0.3128569 as "1.4680963
    0.3128569", not "1.468096 0.3128569"), or, where that is wider, all share scientific
    notation with the mantissa digits the most demanding one needs ("3.88e-09 3.89e-04")."""
    numbers = [float(v) + 0.0 for v in values]          # + 0.0: -0.0 prints as 0, as in R
    finite = [x for x in numbers if math.isfinite(x)]
    if not finite:
        return [format_number(x) for x in numbers]
    neg = any(x < 0 for x in finite)
    right = max_sleft = max_sig = max_exp = 0
    min_exp = None
    for x in finite:
        sig, exponent, widens = _significant(x, digits)
        left = exponent + 1 - widens
        right = max(right, sig - left)
        max_sleft = max(max_sleft, (x < 0) + max(left, 1))
        max_sig = max(max_sig, sig)
        max_exp = max(max_exp, exponent)
        min_exp = exponent if min_exp is None else min(min_exp, exponent)
    fixed_width = max_sleft + right + (right > 0)
    mantissa = max_sig - 1
    exponent_digits = 2 if max_exp >= 100 or min_exp <= -99 else 1
    if fixed_width <= neg + (mantissa > 0) + mantissa + 4 + exponent_digits:
        shown = [f"{x:.{right}f}" if math.isfinite(x) else format_number(x) for x in numbers]
    else:
        shown = [f"{x:.{mantissa}e}" if math.isfinite(x) else format_number(x) for x in numbers]
    return shown


def _significant(x: float, digits: int) -> tuple[int, int, bool]:
    """(the significant digits x needs, at most `digits`; its power of ten once rounded to them;
    whether that rounding carried into a new leading digit, as 99999.7 to 5 digits does), as
    R's scientific() finds them for formatReal."""
    if x == 0:
        return 1, 0, False
    mantissa, _, power = f"{abs(x):.{min(digits, 15) - 1}e}".partition("e")
    exponent = int(power)
    sig = len(mantissa.replace(".", "").rstrip("0")) or 1
    return sig, exponent, 0 < exponent <= 22 and abs(x) < 10.0 ** exponent


def zapsmall(values, digits: int) -> list[float]:
    """R's zapsmall: the numbers rounded to `digits` significant digits of the largest, so that
    one many orders below it (an exact fit's residual, 1e-17) shows as 0."""
    numbers = [float(v) for v in values]
    largest = max((abs(x) for x in numbers if math.isfinite(x)), default=0.0)
    if largest == 0:
        return numbers
    places = max(0, digits - math.ceil(math.log10(largest)))
    return [round(denoised(x), places) if math.isfinite(x) else x for x in numbers]


def denoised(x: float) -> float:
    """x to 12 significant digits, before it is rounded to fewer: a number whose exact value is a
    short decimal halfway between two printed ones (the third quartile of residuals of data given
    to two decimals, 0.24225) then prints the same whatever the last bits of the arithmetic that
    made it, which differ between BLAS kernels (0.24225000000000002 or 0.24224999999999997)."""
    return float(f"{x:.12g}")


def layout(header: list[str], rows: list[list[str]], left: int = 1, right: list | None = None) -> list[str]:
    """Columns padded to one width each: the first `left` columns flush left and the rest
    flush right, or, when `right` is given, column j flush right where right[j] is true."""
    if right is None:
        right = [j >= left for j in range(len(header))]
    widths = [max(display_width(row[j]) for row in [header] + rows) for j in range(len(header))]

    def padded(c: str, w: int, flush_right: bool) -> str:
        pad = " " * (w - display_width(c))
        return pad + c if flush_right else c + pad
    return ["  ".join(padded(c, w, r) for c, w, r in zip(row, widths, right)).rstrip()
            for row in [header] + rows]


P_EPS = 2.220446049250313e-16       # R's .Machine$double.eps, the bound format.pval shows


def p_values(ps, digits: int = 3) -> list[str]:
    """p-values as R's format.pval(p, digits) writes a column of them: those from 0.0001 up
    formatted together, the smaller ones together (in scientific notation where that is
    narrower), and those below 2.2e-16 as that bound: "<2e-16" beside short entries, "< 2e-16"
    beside long ones."""
    ps = [float(p) for p in ps]
    shown = ["NaN" if p != p else "" for p in ps]
    rest = [i for i, p in enumerate(ps) if p == p and p >= P_EPS]
    for group in ([i for i in rest if _fixed_p(ps[i], digits)], [i for i in rest if not _fixed_p(ps[i], digits)]):
        for i, text in zip(group, joint([ps[i] for i in group], digits)):
            shown[i] = text
    tiny = [i for i, p in enumerate(ps) if p == p and p < P_EPS]
    if tiny:
        eps_digits = max(1, digits - 2)
        if rest:
            widest = max(len(shown[i]) for i in rest)
            if eps_digits > 1 and eps_digits + 6 > widest:
                eps_digits = max(1, widest - 7)
            sep = "" if eps_digits == 1 and widest <= 6 else " "
        else:
            sep = "" if eps_digits == 1 else " "
        bound = "<" + sep + joint([P_EPS], eps_digits)[0]
        for i in tiny:
            shown[i] = bound
    return shown


def _fixed_p(p: float, digits: int) -> bool:
    """Whether format.pval puts p in the group it formats in fixed notation (from 1e-4 up, or
    from 1e-3 up when digits is 1)."""
    exponent = math.floor(math.log10(p))
    return exponent >= -3 or (exponent == -4 and digits > 1)


def p_value4(p: float) -> str:
    """A test's or linreg's F line's p-value, as R's format.pval(p, digits = 4) writes it: 4 digits,
    bound 2.2e-16."""
    return p_values([p], 4)[0]


def stars(p: float) -> str:
    if p != p:
        return ""
    return "***" if p < 0.001 else "**" if p < 0.01 else "*" if p < 0.05 else "." if p < 0.1 else ""


def coefficient_table(terms, coef, se, stat, p, name: str, digits: int = 4) -> tuple[list[str], list[list[str]]]:
    """The header and rows of a coefficient table (`name` is t or z), with the numbers R's
    printCoefmat(digits = 4) prints for summary(lm) and summary(glm): estimates and standard
    errors rounded together, to as many decimals as the smallest of them needs for `digits`
    significant digits, then formatted as one vector; the statistics rounded to digits - 1
    decimals and formatted as one; the p-values by format.pval to digits - 1."""
    values = [float(v) for v in [*coef, *se]]
    nonzero = [abs(v) for v in values if math.isfinite(v) and v != 0]
    smallest = 1 + (math.floor(math.log10(min(nonzero))) if nonzero else 0)
    places = max(1, digits - smallest)
    cs = joint([round(v, places) if math.isfinite(v) else v for v in values], digits)
    # A value that is not 0 but rounds to it is shown by itself, to digits - 1 significant digits.
    cs = [joint([v], max(1, digits - 1))[0] if v != 0 and math.isfinite(v) and float(text) == 0 else text
          for v, text in zip(values, cs)]
    test_digits = max(1, min(5, digits - 1))           # R's dig.tst
    tests = joint([round(float(v), test_digits) if math.isfinite(v) else v for v in stat], digits)
    n = len(terms)
    rows = [[term, cs[i], cs[n + i], tests[i], pv_text, stars(pv)]
            for i, (term, pv, pv_text) in enumerate(zip(terms, p, p_values(p, test_digits)))]
    return ["", "Estimate", "Std. Error", f"{name} value", f"Pr(>|{name}|)", ""], rows


SIGNIF = "Signif. codes: 0 '***' 0.001 '**' 0.01 '*' 0.05 '.' 0.1 ' ' 1"
RESIDUALS = ["Min", "1Q", "Median", "3Q", "Max"]


class CoefficientReport:
    """describe() and html() of a fit that prints as R's summary: a head line, the coefficient
    table and footer lines, from the fit's `_report()` (head, header, rows, footer)."""

    def describe(self) -> str:
        head, header, rows, foot = self._report()
        return "\n".join([head, "", "Coefficients:"] + ["  " + s for s in layout(header, rows)] + foot)

    def html(self) -> str:
        head, header, rows, foot = self._report()
        return html_table(header, rows, [False] + [True] * 4 + [False], caption=head,
                          footer=[s for s in foot if s])


def _linreg_parts(m) -> tuple:
    preds = m.terms[1:] if m.has_intercept else m.terms
    formula = m.formula.formula if m.formula is not None else \
        f"{m.response} ~ {' + '.join(preds) or ('1' if m.has_intercept else '0')}"
    title = f"Linear regression: {formula}  (n = {m.fitted.size})"
    # As print(summary(lm)): quantiles zapped to 5 digits of the largest, printed to 4 together.
    quantiles = joint(zapsmall(np.quantile(m.residuals, [0, 0.25, 0.5, 0.75, 1]), 5), 4)
    header, rows = coefficient_table(m.terms, m.coef, m.se, m.t, m.p, "t")
    footer = [f"Residual standard error: {short(m.sigma, 4)} on {int(m.df)} degrees of freedom",
              f"Multiple R-squared: {short(m.r2, 4)}, Adjusted R-squared: {short(m.adj_r2, 4)}"]
    if m.fstat == m.fstat:
        footer.append(f"F-statistic: {short(m.fstat, 4)} on {len(preds)} and {int(m.df)} DF, "
                      f"p-value: {p_value4(m.f_p)}")
    return title, quantiles, header, rows, footer


def linreg_summary(m) -> str:
    title, quantiles, header, rows, footer = _linreg_parts(m)
    lines = [title, "", "Residuals:"]
    lines += ["  " + s for s in layout(RESIDUALS, [quantiles], left=0)]
    lines += ["", "Coefficients:"]
    lines += ["  " + s for s in layout(header, rows)]
    return "\n".join(lines + ["---", SIGNIF, ""] + footer)


def linreg_html(m) -> str:
    title, quantiles, header, rows, footer = _linreg_parts(m)
    return (f"<p><b>{html.escape(title)}</b></p>"
            + html_table(RESIDUALS, [quantiles], [True] * 5, caption="Residuals")
            + html_table(header, rows, [False] + [True] * 4 + [False], caption="Coefficients",
                         footer=[SIGNIF] + footer))
