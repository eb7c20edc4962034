"""Review 4 of the run time: functions, scoping, control flow, indexing and error locations."""
from __future__ import annotations

import pytest

from lamina.errors import LaminaError


def error_of(run, source: str) -> LaminaError:
    with pytest.raises(LaminaError) as info:
        run(source)
    return info.value


@pytest.mark.parametrize("source, line, col", [
    ("x = 1\ny = x * bogus", 2, 9),
    ("y = 2 < bogus", 1, 9),
    ("y = [1, 2] + bogus", 1, 14),
    ("function f(a)\n  return a + bogus\nend function\nf(1)", 2, 14),
])
def test_an_undefined_operand_is_pointed_at_not_the_operator(run, source, line, col):
    err = error_of(run, source)
    assert (err.kind, err.message) == ("NameError", "Undefined variable 'bogus'.")
    assert (err.span.line, err.span.col, err.span.length) == (line, col, 5)


def test_a_loop_over_a_tracked_number_is_an_error_as_over_a_number(run):
    err = error_of(run, "w = param(2.0)\nfor x in w\n    print(x)\nend for")
    assert err.kind == "TypeError"
    assert err.message.startswith("Cannot loop over a number; 'for x in ...' takes a vector")
    lines, _ = run("w = param([2, 3])\nfor x in w\n    print(x)\nend for")
    assert lines == ["2", "3"]


@pytest.mark.parametrize("source, message", [
    # a name a fast (float) loop copy trusts, also bound by a catch, an import or a for-in
    ("x = 0\nfor i = 0 to 2\n  x = x + 1\n  try\n    error(\"boom\")\n  catch x\n  end try\nend for",
     "Cannot apply '+' to a record and a number."),
    ("function f(x)\n  x = x * 2\n  try\n    error(\"a\")\n  catch x\n  end try\n  return x + 1\n"
     "end function\nf(1)", "Cannot apply '+' to a record and a number."),
    ("x = 0\nwhile x < 3\n  x = x + 1\n  import \"{mod}\" as x\nend while",
     "Cannot compare a module and a number with '<'."),
    ("function f(x)\n  x = x + 1\n  for x in [\"a\"]\n  end for\n  return x - 1\nend function\nf(1)",
     "Cannot apply '-' to a string and a number. To build text, use interpolation: \"{a} and {b}\"."),
])
def test_a_name_bound_otherwise_is_no_float_in_the_fast_copy(run, tmp_path, source, message):
    (tmp_path / "m.lam").write_text("y = 1\n")
    err = error_of(run, source.replace("{mod}", str(tmp_path / "m.lam")))
    assert (err.kind, err.message) == ("TypeError", message)


def nested_functions(levels: int, with_loops: bool) -> str:
    lines, ends = [], []
    for d in range(levels):
        pad = "  " * (2 * d)
        lines += [f"{pad}function f{d}(x)", f"{pad}  y = x + 1"]
        if with_loops:
            lines += [f"{pad}  while y < 3", f"{pad}    y = y + 1"]
            ends = [f"{pad}  end while", f"{pad}  return y", f"{pad}end function"] + ends
        else:
            ends = [f"{pad}  return y", f"{pad}end function"] + ends
    return "\n".join(lines + ends + ["print(f0(1))"])


@pytest.mark.parametrize("with_loops", [False, True])
def test_nested_functions_compile_in_linear_time(run, with_loops):
    from lamina.lang.compiler import NODES_KEY
    lines, interp = run(nested_functions(8, with_loops))
    assert lines == ["3" if with_loops else "2"]
    # each syntax node compiled a bounded number of times, not 2^levels
    assert len(interp.namespace[NODES_KEY]) < 500


@pytest.mark.parametrize("source, first, second", [
    ("print(1 == 1 == 1)", "==", "=="),           # was false: (1 == 1) is a bool, not 1
    ("x = 0.5\nif 0 < x < 1\n  print(x)\nend if", "<", "<"),
])
def test_comparisons_do_not_chain(run, source, first, second):
    err = error_of(run, source)
    assert (err.kind, err.message) == (
        "SyntaxError", f"Comparisons do not chain: write 'a {first} b and b {second} c' for both to hold.")
    lines, _ = run("print((1 == 1) == true, 1 < 2 and 2 < 3, ([1, 2] > 1) == ([3, 4] > 3))")
    assert lines == ["true true [1, 1]"]        # a comparison in parentheses may be compared


