"""matmul and einsum (autodiff/products.py) as Lamina programs: values against NumPy's matmul and
einsum, gradients against PyTorch's autograd, in float64 and float32, on ranks 3 and 4; and each
bad shape's error."""
import subprocess
import sys

import numpy as np
import pytest

from lamina.autodiff import products
from lamina.interpreter import Interpreter

torch = pytest.importorskip("torch")
RNG = np.random.default_rng(139)


def _run(code: str, **arrays):
    interp = Interpreter()
    for name, value in arrays.items():
        interp.namespace[f"L_{name}"] = value
    interp.run(code, "<test>")
    return interp


def _error(code: str) -> str:
    p = subprocess.run([sys.executable, "-m", "lamina", "-e", code], capture_output=True, text=True)
    return p.stderr.splitlines()[0] if p.stderr else p.stdout


def _torch_grads(fn, arrays, weights):
    """The value of fn(*arrays) and the gradients of sum(fn(...) .* weights), by PyTorch."""
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    out = fn(*ts)
    (out * torch.tensor(np.asarray(weights, dtype=arrays[0].dtype))).sum().backward()
    return out.detach().numpy(), [t.grad.numpy() for t in ts]


def _lamina_grads(call: str, arrays, weights):
    names = [f"x{i}" for i in range(len(arrays))]
    params = "\n".join(f"p{i} = param(x{i})" for i in range(len(arrays)))
    code = (f"{params}\nr = {call.format(*[f'p{i}' for i in range(len(arrays))])}\n"
            f"g = grad(sum(reshape(r .* w, -1)), wrt = [{', '.join(f'p{i}' for i in range(len(arrays)))}])\n"
            f"v = detach(r)")
    interp = _run(code, w=weights, **dict(zip(names, arrays)))
    return interp.get("v"), interp.get("g")


def _tol(dtype) -> dict:
    return dict(rtol=1e-12, atol=1e-12) if dtype == np.float64 else dict(rtol=2e-5, atol=2e-5)


MATMUL_SHAPES = [((2, 3, 4), (2, 4, 5)), ((2, 2, 3, 4), (2, 2, 4, 3)), ((2, 1, 3, 4), (3, 4, 2)),
                 ((2, 3, 4), (4, 5)), ((3, 4), (2, 4, 5)), ((4,), (2, 4, 3)), ((2, 3, 4), (4,)),
                 ((3, 4), (4, 2)), ((4,), (4, 2)), ((3, 4), (4,)), ((1, 3, 4), (5, 4, 2))]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("sa, sb", MATMUL_SHAPES)
def test_matmul_and_its_gradients_against_numpy_and_torch(sa, sb, dtype):
    a, b = RNG.standard_normal(sa).astype(dtype), RNG.standard_normal(sb).astype(dtype)
    want = np.matmul(a, b)
    w = RNG.standard_normal(want.shape).astype(dtype)
    got, grads = _lamina_grads("matmul({}, {})", [a, b], w)
    assert np.shape(got) == want.shape and np.asarray(got).dtype == dtype
    np.testing.assert_allclose(got, want, **_tol(dtype))
    _, (ga, gb) = _torch_grads(torch.matmul, [a, b], w)
    for g, t, x in zip(grads, (ga, gb), (a, b)):
        assert g.shape == x.shape and g.dtype == dtype
        np.testing.assert_allclose(g, t, **_tol(dtype))


def test_matmul_of_two_vectors_is_their_dot_product():
    assert _run("r = matmul([1, 2, 3], [4, 5, 6])").get("r") == 32.0


@pytest.mark.parametrize("code, message", [
    ("matmul(zeros(2, 3, 4), zeros(2, 5, 6))",
     "ShapeError: matmul needs the inner sizes to agree: a 2x3x4 array and a 2x5x6 array (columns 4, rows 5)."),
    ("matmul(zeros(2, 3, 4), zeros(3, 4, 5))",
     "ShapeError: matmul broadcasts the batch axes (all but the last two, aligned from the right as NumPy "
     "does), but a 2x3x4 array and a 3x4x5 array have batches 2 and 3."),
    ("matmul(2, zeros(2, 3, 4))",
     "ShapeError: matmul multiplies tensors, not a number and a 2x3x4 array; to scale a tensor by a number, "
     "write x .* A."),
    ('matmul("a", zeros(2, 2))', "TypeError: matmul's first argument must be a number or tensor, not a string.")])
