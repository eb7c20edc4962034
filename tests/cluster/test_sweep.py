"""sweep and parallel_map in this process (workers = 1): the grid, the seeds, the table, the
rules for what can be sent to a worker, and the isolation of each call. No Ray here:
tests/cluster/test_ray.py runs the same programs on a real Ray instance."""
from __future__ import annotations

import itertools
import os
import pty
import subprocess
import sys
import time

import numpy as np
import pytest
from sweep_helpers import lamina, ROOT, run, write_program

from lamina.autodiff.tape import is_live
from lamina.errors import LaminaError
from lamina.interpreter import Interpreter
from lamina.stats.table import Table
from lamina.values import LibObject


def spawned_seed(base: int, i: int) -> int:
    """The seed of configuration i, as numpy's documented spawning gives it."""
    return int(np.random.SeedSequence(base).spawn(i + 1)[i].generate_state(1)[0])


def table(code: str, name: str = "t", **kwargs) -> Table:
    _, interp = run(code, **kwargs)
    return interp.get(name)


def error_of(code: str) -> LaminaError:
    with pytest.raises(LaminaError) as info:
        run(code)
    return info.value


# -- the grid and the table -------------------------------------------------------------
def test_a_record_grid_runs_every_combination_in_order():
    t = table('t = sweep(c -> {score = c.lr * 1000 + c.units}, {lr = [0.1, 0.01, 0.001], units = [16, 64]}, seed = 3)')
    assert t.names == ["lr", "units", "seed", "score", "seconds", "error"]
    combos = list(itertools.product([0.1, 0.01, 0.001], [16.0, 64.0]))
    assert list(t.columns["lr"]) == [lr for lr, _ in combos]
    assert list(t.columns["units"]) == [u for _, u in combos]
    assert list(t.columns["score"]) == [lr * 1000 + u for lr, u in combos]
    assert t.columns["error"] == [""] * 6
    assert np.all(t.columns["seconds"] >= 0)
    assert t.swept == ("lr", "units")


def test_each_configuration_gets_the_spawned_seed_and_draws_from_it():
    t = table('t = sweep(c -> {seen = c.seed, draw = rand()}, {rep = [1, 2, 3, 4]}, seed = 11)')
    seeds = [spawned_seed(11, i) for i in range(4)]
    assert list(t.columns["seed"]) == seeds == list(t.columns["seen"])
    assert list(t.columns["draw"]) == [np.random.default_rng(s).random() for s in seeds]


def test_without_a_seed_the_base_comes_from_the_global_generator():
    t = table('seed(5)\nt = sweep(c -> rand(), {rep = [1, 2]})')
    base = int(np.random.default_rng(5).integers(0, 2 ** 32))
    assert list(t.columns["seed"]) == [spawned_seed(base, 0), spawned_seed(base, 1)]
    assert t.names == ["rep", "seed", "result", "seconds", "error"]


def test_a_grid_field_named_seed_sets_the_seeds():
    t = table('t = sweep(c -> rand(), {seed = [4, 9]})')
    assert list(t.columns["seed"]) == [4, 9]
    assert list(t.columns["result"]) == [np.random.default_rng(4).random(), np.random.default_rng(9).random()]


def test_a_list_of_records_gives_the_configurations_one_by_one():
    t = table('t = sweep(c -> c.a * 2, [{a = 1, name = "x"}, {a = 5, name = "y"}], seed = 0)')
    assert t.names == ["a", "name", "seed", "result", "seconds", "error"]
    assert list(t.columns["result"]) == [2, 10] and t.columns["name"] == ["x", "y"]


def test_a_single_value_is_shared_by_every_configuration():
    t = table('t = sweep(c -> c.a + c.b, {a = [1, 2], b = 10}, seed = 0)')
    assert list(t.columns["b"]) == [10, 10] and list(t.columns["result"]) == [11, 12]


