"""The completion and inspection engine shared by the REPL, the kernel and the language server."""
from __future__ import annotations

from lamina.builtins.registry import load_all
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
    keywords = [k for k in KEYWORDS if k.startswith("fi")]          # the lexer's: `finally` today
    builtins = [name for name in load_all() if name.startswith("fi")]   # figure, filter, find, fit, ...
    assert {"figure", "filter", "find", "fit"} <= set(builtins)
    assert found.matches == sorted(set(builtins + ["fit_line", "fitted"] + keywords))
    assert (found.start, found.end) == (4, 6)
    kinds = {c.text: (c.kind, c.detail) for c in found.candidates}
    assert kinds["fit_line"] == ("function", "fit_line(x)") and kinds["fitted"] == ("variable", "a number")
    assert all(kinds[k] == ("keyword", "") for k in keywords)
    assert kinds["filter"][0] == "builtin" and kinds["filter"][1].startswith("filter(")
    assert complete("el", 2).matches == ["else", "elseif"]
    assert set(KEYWORDS) <= set(complete("", 0).matches)
    assert {"to", "step", "in", "as"} <= set(complete("", 0).matches)
    assert {"import", "try", "catch", "finally"} <= set(complete("", 0).matches)


def test_members_of_a_module(tmp_path, monkeypatch):
    (tmp_path / "helpers.lam").write_text("RATE = 0.5\n_private = 1\nimport inner\n"
                                          "function twice(x, by = 2)\n    return by * x\nend function\n")
    (tmp_path / "inner.lam").write_text("DEPTH = 2\n")
    monkeypatch.chdir(tmp_path)
    names = live("import helpers as h\n")
    found = complete("h.", 2, names)
    assert [(c.text, c.kind, c.detail) for c in found.candidates] == [
        ("RATE", "field", "a number"), ("inner", "module", "<module inner from inner.lam>"),
        ("twice", "function", "twice(x, by = 2)")]
    assert complete("h.inner.D", 9, names).matches == ["DEPTH"]
    assert [(c.text, c.kind) for c in complete("he", 2, names).candidates if c.text == "h"] == []
    assert [(c.text, c.kind, c.detail) for c in complete("h", 1, names).candidates][0] == \
        ("h", "module", "<module helpers from helpers.lam>")
    assert inspect("h.twice(1)", 4, names).text == "function h.twice(x, by = 2)"
    assert inspect("h.RATE", 4, names).text == "h.RATE: a number\n0.5"
    site = call_at("y = h.twice(1, ", 15)
    assert (site.callee, site.path, site.arg_index) == ("twice", ["h"], 1)


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
    assert "```lamina\nm = [1, 3; 2, 2]" in found.text and "`lamina help sum` shows their output" in found.text
    names = live("w = [1, 2, 3]\nfunction f(a, by = 2)\n    return a\nend function\n")
    assert inspect("w", 1, names).text == "w: a vector of length 3\n[1, 2, 3]"
    assert inspect("f(w", 1, names).text == "function f(a, by = 2)"
    assert inspect("1 + 2", 2, names) is None


def test_inspect_shows_nothing_for_a_word_in_a_comment_or_a_string():
    assert inspect("# sum of it", 3) is None
    assert inspect('s = "mean"', 6) is None
    assert inspect('print("{mean([1])}")', 11).name == "mean"     # an interpolation is code
