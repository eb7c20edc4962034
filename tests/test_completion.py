"""The completion and inspection engine shared by the REPL, the kernel and the language server."""
from __future__ import annotations

from lamina.completion import LiveNames, call_at, complete, inspect, shape_parameters
from lamina.docs.help import help_text
from lamina.interpreter import Interpreter
from lamina.lang.lexer import KEYWORDS


def live(program: str) -> LiveNames:
    interp = Interpreter()
    interp.run(program, "<session>")
    return LiveNames(interp)


def test_builtins_variables_functions_and_keywords():
    names = live("function fit_line(x)\n    return x\nend function\nfitted = 1\n")
    found = complete("x = fi", 6, names)
    assert found.matches == ["figure", "filter", "fit", "fit_line", "fitted"] and (found.start, found.end) == (4, 6)
    kinds = {c.text: (c.kind, c.detail) for c in found.candidates}
    assert kinds["fit_line"] == ("function", "function") and kinds["fitted"] == ("variable", "a number")
    assert kinds["filter"][0] == "builtin" and kinds["filter"][1].startswith("filter(")
    assert complete("el", 2).matches == ["else", "elseif"]
    assert set(KEYWORDS) <= set(complete("", 0).matches)
    assert {"to", "step", "in"} <= set(complete("", 0).matches)


def test_fields_of_records_tables_and_models():
    names = live('r = {alpha = 1, inner = {beta = 2}}\nt = table({price = [1, 2]})\nm = linreg([1; 2; 3], [1, 2, 4])\n')
    assert complete("r.", 2, names).matches == ["alpha", "inner"]
    assert complete("x = r.inner.b", 13, names).matches == ["beta"]
    assert complete("t . pr", 6, names).matches == ["price"]
    assert {"coef", "r2", "residuals"} <= set(complete("m.", 2, names).matches)
    assert complete("nothing.", 8, names).matches == []
    assert complete("r.\nal", 5, names).matches == ["all"]      # a new statement, not a field


def test_no_completion_inside_strings_and_comments_but_inside_interpolation():
    names = live("total = 1\n")
    assert complete('print("tot', 10, names).matches == []
    assert complete('print("{tot', 11, names).matches == ["total"]
    assert complete('print("{{tot', 12, names).matches == []
    assert complete("# tot", 5, names).matches == []
    assert complete("x = 1 # note\ntot", 16, names).matches == ["total"]
    assert complete("3.5e1", 5).matches == []


def test_the_call_the_cursor_is_in():
    site = call_at("print(sum([1, (2)], axis = ", 27)
    assert (site.callee, site.arg_index, site.keyword) == ("sum", 1, "axis")
    assert call_at("f(a == b, ", 10).keyword is None and call_at("f(a == b, ", 10).arg_index == 1
    assert call_at('f("(", ', 7).arg_index == 1                 # a bracket inside a string
    assert call_at("if (x", 5) is None and call_at("x = 1", 5) is None
    assert shape_parameters('linreg(X, y, names = ["a", "b"], intercept = false)') == [
        "X", "y", 'names = ["a", "b"]', "intercept = false"]


def test_inspect_gives_the_builtins_page_without_running_its_examples():
    found = inspect("sum(", 4)
    assert found.name == "sum" and found.markdown
    assert found.text == help_text("sum", run=False)
    assert "```lamina\nm = [1, 2; 3, 4]" in found.text and "`lamina help sum` shows their output" in found.text
    names = live("w = [1, 2, 3]\nfunction f(a, by = 2)\n    return a\nend function\n")
    assert inspect("w", 1, names).text == "w: a vector of length 3\n[1, 2, 3]"
    assert inspect("f(w", 1, names).text == "function f(a, by = 2)"
    assert inspect("1 + 2", 2, names) is None
