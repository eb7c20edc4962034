"""hcat and vcat with the empty vector [] among matrices: it adds no row or column, as torch.cat
skips a 1-D empty tensor, so a loop can build a matrix from acc = []."""
import numpy as np
import pytest

from lamina.errors import LaminaError

torch = pytest.importorskip("torch")


def test_vcat_builds_a_matrix_from_the_empty_vector(run):
    out = run("acc = []\n"
              "for i = 0 to 2\n"
              "    acc = vcat(acc, [i, 2 * i]')\n"
              "end for\n"
              "print(acc, size(vcat([], zeros(0, 2))))")
    assert out == ["[0, 0; 1, 2; 2, 4] [0, 2]"]
    rows = torch.empty(0, dtype=torch.float64)
    for i in range(3):
        rows = torch.cat([rows, torch.tensor([[i, 2.0 * i]], dtype=torch.float64)])
    assert rows.tolist() == [[0, 0], [1, 2], [2, 4]]


def test_hcat_skips_the_empty_vector_beside_matrices(run):
    out = run("m = [1, 2; 3, 4; 5, 6]\n"
              "print(hcat([], m, []), size(hcat([], [1, 2, 3])), size(hcat([], zeros(0, 2))))\n"
              "print(size(hcat([], [])), size(hcat(zeros(3, 0), m)))")
    assert out == ["[1, 2; 3, 4; 5, 6] [3, 1] [0, 2]", "[0, 2] [3, 2]"]
    m = torch.tensor([[1.0, 2], [3, 4], [5, 6]])
    assert torch.cat([torch.empty(0), m, torch.empty(0)], dim=1).tolist() == m.tolist()
    # every piece empty: they stay columns, as NumPy's column_stack makes them
    assert np.column_stack([np.empty(0), np.empty(0)]).shape == (0, 2)


def test_tracked_empty_pieces_get_empty_gradients(run):
    out = run('e = param([])\n'
              'm = param([1, 2; 3, 4], dtype = "float32")\n'
              'g = grad(sum(hcat(e, m, e) .^ 2) + sum(vcat(e, m) .^ 2), wrt = [e, m])\n'
              'print(g, size(g[0]), dtype(g[0]), dtype(g[1]))')
    assert out == ["[[], [4, 8; 12, 16]] [0] float64 float32"]
    te = torch.empty(0, dtype=torch.float64, requires_grad=True)
    tm = torch.tensor([[1.0, 2], [3, 4]], requires_grad=True)
    ((torch.cat([te, tm, te], 1) ** 2).sum() + (torch.cat([te, tm]) ** 2).sum()).backward()
    assert tm.grad.tolist() == [[4, 8], [12, 16]] and te.grad.shape == (0,)


def test_vcat_mismatch_names_the_column_counts(run):
    with pytest.raises(LaminaError) as err:
        run("print(vcat([1, 2; 3, 4], [1, 2, 3]))")
    assert err.value.kind == "ShapeError"
    assert ("vcat stacks pieces with the same number of columns (2), but piece 1 is a vector of "
            "length 3 with 1 column. A vector counts as a column") in err.value.message
    with pytest.raises(LaminaError) as err:
        run("print(hcat([], [1, 2; 3, 4], [1, 2, 3]))")
    assert ("hcat joins pieces with the same number of rows, but piece 1 (a 2x2 matrix) has 2 "
            "and piece 2 (a vector of length 3) has 3") in err.value.message


@pytest.mark.parametrize("source, count", [("[1, 2, 3, 4]", 4), ("[]", 0)])
def test_reshape_counts_a_huge_shape_without_wrapping_around(run, source, count):
    # 2^32 x 2^32 wrapped to 0 in int64: "holds 0", and for [] an InternalError from NumPy
    with pytest.raises(LaminaError) as err:
        run(f"print(reshape({source}, 2^32, 2^32))")
    assert err.value.kind == "ShapeError"
    assert err.value.message.endswith(f"has {count}, but a 4294967296x4294967296 matrix holds "
                                      f"{2 ** 64}.")