def test_a_nested_target_evaluates_each_index_once(run):
    lines, _ = run(
        'function k(i)\n  print("k", i)\n  return i\nend function\n'
        'L = [{x = 1}, {x = 2}]\nL[k(1)].x = 5\nprint(L)\n'
        'M = [[1, 2], [3, 4]]\nM[k(0)][k(1)] = 9\nprint(M)\n'
        'r = {v = [1, 2]}\nr.v[k(0)] = 7\nprint(r)\n')
    assert lines == ["k 1", "[{x=1}, {x=5}]", "k 0", "k 1", "[[1, 9], [3, 4]]", "k 0", "{v=[7, 2]}"]


def test_a_nested_target_with_a_random_index_writes_where_it_read(run):
    # read at one draw and written back at another, L[i] used to become a copy of L[j]
    lines, _ = run('seed(3)\nL = [{x = 0}, {x = 1}, {x = 2}, {x = 3}, {x = 4}]\n'
                   'for t = 1 to 40\n  L[randint(0, 4)].seen = t\nend for\n'
                   'print(map(L, r -> r.x))')
    assert lines == ["[0, 1, 2, 3, 4]"]


def test_a_compound_target_evaluates_its_indices_left_to_right(run):
    lines, _ = run('function k(i)\n  print("k", i)\n  return i\nend function\n'
                   'M = [[1, 2], [3, 4]]\nM[k(0)][k(1)] += 10\nprint(M)')
    assert lines == ["k 0", "k 1", "[[1, 12], [3, 4]]"]


def test_nested_and_or_compile_in_linear_time(run):
    from lamina.lang.compiler import NODES_KEY
    e = "x"
    for _ in range(10):
        e = f"x and ({e} or x)"
    lines, interp = run(f"x = true\ny = {e}\nprint(y, false and bogus, true or bogus)")
    assert lines == ["true false true"]
    assert len(interp.namespace[NODES_KEY]) < 100      # the right side of each was compiled twice


def record_owned(monkeypatch) -> list:
    """The `owned` flag of every store that reaches indexing.put (True: written in place)."""
    from lamina.lang import indexing
    flags, put = [], indexing.put

    def recording_put(*args, owned: bool):
        flags.append(owned)
        return put(*args, owned=owned)
    monkeypatch.setattr(indexing, "put", recording_put)
    return flags


@pytest.mark.ownership
@pytest.mark.parametrize("source", [
    "m = zeros(3, 2)\nfor i = 0 to 2\n    m[i] = [1, 2]\nend for",                       # a row of a matrix
    "function f()\n    m = zeros(3, 2)\n    for i = 0 to 2\n        m[i] = [i, i]\n    end for\n"
    "    return m\nend function\nm = f()",
    'v = zeros(3, dtype = "float32")\nfor i = 0 to 2\n    v[i] = i\nend for',             # float32
])
def test_a_store_into_an_unshared_array_by_one_index_writes_in_place(run, monkeypatch, source):
    owned = record_owned(monkeypatch)
    run(source)
    assert owned == [True, True, True]     # was copied whole at every store: quadratic in a loop


@pytest.mark.ownership
def test_a_store_by_one_index_writes_in_place_only_when_unshared(run, monkeypatch):
    owned = record_owned(monkeypatch)
    lines, _ = run('m = zeros(2, 2)\nm[0] = [1, 1]\nk = m\nm[1] = [2, 2]\n'
                   'v = float32([1, 2])\nv[0] = 5\nw = v\nv[1] = 6\n'
                   'function f(a)\n    a[1] = [7, 7]\n    return a\nend function\n'
                   'print(f(m), m, k, v, w)')
    assert owned == [True, False, True, False, False]
    assert lines == ["[1, 1; 7, 7] [1, 1; 2, 2] [1, 1; 0, 0] [5, 6] [5, 2]"]


@pytest.mark.ownership
def test_a_store_into_an_unshared_list_writes_in_place_only_when_unshared(run, monkeypatch):
    owned = record_owned(monkeypatch)
    lines, _ = run('L = ["a", "b", "c"]\nL[0] = "x"\nL[[1, 2]] = ["y", "z"]\n'
                   'for s in L\n    L[2] = "w"\n    print(s)\nend for\n'
                   'M = L\nM[0] = "q"\n'
                   'function f(A)\n    A[1] = "v"\n    return A\nend function\n'
                   'K = f(L)\nL[1] = L\nprint(L, M, K)')
    # the loop's first store copies (the loop holds L), the next two write into that copy;
    # M = L, the caller's L inside f, and L stored into itself are shared
    assert owned == [True, True, False, True, True, False, False, False]
    assert lines == ["x", "y", "z", '["x", ["x", "y", "w"], "w"] ["q", "y", "w"] ["x", "v", "w"]']
