"""The result of a hypothesis test (t_test, chisq_test, corr_test, and the rank and count tests),
printed as R prints an htest.

    Welch Two Sample t-test

    data: x (10 values) and y (12 values)
    t = -2.1763, df = 19.647, p-value = 0.04189
    alternative hypothesis: true difference in means is not equal to 0
    95 percent confidence interval:
      -2.3961  -0.0505
    sample estimates:
      mean of x  mean of y
          4.125      5.348

The statistic and df are shown to 5 significant digits, the p-value to 4 and the interval and
estimates to 7, each pair with the decimals the more demanding number needs, as R's print.htest
does (its layout, two spaces apart, is Lamina's). A test without a statistic (Fisher's exact
test) or without degrees of freedom (Wilcoxon's, Shapiro-Wilk's) leaves that part out of the line
and out of its fields, as R leaves it out; a test with a direction but no null value (the k-sample
proportions test) says only its direction: "alternative hypothesis: two-sided".
"""
from __future__ import annotations

import html
from dataclasses import dataclass, field

import numpy as np

from ..printing import html_table
from ..values import LibObject
from .summary import joint, layout, p_value4, short

ALTERNATIVES = {"two-sided": "not equal to", "less": "less than", "greater": "greater than"}


def p_text(p: float) -> str:
    """"p-value = 0.04189", or "p-value < 2.2e-16" for a bound, as R's format.pval prints it."""
    text = p_value4(p)
    return f"p-value {text}" if text.startswith("<") else f"p-value = {text}"


@dataclass(frozen=True, eq=False)
class TestResult(LibObject):
    method: str
    data: str                   # what was tested, in words: "x (10 values) and y (12 values)"
    statistic_name: str         # "t", "X-squared"
    statistic: float | None     # None: the test has none (Fisher's exact test)
    df: float | None            # None: its distribution has no degrees of freedom (Wilcoxon's V)
    p: float
    alternative: str | None     # None: the test has no direction (chi-squared)
    null: str = ""              # "true difference in means", "true correlation"; "": no null value
    null_value: float = 0.0
    ci: np.ndarray | None = None
    conf_level: float = 0.95
    estimate: float | np.ndarray | None = None
    estimate_names: tuple = ()
    extra: dict = field(default_factory=dict)     # further fields: expected, observed, stderr, ...
    type_name = "test result"

    def field_names(self) -> list[str]:
        names = [name for name in ("statistic", "df") if getattr(self, name) is not None] + ["p"]
        names += ["ci"] if self.ci is not None else []
        names += ["estimate"] if self.estimate is not None else []
        return names + list(self.extra) + ["method"] + (["alternative"] if self.alternative else [])

    def get(self, name: str):
        if name in self.extra:
            value = self.extra[name]
        else:
            value = super().get(name)
        return value.copy() if isinstance(value, np.ndarray) else value

    # -- the report --------------------------------------------------------------------
    def _lines(self) -> tuple[str, list[str], list[str], list[str]]:
        """(the line of the statistic, the lines about the hypothesis and interval, the estimate
        names, the estimates)."""
        parts = [f"{self.statistic_name} = {joint([self.statistic], 5)[0]}"] if self.statistic is not None else []
        parts += [f"df = {joint([self.df], 5)[0]}"] if self.df is not None else []
        stat = ", ".join(parts + [p_text(self.p)])
        about = []
        if self.alternative and self.null:
            about.append(f"alternative hypothesis: {self.null} is {ALTERNATIVES[self.alternative]} "
                         f"{short(self.null_value, 7)}")
        elif self.alternative:
            about.append(f"alternative hypothesis: {self.alternative}")
        if self.ci is not None and not np.isnan(self.ci).all():
            about.append(f"{short(100 * self.conf_level, 7)} percent confidence interval:")
            about.append("  " + "  ".join(joint(self.ci, 7)))
        values = np.atleast_1d(self.estimate) if self.estimate is not None else np.zeros(0)
        return stat, about, list(self.estimate_names), joint(values, 7)

    def describe(self) -> str:
        stat, about, names, values = self._lines()
        lines = [self.method, "", f"data: {self.data}", stat] + about
        if names:
            lines.append("sample estimates:")
            lines += ["  " + s for s in layout(names, [values], left=0)]
        return "\n".join(lines)

    def html(self) -> str:
        stat, about, names, values = self._lines()
        head = [f"<p><b>{html.escape(self.method)}</b></p>",
                f"<p>data: {html.escape(self.data)}<br>{html.escape(stat)}</p>"]
        if about:
            head.append("<p>" + "<br>".join(html.escape(s) for s in about) + "</p>")
        table = html_table(names, [values], [True] * len(names), caption="sample estimates") if names else ""
        return "".join(head) + table
