"""Wilkinson formulas ("y ~ x * g + log(z)") over a table, through formulaic, named as R names them.

`design(table, text, fn)` reads a formula and gives a `Design`: the response vector, the model
matrix, R's coefficient names (`(Intercept)`, `gB`, `x:gB`, `log(x)`, `I(x^2)`, `poly(x, 2)1`),
R's term labels with each column's term (R's `assign`), and formulaic's ModelSpec of the right
side, which `new_matrix` uses to build the same columns for new rows. formulaic (and pandas under
it) loads only here, when a program gives a formula.

Lamina writes R's `^` inside a function call (`I(x ^ 2)`, `log(x^2)`); formulaic evaluates what is
inside a call as Python, so it is handed `**` there, and R's names write it back. Text columns are
factors with their values in sorted order, category columns with their levels in the category's
order, the first present one the reference (treatment coding); `factor(x)` makes a factor of
numbers as R's does, its levels the sorted values written as R writes them ("4", "6", "8").

A formula is Python to formulaic, evaluated in the program's process: before it is, every
expression in it is checked to be made of column names, constants, arithmetic and the functions
of FUNCTIONS alone (no attribute, no subscript, no other name), so that a formula cannot reach
what a program under --sandbox may not (numpy's file functions, Python's builtins).
"""
from __future__ import annotations

import ast
import itertools
import re
import warnings
from dataclasses import dataclass

import numpy as np

from . import columns as C
from ..errors import LaminaError
from ..values import format_number

# The functions a formula may call; formulaic's own (log, exp, I, C, poly, ...) plus those added
# to its context in _context.
FUNCTIONS = ("I", "C", "Treatment", "factor", "poly", "log", "log2", "log10", "log1p", "exp",
             "expm1", "sqrt", "abs", "sin", "cos", "tan", "center", "scale")
_OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow, ast.Mod, ast.FloorDiv, ast.USub,
              ast.UAdd, ast.Not, ast.Lt, ast.Gt, ast.LtE, ast.GtE, ast.Eq, ast.NotEq, ast.Load)
_ANSI = re.compile(r"\x1b\[[0-9;]*m|⧛|⧚")


@dataclass(frozen=True, eq=False)
class Design:
    formula: str            # the formula as the program wrote it
    response: str           # R's name of the response ("mpg", "log(y)")
    y: np.ndarray
    X: np.ndarray           # the model matrix, its intercept column first when it has one
    columns: list           # R's coefficient names, one per column of X
    intercept: bool
    terms: list             # R's term labels ("wt", "factor(cyl)", "wt:factor(cyl)"), no intercept
    assign: list            # per column of X: 0 for the intercept, j for terms[j - 1] (R's assign)
    spec: object            # formulaic's ModelSpec of the right side: new_matrix rebuilds X with it
    order: list             # X's columns among the spec's (an interaction's columns in R's order)
    variables: list         # the table's columns the right side reads


def is_formula(x) -> bool:
    return isinstance(x, str) and "~" in x


def design(table, text: str, fn: str) -> Design:
    """The Design of formula `text` over `table` for builtin `fn` (named in every message)."""
    from formulaic import model_matrix
    from formulaic.errors import FormulaicError

    formula = _parsed(text, table, fn)
    names = _checked_names(formula, text, table, fn)
    frame = _frame(table, names, fn)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            matrices = model_matrix(formula, frame, context=_context(), na_action="ignore")
    except (FormulaicError, ValueError, TypeError, ArithmeticError, KeyError) as e:
        raise LaminaError("ValueError", f"{fn} could not evaluate the formula \"{text}\": "
                          f"{_plain(e)}") from None
    lhs, rhs = matrices.lhs, matrices.rhs
    _one_level_factors(rhs.model_spec, text, fn)
    if lhs.shape[1] != 1:
        raise LaminaError("TypeError", f"{fn}'s response {formula.lhs} holds text; the response must "
                          f"be one numeric column.")
    spec = rhs.model_spec
    if not rhs.shape[1]:
        raise LaminaError("ValueError", f"The formula \"{text}\" has no terms (not even the intercept), "
                          f"so {fn} has nothing to fit; write \"{lhs.columns[0]} ~ 1\" for the mean alone.")
    order, columns, terms, assign = _r_layout(spec, _variable_order(text, table))
    X = _finite(_columns_in_order(rhs, order), columns, text, fn)
    y = _finite(lhs.to_numpy(dtype=np.float64)[:, 0], [r_name(lhs.columns[0])], text, fn)
    return Design(text, r_name(lhs.columns[0]), y, X, columns, "Intercept" in rhs.columns,
                  terms, assign, spec, order, sorted(spec.required_variables & set(table.names)))


