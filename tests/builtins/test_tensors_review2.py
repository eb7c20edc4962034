"""Review 2: tensor construction builtins."""
import subprocess
import sys

import pytest


def run(code: str) -> str:
    p = subprocess.run([sys.executable, "-m", "lamina", "-e", code], capture_output=True, text=True)
    return p.stdout + p.stderr


@pytest.mark.parametrize("code, name", [("print(eye(2, 3))", "eye"), ("print(zeros(3, 2, 1))", "zeros"),
                                        ("print(ones(3, 2, 1))", "ones")])
def test_extra_positional_size_is_not_read_as_a_dtype(code, name):
    # eye(2, 3) used to say "eye's dtype must be ... not a float": the 3 was taken as the dtype
    out = run(code)
    assert out.startswith(f"TypeError: '{name}' takes ")
    assert "dtype must be" not in out


def test_dtype_keyword_still_works():
    assert run('print(dtype(eye(2, dtype = "float32")), dtype(zeros(2, 2, dtype = "float32")), '
               'dtype(ones(2, dtype = "float32")))').strip() == "float32 float32 float32"


@pytest.mark.parametrize("call, shape", [("max(zeros(0, 3), axis = 1)", "[0, 1]"),
                                         ("min(zeros(3, 0), axis = 0)", "[1, 0]"),
                                         ("argmax(zeros(0, 3), axis = 1)", "[0, 1]"),
                                         ("argmin(zeros(3, 0), axis = 0)", "[1, 0]")])
def test_extreme_along_a_nonempty_axis_of_an_empty_matrix_is_empty(call, shape):
    # NumPy: np.max(np.zeros((0, 3)), axis=1, keepdims=True).shape == (0, 1); Lamina used to raise
    assert run(f"print(size({call}))").strip() == shape


@pytest.mark.parametrize("call, msg", [("max(zeros(0, 3), axis = 0)", "max of an empty 0x3 is undefined."),
                                       ("argmin(zeros(3, 0), axis = 1)", "argmin of an empty 3x0 is undefined.")])
def test_extreme_along_an_empty_axis_is_still_an_error(call, msg):
    assert run(f"print({call})").startswith(f"ValueError: {msg}")