def test_a_failing_configuration_keeps_its_error_and_the_others_run():
    code = ('function risky(c)\n    if c.x < 0\n        error("x must not be negative", kind = "ValueError")\n'
            '    end if\n    return {root = sqrt(c.x)}\nend function\n'
            't = sweep(risky, {x = [4, -1, 9]}, seed = 0)\n')
    t = table(code, name="t")
    assert np.isnan(t.columns["root"][1]) and list(t.columns["root"][[0, 2]]) == [2, 3]
    assert t.columns["error"] == ["", "ValueError at <test>:3: x must not be negative", ""]


def test_results_that_are_not_numbers_are_row_errors():
    t = table('t = sweep(c -> [c.k, 1], {k = [1, 2]}, seed = 0)')
    assert all(e.startswith("TypeError at <test>:1: sweep's training function must return a number or a "
                            "record of numbers, not a vector of length 2.") for e in t.columns["error"])
    clash = table('t = sweep(c -> {k = 1}, {k = [1, 2]}, seed = 0)')
    assert "returned a field k, which is also a column of the configuration" in clash.columns["error"][0]


def test_bad_arguments_fail_before_anything_runs():
    cases = [('sweep(c -> 1, [1, 2])', "TypeError", "sweep's grid must be a record of lists"),
             ('sweep(c -> 1, {lr = []})', "ValueError", "sweep's grid field lr has no values"),
             ('sweep(c -> 1, {lr = [1, 2; 3, 4]})', "TypeError", "must be a list of values"),
             ('sweep(c -> 1, {error = [1]})', "ValueError", "cannot have a field named error"),
             ('sweep(c -> 1, [{a = 1}, {b = 2}])', "ValueError", "must all have the same fields"),
             ('sweep(c -> 1, {a = [1]}, workers = 0)', "ValueError", "sweep's workers must be at least 1"),
             ('sweep(c -> 1, {a = [1]}, workers = 1e6)', "ValueError", "at most 1024"),
             ('sweep(c -> 1, {a = [1]}, address = 3)', "TypeError", "sweep's address must be none"),
             ('sweep(3, {a = [1]})', "TypeError", "sweep's training function must be a function"),
             ('sweep(c -> 1, {a = [1]}, seed = -1)', "ValueError", "sweep's seed must be at least 0"),
             ('sweep(c -> 1, {a = range(400), b = range(400)})', "ValueError", "160,000 configurations")]
    for code, kind, words in cases:
        err = error_of(code)
        assert err.kind == kind and words in err.message, (code, err.render())


# -- what can be sent ---------------------------------------------------------------------
def test_a_function_reading_a_tracked_value_is_refused_before_any_work():
    err = error_of('w = param([1, 2])\nprint("before")\nt = sweep(c -> sum(w) * c.lr, {lr = [1, 2]})')
    assert err.kind == "TypeError"
    assert err.message.startswith("sweep cannot send the anonymous function to its workers: the variable w "
                                  "holds a vector of length 2 that is tracked")
    assert "detach" in err.message and err.span.line == 3


def test_a_closure_over_a_tracked_value_is_refused_with_its_name():
    code = ('function make(scale)\n    return c -> c.lr * scale\nend function\n'
            't = sweep(make(param(2)), {lr = [1]})')
    err = error_of(code)
    assert "the variable scale that the anonymous function captures holds a number that is tracked" in err.message


def test_an_object_that_cannot_be_pickled_is_refused():
    class Handle(LibObject):
        type_name = "handle"

        def __init__(self):
            self.callback = lambda: None      # a local lambda: pickle refuses it

    interp = Interpreter()
    interp.namespace["L_h"] = Handle()
    with pytest.raises(LaminaError) as info:
        run('t = sweep(c -> type(h), {a = [1, 2]})', interp=interp)
    assert info.value.message.startswith("sweep cannot send the anonymous function to its workers: the variable "
                                         "h holds a handle, an object of this process that cannot be sent")