def new_matrix(d: Design, table, fn: str) -> np.ndarray:
    """The model matrix of new rows (a table with the columns the formula reads), built as the
    fit's was: the same levels, the same polynomial and scaling constants."""
    missing = [v for v in d.variables if v not in table.names]
    if missing:
        raise LaminaError("ValueError", f"{fn}'s new data has no column {', '.join(map(repr, missing))}, "
                          f"which the formula \"{d.formula}\" reads.")
    frame = _frame(table, d.variables, fn)
    for name, (kind, state) in d.spec.encoder_state.items():
        if name in frame and kind.value == "categorical":
            unseen = sorted(set(frame[name].astype(str)) - set(map(str, state["categories"])))
            if unseen:
                raise LaminaError("ValueError", f"{fn}'s new data has {name} = {', '.join(map(repr, unseen))}, "
                                  f"a level the fit never saw (its levels: "
                                  f"{', '.join(map(str, state['categories']))}).")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        X = d.spec.get_model_matrix(frame, context=_context(), na_action="ignore")
    for w in caught:
        found = re.search(r"categories outside.*?: \{(.*?)\}", str(w.message))
        if found:       # a factor of an expression (factor(cyl)): formulaic names the values alone
            made = [(r_name(name), state["categories"]) for name, (kind, state) in d.spec.encoder_state.items()
                    if kind.value == "categorical" and name not in frame]
            where = f"{made[0][0]} (levels: {', '.join(map(str, made[0][1]))})" if len(made) == 1 else \
                f"a factor of the formula \"{d.formula}\""
            raise LaminaError("ValueError", f"{fn}'s new data gives {found.group(1)}, a level the fit never "
                              f"saw, in {where}.")
    return _finite(_columns_in_order(X, d.order), d.columns, d.formula, fn)


def _columns_in_order(frame, order) -> np.ndarray:
    """A model matrix's columns in R's order, as one float64 array in Fortran order (column by
    column, as the least squares takes it), made in one copy: pandas' to_numpy and then a
    reordering made two of the whole matrix (800 MB each at 10^6 rows and 103 columns)."""
    out = np.empty((frame.shape[0], len(order)), order="F")
    for j, k in enumerate(order):
        out[:, j] = frame.iloc[:, k].to_numpy(dtype=np.float64)
    return out


# -- reading the formula -----------------------------------------------------------------------
def _parsed(text: str, table, fn: str):
    from formulaic import Formula
    from formulaic.errors import FormulaicError

    if not isinstance(text, str) or "~" not in text:
        raise LaminaError("ValueError", f"{fn} needs a formula with the response left of ~ and the "
                          f"predictors right of it, as \"y ~ x + g\", but got \"{text}\".")
    left = text.split("~", 1)[0]
    if not left.strip():
        raise LaminaError("ValueError", f"The formula \"{text}\" has no response left of ~; {fn} "
                          f"needs one, as \"y ~ x + g\".")
    try:
        # "." is every column not in the response, as in R
        formula = Formula(_python_powers(text), _context={"__formulaic_variables_available__": table.names})
    except (FormulaicError, SyntaxError, ValueError) as e:
        raise LaminaError("ValueError", f"{fn} cannot read the formula \"{text}\": {_plain(e)}") from None
    if not hasattr(formula, "lhs") or len(list(formula.lhs)) != 1:
        raise LaminaError("ValueError", f"The formula \"{text}\" must have one response left of ~ "
                          f"(a column, or an expression of columns such as log(y)).")
    return formula


def _python_powers(text: str) -> str:
    """R's ^ as Python's ** wherever it is inside a function call (Python code to formulaic);
    outside calls ^ is the formula's own operator ((a + b)^2: every interaction up to two)."""
    out, stack, quote = [], [], None
    for i, ch in enumerate(text):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch == "(":
            before = text[:i].rstrip()
            stack.append(bool(before) and (before[-1].isalnum() or before[-1] in "._"))
        elif ch == ")" and stack:
            stack.pop()
        elif ch == "^" and any(stack):
            out.append("**")
            continue
        out.append(ch)
    return "".join(out)


def _checked_names(formula, text: str, table, fn: str) -> list[str]:
    """The table's columns the formula reads, after checking that every name in it is a column or
    a function of FUNCTIONS, and every expression made only of what the module's docstring allows."""
    columns = set(table.names)
    read = set()
    for side in (formula.lhs, formula.rhs):
        for term in side:
            for factor in term.factors:
                expr = str(factor.expr)
                if factor.eval_method.value == "literal":
                    continue
                if factor.eval_method.value == "lookup":
                    read.add(_column(expr, columns, text, fn))
                    continue
                read |= _expression_names(expr, columns, text, fn)
    return sorted(read)


