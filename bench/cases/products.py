"""Batched products (issue 39): matmul and einsum("bij,bjk->bik") of b = 64, t = 128, d = 64 in
float32, forward alone and forward with backward, Lamina against PyTorch (torch.matmul and
torch.einsum with autograd, default thread count) and against the same work by hand in NumPy
(np.matmul, no tape), which shows what the tape and the builtins add.

A is b x t x d and B is b x d x t, so the product is b x t x t: attention's scores, Q K'.
Backward is the gradient of sum(C .* R) for a fixed random R of C's shape, for A and for B.
Lamina runs as a program (an Interpreter, the arrays bound to names, one compiled statement per
repetition): `C = matmul(A, B)`, or `g = grad(sum(matmul(A, B) .* R), wrt = [A, B])` with A and B
made by param() once. `bench/run.py --only products` runs this module alone.
"""
from __future__ import annotations

import numpy as np
from peers import lazy, needs  # bench/peers.py

BATCH, STEPS, WIDTH = 64, 128, 64
SIZES = f"b = {BATCH}, t = {STEPS}, d = {WIDTH}: (b x t x d) times (b x d x t)"
SPEC = "bij,bjk->bik"
CALLS = {"matmul": "matmul(A, B)", "einsum": f'einsum("{SPEC}", A, B)'}


def data():
    rng = np.random.default_rng(0)
    A = rng.standard_normal((BATCH, STEPS, WIDTH)).astype(np.float32)
    B = rng.standard_normal((BATCH, WIDTH, STEPS)).astype(np.float32)
    R = rng.standard_normal((BATCH, STEPS, STEPS)).astype(np.float32)
    return A, B, R


# -- Lamina -----------------------------------------------------------------------------
def lamina(op: str, backward: bool):
    def setup():
        from lamina.interpreter import Interpreter
        from lamina.lang.scope import mangle
        A, B, R = data()
        interp = Interpreter()
        for name, value in (("A0", A), ("B0", B), ("R", R)):
            interp.namespace[mangle(name)] = value
        interp.run("A = param(A0)\nB = param(B0)" if backward else "A = A0\nB = B0", "<bench>")
        step = (f"g = grad(sum({CALLS[op]} .* R), wrt = [A, B])" if backward else f"C = {CALLS[op]}")
        code = interp.compile(step, "<bench>")
        return lambda: interp.run_code(code)
    return lazy(setup)


# -- NumPy by hand ----------------------------------------------------------------------
def numpy_by_hand(backward: bool):
    def setup():
        A, B, R = data()

        def forward():
            return np.matmul(A, B)

        def both():
            C = np.matmul(A, B)
            loss = float(np.sum(C * R))
            return loss, np.matmul(R, B.transpose(0, 2, 1)), np.matmul(A.transpose(0, 2, 1), R)
        return both if backward else forward
    return lazy(setup)


# -- PyTorch ----------------------------------------------------------------------------
def torch_peer(op: str, backward: bool):
    return needs("torch") or lazy(lambda: _torch(op, backward))


def _torch(op: str, backward: bool):
    import torch
    A, B, R = (torch.from_numpy(x) for x in data())
    product = torch.matmul if op == "matmul" else (lambda a, b: torch.einsum(SPEC, a, b))
    if not backward:
        def forward():
            with torch.no_grad():
                return product(A, B)
        return forward
    A.requires_grad_(True)
    B.requires_grad_(True)

    def both():
        loss = (product(A, B) * R).sum()
        return torch.autograd.grad(loss, [A, B])
    return both


def cases() -> list[dict]:
    out = []
    for op in ("matmul", "einsum"):
        for backward in (False, True):
            what = "forward and backward" if backward else "forward"
            out.append({"name": f"{op}: batched product, {what}", "sizes": SIZES, "dtype": "float32",
                        "repeat": 20, "rounds": 4, "goal": {"peer": "torch float32", "within": 1.1},
                        "impls": {"lamina": lamina(op, backward),
                                  "torch float32": torch_peer(op, backward),
                                  "numpy float32 (by hand)": numpy_by_hand(backward)}})
    return out