def test_functions_closures_defaults_and_recursion_are_rebuilt_from_source():
    code = """
base = [10, 20]
function fact(n)
    if n <= 1
        return 1
    end if
    return n * fact(n - 1)
end function
function make(offset, extra = 100)
    function inner(k)
        if k == 0
            return offset
        end if
        return inner(k - 1) + 1
    end function
    return c -> inner(c.k) + fact(c.k) + base[1] + extra
end function
t = sweep(make(5), {k = [0, 3]}, seed = 0)
"""
    t = table(code)
    assert list(t.columns["result"]) == [5 + 1 + 20 + 100, 8 + 6 + 20 + 100]


def test_builtins_and_function_values_in_the_grid_are_sent_by_name_and_source():
    code = ('function double(x)\n    return 2 * x\nend function\n'
            't = sweep(c -> c.f(c.x), {f = [double, abs, x -> x + 1], x = [-3]}, seed = 0)')
    t = table(code)
    assert list(t.columns["result"]) == [-6, 3, -2]
    assert t.columns["f"] == ["<function double>", "<function abs>", "<function anonymous>"]


def test_module_functions_are_shipped_as_text(tmp_path):
    path = write_program(tmp_path, 't = sweep(train, {lr = [0.5, 2], units = [1, 4]}, seed = 2)\n')
    t = table(path.read_text(), name="t", directory=str(tmp_path))
    losses = [sum((np.array([1.5, 2.5, 4.0]) - lr) ** 2) / units for lr, units in [(0.5, 1), (0.5, 4)]]
    assert list(t.columns["loss"][:2]) == losses
    assert t.columns["error"][2:] == ["ValueError at <test>:5: lr 2 is too large"] * 2


def test_a_function_defined_in_an_earlier_run_of_a_session_is_found():
    interp = Interpreter()
    run("data = [1, 2, 3]\nfunction f(c)\n    return sum(data) * c.x\nend function", "<repl 1>", interp=interp)
    out, _ = run("t = sweep(f, {x = [1, 2]}, seed = 0)\nprint(t.result)", "<repl 2>", interp=interp)
    assert out == "[6, 12]\n"


# -- isolation ---------------------------------------------------------------------------------
def test_a_configuration_leaves_the_callers_tape_and_generator_alone():
    code = ('seed(1)\nw = param(3)\n'
            'function train(c)\n    v = param(1)\n    r = train_loop(q -> (q - c.target) ^ 2, v, 5, optimizer = sgd(lr = 0.1))\n'
            '    tape_reset()\n    return {draw = rand(), last = r[4]}\nend function\n'
            't = sweep(train, {target = [2, 4]}, seed = 0)\nafter = rand()\ng = grad(w * w, wrt = w)\n')
    _, interp = run(code)
    assert is_live(interp.get("w")) and interp.get("g") == 6
    generator = np.random.default_rng(1)
    assert interp.get("after") == generator.random()


def test_what_a_configuration_prints_is_shown_when_it_finishes():
    out, _ = run('t = sweep(c -> print("config {c.k}"), {k = [1, 2]}, seed = 0)\nprint("done")')
    assert out == "config 1\nconfig 2\ndone\n"


def test_a_sweep_inside_a_configuration_runs_in_place():
    t = table('t = sweep(c -> sum(sweep(d -> d.x * c.k, {x = [1, 2]}, seed = 0).result), {k = [1, 10]}, seed = 0)')
    assert list(t.columns["result"]) == [3, 30]


def test_without_ray_more_workers_say_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)      # import ray fails
    err = error_of('t = sweep(c -> 1, {a = [1, 2]}, workers = 2)')
    assert err.kind == "ImportError" and "pip install 'lamina[cluster]'" in err.message
    assert "workers = 1" in err.message
    assert table('t = sweep(c -> c.a, {a = [1, 2]})').columns["result"].tolist() == [1, 2]


