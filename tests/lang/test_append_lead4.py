"""`v = append(v, x)` grows v in place when no other value holds it (a loop building a list or
vector so copied it at every step: quadratic), and never changes a value another one holds."""
import pytest

from lamina.interpreter import Interpreter

pytestmark = pytest.mark.ownership      # .ci/run runs these on every Python


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
