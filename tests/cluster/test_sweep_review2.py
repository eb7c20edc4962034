"""Review 2: sweep and parallel_map edge cases (workers = 1, no Ray)."""
from __future__ import annotations

import numpy as np
from sweep_helpers import run


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
