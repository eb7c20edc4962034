"""The stores of lang/stores.py: `r.x = v` and `r.v[i] = x` change an unshared record in place
(a loop filling a record's vector is not quadratic), `v[i] = x` an unshared array or list,
`v = append(v, x)` grows an unshared list or vector in place; none ever changes a value that
another name, list, record or caller still holds."""
import weakref

import numpy as np
import pytest

from lamina.errors import LaminaError
from lamina.interpreter import Interpreter
from lamina.lang import stores
from lamina.stats.table import Table
from lamina.values import Record

pytestmark = pytest.mark.ownership      # .ci/run runs these on every Python


def interpreter_after(code: str) -> Interpreter:
    interp = Interpreter()
    interp.run(code, "<test>")
    return interp


def test_a_loop_fills_a_records_vector_and_fields_in_place(monkeypatch):
    interp = interpreter_after("r = {v = zeros(5), n = 0}\n")
    vector = weakref.ref(interp.get("r").fields["v"])     # (holding it would share it)
    copies = []
    monkeypatch.setattr(Record, "with_field", lambda *args: copies.append(args))
    interp.run("for i = 0 to 4\n    r.v[i] = i * 2\n    r.n = r.n + 1\n    r.last = i\nend for\n"
               "function fill(k)\n    s = {v = zeros(k)}\n    for i = 0 to k - 1\n        s.v[i] = i\n"
               "    end for\n    return s\nend function\nt = fill(3)", "<test>")
    record = interp.get("r")
    assert copies == [] and record.fields["v"] is vector()
    np.testing.assert_array_equal(record.fields["v"], [0, 2, 4, 6, 8])
    assert record.fields["n"] == 5 and record.fields["last"] == 4
    np.testing.assert_array_equal(interp.get("t").fields["v"], [0, 1, 2])


@pytest.mark.parametrize("holder", [
    "s = r",                      # another name
    "s = [r]",                    # a list
    "s = {inner = r}",            # another record
    "s = r.v",                    # the field's own value
])
def test_a_store_never_changes_a_value_held_elsewhere(holder):
    interp = interpreter_after(f"r = {{v = zeros(3), k = 1}}\n{holder}\nbefore = string(s)\n"
                               "r.v[0] = 7\nr.v[[1, 2]] = [8, 9]\nr.k = 2\nr.extra = 3\nafter = string(s)")
    assert interp.get("before") == interp.get("after")
    r = interp.get("r")
    np.testing.assert_array_equal(r.fields["v"], [7, 8, 9])
    assert (r.fields["k"], r.fields["extra"]) == (2, 3)


def test_a_function_changing_its_argument_leaves_the_callers_record_alone():
    interp = interpreter_after("function bump(q)\n    q.v[0] = 99\n    q.k = 5\n    return q\nend function\n"
                               "r = {v = [1, 2], k = 1}\nq2 = bump(r)")
    r, q2 = interp.get("r"), interp.get("q2")
    np.testing.assert_array_equal(r.fields["v"], [1, 2])
    assert r.fields["k"] == 1 and q2.fields["k"] == 5
    np.testing.assert_array_equal(q2.fields["v"], [99, 2])


def test_a_list_field_and_a_tracked_value_go_in_as_before():
    interp = interpreter_after("r = {items = [\"a\", \"b\"], w = zeros(2)}\nr.items[1] = \"c\"\nr.w[0] = param(3.0)\n"
                               "g = grad(sum(r.w) * 2, wrt = r.w)")
    assert interp.get("r").fields["items"] == ["a", "c"]
    np.testing.assert_array_equal(interp.get("g"), [2.0, 2.0])


@pytest.mark.parametrize("code, kind, message, col", [
    ("r = 3\nr.v[0] = 1", "TypeError", "Cannot read field 'v' of a number", 3),
    ("r = {v = [1, 2]}\nr.w[0] = 1", "NameError", "Record has no field 'w'", 3),
    ("r = {v = [1, 2]}\nr.v[5] = 1", "IndexError", "Index 5 is out of range", 4),
    ("r = 3\nr.v = 1", "TypeError", "Cannot set field 'v' of a number", 3),
])
def test_errors_point_at_the_field_or_the_index_that_failed(code, kind, message, col):
    with pytest.raises(LaminaError) as e:
        interpreter_after(code)
    assert e.value.kind == kind and message in e.value.message
    assert (e.value.span.line, e.value.span.col) == (2, col)


def test_a_loop_sets_an_unshared_tables_cells_in_place_and_never_a_shared_ones():
    interp = interpreter_after('t = table({x = zeros(4), name = ["a", "a", "a", "a"]})\nu = t\n'
                               't[0, "x"] = 1\nt[1, "name"] = "b"\n'                       # shared with u: a copy
                               'w = t\nw["y"] = [1, 2, 3, 4]\nw[2, "x"] = 5\n'          # w's x is also t's
                               'for i = 0 to 3\n    t[i, "x"] = t[i, "x"] + 10\nend for')
    table = interp.get("t")
    column = weakref.ref(table.columns["x"])
    np.testing.assert_array_equal(table.columns["x"], [11, 10, 10, 10])
    assert table.columns["name"] == ["a", "b", "a", "a"]
    np.testing.assert_array_equal(interp.get("u").columns["x"], [0, 0, 0, 0])
    assert interp.get("u").columns["name"] == ["a"] * 4
    np.testing.assert_array_equal(interp.get("w").columns["x"], [1, 0, 5, 0])
    del table
    interp.run('for i = 0 to 3\n    t[i, "x"] = i\n    t[i, "name"] = "c"\nend for', "<test>")
    assert interp.get("t").columns["x"] is column()           # written where it was
    assert interp.get("t").columns["name"] == ["c"] * 4