def _expression_names(expr: str, columns: set, text: str, fn: str) -> set:
    backticked = {}

    def hold(m):
        backticked[f"_q{len(backticked)}"] = m.group(1)
        return f"_q{len(backticked) - 1}"
    try:
        tree = ast.parse(re.sub(r"`([^`]*)`", hold, expr), mode="eval")
    except SyntaxError:
        raise LaminaError("ValueError", f"{fn} cannot read \"{expr}\" in the formula \"{text}\".") from None
    read = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name):
                raise LaminaError("ValueError", f"The formula \"{text}\" calls {ast.unparse(node.func)}; a "
                                  f"formula may call only a function by name: {', '.join(FUNCTIONS)}.")
            if node.func.id not in FUNCTIONS:
                raise LaminaError("NameError", f"The formula \"{text}\" calls {node.func.id}(), which is no "
                                  f"function a formula knows; it knows {', '.join(FUNCTIONS)}.")
        elif isinstance(node, ast.Name):
            if node.id in FUNCTIONS:
                continue
            read.add(_column(backticked.get(node.id, node.id), columns, text, fn))
        elif not isinstance(node, (ast.Expression, ast.Constant, ast.BinOp, ast.UnaryOp, ast.Compare,
                                   ast.keyword, ast.List, ast.Tuple) + _OPERATORS):
            raise LaminaError("ValueError", f"The formula \"{text}\" has \"{expr}\", which uses "
                              f"{type(node).__name__.lower()}; a formula's expressions hold columns, "
                              f"numbers, text, arithmetic and calls of {', '.join(FUNCTIONS)}.")
    return read


def _column(name: str, columns: set, text: str, fn: str) -> str:
    if name not in columns:
        raise LaminaError("NameError", f"The formula \"{text}\" names '{name}', which is no column of the "
                          f"table (its columns are {', '.join(sorted(columns)) or '(none)'}).")
    return name


# -- the data formulaic reads -------------------------------------------------------------------
def _frame(table, names: list[str], fn: str):
    """A pandas DataFrame of the columns named: numbers as they are, text as strings, a category
    as a pandas Categorical of its present levels in its order."""
    import pandas as pd

    data = {}
    for n in names:
        c = table.columns[n]
        kind = C.kind(c)
        if kind in ("date", "datetime"):
            raise LaminaError("TypeError", f"Column '{n}' holds dates; a formula takes numbers or text: "
                              f"use year(t.{n}), or days since a date (t.{n} - date(\"2000-01-01\")).")
        if C.missing(c).any():
            raise LaminaError("ValueError", f"Column '{n}' has missing values, which {fn} does not drop "
                              f"unasked (R's na.omit would); drop those rows first with drop_missing(t).")
        if kind == "number":
            data[n] = np.asarray(c, dtype=np.float64)
        elif kind == "category":
            present = [lv for j, lv in enumerate(c.levels) if (c.codes == j).any()]
            data[n] = pd.Categorical(c.texts(), categories=present)
        else:
            data[n] = np.array(c.cells(), dtype=object)
    return pd.DataFrame(data, index=pd.RangeIndex(table.nrows))


def _factor(x):
    """R's factor(x): numbers as levels written as R writes them ("4", "2.5", "1e+06"), in
    numeric order; text in sorted order; a category as it is."""
    import pandas as pd

    if isinstance(x, pd.Series) and isinstance(x.dtype, pd.CategoricalDtype):
        return x.cat.remove_unused_categories()
    values = np.asarray(x)
    if values.dtype.kind in "fiub":
        levels = np.unique(values)
        text = {v: f"{v:.15g}" for v in levels.tolist()}
        return pd.Categorical([text[v] for v in values.tolist()], categories=[text[v] for v in levels.tolist()])
    return pd.Categorical(values.astype(str), categories=sorted(set(values.astype(str))))


def _context() -> dict:
    return {"factor": _factor, "sqrt": np.sqrt, "abs": np.abs, "log1p": np.log1p, "expm1": np.expm1,
            "sin": np.sin, "cos": np.cos, "tan": np.tan}