# -- best, sort_rows, plot -------------------------------------------------------------------
def test_best_and_sort_rows_skip_failed_rows():
    code = ('function f(c)\n    if c.x == 2\n        error("no")\n    end if\n    return {loss = (c.x - 3) ^ 2}\nend function\n'
            't = sweep(f, {x = [1, 2, 4, 3]}, seed = 0)\nb = best(t, "loss")\ns = sort_rows(t, "loss")\n'
            'top = best(t, "loss", largest = true)')
    _, interp = run(code)
    assert interp.get("b").fields["x"] == 3 and interp.get("top").fields["x"] == 1
    s = interp.get("s")
    assert list(s.columns["x"]) == [3, 4, 1, 2] and s.swept == ("x",)
    err = error_of('t = table({a = [0 / 0]})\nbest(t, "a")')
    assert err.kind == "ValueError" and "every row's a is NaN" in err.message


def test_plot_of_a_sweep_table_draws_the_metric_against_a_swept_parameter():
    from lamina.stats import figures
    figures.close()          # a figure another test left open
    code = ('t = sweep(c -> {loss = c.lr * c.units}, {units = [1, 2], lr = [0.1, 0.001, 0.01]}, seed = 0)\n'
            'plot(t, "loss")')
    run(code)
    ax = figures.axes()
    lines = ax.get_lines()
    assert [line.get_label() for line in lines] == ["units = 1", "units = 2"]
    assert list(lines[1].get_xdata()) == [0.001, 0.01, 0.1]
    assert list(lines[1].get_ydata()) == [0.002, 0.02, 0.2]
    assert ax.get_xscale() == "log" and ax.get_xlabel() == "lr" and ax.get_ylabel() == "loss"
    figures.close()


# -- parallel_map ----------------------------------------------------------------------------
def test_parallel_map_keeps_order_and_shape():
    out, _ = run('print(parallel_map(x -> x ^ 2, [3, 1, 2]))\nprint([1, 2] |> parallel_map(x -> "n{x}"))\n'
                 'print(parallel_map(x -> {v = x}, []))')
    assert out == '[9, 1, 4]\n["n1", "n2"]\n[]\n'


def test_parallel_map_reports_the_failing_item_where_it_failed():
    err = error_of('function f(x)\n    return [1, 2][x]\nend function\nprint(parallel_map(f, [0, 5, 1]))')
    assert err.kind == "IndexError" and err.span.line == 2
    assert err.note == "in item 1 of the parallel_map at <test>:4"


def test_parallel_map_refuses_a_tracked_result():
    err = error_of('print(parallel_map(x -> param(x), [1]))')
    assert err.kind == "TypeError" and "returned a tracked value" in err.message and "detach" in err.message


# -- the terminal --------------------------------------------------------------------------------
def test_a_progress_bar_counts_finished_configurations_on_a_terminal():
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(sys.executable, [sys.executable, "-m", "lamina", "-e",
                                  't = sweep(c -> c.k, {k = [1, 2, 3]})\nprint("rows", nrows(t))'])
    chunks = []
    while True:
        try:
            data = os.read(fd, 4096)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    os.waitpid(pid, 0)
    text = b"".join(chunks).decode()
    assert "sweep" in text and "3/3" in text and "rows 3" in text