def test_a_failed_cell_store_leaves_the_table_as_it_was():
    interp = interpreter_after('t = table({x = [1, 2], name = ["a", "b"]})')
    for code in ['t[0, "x"] = "text"', 't[0, "name"] = 3', 't[[0, 1], "x"] = [1, 2, 3]', 't[5, "x"] = 1']:
        with pytest.raises(LaminaError):
            interp.run(code, "<test>")
    np.testing.assert_array_equal(interp.get("t").columns["x"], [1, 2])
    assert interp.get("t").columns["name"] == ["a", "b"]


def test_a_field_or_column_table_that_two_values_share_is_never_written_in_place():
    """Two records (tables) on one field table (column table), as no program builds them today:
    the store counts the table's holders apart from the record's, so the other keeps its values."""
    fields = {"k": 1.0, "v": np.zeros(2)}
    r, s = Record(fields), Record(fields)
    del fields                          # (a third holder would hide a miscount by one)
    r = stores.set_field_var(r, "k", 2.0)
    r = stores.set_field_index_var(r, "v", r.fields["v"], (0.0,), 5.0)
    assert (r.fields["k"], s.fields["k"]) == (2.0, 1.0)
    np.testing.assert_array_equal(r.fields["v"], [5, 0])
    np.testing.assert_array_equal(s.fields["v"], [0, 0])
    columns = {"x": np.zeros(2)}
    t, u = Table(columns), Table(columns)
    del columns
    t = stores.set_index_var(t, (0.0, "x"), 5.0)
    np.testing.assert_array_equal(t.columns["x"], [5, 0])
    np.testing.assert_array_equal(u.columns["x"], [0, 0])


def test_an_unshared_list_or_vector_grows_in_place():
    interp = Interpreter()
    # a literal such as [1, 2] is a constant the program keeps: the first append copies it
    interp.run('xs = append([1, 2], 3)\nL = ["a"]\nf = float32([1, 2])', "<test>")
    # the old value is alive while a copy is made, so a copy never has the old id
    before = [id(interp.get(k)) for k in ("xs", "L", "f")]
    interp.run('xs = append(xs, 4)\nL = append(L, "b")\nf = append(f, 3)', "<test>")
    assert [id(interp.get(k)) for k in ("xs", "L", "f")] == before
    assert interp.get("xs").tolist() == [1, 2, 3, 4] and interp.get("L") == ["a", "b"]
    assert interp.get("f").dtype.name == "float32"


def test_a_value_held_elsewhere_is_never_changed(run):
    assert run('a = []\na = append(a, 1)\nb = a\na = append(a, 2)\nprint(a, b)\n'
               'function f(v)\n    v = append(v, 9)\n    return v\nend function\n'
               'x = [1]\ny = f(x)\nprint(x, y)\n'
               'inner = [1, "a"]\nouter = [inner]\ninner = append(inner, 2)\nprint(outer, inner)\n'
               'r = {v = [1, 2]}\nv = r.v\nv = append(v, 3)\nprint(r.v, v)\n'
               't = table({x = [1, 2]})\nc = t.x\nc = append(c, 3)\nprint(t.x, c)\n'
               'M = [1, 2; 3, 4]\nrow = M[0, :]\nrow = append(row, 7)\nprint(M, row)\n'
               'm = [1, 2] > 1\nm = append(m, 5)\nprint(m, dtype(m))\n'
               'xs = [1, 2]\nfor e in xs\n    xs = append(xs, e)\nend for\nprint(xs)')[0] == [
        "[1, 2] [1]", "[1] [1, 9]", '[[1, "a"]] [1, "a", 2]', "[1, 2] [1, 2, 3]", "[1, 2] [1, 2, 3]",
        "[1, 2; 3, 4] [1, 2, 7]", "[0, 1, 5] float64", "[1, 2, 1, 2]"]


def test_a_function_of_ones_own_named_append_is_called(run):
    assert run("function append(a, b)\n    return 0\nend function\nq = [1]\nq = append(q, 2)\nprint(q)")[0] == ["0"]


def test_a_tracked_vector_keeps_its_gradient(run):
    assert run("p = param([1.0, 2.0])\nw = p\nw = append(w, 3)\nprint(grad(sum(w .* w), wrt = p))")[0] == ["[2, 4]"]


def test_a_tracked_value_goes_into_a_list_item_and_a_record_field():
    interp = Interpreter()
    interp.run('ps = [param([1.0, 2.0]), param(0.5)]\nps[1] = param(1.0)\np = {w = [1.0, 2.0], b = 0.5}\n'
               'p["b"] = param(4.0)\ng = grad(p.b * 3 + sum(ps[0]) * ps[1], wrt = [p.b, ps[0], ps[1]])', "<test>")
    g = interp.get("g")
    assert g[0] == 3.0 and g[2] == 3.0
    np.testing.assert_array_equal(g[1], [1.0, 1.0])


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
