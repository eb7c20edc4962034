"""A program imports only the builtin modules whose builtins it names (registry.spec_of and
builtins/index.py); everything that lists builtins still sees every one of them."""
from __future__ import annotations

import json
import subprocess
import sys

from lamina.builtins.index import MODULES
from lamina.builtins.registry import load_all
from lamina.docs.builtin_index import PATH, index_source
from lamina.errors import LaminaError
from lamina.interpreter import Interpreter

# Loaded in a fresh process: a program, then the modules it left imported.
PROBE = """
import json, sys
import lamina.cli
code = lamina.cli.main(["-e", sys.argv[1]])
print(json.dumps([code, sorted(sys.modules)]))
"""


def modules_after(program: str) -> tuple[list[str], set[str]]:
    r = subprocess.run([sys.executable, "-c", PROBE, program], capture_output=True, text=True, timeout=120)
    *printed, last = r.stdout.splitlines()
    code, modules = json.loads(last)
    assert code == 0, r.stderr
    return printed, set(modules)


def test_the_committed_index_is_what_the_registry_gives():
    assert PATH.read_text() == index_source(), "run `make docs` and commit src/lamina/builtins/index.py"
    assert MODULES == {name: spec.fn.__module__.rpartition(".")[2] for name, spec in load_all().items()}


def test_each_builtin_is_found_through_its_module_alone():
    # In a fresh process, one name after another: importing the module the index names for a
    # builtin registers it.
    code = ("from lamina.builtins.index import MODULES\nfrom lamina.builtins.registry import spec_of\n"
            "print([n for n in sorted(MODULES) if spec_of(n) is None or spec_of(n).name != n])")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout == "[]\n", r.stderr


def test_print_1_imports_no_statistics_models_or_optimizers():
    printed, modules = modules_after("print(1)")
    assert printed == ["1"]
    loaded = {m for m in modules if m.startswith("lamina.builtins.")}
    assert loaded == {"lamina.builtins.core", "lamina.builtins.registry", "lamina.builtins.index"}
    for package in ("lamina.stats", "lamina.models", "lamina.nn", "lamina.optim", "lamina.cluster",
                    "lamina.docs", "scipy", "matplotlib", "rich", "prompt_toolkit"):
        assert package not in modules, package


def test_a_builtin_loads_its_module_on_first_use():
    program = "x = [1, 2, 6]\nprint(mean(x))\nfunction f(v)\n    return median(v)\nend\nprint(f(x))"
    printed, modules = modules_after(program)
    assert printed == ["3", "2"]
    assert "lamina.builtins.stats" in modules and "lamina.stats.descriptive" in modules
    assert "lamina.builtins.optimizers" not in modules and "lamina.models" not in modules


def test_numbers_never_load_arrow_or_the_table_modules():
    # These builtins and the for loop also take dates and categories; a program of numbers must
    # not pay for Arrow's import (a third of a second) because they do.
    program = ("v = [3, 1, 2]\nprint(mean(v), sort(v), argsort(v), unique(v), isnan(v), diff(v))\n"
               "print(append(v, 4), concat(v, [5]), [v[0], v[1]])\nfor x in v\n    print(x)\nend")
    printed, modules = modules_after(program)
    assert printed == ["2 [1, 2, 3] [1, 2, 0] [1, 2, 3] [0, 0, 0] [-2, 1]", "[3, 1, 2, 4] [3, 1, 2, 5] [3, 1]",
                       "3", "1", "2"]
    for module in ("pyarrow", "duckdb", "lamina.stats.dates", "lamina.stats.categories", "lamina.stats.table",
                   "lamina.stats.tableops", "lamina.stats.groups"):
        assert module not in modules, module


def test_a_method_call_loads_its_builtin():
    printed, modules = modules_after("w = param(2)\nloss = w * w\nprint(loss.grad(w))")
    assert printed == ["4"] and "lamina.builtins.autodiff" in modules


def test_an_undefined_name_is_matched_against_every_builtin():
    interp = Interpreter()
    try:
        interp.run("print(meen([1, 2]))")
        raise AssertionError("no error")
    except LaminaError as err:
        assert err.kind == "NameError"
        assert err.message == "Undefined variable 'meen'. Did you mean 'mean' or 'merge' or 'median'?"
    interp.run("y = mean([1, 3])")      # the suggestions' loading left the program working
    assert interp.get("y") == 2.0


def test_a_builtin_asked_for_by_name_is_loaded():
    interp = Interpreter()
    spec = load_all()["std"]
    assert interp.get("std") is spec.fn
    assert interp.scope.defines("kmeans") and interp.scope.lookup("kmeans") is load_all()["kmeans"].fn
    assert interp.get("no_such_builtin") is None and not interp.scope.defines("no_such_builtin")


def test_a_scoped_builtin_is_bound_to_its_own_program():
    a, b = Interpreter(), Interpreter()
    a.run("function f(c)\n    return {loss = c.x}\nend")
    b.run("function f(c)\n    return {loss = 10 * c.x}\nend")
    for interp in (a, b):
        interp.run("r = sweep(f, {x = [1, 2]})\nlosses = r.loss")
    assert list(a.get("losses")) == [1, 2] and list(b.get("losses")) == [10, 20]
    assert a.get("sweep").args == (a.scope,) and b.get("sweep").args == (b.scope,)


def test_a_variable_shadows_a_builtin_of_a_module_not_loaded_yet():
    interp = Interpreter()
    interp.run("median = 5\nprint_me = median + 1")
    assert interp.get("print_me") == 6.0
