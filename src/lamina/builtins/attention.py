"""Attention builtins: the attention tape op (the math is in lamina.nn.attention), whose layer
form appends self-attention to a model spec, and the transformer_block and positional_embedding
layers (lamina.models.layers)."""
from __future__ import annotations

import numpy as np

from ..errors import LaminaError
from ..models.layers.attention import attention_layer
from ..models.layers.positional_embedding import positional_embedding_layer
from ..models.layers.transformer_block import transformer_block_layer
from ..nn.attention import attention as attention_op
from ..values import LibObject
from .registry import Const, GradCase, Shape, builtin

CATEGORY = "Neural nets"
LAYERS = "Models"
SEQUENCES = ("Its input is sequences, steps x features per example (input(steps, features), an "
             "embedding, or another sequence layer), and its output has the same shape.")

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
                       "already split, as torch's scaled_dot_product_attention takes them)."),
                 Shape("spec |> attention(heads, key_dim, causal = false)", "model spec of sequences, "
                       "heads, size per head", "model spec",
                       "The layer form: appends multi-head self-attention with query, key, value "
                       "and output projections, as Keras's MultiHeadAttention.")],
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
                   "g = grad(sum(y .^ 2), wrt = x)\nprint(size(g))\ntape_reset()",
                   "net = input(6, 8) |> attention(2, 4, causal = true) |> flatten() |> dense(1) |> "
                   "compile(seed = 1)\nprint(net)\nprint(size(net.weights[0].wq), size(net.weights[0].wo))"],
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
               "layer forms attention(spec, heads, key_dim) and transformer_block add projections.\n\n"
               "The layer form spec |> attention(heads, key_dim, causal = false) is self-attention "
               "over each example's sequence (steps x d), as Keras's MultiHeadAttention(heads, "
               "key_dim) called with the same sequence three times: q = x wq + bq, k = x wk + bk, "
               "v = x wv + bv (wq, wk, wv d x heads*key_dim), attention(q, k, v, heads = heads, causal "
               "= causal), then a wo + bo (wo heads*key_dim x d), so the output is steps x d again. "
               "The kernels start Glorot-uniform and the biases (1 x n rows) at zero; net.weights "
               "holds them as {wq, bq, wk, bk, wv, bv, wo, bo}. The layer is one operation on the "
               "tape: the three projections are one product and the backward is written out. "
               + SEQUENCES,
         grad=[GradCase(((3, 4), (5, 4), (5, 2))), GradCase(((2, 3, 4), (2, 5, 4), (2, 5, 6))),
               GradCase(((2, 3, 4), (2, 5, 4), (2, 5, 6)), {"heads": 2.0}),
               GradCase(((2, 4, 6), (2, 4, 6), (2, 4, 6)), {"heads": 3.0, "causal": True}),
               GradCase(((2, 3, 4), (2, 5, 4), (2, 5, 4)), {"heads": 2.0, "mask": Const(PATTERN)}),
               GradCase(((2, 3, 4), (2, 5, 4), (2, 5, 2)), {"mask": Const(PADDING), "causal": True}),
               GradCase(((2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 3))),
               GradCase(((2, 1, 4, 6), (2, 1, 4, 6), (2, 1, 4, 4)), {"heads": 2.0, "causal": True})])
def attention(q, k=None, v=None, /, heads=None, mask=None, causal=False, **options):
    if isinstance(q, LibObject) and q.type_name == "model spec":
        # The layer overload attention(spec, heads, key_dim, causal = ...): k and v are its slots.
        for given, name in ((k is not None and heads is not None, "heads"),
                            (v is not None and "key_dim" in options, "key_dim")):
            if given:
                raise LaminaError("TypeError", f"The layer attention(spec, heads, key_dim) got {name} twice, "
                                  f"by position and by keyword.")
        if mask is not None:
            raise LaminaError("TypeError", "The layer attention(spec, heads, key_dim, causal) takes no "
                              "mask; for a mask call the op attention(q, k, v, mask = m).")
        key_dim = v if v is not None else options.pop("key_dim", None)
        return attention_layer(q, heads=k if k is not None else heads, key_dim=key_dim, causal=causal, **options)
    if options:
        raise LaminaError("TypeError", f"attention(q, k, v) takes no keyword '{next(iter(options))}'; "
                          f"key_dim belongs to the layer form attention(spec, heads, key_dim).")
    if k is None or v is None:
        raise LaminaError("TypeError", "attention(q, k, v) needs the queries, the keys and the values "
                          "(for self-attention pass the same array three times: attention(x, x, x)).")
    return attention_op(q, k, v, heads=1.0 if heads is None else heads, mask=mask, causal=causal)


