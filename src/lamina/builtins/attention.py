"""Attention builtins: the attention tape op (the math is in lamina.nn.attention)."""
from __future__ import annotations

import numpy as np

from ..errors import LaminaError
from ..nn.attention import attention as attention_op
from .registry import Const, GradCase, Shape, builtin

CATEGORY = "Neural nets"

# Fixed masks for the gradient checks (no generator: numpy.random stays out of start-up).
PATTERN = np.array([[1, 0, 1, 1, 0], [1, 1, 0, 1, 1], [0, 1, 1, 0, 1]], dtype=bool)   # 3 queries x 5 keys
PADDING = np.array([[[1, 1, 1, 1, 0]], [[1, 1, 0, 0, 0]]], dtype=bool)                # 2 x 1 x 5 keys


@builtin("attention", pure="a value", any_rank=True, category=CATEGORY,
         shapes=[Shape("attention(q, k, v)", "q b x t x d, k b x s x d, v b x s x e", "b x t x e array",
                       "Scaled dot-product attention: each query's output is a softmax-weighted mean "
                       "of the values, weighted by its scaled dot products with the keys."),
                 Shape("attention(q, k, v, heads = h)", "the same, h dividing d and e", "b x t x e array",
                       "Multi-head: d and e cut into h equal parts, one attention per part, the "
                       "outputs side by side."),
                 Shape("attention(q, k, v, mask = m, causal = true)", "the same, a logical mask",
                       "b x t x e array", "Only where m is true may a query attend to a key (m "
                       "broadcasts against b x t x s); causal: query i sees keys 0 to i."),
                 Shape("attention(q, k, v)", "q t x d, k s x d, v s x e; or any batch axes first",
                       "t x e matrix, or the batch axes x t x e",
                       "One sequence as a matrix, or several batch axes (b x h x t x dk: heads "
                       "already split, as torch's scaled_dot_product_attention takes them).")],
         summary="Scaled dot-product attention, softmax(q k' / sqrt(dk)) v, over a batch of "
                 "sequences, with several heads, a mask and a causal option; one operation on the "
                 "tape with its own gradient.",
         examples=["q = reshape(range(0, 12), 1, 3, 4) / 10      # one sequence: 3 steps, width 4\n"
                   "out = attention(q, q, q)\nprint(size(out))\nprint(round(out, 4))",
                   "seed(1)\nx = randn(2, 5, 8)                # 2 sequences, 5 steps, width 8\n"
                   "y = attention(x, x, x, heads = 2, causal = true)\nprint(size(y))\n"
                   "print(max(abs(y[:, 0, :] - x[:, 0, :])))     # step 0 sees only itself",
                   "seed(2)\nx = param(randn(2, 4, 6))\n"
                   "keep = reshape([1, 1, 1, 0, 1, 1, 0, 0] > 0, 2, 1, 4)   # padding: the last keys\n"
                   "y = attention(x, x, x, heads = 3, mask = keep)\n"
                   "g = grad(sum(y .^ 2), wrt = x)\nprint(size(g))\ntape_reset()"],
         notes="q is b x t x d (b sequences of t steps, d features: batch first, as Keras and "
               "torch's batch_first), k is b x s x d and v b x s x e. With heads = h (1 unless "
               "given), d and e are cut into h equal parts, head j taking columns j d/h to "
               "(j + 1) d/h, as torch's nn.MultiheadAttention and Keras's MultiHeadAttention cut "
               "them after their projections; per head, with dk = d / h, the scores are "
               "S = Q K' / sqrt(dk), the weights P = softmax(S) along the keys, the output P V, and "
               "the heads' outputs stand side by side again: b x t x e. A matrix q (t x d) is one "
               "sequence; more batch axes are allowed (b x h x t x dk with heads = 1 is torch's "
               "scaled_dot_product_attention exactly), and q, k and v must have the same batch "
               "axes.\n\n"
               "mask is a logical tensor, true where query i may attend to key j (0 and 1 are "
               "accepted too); it broadcasts against the scores b x t x s, every head sharing it: a "
               "t x s matrix is the same for every sequence, a b x t x s array is per sequence, and "
               "a b x 1 x s array hides padded keys (a b x s matrix is not taken as padding, since "
               "it could not be told from t x s when b = t: reshape it to b x 1 x s). causal = true "
               "lets query i attend to keys 0 to i only (the lower-left triangle, torch's "
               "is_causal), and combines with a mask. A query that may attend to no key gets "
               "weights of 0 and an output of 0 (torch gives NaN there).\n\n"
               "The whole computation is one tape entry with a hand-written backward: dV = P' dO, "
               "dS = P .* (dO V' - rowsum(dO .* O)), dQ = dS K / sqrt(dk), dK = dS' Q / sqrt(dk), "
               "shared by the three gradients. Forward and gradients equal torch's "
               "scaled_dot_product_attention to rounding. float32 inputs give a float32 result. The "
               "layer forms attention(spec, heads, key_dim) and transformer_block add projections.",
         grad=[GradCase(((3, 4), (5, 4), (5, 2))), GradCase(((2, 3, 4), (2, 5, 4), (2, 5, 6))),
               GradCase(((2, 3, 4), (2, 5, 4), (2, 5, 6)), {"heads": 2.0}),
               GradCase(((2, 4, 6), (2, 4, 6), (2, 4, 6)), {"heads": 3.0, "causal": True}),
               GradCase(((2, 3, 4), (2, 5, 4), (2, 5, 4)), {"heads": 2.0, "mask": Const(PATTERN)}),
               GradCase(((2, 3, 4), (2, 5, 4), (2, 5, 2)), {"mask": Const(PADDING), "causal": True}),
               GradCase(((2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 3))),
               GradCase(((2, 1, 4, 6), (2, 1, 4, 6), (2, 1, 4, 4)), {"heads": 2.0, "causal": True})])
def attention(q, k=None, v=None, /, heads=1.0, mask=None, causal=False):
    if k is None or v is None:
        raise LaminaError("TypeError", "attention(q, k, v) needs the queries, the keys and the values "
                          "(for self-attention pass the same array three times: attention(x, x, x)).")
    return attention_op(q, k, v, heads=heads, mask=mask, causal=causal)
