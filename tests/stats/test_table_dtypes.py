"""A table's numeric column keeps float32 from every way a column is made (a record's field,
t.name = v, with_column, a matrix's column), and is float64 otherwise: before, a record's
float32 field became float64 and printed its float32 noise (0.10000000149011612)."""
from __future__ import annotations

import numpy as np
import pytest

from lamina.interpreter import Interpreter


def run(code: str):
    interp = Interpreter()
    interp.run(code, "<test>")
    return interp


@pytest.mark.parametrize("make", [
    "t = table({a = v})",
    "t = table({b = [1, 2, 3]}); t.a = v",
    'seed(1); t = with_column(table({b = [1, 2, 3]}), "a", v)',
    't = table(float32([0.1, 1; 0.2, 2; 0.3, 3]), ["a", "b"])',
])
def test_a_float32_column_stays_float32(make, capsys):
    interp = run(f"v = float32([0.1, 0.2, 0.3])\n{make}\nprint(dtype(t.a), t.a)")
    assert capsys.readouterr().out == "float32 [0.1, 0.2, 0.3]\n"
    column = interp.get("t").columns["a"]
    assert column.dtype == np.float32
    np.testing.assert_array_equal(column, np.float32([0.1, 0.2, 0.3]))


def test_other_columns_are_float64(capsys):
    run("t = table({a = [1, 2] > 1, b = [0.1, 0.2], c = append([0.5], 1.5)})\nprint(dtype(t.a), dtype(t.b), dtype(t.c), t.a)")
    assert capsys.readouterr().out == "float64 float64 float64 [0, 1]\n"


def test_a_column_is_a_copy_of_the_vector():
    interp = run("v = float32([1, 2])\nt = table({a = v})\nv[0] = 9")
    assert interp.get("t").columns["a"].tolist() == [1.0, 2.0]
