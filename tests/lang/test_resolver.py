"""The resolver (lang/resolver.py): the names each statement binds, in the order they run,
each function's locals, and the reads of a name before its own scope binds it, which the
compiler, the float specialiser and the language server all take from it."""
from __future__ import annotations

from lamina.errors import Source
from lamina.lang import ast as A
from lamina.lang import resolver
from lamina.lang.parser import parse
from lamina.lsp.analysis import analyse

PROGRAM = """\
print(y)
x += 1
y = 1
for i = 1 to 3
  z[1] = q
  q = i
end
function f(a, k = later)
  b += a
  print(c)
  c = 1
  g = t -> t + c
end
while w < 3
  w = 1
end
try
  e = 1
catch err
  print(err)
end
import helpers as h
later = 2
"""


def body():
    return parse(Source("t.lam", PROGRAM)).body


def test_bindings_in_the_order_they_run_with_the_updates_that_read_first():
    assert [(b.name, b.kind, b.reads, b.span.line) for b in resolver.bindings(body())] == [
        ("x", "variable", True, 2), ("y", "variable", False, 3), ("i", "variable", False, 4),
        ("z", "variable", True, 5), ("q", "variable", False, 6), ("f", "function", False, 8),
        ("w", "variable", False, 15), ("e", "variable", False, 18), ("err", "variable", False, 19),
        ("h", "module", False, 22), ("later", "variable", False, 23)]


def test_a_functions_locals_are_its_parameters_and_what_its_body_binds():
    fn = next(s for s in body() if isinstance(s, A.FunctionDef))
    assert resolver.function_locals(fn) == {"a", "k", "b", "c", "g"}


def test_first_binders_are_statements_that_do_not_read_first():
    assert {name: s.span.line for name, s in resolver.first_binders(body()).items()} == {
        "y": 3, "i": 4, "q": 6, "f": 8, "w": 15, "e": 18, "err": 17, "h": 22, "later": 23}


def test_early_reads_outside_loops_before_the_first_binding_in_their_scope():
    tree = body()
    early = resolver.early_reads(tree)
    names = [(n.name, n.span.line) for n in A.walk(tree, into_functions=True) if isinstance(n, A.Name)
             and id(n) in early]
    fn = next(s for s in tree if isinstance(s, A.FunctionDef))
    default = fn.params[1].default            # `k = later`: read at the definition, line 8
    updates = [s.span.line for s in A.walk(tree, into_functions=True) if id(s) in early and isinstance(s, A.Assign)]
    # y before line 3, c before line 11; q (line 5) and w (line 14) are read in a loop, and the
    # lambda's c when it is called
    assert sorted(names) == [("c", 10), ("y", 1)]
    assert id(default) in early
    assert sorted(updates) == [2, 9]          # x += 1 at the top, b += a in f


def test_the_language_server_reports_exactly_the_resolvers_early_reads():
    problems = [(p.span.line, p.message.split(".")[0]) for p in analyse(PROGRAM).problems
                if p.kind == "NameError"]
    assert problems == [
        (1, "Undefined variable 'y'"), (2, "Undefined variable 'x'"), (5, "Undefined variable 'z'"),
        (8, "Undefined variable 'later'"), (9, "'b' is read before it is assigned in this function"),
        (10, "'c' is read before it is assigned in this function")]
