"""A transformer block (issue 40): batch 32, 64 tokens, width 128, 4 heads of 32, feed-forward 512,
float32, forward and backward, Lamina against PyTorch (default thread count).

Lamina runs the transformer_block layer's forward on the tape (models/layers/transformer_block.py:
layer norm, self-attention with its four projections as one entry, residual, layer norm, a gelu
dense and a dense, residual) and grad() of sum(out .* R) for x and the block's 16 weights, as fit
runs it. torch runs TransformerEncoderLayer(128, 4, 512, activation = "gelu", norm_first = true,
batch_first = true, dropout = 0), the same computation (tests/models/test_layer_transformer_block.py
checks it to 1e-10 in float64), and backward() of the same loss. A second case times the attention
op alone (q, k, v 32 x 64 x 128, 4 heads) against torch's scaled_dot_product_attention with the
heads split by hand. `bench/run.py --only transformer` runs these cases alone.
"""
from __future__ import annotations

import numpy as np
from peers import lazy, needs  # bench/peers.py

BATCH, STEPS, WIDTH, HEADS, FF = 32, 64, 128, 4, 512
SIZES = f"batch {BATCH}, {STEPS} tokens, width {WIDTH}, {HEADS} heads, feed-forward {FF}"


def data():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((BATCH, STEPS, WIDTH)).astype(np.float32)
    r = rng.standard_normal((BATCH, STEPS, WIDTH)).astype(np.float32)
    return x, r


# -- Lamina -----------------------------------------------------------------------------
def lamina_block():
    def setup():
        from lamina.autodiff import ops, reductions
        from lamina.autodiff.grad import grad
        from lamina.autodiff.tape import TAPE
        from lamina.models.layer import DataShape
        from lamina.models.layers.transformer_block import TransformerBlock
        x, r = data()
        block, shape = TransformerBlock(HEADS, WIDTH // HEADS, FF), DataShape((STEPS, WIDTH))
        weights = [w.astype(np.float32) for w in block.init(shape, np.random.default_rng(1))]

        def run():
            TAPE.reset()
            leaves = [TAPE.leaf(w, True) for w in [x, *weights]]
            out = block.forward(leaves[0], leaves[1:], shape, True, None)
            grads = grad(reductions.sum(ops.emul(out, r)), leaves)
            TAPE.reset()
            return grads
        return run
    return lazy(setup)


def lamina_attention():
    def setup():
        from lamina.autodiff import ops, reductions
        from lamina.autodiff.grad import grad
        from lamina.autodiff.tape import TAPE
        from lamina.nn.attention import attention
        x, r = data()
        k, v = x[::-1].copy(), x[:, ::-1].copy()

        def run():
            TAPE.reset()
            leaves = [TAPE.leaf(a, True) for a in (x, k, v)]
            out = attention(*leaves, heads=float(HEADS))
            grads = grad(reductions.sum(ops.emul(out, r)), leaves)
            TAPE.reset()
            return grads
        return run
    return lazy(setup)


# -- PyTorch ----------------------------------------------------------------------------
def torch_block():
    def setup():
        import torch
        torch.manual_seed(0)
        x, r = (torch.tensor(a) for a in data())
        layer = torch.nn.TransformerEncoderLayer(WIDTH, HEADS, FF, dropout=0.0, activation="gelu",
                                                 batch_first=True, norm_first=True)
        x.requires_grad_()

        def run():
            layer.zero_grad(set_to_none=True)
            x.grad = None
            (layer(x) * r).sum().backward()
            return x.grad
        return run
    return needs("torch") or lazy(setup)


def torch_attention():
    def setup():
        import torch
        x, r = data()
        q, k, v = (torch.tensor(a, requires_grad=True) for a in (x, x[::-1].copy(), x[:, ::-1].copy()))
        tr = torch.tensor(r)

        def split(t):
            return t.reshape(BATCH, -1, HEADS, WIDTH // HEADS).transpose(1, 2)

        def run():
            for t in (q, k, v):
                t.grad = None
            out = torch.nn.functional.scaled_dot_product_attention(split(q), split(k), split(v))
            (out.transpose(1, 2).reshape(BATCH, STEPS, WIDTH) * tr).sum().backward()
            return q.grad
        return run
    return needs("torch") or lazy(setup)


def cases() -> list[dict]:
    return [
        {"name": "transformer block: forward + backward, float32", "sizes": SIZES, "dtype": "float32",
         "repeat": 24, "goal": {"peer": "torch float32", "within": 1.2},
         "impls": {"lamina": lamina_block(), "torch float32": torch_block()},
         "notes": ["torch: TransformerEncoderLayer(norm_first = true, activation = \"gelu\", dropout = 0), "
                   "the same block as Lamina's transformer_block(4, 32, 512)."]},
        {"name": "attention op: forward + backward, float32",
         "sizes": f"q, k, v {BATCH} x {STEPS} x {WIDTH}, {HEADS} heads", "dtype": "float32", "repeat": 40,
         "impls": {"lamina": lamina_attention(), "torch float32": torch_attention()},
         "notes": ["torch: scaled_dot_product_attention, the heads split and joined by reshape and "
                   "transpose."]},
    ]