def test_ctrl_c_returns_the_rows_finished_so_far(tmp_path):
    program = ('function slow(c)\n    if c.k > 1\n        t0 = clock()\n        while clock() - t0 < 30\n'
               '        end while\n    end if\n    print("finished {c.k}")\n    return c.k\nend function\n'
               't = sweep(slow, {k = [0, 1, 2, 3]})\nprint(t[:, ["k", "result"]])\n')
    (tmp_path / "slow.lam").write_text(program)
    proc = subprocess.Popen([sys.executable, "-m", "lamina", "slow.lam"], cwd=tmp_path, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout.readline() == "finished 0\n"
    assert proc.stdout.readline() == "finished 1\n"
    time.sleep(0.5)
    proc.send_signal(2)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert out == "table: 2 rows x 2 columns\n   k  result\n0  0       0\n1  1       1\n"
    assert err == ("warning: sweep stopped by Ctrl-C after 2 of 4 configurations finished; it returns the "
                   "table of those. (slow.lam:10)\n")


def test_the_example_runs_with_one_worker(tmp_path):
    text = (ROOT / "examples" / "sweep.lam").read_text().replace("workers = 2", "workers = 1")
    (tmp_path / "examples" / "data").mkdir(parents=True)
    (tmp_path / "examples" / "data" / "digits.csv").write_bytes((ROOT / "examples/data/digits.csv").read_bytes())
    (tmp_path / "sweep1.lam").write_text(text)
    r = lamina(["sweep1.lam"], cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("table: 6 rows x 7 columns\n")
    assert "best: lr " in r.stdout and (tmp_path / "sweep.png").stat().st_size > 10_000


def test_parallel_map_keeps_float32_like_map():
    _, interp = run('a = parallel_map(x -> x * 2, float32([1.5, 2, 3]))\nb = map(float32([1.5, 2, 3]), x -> x * 2)')
    a, b = interp.get("a"), interp.get("b")
    assert a.dtype == np.float32 == b.dtype
    assert list(a) == [3.0, 4.0, 6.0]


def test_a_number_result_against_a_grid_field_named_result_says_so():
    _, interp = run('t = sweep(c -> 1, {result = [1, 2]}, seed = 1)')
    assert interp.get("t").columns["error"][0] == (
        "ValueError at <test>:1: sweep's training function returned a number, whose column result is "
        "also a column of the configuration; return a record such as {score = ...} instead.")


def _error(code: str):
    import pytest

    from lamina.errors import LaminaError
    with pytest.raises(LaminaError) as info:
        run(code)
    return info.value


def test_parallel_map_wrong_arity_points_at_the_function():
    err = _error('function f(a, b)\n    return a\nend function\nprint(parallel_map(f, [1, 4]))')
    assert err.kind == "TypeError" and err.message == "'f' is missing 1 required argument: 'b'."
    assert (err.span.line, err.span.col) == (1, 10)
    assert err.note == "in item 0 of the parallel_map at <test>:4"


def test_parallel_map_of_a_builtin_error_points_at_the_call():
    err = _error('x = 1\nprint(parallel_map(rand, [2, -1]))')
    assert err.message == "rand's row count must be at least 0, not -1."
    assert (err.span.line, err.span.col) == (2, 7)
    assert err.note == "in item 1 of the parallel_map"


def test_sweep_wrong_arity_error_names_the_place():
    _, interp = run('x = 1\nt = sweep((a, b) -> a, {a = [1]}, seed = 0)')
    assert interp.get("t").columns["error"] == [
        "TypeError at <test>:2: The anonymous function is missing 1 required argument: 'b'."]


def test_sweep_returning_a_tracked_number_says_tracked():
    _, interp = run('t = sweep(c -> param(c.a), {a = [1]}, seed = 1)')
    assert interp.get("t").columns["error"] == [
        "TypeError at <test>:1: sweep's training function returned a tracked value; return detach(...) "
        "of it (a tape does not leave its worker)."]


def test_exit_in_a_call_shows_what_the_call_printed_and_ends_with_its_status(tmp_path):
    from sweep_helpers import lamina
    r = lamina(["-e", 'function f(c)\n    print("in {c.a}")\n    if c.a == 2\n        exit(3)\n    end if\n'
                      '    return c.a\nend function\nt = sweep(f, {a = [1, 2, 3]}, seed = 1)\nprint("not reached")'],
               cwd=tmp_path, timeout=60)
    assert (r.returncode, r.stdout) == (3, "in 1\nin 2\n")
