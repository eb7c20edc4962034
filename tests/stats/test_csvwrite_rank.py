"""write_csv of an array of rank 3 or more: a CSV file holds a table, so it is refused with a
ShapeError before any file is opened, as a matrix or as a column of a record."""
from __future__ import annotations

import numpy as np
import pytest

from lamina.errors import LaminaError
from lamina.interpreter import Interpreter
from lamina.lang.scope import mangle


def error_of(source: str, a: np.ndarray) -> LaminaError:
    interp = Interpreter()
    interp.namespace[mangle("a")] = a
    with pytest.raises(LaminaError) as e:
        interp.run(source, "<test>")
    return e.value


def test_write_csv_refuses_an_array_and_writes_nothing(tmp_path):
    path = tmp_path / "a.csv"
    for source in [f'write_csv(a, "{path}")', f'write_csv(a, "{path}", names = ["p", "q", "r", "s"])']:
        e = error_of(source, np.zeros((2, 3, 4)))
        assert e.kind == "ShapeError"
        assert e.message.startswith("write_csv takes numbers, vectors and matrices, not a 2x3x4 array.")
    assert not path.exists()


def test_write_csv_refuses_a_record_column_that_is_an_array(tmp_path):
    path = tmp_path / "a.csv"
    e = error_of(f'write_csv({{x = a}}, "{path}")', np.zeros((2, 3, 4)))
    assert e.kind == "ShapeError" and e.message == "Column 'x' must be a vector, not a 2x3x4 array."
    assert not path.exists()
