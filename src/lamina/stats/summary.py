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
    """Numbers printed side by side as R's format() prints a vector: each rounded to `digits`
    significant digits, all with the decimals the most demanding one needs (R prints the interval
    1.4680963, 0.3128569 as "1.4680963 0.3128569", not "1.468096 0.3128569"). Where that would
    need more than 15 decimals, or a number is too large for fixed notation, each is short()."""
    numbers = [float(v) for v in values]
    decimals = 0
    for x in numbers:
        if not math.isfinite(x) or x == 0:
            continue
        rounded = float(f"{x:.{digits}g}")
        if abs(rounded) >= 10 ** digits:
            return [short(v, digits) for v in numbers]
        text = f"{abs(rounded):.{max(0, digits - 1 - math.floor(math.log10(abs(rounded))))}f}"
        decimals = max(decimals, len(text.partition(".")[2].rstrip("0")))
    if decimals > 15:
        return [short(v, digits) for v in numbers]
    return [f"{x + 0.0:.{decimals}f}" if math.isfinite(x) else format_number(x) for x in numbers]


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


def p_value(p: float) -> str:
    """A coefficient table's p-value, as R's printCoefmat writes it: 3 digits, bound 2e-16."""
    if p != p:
        return "NaN"
    return "< 2e-16" if p < 2e-16 else f"{p:.3g}"


def p_value4(p: float) -> str:
    """A test's or linreg's F line's p-value, as R's format.pval(p, digits = 4) writes it: 4 digits,
    bound 2.2e-16."""
    if p != p:
        return "NaN"
    return "< 2.2e-16" if p < 2.2e-16 else short(p, 4)


def stars(p: float) -> str:
    if p != p:
        return ""
    return "***" if p < 0.001 else "**" if p < 0.01 else "*" if p < 0.05 else "." if p < 0.1 else ""


def _statistic(v: float) -> str:
    """A t or z value to 3 decimals as R prints it ("0.000", not "-0.000"), and a huge one (an exact
    fit's) to 4 significant digits: 2.077e+15, not 2076616961594042.500."""
    if v != v or abs(v) >= 1e6:
        return short(v, 4)
    return f"{round(v, 3) + 0.0:.3f}"


def coefficient_table(terms, coef, se, stat, p, name: str) -> tuple[list[str], list[list[str]]]:
    """The header and rows of a coefficient table, as R prints it (`name` is t or z)."""
    rows = [[term, short(b, 4), short(s, 4), _statistic(v), p_value(pv), stars(pv)]
            for term, b, s, v, pv in zip(terms, coef, se, stat, p)]
    return ["", "Estimate", "Std. Error", f"{name} value", f"Pr(>|{name}|)", ""], rows


SIGNIF = "Signif. codes: 0 '***' 0.001 '**' 0.01 '*' 0.05 '.' 0.1 ' ' 1"
RESIDUALS = ["Min", "1Q", "Median", "3Q", "Max"]


def _linreg_parts(m) -> tuple:
    preds = m.terms[1:] if m.has_intercept else m.terms
    title = f"Linear regression: {m.response} ~ {' + '.join(preds) or ('1' if m.has_intercept else '0')}  (n = {m.fitted.size})"
    quantiles = [short(v, 4) for v in np.quantile(m.residuals, [0, 0.25, 0.5, 0.75, 1])]
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
