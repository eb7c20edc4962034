"""lamina/ownership.py: one calibration of what sys.getrefcount adds, and every site that counts
references states its holders against it (never a count written as a number). With the
calibration failed, nothing is written in place and every value is the same.

Each site's own tests (writing in place when nothing else holds the value, never when a second
name, container or caller does) carry the `ownership` marker too: tests/lang/test_in_place_stores.py
(records, tables, arrays and lists by index, `v = append(v, x)`), tests/optim/test_pending_step.py,
tests/autodiff/test_grad_semantics.py, the value-semantics fuzz.
"""
from __future__ import annotations

import ast
import importlib
import pathlib
import sys

import pytest

from lamina import ownership
from lamina.interpreter import Interpreter
from lamina.lang import indexing
from lamina.optim import base

pytestmark = pytest.mark.ownership      # .ci/run runs these on every Python

PACKAGE = pathlib.Path(__file__).parents[1] / "src" / "lamina"


def test_this_python_is_calibrated_and_a_limit_counts_exactly_the_holders():
    assert ownership.ADDED is not None, "the probes of lamina/ownership.py disagree on this Python"
    held = object()
    assert sys.getrefcount(held) == ownership.refs_limit(holders=1)         # this local name
    box = [held]
    assert sys.getrefcount(held) == ownership.refs_limit(holders=2)         # and the list
    del box
    assert sys.getrefcount(held) == ownership.refs_limit(holders=1)


def test_probes_that_disagree_leave_nothing_to_be_written_in_place(monkeypatch):
    assert ownership.measure_added([(lambda: 3, 1), (lambda: 4, 2)]) == 2
    assert ownership.measure_added([(lambda: 3, 1), (lambda: 4, 1)]) is None
    monkeypatch.setattr(ownership, "ADDED", None)
    assert [ownership.refs_limit(holders) for holders in (1, 2, 3)] == [0, 0, 0]


def counting_names(tree: ast.Module) -> set[str]:
    """The names a module calls sys.getrefcount by: getrefcount, and module-level aliases of it."""
    names = {"getrefcount"}
    for node in tree.body:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                pairs = zip(target.elts, node.value.elts) if isinstance(target, ast.Tuple) \
                    and isinstance(node.value, ast.Tuple) else [(target, node.value)]
                names |= {t.id for t, v in pairs if isinstance(t, ast.Name)
                          and isinstance(v, ast.Attribute) and v.attr == "getrefcount"}
    return names


def limit_names(tree: ast.Module) -> set[str]:
    """The module-level names bound to ownership.refs_limit(...)."""
    found = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            f = node.value.func
            if (f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)) == "refs_limit":
                found |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return found


def calls_to(node: ast.AST, names: set[str]) -> bool:
    return any(isinstance(n, ast.Call) and (n.func.attr if isinstance(n.func, ast.Attribute)
                                            else getattr(n.func, "id", None)) in names
               for n in ast.walk(node))


def counting_modules(package: pathlib.Path = PACKAGE) -> dict[str, ast.Module]:
    """{module: its syntax tree} for every module but ownership.py that counts references."""
    out = {}
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text())
        module = ".".join(path.relative_to(package).with_suffix("").parts)
        if module != "ownership" and calls_to(tree, counting_names(tree)):
            out[module] = tree
    return out


def unstated_counts(package: pathlib.Path = PACKAGE) -> list[str]:
    """Each comparison of a reference count with anything but a refs_limit(holders) constant,
    and each counting module without one."""
    problems = []
    for module, tree in counting_modules(package).items():
        counters, limits = counting_names(tree), limit_names(tree)
        if not limits:
            problems.append(f"lamina.{module} counts references without ownership.refs_limit")
        for node in ast.walk(tree):
            if isinstance(node, ast.Compare) and calls_to(node, counters):
                sides = [node.left, *node.comparators]
                for side in sides:
                    if not calls_to(side, counters) and not (isinstance(side, ast.Name) and side.id in limits):
                        problems.append(f"lamina.{module} line {node.lineno} compares a reference count "
                                        f"with {ast.unparse(side)}, not a refs_limit(holders) constant")
    return problems


def test_every_reference_count_is_compared_with_a_stated_number_of_holders():
    assert counting_modules(), "no module counts references: the test looks in the wrong place"
    assert unstated_counts() == []


def test_a_count_compared_with_a_number_is_caught(tmp_path):
    (tmp_path / "site.py").write_text("import sys\n\ndef owned(x):\n    return sys.getrefcount(x) <= 3\n")
    assert unstated_counts(tmp_path) == [
        "lamina.site counts references without ownership.refs_limit",
        "lamina.site line 4 compares a reference count with 3, not a refs_limit(holders) constant"]


# Every site that writes in place: a vector's element and elements, a record's field and a
# field's element, append, a table's cell, optimizer_step's pending update, grad's result.
PROGRAM = """v = zeros(3)
for i = 0 to 2
    v[i] = i + 1
end for
v[[0, 1]] = [7, 8]
k = v
v[2] = 9
r = {w = zeros(2), n = 0}
r.w[1] = 5
r.n = r.n + 1
s = r
r.w[0] = 4
L = [1]
L = append(L, 2)
M = L
L = append(L, 3)
t = table({x = zeros(3)})
t[0, "x"] = 1
u = t
t[1, "x"] = 2
opt = sgd([1.0, 2.0], lr = 0.25)
for step = 1 to 2
    q = param(opt.params)
    opt = optimizer_step(opt, grad(sum(q .* q), wrt = q))
end for
w = param([1.0, 2.0])
g = grad(sum(w .* w .* w), wrt = w)
print(v, k, r, s, L, M, opt.params, g)
print(t.x, u.x)
"""
PRINTED = ["[7, 8, 9] [7, 8, 3] {w=[4, 5], n=1} {w=[0, 5], n=1} [1, 2, 3] [1, 2] "
           "[0.25, 0.5] [3, 12]", "[1, 2, 0] [1, 0, 0]"]


def test_with_the_calibration_failed_every_store_copies_and_every_value_is_the_same(monkeypatch, capsys):
    Interpreter().run(PROGRAM, "<test>")
    assert capsys.readouterr().out.splitlines() == PRINTED
    for module, tree in counting_modules().items():
        for name in limit_names(tree):
            monkeypatch.setattr(importlib.import_module(f"lamina.{module}"), name, 0)
    flags, copies = [], []
    put, private = indexing.put, base.Optimizer.private
    monkeypatch.setattr(indexing, "put", lambda *args, owned=False: flags.append(owned) or put(*args, owned=owned))
    monkeypatch.setattr(base.Optimizer, "private", lambda self: copies.append(1) or private(self))
    Interpreter().run(PROGRAM, "<test>")
    assert capsys.readouterr().out.splitlines() == PRINTED
    assert len(flags) == 9 and not any(flags) and len(copies) == 2
