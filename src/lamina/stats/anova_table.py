"""The table anova returns, printed as R's print.anova prints one (printCoefmat with digits 5):
sums of squares and deviances zapped to 5 digits (R's zapsmall) and formatted together, degrees of freedom as
they are, test statistics rounded to 4 decimals, p-values by format.pval to 4 digits, nothing
where R has NA, and stars (with their legend) when any p < 0.1."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..printing import html_table
from ..values import LibObject
from .summary import SIGNIF, denoised, joint, layout, p_values, stars

DIGITS = 5                          # print.anova's max(getOption("digits") - 2, 3)


@dataclass(frozen=True, eq=False)
class AnovaTable(LibObject):
    heading: list               # the lines above the table
    row_names: list
    headers: list               # R's column names, in order
    fields: list                # the field each column is read as (df, sum_sq, F, p ...)
    columns: list               # one float vector per column, NaN where R prints nothing
    type_name = "anova table"

    def field_names(self) -> list[str]:
        return ["rows"] + list(self.fields)

    def get(self, name: str):
        if name == "rows":
            return list(self.row_names)
        if name in self.fields:
            return self.columns[self.fields.index(name)].copy()
        return super().get(name)

    def describe(self) -> str:
        header, rows, right, legend = self._cells()
        lines = list(self.heading) + layout(header, rows, right=right)
        return "\n".join(lines + (["---", SIGNIF] if legend else []))

    def html(self) -> str:
        header, rows, right, legend = self._cells()
        return html_table(header, rows, right, caption="\n".join(self.heading).strip(),
                          footer=[SIGNIF] if legend else [])

    def _cells(self) -> tuple:
        """R's printCoefmat of the table: the header, the rows of text, which columns are flush
        right (the numbers) and whether stars show."""
        shown = [_column(h, c) for h, c in zip(self.headers, self.columns)]
        rows = [[name] + [col[i] for col in shown] for i, name in enumerate(self.row_names)]
        header = [""] + list(self.headers)
        p = self.columns[-1] if self.headers[-1].startswith("Pr(") else None
        legend = p is not None and bool(np.any(p[~np.isnan(p)] < 0.1))
        if legend:
            header.append("")
            for row, pv in zip(rows, p):
                row.append(stars(pv))
        return header, rows, [False] + [True] * len(self.headers) + [False] * legend, legend


def _column(header: str, values: np.ndarray) -> list[str]:
    """One column as print.anova formats it; NaN (R's NA) prints as nothing."""
    there = ~np.isnan(values)
    out = [""] * values.size
    if not there.any():
        return out
    kept = values[there]
    if header.startswith("Pr("):
        texts = p_values(kept, DIGITS - 1)
    elif header in ("F", "Chisq") or header.endswith(" value"):
        texts = joint(np.round(kept, DIGITS - 1), DIGITS)
    else:
        if not header.endswith("Df"):
            kept = zapsmall(kept, DIGITS)
        texts = joint(kept, DIGITS)
        # printCoefmat: a number that is not 0 but formats as 0 is shown alone, to 4 digits
        texts = [joint([v], DIGITS - 1)[0] if v != 0 and float(t) == 0 else t for v, t in zip(kept, texts)]
    for i, text in zip(np.flatnonzero(there), texts):
        out[i] = text
    return out


def zapsmall(x: np.ndarray, digits: int) -> np.ndarray:
    """R's zapsmall: x rounded to digits - log10(max |x|) decimals, a number R's round() takes to
    the nearest whole one (floor(d + 0.5)): 167.3 to 5 digits keeps 3 decimals (5 - 2.22 = 2.78),
    10105.7 keeps 1 (0.995). summary.zapsmall rounds log10 up instead, which keeps one decimal
    fewer when the largest number's leading digits are below 3.16 (167.3 there keeps 2)."""
    largest = float(np.max(np.abs(x[np.isfinite(x)]), initial=0.0))
    if largest == 0:
        return x
    places = max(0, int(np.floor(digits - np.log10(largest) + 0.5)))
    return np.round([denoised(v) if np.isfinite(v) else v for v in x], places)
