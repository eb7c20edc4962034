"""Products of tensors of any rank: matmul (batched, NumPy's) and einsum. The math and the VJPs
are in autodiff/products.py."""
from __future__ import annotations

from ..autodiff import products
from ..errors import LaminaError
from ..values import as_str
from .mathfns import operands
from .registry import Const, GradCase, Shape, builtin

CATEGORY = "Linear algebra"


@builtin("matmul", elsewhere={"bmm": "PyTorch"},
         twice=True, pure="a value", category=CATEGORY, any_rank=True,
         shapes=[Shape("matmul(A, B)", "matrices", "matrix", "The matrix product, as A * B."),
                 Shape("matmul(A, B)", "arrays ... x m x k and ... x k x n", "array",
                       "One matrix product per batch item; the leading axes are the batch, "
                       "broadcast as NumPy broadcasts them."),
                 Shape("matmul(v, B)", "vector, tensor", "tensor",
                       "A vector on the left is a row, on the right a column, and that axis is "
                       "dropped from the result.")],
         summary="The matrix product, batched over leading axes (NumPy's matmul).",
         examples=["print(matmul([1, 2; 3, 4], [5, 6; 7, 8]), matmul([1, 2], [3, 4]))",
                   "A = reshape(range(12), 2, 2, 3)\nB = ones(2, 3, 4)\nC = matmul(A, B)\n"
                   "print(size(C), C[1, 0, 0])",
                   "print(size(matmul(ones(5, 2, 3), ones(3, 4))), size(matmul(ones(2, 1, 2, 3), ones(4, 3, 2))))"],
         notes="NumPy's matmul (and torch.matmul): the last two axes of each operand are matrices "
               "and the axes before them a batch. The batch axes broadcast as NumPy broadcasts, "
               "aligned from the right: a 5 x 2 x 3 array times a 3 x 4 matrix multiplies each of "
               "the 5 matrices by the same one, and batches 2 x 1 and 4 give a 2 x 4 batch. This is "
               "the one place Lamina aligns shapes from the right, since a product's matrix axes are "
               "always the last two; elementwise operators keep the language's rule (a tensor of rank "
               "3 or more meets only a number or a tensor of its own rank). A vector on the left is "
               "a 1 x k row and on the right a k x 1 column, and that axis is dropped from the "
               "result, so two vectors give their dot product. The operator A @ B is matmul(A, B). "
               "For two matrices it is A * B; the * operator stays the product of vectors and "
               "matrices. Numbers are "
               "refused: scale with .*. Each operand's gradient is the output's gradient times the "
               "other operand transposed, summed over the batch axes it was broadcast along.",
         grad=[GradCase(((2, 3, 4), (2, 4, 5))), GradCase(((2, 1, 3, 4), (3, 4, 2))),
               GradCase(((2, 3, 4), (4, 5))), GradCase(((4,), (2, 4, 3))), GradCase(((2, 3, 4), (4,))),
               GradCase(((3, 4), (4, 2)))])
def matmul(a, b):
    x, y = operands((a, "matmul's first argument"), (b, "matmul's second argument"))
    return products.matmul(x, y)


@builtin("einsum", twice=True, pure="a value", category=CATEGORY, any_rank=True,
         shapes=[Shape('einsum("ij,jk->ik", A, B, ...)', "subscripts, tensors", "tensor or number",
                       "Sums of products over the letters left out of the output."),
                 Shape('einsum("ij,jk", A, B)', "subscripts without ->, tensors", "tensor or number",
                       "The output is the letters used once, in alphabetical order (NumPy's implicit form).")],
         summary="Sums of products of tensors named by subscripts (Einstein summation, NumPy's einsum).",
         examples=['A = reshape(range(6), 2, 3)\nprint(einsum("ij,jk->ik", A, ones(3, 2)), einsum("ij->j", A), '
                   'einsum("ii->", [1, 2; 3, 4]))',
                   'seed(0)\nQ = randn(2, 5, 4)\nK = randn(2, 5, 4)\nS = einsum("bid,bjd->bij", Q, K)\n'
                   'print(size(S), abs(S[1, 2, 3] - sum(Q[1, 2, :] .* K[1, 3, :])) < 1e-12)'],
         notes="Each operand gets one letter per axis. A letter in several operands names axes of "
               "one size, multiplied element by element; a letter left out of the output (after "
               "->) is summed over. So \"ij,jk->ik\" is the matrix product, \"bij,bjk->bik\" the "
               "batched one, \"bid,bjd->bij\" attention's scores, \"ij->ji\" the transpose, \"ii->\" "
               "the trace and \"ii->i\" the diagonal. Without ->, the output is the letters used "
               "exactly once, in alphabetical order, as NumPy's. '...' is not taken: name every "
               "axis. A letter with two sizes, an operand with the wrong number of letters, an "
               "output letter in no operand and a wrong count of operands are errors. The numerics: "
               "each pair of operands is contracted by one batched matrix product (BLAS, as "
               "torch.einsum does), three or more in the order NumPy's einsum_path chooses "
               "(greedy); the results agree with NumPy's einsum(..., optimize = True) to rounding. "
               "Operand i's gradient is the einsum of the output's gradient with the other operands.",
         grad=[GradCase((Const("bij,bjk->bik"), (2, 3, 4), (2, 4, 5))),
               GradCase((Const("bhij,bhjd->bhid"), (2, 2, 3, 4), (2, 2, 4, 3))),
               GradCase((Const("bid,bjd->bij"), (2, 3, 4), (2, 5, 4))),
               GradCase((Const("abcd,cd->ab"), (2, 3, 4, 5), (4, 5))),
               GradCase((Const("ij,jk,kl->il"), (2, 3), (3, 4), (4, 2))),
               GradCase((Const("ii->"), (3, 3))), GradCase((Const("iji,j->i"), (2, 3, 2), (3,)))])
def einsum(subscripts, *tensors):
    spec = as_str(subscripts, "einsum's subscripts")
    if not tensors:
        raise LaminaError("ValueError", f'einsum("{spec}") needs its operands after the subscripts.')
    xs = operands(*((x, f"einsum's operand {i}") for i, x in enumerate(tensors)))
    return products.einsum(spec, xs)
