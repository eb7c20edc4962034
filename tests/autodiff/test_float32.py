"""float32 parameters through the decompositions and the dtype arguments: a float32 matrix that
is symmetric up to float32 rounding is symmetric for eigh and chol (as for float64 at its own
precision), and a dtype argument that is not a string is named in Lamina's words."""
import contextlib
import io

import numpy as np
import pytest

from lamina.errors import LaminaError
from lamina.interpreter import Interpreter

torch = pytest.importorskip("torch")

# symmetric up to one float32 rounding: |A - A'| / max|A| = 4e-8, above float64's 1e-8
A = np.array([[2.0, 1.0], [np.float32(1.0000001), 3.0]], dtype=np.float32)
SOURCE = ('a = param(float32([2, 1; 1.0000001, 3]))\n'
          'e = eigh(a)\n'
          'ge = grad(dot(e.values, [1, 2]), wrt = a)\n'
          'L = chol(a)\n'
          'gl = grad(sum(L .* [1, 0; 2, 3]), wrt = a)\n')


def _interp(source: str) -> Interpreter:
    interp = Interpreter()
    with contextlib.redirect_stdout(io.StringIO()):
        interp.run(source, "<test>")
    return interp


def test_eigh_and_chol_take_a_float32_matrix_symmetric_to_float32_rounding(run):
    assert np.abs(A - A.T).max() / np.abs(A).max() > 1e-8
    interp = _interp(SOURCE)
    S = (A + A.T) / 2
    values, L = interp.get("e").fields["values"].value, interp.get("L").value
    assert values.dtype == np.float32 and L.dtype == np.float32
    np.testing.assert_array_equal(values, np.linalg.eigh(S)[0])
    np.testing.assert_array_equal(L, np.linalg.cholesky(S))
    # the gradients: float32, and torch's in float32 (on the symmetric part, made symmetric)
    t = torch.tensor(A, requires_grad=True)
    ts = (t + t.T) / 2
    (torch.linalg.eigvalsh(ts) * torch.tensor([1.0, 2.0])).sum().backward()
    ge = interp.get("ge")
    assert ge.dtype == np.float32
    np.testing.assert_allclose(ge, (t.grad + t.grad.T).numpy() / 2, rtol=1e-6, atol=1e-6)
    t.grad = None
    (torch.linalg.cholesky((t + t.T) / 2) * torch.tensor([[1.0, 0], [2, 3]])).sum().backward()
    gl = interp.get("gl")
    assert gl.dtype == np.float32
    np.testing.assert_allclose(gl, (t.grad + t.grad.T).numpy() / 2, rtol=1e-5, atol=1e-6)


    # a float32 matrix farther from symmetric than float32's rounding is still refused
    with pytest.raises(LaminaError) as err:
        run("print(eigh(float32([1, 2; 2.001, 1])))")
    assert err.value.message.startswith("eigh(A) needs a symmetric matrix, but A[0, 1] = 2 and "
                                        "A[1, 0] = 2.000999927520752")


@pytest.mark.parametrize("call, shown", [('zeros(2, dtype = [1, 2])', "a vector of length 2"),
                                         ('param(1, dtype = {a = 1})', "a record"),
                                         ('ones(2, dtype = 32)', "a number")])
def test_a_dtype_that_is_not_a_string_is_named_in_laminas_words(run, call, shown):
    with pytest.raises(LaminaError) as err:
        run(f"print({call})")
    assert err.value.kind == "ValueError"
    assert err.value.message.endswith(f'dtype must be "float64" or "float32", not {shown}.')


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_abs_of_a_nan_that_a_mask_replaces_passes_back_zero(run, dtype):
    # an absolute error on data with a missing value, the missing one masked out: torch's
    # gradient there is 0 (sgn(NaN) = 0), as Lamina's for a number; it was 0 * NaN = NaN
    interp = _interp(f'w = param([0/0, 1, -2, 0], dtype = "{dtype}")\n'
                     'z = abs(w)\n'
                     'z[isnan(w)] = 0\n'
                     'g = grad(sum(z .* [1, 2, 3, 4]), wrt = w)\n')
    t = torch.tensor([np.nan, 1, -2, 0], dtype=getattr(torch, dtype), requires_grad=True)
    z = t.abs().clone()
    z[t.isnan()] = 0
    (z * torch.tensor([1.0, 2, 3, 4], dtype=t.dtype)).sum().backward()
    g = interp.get("g")
    assert g.dtype == np.dtype(dtype)
    assert g.tolist() == t.grad.tolist() == [0, 2, -3, 0]