def test_a_wrong_matmul_is_a_clear_error(code, message):
    assert _error(f"print({code})") == message


EINSUMS = [("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]), ("bid,bjd->bij", [(2, 3, 4), (2, 5, 4)]),
           ("bhij,bhjd->bhid", [(2, 2, 3, 4), (2, 2, 4, 3)]), ("abcd,cd->ab", [(2, 3, 4, 5), (4, 5)]),
           ("ijk->kji", [(2, 3, 4)]), ("ijk->j", [(2, 3, 4)]), ("ijkl,kl->lij", [(2, 3, 4, 5), (4, 5)]),
           ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]), ("bi,bj,bk->bijk", [(2, 3), (2, 4), (2, 2)]),
           ("ii->", [(3, 3)]), ("ii->i", [(3, 3)]), ("iji,j->i", [(2, 3, 2), (3,)]),
           ("i,j->ij", [(3,), (4,)]), ("i,i->", [(4,), (4,)]), ("bij,bjk", [(2, 3, 4), (2, 4, 5)]),
           ("Ab,bc", [(2, 3), (3, 4)]), ("bij,jk->bik", [(3, 2, 4), (4, 5)]), ("ijk,ijk->", [(2, 3, 4)] * 2),
           ("abc,cde,efa->bdf", [(2, 3, 4), (4, 2, 3), (3, 2, 2)])]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("spec, shapes", EINSUMS, ids=[e[0] for e in EINSUMS])
def test_einsum_and_its_gradients_against_numpy_and_torch(spec, shapes, dtype):
    xs = [RNG.standard_normal(s).astype(dtype) for s in shapes]
    want = np.einsum(spec, *xs, optimize=True)
    w = RNG.standard_normal(want.shape).astype(dtype) if want.ndim else float(RNG.standard_normal())
    args = ", ".join("{}" for _ in xs)
    got, grads = _lamina_grads(f'einsum("{spec}", {args})', xs, w)
    assert np.shape(got) == want.shape
    if want.ndim:
        assert got.dtype == dtype
    np.testing.assert_allclose(got, want, **_tol(dtype))
    _, expected = _torch_grads(lambda *ts: torch.einsum(spec, *ts), xs, w)
    for g, t, x in zip(grads, expected, xs):
        assert g.shape == x.shape and g.dtype == dtype
        np.testing.assert_allclose(g, t, **_tol(dtype))


def test_einsum_with_a_number_operand_scales():
    a = RNG.standard_normal((2, 3, 4))
    np.testing.assert_allclose(_run('r = einsum(",ijk->kij", 2, a)', a=a).get("r"), 2 * np.transpose(a, (2, 0, 1)))
    assert _run('r = einsum("ijk->", a)', a=a).get("r") == pytest.approx(a.sum(), rel=1e-12)


def test_einsum_results_are_fresh_arrays():
    a = RNG.standard_normal((3, 4))
    r = _run('r = einsum("ij->ij", a)', a=a).get("r")
    assert not np.shares_memory(r, a)
    np.testing.assert_array_equal(r, a)


def test_the_batched_contraction_is_one_batched_matrix_product(monkeypatch):
    # each pair of operands is one batched matrix product (BLAS), not NumPy's C einsum loop
    calls = []
    real = products.bmm
    monkeypatch.setattr(products, "bmm", lambda x, y, *shape: calls.append((x.shape, y.shape)) or real(x, y, *shape))
    a, b = RNG.standard_normal((4, 3, 5)), RNG.standard_normal((4, 5, 2))
    np.testing.assert_allclose(products.einsum("bij,bjk->bik", [a, b]), a @ b, rtol=1e-12)
    assert calls == [((4, 3, 5), (4, 5, 2))]