# -- what came out ------------------------------------------------------------------------------
def r_name(name: str) -> str:
    """formulaic's column or term name as R writes it: g[T.B] -> gB, poly(x, 2)[1] -> poly(x, 2)1,
    Intercept -> (Intercept), x ** 2 -> x^2, 'b' -> "b"."""
    if name == "Intercept":
        return "(Intercept)"
    parts = [re.sub(r"\[(?:T\.)?([^\[\]]*)\]$", r"\1", p) for p in _top_level_split(name)]
    text = ":".join(parts)
    text = re.sub(r"\s*\*\*\s*", "^", text).replace(" / ", "/").replace("'", '"')
    return re.sub(r"\^\((-[\w.]+)\)", r"^\1", text)            # x ** (-1) -> x^-1


def _top_level_split(name: str) -> list[str]:
    """name split at the colons outside brackets and parentheses (an interaction's factors)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(name):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == ":" and depth == 0:
            parts.append(name[start:i])
            start = i + 1
    return parts + [name[start:]]


def _variable_order(text: str, table) -> dict:
    """Each factor's place among the formula's variables in order of first appearance, the
    response first (R's attr(terms, "variables")): R writes an interaction's factors in it."""
    from formulaic import Formula

    written = Formula(_python_powers(text), _ordering="none",
                      _context={"__formulaic_variables_available__": table.names})
    order = {}
    for side in (written.lhs, written.rhs):
        for term in side:
            for factor in term.factors:
                order.setdefault(str(factor.expr), len(order))
    return order


def _r_layout(spec, order: dict) -> tuple[list, list, list, list]:
    """(the spec's columns in R's order, R's names of them, R's term labels, R's assign).

    formulaic keeps an interaction's factors as written (k:g) where R puts them in the order the
    variables first appear (g:k after g + k); the columns of either vary the first factor fastest,
    so the term's columns are put in the order R's first factor gives."""
    columns, names, terms, assign = [], [], [], []
    for term, where in spec.term_slices.items():
        mine = list(range(where.start, where.stop))
        parts = [_top_level_split(c) for c in spec.column_names[where]]
        factors = [str(f.expr) for f in term.factors]
        rank = sorted(range(len(factors)), key=lambda j: order.get(factors[j], len(order)))
        # (Where R's coding would not be of full rank, formulaic's columns of a term may hold fewer
        # factors than the term, x:g[T.B] in k:x:g: those keep formulaic's order and names.)
        whole = all(len(p) == len(factors) for p in parts)
        levels = [list(dict.fromkeys(p[j] for p in parts)) for j in range(len(factors))] if whole else []
        if whole and rank != sorted(rank) and len(mine) == int(np.prod([len(v) for v in levels])):
            at = {tuple(p): c for p, c in zip(parts, mine)}
            # itertools' product varies its last argument fastest: R's first factor goes last
            combos = itertools.product(*[levels[j] for j in reversed(rank)])
            parts = [[combo[len(rank) - 1 - rank.index(j)] for j in range(len(rank))] for combo in combos]
            mine = [at[tuple(p)] for p in parts]
            parts = [[p[j] for j in rank] for p in parts]
        if str(term) != "1":
            terms.append(r_name(":".join(factors[j] for j in rank)))
        columns += mine
        names += [r_name(":".join(p)) for p in parts]
        assign += [len(terms) if str(term) != "1" else 0] * len(mine)
    return columns, names, terms, assign


def _one_level_factors(spec, text: str, fn: str) -> None:
    for name, (kind, state) in spec.encoder_state.items():
        if kind.value == "categorical" and len(state.get("categories", ())) < 2:
            levels = state.get("categories", ())
            raise LaminaError("ValueError", f"The formula \"{text}\" has the factor {r_name(name)} with one "
                              f"level" + (f", \"{levels[0]}\"" if levels else "") + f", so it cannot tell "
                              f"rows apart; leave it out of {fn}'s formula.")


def _finite(a: np.ndarray, names: list, text: str, fn: str) -> np.ndarray:
    bad = ~np.isfinite(a)
    if bad.any():
        row, col = (np.argwhere(bad)[0].tolist() + [0])[:2] if a.ndim == 2 else (int(np.argmax(bad)), 0)
        value = format_number(float(a[row, col] if a.ndim == 2 else a[row]))
        raise LaminaError("ValueError", f"The formula \"{text}\" gives {names[col]} = {value} "
                          f"in row {row + 1}; {fn} needs finite numbers (a log of 0 or of a negative "
                          f"number?), so drop or change those rows first.")
    return a


def _plain(e: Exception) -> str:
    """formulaic's message without its terminal colours and the formula it draws under it."""
    first = _ANSI.sub("", str(e)).strip().splitlines()
    return (first[0] if first else type(e).__name__).rstrip(".") + "."