@builtin("transformer_block", pure="a model spec", tracked="constant", category=LAYERS,
         probes="appends a layer to a model spec; its arguments are sizes and settings",
         shapes=[Shape("spec |> transformer_block(heads, key_dim, ff_units)", "model spec of sequences, "
                       "heads, size per head, feed-forward width", "model spec",
                       "Appends a pre-norm transformer encoder block: self-attention and a "
                       "feed-forward layer, each with a layer norm before it and a residual around it."),
                 Shape("spec |> transformer_block(heads, key_dim, ff_units, dropout = r, causal = true)",
                       "the same, a rate in [0, 1), true or false", "model spec",
                       "With dropout on both branches while fit trains, and causal attention.")],
         summary="A transformer encoder block (pre-norm): x + attention(layer_norm(x)), then x + "
                 "ff(layer_norm(x)) with ff a gelu dense layer and a dense layer back to the width. "
                 "Stack a few after an embedding and a positional_embedding.",
         examples=["spec = input(8) |> embedding(10, 16) |> positional_embedding(8, 16) |>\n"
                   "       transformer_block(2, 8, 32) |> flatten() |> dense(3, activation = \"softmax\")\n"
                   "print(spec)",
                   "seed(4)\nX = floor(4 * rand(256, 6))             # 256 rows of 6 tokens from 0 to 3\n"
                   "Y = float64(X[:, 0] == X[:, 5])         # 1 where the first and last tokens agree\n"
                   "net = input(6) |> embedding(4, 8) |> positional_embedding(6, 8) |>\n"
                   "      transformer_block(2, 4, 16) |> flatten() |> dense(1, activation = \"sigmoid\") |>\n"
                   "      compile(optimizer = adam(lr = 0.01), loss = \"binary_cross_entropy\", seed = 1)\n"
                   "net = net.fit(X, Y, epochs = 30, verbose = 0)\n"
                   "print(evaluate(net, X, Y).accuracy > 0.9)\nprint(keys(net.weights[2]))"],
         notes="On each example (steps x d) it computes x = x + dropout(attention(layer_norm(x))) and "
               "then x = x + dropout(ff(layer_norm(x))), where attention is the attention layer's "
               "self-attention (heads x key_dim, query, key, value and output projections), each "
               "layer_norm normalises one step's d features (eps 1e-5) with its own gain and bias, "
               "and ff is dense(ff_units, activation = \"gelu\") then a dense layer back to d, both "
               "applied at each step alone. This is torch's TransformerEncoderLayer(d, heads, "
               "ff_units, activation = \"gelu\", norm_first = true, batch_first = true) with heads x "
               "key_dim = d (its dropout inside ff and on the attention weights aside); Keras's "
               "tutorials' blocks are post-norm. " + SEQUENCES + " dropout (0 unless given) drops "
               "from the two branches while fit trains; causal = true lets each step attend to the "
               "steps up to it only. Its weights, in net.weights: ln1_gain, ln1_bias, wq, bq, wk, bk, "
               "wv, bv, wo, bo, ln2_gain, ln2_bias, ff_w1, ff_b1, ff_w2, ff_b2 (gains ones, biases "
               "zero rows, kernels Glorot-uniform). The whole block is one operation on the tape, its "
               "forward and backward written out, the batch's examples split over the threads "
               "NumPy's BLAS uses (each part's products on one thread), as torch runs its block. "
               "Its value and gradients equal torch's to rounding (tests/models/"
               "test_layer_transformer_block.py).")
def transformer_block(spec, heads=None, key_dim=None, ff_units=None, **options):
    return transformer_block_layer(spec, heads=heads, key_dim=key_dim, ff_units=ff_units, **options)


@builtin("positional_embedding", pure="a model spec", tracked="constant", category=LAYERS,
         probes="appends a layer to a model spec; its arguments are sizes and settings",
         shapes=[Shape("spec |> positional_embedding(max_len, dim)", "model spec of sequences "
                       "(steps x dim), the longest sequence, features per step", "model spec",
                       "Appends a learnt max_len x dim table whose row i is added to step i.")],
         summary="Adds a learnt vector per position to each step of a sequence, so that the "
                 "attention after it can tell the steps apart. Put it after embedding: the token "
                 "table and the position table are two layers.",
         examples=["net = input(5) |> embedding(10, 4) |> positional_embedding(8, 4) |> flatten() |>\n"
                   "      dense(1) |> compile(seed = 1)\nprint(net)\nprint(size(net.weights[1].table))"],
         notes="Attention treats a sequence as a set, so a model needs to be told where each step "
               "is. This layer adds row i of a learnt max_len x dim table to step i of every "
               "example (as GPT-2 and keras_nlp's PositionEmbedding do); it comes after "
               "embedding(vocab, dim), which turns the tokens into vectors, rather than replacing "
               "it, so each table is one layer's weights and a sequence of numbers "
               "(input(steps, features)) can take positions too. dim must equal the features per "
               "step and max_len be at least the steps (rows past them get no gradient): either "
               "wrong is a ShapeError naming both. The table starts Glorot-uniform, as "
               "keras_nlp's, and is net.weights' record {table}. " + SEQUENCES)
def positional_embedding(spec, max_len=None, dim=None, **options):
    return positional_embedding_layer(spec, max_len=max_len, dim=dim, **options)