@pytest.mark.parametrize("code, message", [
    ('einsum("bij,bjk->bik", zeros(2, 3, 4), zeros(2, 5, 6))',
     'ShapeError: einsum("bij,bjk->bik", ...): letter j has two sizes, 4 in operand 0 (\'bij\', a 2x3x4 array) '
     'and 5 in operand 1 (\'bjk\', a 2x5x6 array).'),
    ('einsum("bij,bjk->bik", zeros(2, 3, 4))',
     'ValueError: einsum("bij,bjk->bik", ...) names 2 operands, but 1 was given.'),
    ('einsum("ij->ij", zeros(2, 3), zeros(3))',
     'ValueError: einsum("ij->ij", ...) names 1 operand, but 2 were given.'),
    ('einsum("bij,bjk->bik", zeros(3, 4), zeros(2, 4, 5))',
     'ShapeError: einsum("bij,bjk->bik", ...): operand 0 has 3 letters (\'bij\'), but it is a 3x4 matrix, '
     'of rank 2.'),
    ('einsum("ij,jk->iz", zeros(2, 3), zeros(3, 4))',
     'ValueError: einsum("ij,jk->iz", ...): the output letter z is in no operand\'s subscripts.'),
    ('einsum("ij->ii", zeros(2, 2))', 'ValueError: einsum("ij->ii", ...): the output names letter i twice.'),
    ('einsum("...ij->ij", zeros(2, 2))',
     'ValueError: einsum("...ij->ij", ...): \'...\' is not supported; name every axis with a letter.'),
    ('einsum("i1,1j", zeros(2, 2), zeros(2, 2))',
     'ValueError: einsum("i1,1j", ...): the subscripts hold letters, commas and at most one \'->\' (as '
     '"bij,bjk->bik"), not \'1\'.'),
    ('einsum("ij")', 'ValueError: einsum("ij") needs its operands after the subscripts.'),
    ('einsum(3, zeros(2))', "TypeError: einsum's subscripts must be a string, not a number.")])
def test_a_wrong_einsum_is_a_clear_error(code, message):
    assert _error(f"print({code})") == message


@pytest.mark.parametrize("sa, sb", [((4, 32, 64), (4, 64, 32)), ((4, 32, 64), (64, 32)), ((32, 64), (64, 8))])
def test_matmul_gradients_are_handed_out_without_a_copy(sa, sb, monkeypatch):
    # grad copies a gradient that is a view (autodiff/grad.py), a copy per gradient per step
    from lamina.autodiff import grad as sweep
    from lamina.autodiff import ops, reductions
    from lamina.autodiff.tape import TAPE
    a, b = TAPE.leaf(RNG.standard_normal(sa), False), TAPE.leaf(RNG.standard_normal(sb), False)
    copies = []
    real = sweep.np.array
    # np.array(x, copy=None) copies nothing (np.broadcast_to calls it for sum's gradient)
    monkeypatch.setattr(sweep.np, "array", lambda *x, **k: (k.get("copy", True) is not None and copies.append(1))
                        or real(*x, **k))
    ga, gb = sweep.grad(reductions.sum(ops.emul(products.matmul(a, b), 2.0)), [a, b])
    monkeypatch.undo()
    assert copies == []
    twos = np.full(np.matmul(a.value, b.value).shape, 2.0)
    np.testing.assert_allclose(ga, np.matmul(twos, np.swapaxes(b.value, -1, -2)), rtol=1e-12)


@pytest.mark.parametrize("sa, sb", [((5, 4, 2), (2, 0)), ((5, 4, 0), (0, 3)), ((0, 4, 2), (2, 3)),
                                    ((2, 0, 3), (3, 2)), ((2, 3, 0), (2, 0, 4)), ((0, 2), (2, 3)),
                                    ((0, 1, 2, 3), (4, 3, 2)), ((1, 2, 3), (0, 3, 2))])
def test_matmul_with_an_axis_of_length_zero_is_numpys_and_so_are_its_gradients(sa, sb):
    # a batch times a matrix is one product of the stacked rows, where reshape(-1, 0) cannot infer
    # the rows (ones(5, 4, 2) @ zeros(2, 0) was an InternalError), and a batch of 0 beside a batch
    # of 1 is a batch of 0 (it was taken as 1)
    a, b = RNG.standard_normal(sa), RNG.standard_normal(sb)
    want = np.matmul(a, b)
    _, grads = _torch_grads(torch.matmul, [a, b], np.ones(want.shape))
    interp = _run("pa = param(a)\npb = param(b)\nc = matmul(pa, pb)\nd = a @ b\ng = grad(sum(c), wrt = [pa, pb])",
                  a=a, b=b)
    assert np.array_equal(interp.get("d"), want) and interp.get("d").shape == want.shape
    ga, gb = interp.get("g")
    assert ga.shape == a.shape and gb.shape == b.shape
    np.testing.assert_array_equal(ga, grads[0])
    np.testing.assert_array_equal(gb, grads[1])
