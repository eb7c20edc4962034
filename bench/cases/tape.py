"""Benchmark cases for the autodiff tape (bench protocol: `cases()` returns case dicts).

(a) per-op overhead: a chain of 100,000 scalar tracked ops (* + abs -) and one grad,
    through lamina.autodiff directly and as a Lamina program, against PyTorch 0-d
    tensors and a minimal pure-Python scalar autodiff (micrograd-style, below).
(b) forward + backward of a 784-256-10 relu MLP with a sum-of-squares loss on
    8,192 x 784 inputs, against the same computation hand-written in NumPy and in
    PyTorch (float64, CPU).

Every callable runs one repetition; inputs are built before timing.
`bench/run.py --only tape` runs these cases alone.
"""
from __future__ import annotations

import numpy as np
from peers import lazy, needs  # bench/peers.py

from lamina.autodiff import functions as F
from lamina.autodiff import ops, reductions
from lamina.autodiff.grad import grad
from lamina.autodiff.tape import TAPE

CHAIN_OPS = 100_000
STEPS = CHAIN_OPS // 4          # each step is 4 ops: y*c, y+x, abs(y), y-c


# -- (a) per-op overhead -------------------------------------------------------
def lamina_ops_chain():
    TAPE.reset()
    x = TAPE.leaf(0.5, True)
    y = x
    for _ in range(STEPS):
        y = ops.sub(F.abs(ops.add(ops.mul(y, 0.999), x)), 0.1)
    g = grad(y, x)
    TAPE.reset()
    return g


LAMINA_CHAIN = f"""
tape_reset()
x = param(0.5)
y = x
for i = 1 to {STEPS}
    y = abs(y * 0.999 + x) - 0.1
end for
g = grad(y, wrt = x)
tape_reset()
"""


def lamina_program_chain():
    try:
        from lamina.interpreter import Interpreter
    except ImportError as exc:
        return f"lamina.lang not importable: {exc}"
    interp = Interpreter()
    code = interp.compile(LAMINA_CHAIN, "<bench>")
    return lambda: interp.run_code(code)


def torch_chain():
    return needs("torch") or lazy(lambda: _torch_chain())


def _torch_chain():
    import torch
    torch.set_num_threads(1)

    def run():
        x = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
        y = x
        for _ in range(STEPS):
            y = torch.abs(y * 0.999 + x) - 0.1
        y.backward()
        return x.grad
    return run


class Value:
    """A minimal micrograd-style scalar: value, gradient, parents, and a backward closure."""
    __slots__ = ("data", "grad", "_prev", "_backward")

    def __init__(self, data, prev=()):
        self.data, self.grad, self._prev, self._backward = data, 0.0, prev, None

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other))

        def backward():
            self.grad += out.grad
            other.grad += out.grad
        out._backward = backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other))

        def backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = backward
        return out

    def __sub__(self, other):
        return self + (-other if not isinstance(other, Value) else other * -1.0)

    def __abs__(self):
        out = Value(abs(self.data), (self,))

        def backward():
            self.grad += (1.0 if self.data > 0 else -1.0 if self.data < 0 else 0.0) * out.grad
        out._backward = backward
        return out

    def backward(self):
        order, seen = [], set()
        stack = [(self, False)]
        while stack:                      # iterative topological sort (the chain is deep)
            v, done = stack.pop()
            if done:
                order.append(v)
            elif id(v) not in seen:
                seen.add(id(v))
                stack.append((v, True))
                stack.extend((p, False) for p in v._prev)
        self.grad = 1.0
        for v in reversed(order):
            if v._backward:
                v._backward()


def micrograd_chain():
    x = Value(0.5)
    y = x
    for _ in range(STEPS):
        y = abs(y * 0.999 + x) - 0.1
    y.backward()
    return x.grad


# -- (b) MLP forward + backward ------------------------------------------------
def mlp_data(n=8192, d_in=784, hidden=256, d_out=10, seed=0):
    rng = np.random.default_rng(seed)
    return dict(X=rng.standard_normal((n, d_in)), Y=rng.standard_normal((n, d_out)),
                W1=rng.standard_normal((d_in, hidden)) * np.sqrt(2 / d_in), b1=np.zeros((1, hidden)),
                W2=rng.standard_normal((hidden, d_out)) * np.sqrt(2 / hidden), b2=np.zeros((1, d_out)))


def lamina_mlp(data):
    def run():
        TAPE.reset()
        W1, b1, W2, b2 = (TAPE.leaf(data[k], True) for k in ("W1", "b1", "W2", "b2"))
        h = F.maximum(ops.add(ops.mul(data["X"], W1), b1), 0.0)
        out = ops.add(ops.mul(h, W2), b2)
        loss = reductions.sum(ops.epow(ops.sub(out, data["Y"]), 2.0))
        grads = grad(loss, [W1, b1, W2, b2])
        TAPE.reset()
        return grads
    return run


def numpy_mlp(data):
    X, Y, W1, b1, W2, b2 = (data[k] for k in ("X", "Y", "W1", "b1", "W2", "b2"))

    def run():
        z = X @ W1 + b1
        h = np.maximum(z, 0.0)
        d = h @ W2 + b2 - Y
        loss = float((d * d).sum())
        gd = 2.0 * d
        gW2 = h.T @ gd
        gb2 = gd.sum(axis=0, keepdims=True)
        gz = (gd @ W2.T) * (z > 0)
        gW1 = X.T @ gz
        gb1 = gz.sum(axis=0, keepdims=True)
        return loss, [gW1, gb1, gW2, gb2]
    return run


def torch_mlp(data):
    return needs("torch") or lazy(lambda: _torch_mlp(data))


def _torch_mlp(data):
    import torch
    X, Y = torch.from_numpy(data["X"]), torch.from_numpy(data["Y"])
    params = [torch.from_numpy(data[k].copy()).requires_grad_() for k in ("W1", "b1", "W2", "b2")]

    def run():
        W1, b1, W2, b2 = params
        for p in params:
            p.grad = None
        h = torch.relu(X @ W1 + b1)
        loss = ((h @ W2 + b2 - Y) ** 2).sum()
        loss.backward()
        return [p.grad for p in params]
    return run


def cases() -> list[dict]:
    data = mlp_data()
    return [
        {"name": "tape: scalar op chain + grad", "sizes": f"{CHAIN_OPS:,} ops", "dtype": "float64",
         "per": [CHAIN_OPS, "op"], "goal": {"peer": "torch", "within": 1.0},
         "impls": {"lamina": lamina_ops_chain, "lamina, as a program": lamina_program_chain(),
                   "torch": torch_chain(), "micrograd": micrograd_chain},
         "notes": ["lamina drives lamina.autodiff from Python; 'lamina, as a program' is the "
                   "same chain as a Lamina program; torch runs 0-d float64 tensors on one thread; "
                   "micrograd is the minimal pure-Python scalar autodiff in bench/cases/tape.py."]},
        {"name": "tape: MLP 784-256-10 forward + backward", "sizes": "8192x784 inputs, 784-256-10 relu",
         "dtype": "float64", "repeat": 12, "allocator": True, "goal": {"peer": "numpy", "within": 1.15},
         "impls": {"lamina": lamina_mlp(data), "numpy": numpy_mlp(data), "torch": torch_mlp(data)},
         "notes": ["sum-of-squares loss; gradients for both weights and biases. torch: default "
                   "thread count, CPU."]},
    ]

