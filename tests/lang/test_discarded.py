"""A call of a builtin whose result is its whole effect, as a statement whose value goes nowhere,
is a warning at compile time (lang/discarded.py): `net.fit(X, y)` trains a copy and drops it."""
from __future__ import annotations

import contextlib
import io

import pytest

from lamina import warnings as channel
from lamina.builtins.registry import load_all
from lamina.interpreter import Interpreter
from lamina.lsp.analysis import analyse

REGISTRY = load_all()
PURE = sorted(name for name, spec in REGISTRY.items() if spec.pure)
EFFECTS = sorted(name for name, spec in REGISTRY.items() if not spec.pure)


@pytest.fixture(autouse=True)
def fresh_channel():
    channel.reset()
    yield
    channel.reset()


def compiled(code: str, name: str = "w.lam", interp: Interpreter | None = None, **how) -> list[str]:
    """The warnings compiling `code` writes (nothing runs)."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        (interp or Interpreter()).compile(code, name, **how)
    return err.getvalue().splitlines()


@pytest.mark.parametrize("name", PURE)
def test_a_discarded_call_of_a_pure_builtin_warns_in_both_forms(name):
    returns = REGISTRY[name].pure
    code = f"function f(x, y)\n    {name}(x, y)\n    x.{name}(y)\n    return x\nend function\n"
    copy = returns.startswith("a new ")      # a changed copy is kept; a value may be looked at
    assert compiled(code) == [
        f"warning: the result of {name} is discarded: {name} returns {returns} and changes nothing; "
        f"write `{'x' if copy else 'y'} = {name}(x, ...)` to keep it"
        f"{'' if copy else f' or `print({name}(x, ...))` to see it'} (w.lam:2)",
        f"warning: the result of {name} is discarded: {name} returns {returns} and changes nothing; "
        f"write `{'x' if copy else 'y'} = x.{name}(...)` to keep it"
        f"{'' if copy else f' or `print(x.{name}(...))` to see it'} (w.lam:3)"]


@pytest.mark.parametrize("name", EFFECTS)
def test_a_call_of_a_builtin_with_an_effect_does_not_warn(name):
    assert compiled(f"function f(x, y)\n    {name}(x, y)\n    x.{name}(y)\n    return x\nend function\n") == []


def test_the_effects_that_must_never_be_called_pure():
    must = {"print", "seed", "write_csv", "save_model", "plot", "scatter", "hist", "bar", "figure", "show",
            "savefig", "tape_reset", "warn", "warnings", "assert", "error", "exit", "print_options", "map"}
    assert must <= set(EFFECTS)
    assert {"fit", "optimizer_step", "drop_missing", "sort_rows", "with_column", "sqrt", "sort"} <= set(PURE)


def test_the_keras_habit_says_how_to_keep_the_model():
    code = ('X = [0, 0; 0, 1; 1, 0; 1, 1]\ny = [0; 1; 1; 0]\n'
            'net = compile(input(2) |> dense(4) |> dense(1), loss = "mse", seed = 1)\n'
            'net.fit(X, y, epochs = 20)\nfit(net, X, y)\nnet = net.fit(X, y)\n')
    assert compiled(code, "keras.lam") == [
        "warning: the result of fit is discarded: fit returns a new model and changes nothing; "
        "write `net = net.fit(...)` to keep it (keras.lam:4)",
        "warning: the result of fit is discarded: fit returns a new model and changes nothing; "
        "write `net = fit(net, ...)` to keep it (keras.lam:5)"]


def test_a_script_warns_at_every_depth_once_though_a_loop_compiles_twice():
    code = ("v = [3, 1, 2]\nsort(v)\nfor i = 1 to 3\n    x = i * 2.0\n    abs(x)\nend for\n"
            "if true\n    v.sort()\nend if\nf = x -> x\ntry\n    sqrt(2)\ncatch\nend try\n")
    lines = [w.rsplit(":", 1)[1].rstrip(")") for w in compiled(code)]
    assert lines == ["2", "5", "8", "12"]


def test_the_repl_echoes_a_top_level_value_so_only_a_functions_statement_warns():
    interp = Interpreter()
    code = "sqrt(2)\nfor i = 1 to 2\n    abs(i)\nend for\nfunction f(x)\n    sqrt(x)\n    return x\nend function\n"
    assert compiled(code, "<repl>", interp, echo=True) == [
        "warning: the result of sqrt is discarded: sqrt returns a value and changes nothing; "
        "write `y = sqrt(x)` to keep it or `print(sqrt(x))` to see it (<repl>:6)"]


def test_a_notebook_cell_shows_its_last_value_and_drops_the_others():
    code = "v = [2, 1]\nsort(v)\nsum(v)\n"
    assert compiled(code, "cell", result=True) == [
        "warning: the result of sort is discarded: sort returns a new sorted copy and changes nothing; "
        "write `v = sort(v)` to keep it (cell:2)"]


def test_a_name_of_the_programs_own_is_not_the_builtin():
    assert compiled("function sort(v)\n    print(v)\nend function\nsort([1])\n[1].sort()\n") == []
    assert compiled("function f(sqrt)\n    sqrt(2)\n    return 1\nend function\n") == []
    assert compiled("r = {sort = v -> print(v)}\nr.sort()\n[2, 1].sort()\n") == []     # may be the field's
    interp = Interpreter()
    interp.run("sum = x -> print(x)\nr = {fit = () -> print(1)}", "<repl>")
    assert compiled("for i = 1 to 2\n    sum(i)\n    r.fit()\nend for\n", "<repl>", interp) == []


def test_a_variable_named_like_a_builtin_does_not_hide_a_discarded_method_call():
    # net.fit(...) calls the builtin when the variable fit holds no function (the docs name a
    # linear model fit), so the discarded copy still warns; in call form fit(...) is the variable
    program = ("fit = linreg([1; 2; 3], [2, 4, 7])\nnet = input(1) |> dense(1) |> compile(seed = 1)\n"
               "net.fit([1; 2], [2, 4], epochs = 1, verbose = 0)\n")
    assert compiled(program) == [
        "warning: the result of fit is discarded: fit returns a new model and changes nothing; "
        "write `net = net.fit(...)` to keep it (w.lam:3)"]
    assert compiled("fit = x -> print(x)\nnet = 1\nnet.fit()\n") == []     # may hold a function


def test_warnings_false_silences_it_like_every_warning():
    channel.set_enabled(False)
    assert compiled("sort([2, 1])\n") == []


def test_the_language_server_shows_it_as_a_warning_and_not_on_a_wrong_call():
    found = analyse("v = [2, 1]\nv.sort()\nsum([1], 0, 1)\n", "doc.lam")
    assert [(p.span.line, p.kind) for p in found.problems] == [(3, "TypeError"), (2, "Warning")]
    assert found.problems[1].message == ("the result of sort is discarded: sort returns a new sorted copy "
                                         "and changes nothing; write `v = v.sort()` to keep it")


def test_workers_that_compile_the_program_again_do_not_warn_again(tmp_path):
    import subprocess
    import sys
    (tmp_path / "sw.lam").write_text(
        "function train(cfg)\n    v = [3, 1, 2]\n    sort(v)\n    return {loss = cfg.lr}\nend function\n"
        "t = sweep(train, {lr = [0.1, 0.2]}, workers = 2)\nprint(nrows(t))\n")
    r = subprocess.run([sys.executable, "-m", "lamina", "sw.lam"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0 and r.stdout == "2\n", r.stderr
    assert r.stderr == ("warning: the result of sort is discarded: sort returns a new sorted copy and changes "
                        "nothing; write `v = sort(v)` to keep it (sw.lam:3)\n")
