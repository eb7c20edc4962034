"""Random programs of rank-3 and rank-4 tensors, run as Lamina source, against PyTorch: value and gradient.

Each program is an expression grown at random from tracked leaves of the shapes its operations
need: elementwise operators with broadcasting on axes of length 1, elementwise functions,
reductions along an axis (kept with length 1), permute, reshape, indexing with positions, slices
and index lists, matmul, einsum and softmax. The same expression is built in PyTorch; the loss is
sum(out .* R) for a fixed random R, and every leaf's gradient must equal torch's.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from lamina.autodiff.tape import TAPE
from lamina.interpreter import Interpreter

torch = pytest.importorskip("torch")


def literal(a: np.ndarray) -> str:
    """A Lamina expression of the array `a`, exact to the last bit (repr of each float)."""
    flat = "[" + ", ".join(repr(float(x)) for x in a.reshape(-1)) + "]"
    return f"reshape({flat}, {', '.join(str(n) for n in a.shape)})" if a.ndim != 1 else flat


class Program:
    """An expression under construction: its leaves (name, array), in Lamina and in torch."""

    def __init__(self, rng: np.random.Generator):
        self.rng, self.leaves = rng, []

    def leaf(self, shape: tuple, positive: bool = False):
        name = f"x{len(self.leaves)}"
        value = self.rng.uniform(0.5, 1.5, shape) if positive else self.rng.standard_normal(shape)
        self.leaves.append((name, value))
        return name, (lambda env, n=name: env[n]), shape

    def grow(self, shape: tuple, depth: int):
        """(Lamina text, torch function of the leaves, shape) of an expression of `shape`."""
        if depth == 0 or self.rng.random() < 0.2:
            return self.leaf(shape)
        kind = self.rng.choice(["binary", "unary", "reduce", "permute", "reshape", "index", "matmul",
                                "einsum", "softmax"])
        return getattr(self, kind)(shape, depth - 1)

    def binary(self, shape, depth):
        a = self.grow(shape, depth)
        # axes of length 1 stretch against the same rank (a vector's length never does)
        stretched = tuple(n if len(shape) == 1 or self.rng.random() < 0.6 else 1 for n in shape)
        b = self.grow(stretched, depth)
        op = self.rng.choice(["+", "-", ".*"])
        fn = {"+": lambda x, y: x + y, "-": lambda x, y: x - y, ".*": lambda x, y: x * y}[op]
        return f"({a[0]} {op} {b[0]})", lambda env: fn(a[1](env), b[1](env)), shape

    def unary(self, shape, depth):
        a = self.grow(shape, depth)
        name = self.rng.choice(["tanh", "sigmoid", "exp", "square"])
        if name == "square":
            return f"({a[0]} .^ 2)", lambda env: a[1](env) ** 2, shape
        if name == "exp":
            return f"exp(0.3 .* {a[0]})", lambda env: torch.exp(0.3 * a[1](env)), shape
        return f"{name}({a[0]})", lambda env: getattr(torch, name)(a[1](env)), shape

    def reduce(self, shape, depth):
        axis = int(self.rng.integers(len(shape)))
        if shape[axis] != 1 or len(shape) == 1:    # a reduction gives length 1 on its axis
            return self.binary(shape, depth)
        wider = shape[:axis] + (int(self.rng.integers(2, 4)),) + shape[axis + 1:]
        a = self.grow(wider, depth)
        name = self.rng.choice(["sum", "mean"])
        return (f"{name}({a[0]}, axis = {axis})",
                lambda env: getattr(torch, name)(a[1](env), dim=axis, keepdim=True), shape)

    def permute(self, shape, depth):
        perm = self.rng.permutation(len(shape))
        inverse = np.argsort(perm)
        a = self.grow(tuple(shape[i] for i in inverse), depth)
        order = [int(i) for i in perm]
        return f"permute({a[0]}, {order})", lambda env: a[1](env).permute(*order), shape

    def reshape(self, shape, depth):
        count = int(np.prod(shape))
        other = [(count,), (1, count), (count, 1, 1), (1, 1, count)][int(self.rng.integers(4))]
        if count % 2 == 0 and self.rng.random() < 0.5:
            other = (2, 1, count // 2)
        a = self.grow(other, depth)
        dims = ", ".join(str(n) for n in shape)
        return f"reshape({a[0]}, {dims})", lambda env: a[1](env).reshape(shape), shape

    def index(self, shape, depth):
        """`a[i, lo:hi, list]`-style picks that give `shape`: one dropped axis in front."""
        source = (3, *shape)
        a = self.grow(source, depth)
        i = int(self.rng.integers(3))
        text, key = [str(i)], [i]
        for n in shape:
            if n > 1 and self.rng.random() < 0.4:
                picks = [int(p) for p in self.rng.integers(0, n, n)]
                text.append(str(picks))
                key.append(picks)
            else:
                text.append(":")
                key.append(slice(None))
        lists = [k for k in key if isinstance(k, list)]

        def torch_pick(x):
            for axis, k in reversed(list(enumerate(key))):     # one axis at a time: every combination
                if isinstance(k, list):
                    x = x.index_select(axis, torch.tensor(k))
                elif isinstance(k, int):
                    x = x.select(axis, k)
            return x
        assert len(lists) <= len(shape)
        return f"{a[0]}[{', '.join(text)}]", lambda env: torch_pick(a[1](env)), shape

    def matmul(self, shape, depth):
        k = int(self.rng.integers(2, 4))
        a = self.grow((*shape[:-1], k), depth)
        b = self.grow((*shape[:-2], k, shape[-1]), depth)
        return f"matmul({a[0]}, {b[0]})", lambda env: torch.matmul(a[1](env), b[1](env)), shape

    def einsum(self, shape, depth):
        letters = "abcdefg"[:len(shape)]
        k = int(self.rng.integers(2, 4))
        a = self.grow((*shape[:-1], k), depth)
        b = self.grow((*shape[:-2], shape[-1], k), depth)
        spec = f"{letters[:-1]}z,{letters[:-2]}{letters[-1]}z->{letters}"
        return f'einsum("{spec}", {a[0]}, {b[0]})', lambda env: torch.einsum(spec, a[1](env), b[1](env)), shape

    def softmax(self, shape, depth):
        a = self.grow(shape, depth)
        return f"softmax({a[0]}, axis = -1)", lambda env: torch.softmax(a[1](env), dim=-1), shape


SHAPES = [(2, 3, 4), (3, 2, 2), (2, 1, 3, 2), (2, 2, 3, 3)]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2 ** 32 - 1), which=st.sampled_from(SHAPES))
def test_random_rank_3_and_4_programs_match_torch_in_value_and_gradient(seed, which):
    rng = np.random.default_rng(seed)
    program = Program(rng)
    text, build, shape = program.grow(which, depth=3)
    weights = rng.standard_normal(shape)
    names = [name for name, _ in program.leaves]
    source = "\n".join(f"{name} = param({literal(value)})" for name, value in program.leaves)
    source += f"\nloss = sum(({text}) .* {literal(weights)})\n"
    source += f"[loss, grad(loss, wrt = [{', '.join(names)}])]"
    interpreter = Interpreter()
    try:
        loss, grads = interpreter.run_cell(source, "<random program>")
    finally:
        TAPE.reset()

    env = {name: torch.tensor(value, requires_grad=True) for name, value in program.leaves}
    expected = (build(env) * torch.tensor(weights)).sum()
    expected.backward()
    assert float(np.asarray(loss.value if hasattr(loss, "value") else loss)) == pytest.approx(
        expected.item(), rel=1e-9, abs=1e-9), text
    for (name, _), g in zip(program.leaves, grads):
        np.testing.assert_allclose(g, env[name].grad.numpy(), rtol=1e-8, atol=1e-10, err_msg=f"{name} in {text}")
