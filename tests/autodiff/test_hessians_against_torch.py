"""Hessians, Hessian-vector products and Jacobians of random programs, run as Lamina source
through the Interpreter, against torch.autograd.functional (float64, to 1e-10).

Each program is a function `f(p)` of a point: one vector, or a record of a vector and a second
member (a vector, a matrix or a number). Its body is grown at random from the point's members
and constants: the operators (+ - * / .* ./ ^ .^, unary minus, transpose, the matrix product),
indexing (a position, a slice, an index list, a matrix's row, column or element), bracket
literals of vectors and matrices, an element stored into a local vector (`v[i] = s`), and the
builtins of FUNCTIONS that the registry says are differentiable twice (spec.twice, read when
the test runs: the registry is the one list of them; a Jacobian needs only first order, so its
programs use every builtin of FUNCTIONS that is differentiable). The same function is built
in PyTorch.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from lamina.autodiff.tape import TAPE
from lamina.builtins.registry import spec_of
from lamina.interpreter import Interpreter
from lamina.values import Record

torch = pytest.importorskip("torch")

TOLERANCE = 1e-10      # of the largest magnitude in torch's result (and at least 1e-10 absolute)
# torch's trigamma (polygamma(1, x): digamma's derivative, lgamma's second) is accurate to about
# 5e-10 of its value near 1.5 (against mpmath at 30 digits: 4.6e-10 at 1.5, 1.1e-10 at 4), so a
# program that takes digamma or lgamma is compared to this instead.
TRIGAMMA_TOLERANCE = 1e-8


def literal(a) -> str:
    """A Lamina expression of a number or array, exact to the last bit (repr of each float)."""
    if np.ndim(a) == 0:
        return repr(float(a))
    flat = "[" + ", ".join(repr(float(x)) for x in np.ravel(a)) + "]"
    return flat if np.ndim(a) == 1 else f"reshape({flat}, {', '.join(str(n) for n in np.shape(a))})"


def _smooth(x):          # 1.5 + x .^ 2: positive, for a log, a square root, a quotient
    return 1.5 + x ** 2


# The builtins a program may call, with their torch equivalents: (Lamina template, torch function,
# kind) where the kind says what the builtin takes and gives: "map" a number or tensor, elementwise;
# "reduce" a vector to a number; "vector" a vector to a vector of its length. LOOSER: the builtins
# whose torch derivatives are less exact than TOLERANCE.
FUNCTIONS = {
    "exp": ("exp(0.3 .* {0})", lambda x: torch.exp(0.3 * x), "map"),
    "expm1": ("expm1(0.3 .* {0})", lambda x: torch.expm1(0.3 * x), "map"),
    "log": ("log(1.5 + {0} .^ 2)", lambda x: torch.log(_smooth(x)), "map"),
    "log1p": ("log1p({0} .^ 2)", lambda x: torch.log1p(x ** 2), "map"),
    "log2": ("log2(1.5 + {0} .^ 2)", lambda x: torch.log2(_smooth(x)), "map"),
    "log10": ("log10(1.5 + {0} .^ 2)", lambda x: torch.log10(_smooth(x)), "map"),
    "sqrt": ("sqrt(1.5 + {0} .^ 2)", lambda x: torch.sqrt(_smooth(x)), "map"),
    "sin": ("sin({0})", torch.sin, "map"),
    "cos": ("cos({0})", torch.cos, "map"),
    "tanh": ("tanh({0})", torch.tanh, "map"),
    "sigmoid": ("sigmoid({0})", torch.sigmoid, "map"),
    "silu": ("silu({0})", torch.nn.functional.silu, "map"),
    "softplus": ("softplus({0})", torch.nn.functional.softplus, "map"),
    "erf": ("erf({0})", torch.erf, "map"),
    "lgamma": ("lgamma(1.5 + {0} .^ 2)", lambda x: torch.lgamma(_smooth(x)), "map"),
    "digamma": ("digamma(1.5 + {0} .^ 2)", lambda x: torch.digamma(_smooth(x)), "map"),
    "sum": ("sum({0})", torch.sum, "reduce"),
    "mean": ("mean({0})", torch.mean, "reduce"),
    "prod": ("prod(1.0 + 0.2 .* {0})", lambda x: torch.prod(1.0 + 0.2 * x), "reduce"),
    "norm": ("norm(1.5 + {0} .^ 2)", lambda x: torch.linalg.vector_norm(_smooth(x)), "reduce"),
    "logsumexp": ("logsumexp({0})", lambda x: torch.logsumexp(x, 0), "reduce"),
    "softmax": ("softmax({0})", lambda x: torch.softmax(x, 0), "vector"),
    "log_softmax": ("log_softmax({0})", lambda x: torch.log_softmax(x, 0), "vector"),
    "cumsum": ("cumsum({0})", lambda x: torch.cumsum(x, 0), "vector"),
    "cumprod": ("cumprod(1.0 + 0.2 .* {0})", lambda x: torch.cumprod(1.0 + 0.2 * x, 0), "vector"),
    "reverse": ("reverse({0})", lambda x: torch.flip(x, (0,)), "vector"),
}
LOOSER = {"digamma": TRIGAMMA_TOLERANCE, "lgamma": TRIGAMMA_TOLERANCE}


def usable(order: int) -> dict:
    """The builtins of FUNCTIONS that are registered and differentiable (twice, for order 2)."""
    out = {}
    for name, entry in FUNCTIONS.items():
        spec = spec_of(name)
        if spec is not None and spec.differentiable and (order == 1 or spec.twice):
            out[name] = entry
    return out


class Program:
    """A function of a point under construction: the point's members (name, value), the body's
    statements (Lamina text, torch step), and the builtins it may call."""

    def __init__(self, rng: np.random.Generator, functions: dict):
        self.rng, self.functions = rng, functions
        self.members: list[tuple[str, np.ndarray | float]] = []
        self.statements: list[str] = []
        self.steps: list = []              # (name, torch function of the environment)
        self.locals: list[tuple[str, tuple]] = []
        self.tolerance = TOLERANCE           # raised by a call of a builtin in LOOSER

    def choice(self, options):
        return options[int(self.rng.integers(len(options)))]

    def member(self, name: str, value) -> None:
        self.members.append((name, value))

    def names(self, shape: tuple) -> list[str]:
        return [n for n, v in self.members if np.shape(v) == shape] + [n for n, s in self.locals if s == shape]

    # -- growing an expression of a kind: (Lamina text, torch function of the environment) -------
    def grow(self, shape: tuple, depth: int):
        if depth == 0 or self.rng.random() < 0.15:
            return self.leaf(shape)
        kinds = {0: self.scalar, 1: self.vector, 2: self.matrix}[len(shape)]
        return kinds(shape, depth - 1)

    def leaf(self, shape: tuple):
        """A member or local of `shape`, else one made from a vector member by indexing (so that
        most leaves depend on the point), or now and then a constant."""
        if self.rng.random() < 0.15:
            value = float(self.rng.uniform(0.5, 1.5)) if shape == () else self.rng.standard_normal(shape)
            return f"({literal(value)})", (lambda env: torch.tensor(value, dtype=torch.float64))
        names = self.names(shape)
        if names:
            name = self.choice(names)
            return name, (lambda env: env[name])
        vectors = [name for name, v in self.members if np.ndim(v) == 1] + \
                  [name for name, s in self.locals if len(s) == 1]
        name = self.choice(vectors)
        size = len(dict(self.members).get(name, [])) or dict(self.locals)[name][0]
        if shape == ():
            i = int(self.rng.integers(size))
            return f"{name}[{i}]", lambda env: env[name][i]
        picks = [[int(i) for i in self.rng.integers(0, size, n)] for n in shape]
        if len(shape) == 1:
            return f"{name}[{picks[0]}]", lambda env: env[name][picks[0]]
        return (f"{name}[{picks[0]}] * {name}[{picks[1]}]'",
                lambda env: torch.outer(env[name][picks[0]], env[name][picks[1]]))

    def length(self) -> int:
        """A vector length for a part of an expression: mostly one the point's vectors have."""
        lengths = [len(v) for _, v in self.members if np.ndim(v) == 1]
        return self.choice(lengths) if self.rng.random() < 0.7 else int(self.rng.integers(2, 5))

    def matrix_shape(self) -> tuple:
        shapes = [np.shape(v) for _, v in self.members if np.ndim(v) == 2]
        if shapes and self.rng.random() < 0.7:
            return self.choice(shapes)
        return int(self.rng.integers(2, 4)), int(self.rng.integers(2, 4))

    def scalar(self, shape, depth):
        rng = self.rng
        kind = self.choice(["index", "element", "dot", "times", "plus", "quotient", "square", "cube",
                            "power", "neg", "function", "reduce"])
        if kind == "index":
            n = self.length()
            v, i = self.grow((n,), depth), int(rng.integers(n))
            return f"({v[0]})[{i}]", lambda env: v[1](env)[i]
        if kind == "element":
            n, k = self.matrix_shape()
            m, i, j = self.grow((n, k), depth), int(rng.integers(n)), int(rng.integers(k))
            return f"({m[0]})[{i}, {j}]", lambda env: m[1](env)[i, j]
        if kind == "dot":
            n = self.length()
            a, b = self.grow((n,), depth), self.grow((n,), depth)
            return f"({a[0]})' * ({b[0]})", lambda env: torch.dot(a[1](env), b[1](env))
        if kind in ("times", "plus", "quotient"):
            a, b = self.grow((), depth), self.grow((), depth)
            if kind == "times":
                return f"({a[0]}) * ({b[0]})", lambda env: a[1](env) * b[1](env)
            if kind == "plus":
                return f"({a[0]}) + ({b[0]}) - 0.5", lambda env: a[1](env) + b[1](env) - 0.5
            return f"({a[0]}) / (1.5 + ({b[0]}) ^ 2)", lambda env: a[1](env) / _smooth(b[1](env))
        if kind in ("square", "cube"):
            a, k = self.grow((), depth), 2.0 if kind == "square" else 3.0
            return f"({a[0]}) ^ {k}", lambda env: a[1](env) ** k
        if kind == "power":     # a tracked exponent, and a positive tracked base
            a, b = self.grow((), depth), self.grow((), depth)
            return (f"(1.5 + ({a[0]}) ^ 2) ^ (0.3 * ({b[0]}))",
                    lambda env: _smooth(a[1](env)) ** (0.3 * b[1](env)))
        if kind == "neg":
            a = self.grow((), depth)
            return f"-({a[0]})", lambda env: -a[1](env)
        if kind == "function":
            return self.call("map", (), depth) or self.scalar(shape, depth)
        return self.call("reduce", (self.length(),), depth) or self.scalar(shape, depth)

    def vector(self, shape, depth):
        rng, (n,) = self.rng, shape
        kind = self.choice(["binary", "quotient", "scaled", "divided", "power", "exponent", "neg",
                            "matvec", "pick", "slice", "bracket", "row", "column", "function", "vector"])
        if kind == "binary":
            a, b = self.grow(shape, depth), self.grow(shape, depth)
            op = self.choice(["+", "-", ".*"])
            fn = {"+": lambda x, y: x + y, "-": lambda x, y: x - y, ".*": lambda x, y: x * y}[op]
            return f"({a[0]}) {op} ({b[0]})", lambda env: fn(a[1](env), b[1](env))
        if kind == "quotient":
            a, b = self.grow(shape, depth), self.grow(shape, depth)
            return f"({a[0]}) ./ (1.5 + ({b[0]}) .^ 2)", lambda env: a[1](env) / _smooth(b[1](env))
        if kind == "scaled":
            s, v = self.grow((), depth), self.grow(shape, depth)
            if rng.random() < 0.5:
                return f"({s[0]}) * ({v[0]})", lambda env: s[1](env) * v[1](env)
            return f"({v[0]}) * ({s[0]})", lambda env: v[1](env) * s[1](env)
        if kind == "divided":
            v, s = self.grow(shape, depth), self.grow((), depth)
            return f"({v[0]}) / (1.5 + ({s[0]}) ^ 2)", lambda env: v[1](env) / _smooth(s[1](env))
        if kind == "power":
            v, k = self.grow(shape, depth), self.choice([2.0, 3.0])
            return f"({v[0]}) .^ {k}", lambda env: v[1](env) ** k
        if kind == "exponent":     # tracked exponents, elementwise, of a positive tracked base
            a, b = self.grow(shape, depth), self.grow(shape, depth)
            return (f"(1.5 + ({a[0]}) .^ 2) .^ (0.3 .* ({b[0]}))",
                    lambda env: _smooth(a[1](env)) ** (0.3 * b[1](env)))
        if kind == "neg":
            v = self.grow(shape, depth)
            return f"-({v[0]})", lambda env: -v[1](env)
        if kind == "matvec":
            k = self.length()
            m, v = self.grow((n, k), depth), self.grow((k,), depth)
            return f"({m[0]}) * ({v[0]})", lambda env: m[1](env) @ v[1](env)
        if kind == "pick":
            m = self.length()
            v, picks = self.grow((m,), depth), [int(i) for i in rng.integers(0, m, n)]
            return f"({v[0]})[{picks}]", lambda env: v[1](env)[picks]
        if kind == "slice":
            m = n + int(rng.integers(0, 3))
            v, lo = self.grow((m,), depth), int(rng.integers(0, m - n + 1))
            return f"({v[0]})[{lo}:{lo + n}]", lambda env: v[1](env)[lo:lo + n]
        if kind == "bracket":
            items = [self.grow((), depth) for _ in range(n)]
            return ("[" + ", ".join(t for t, _ in items) + "]",
                    lambda env: torch.stack([f(env) for _, f in items]))
        if kind in ("row", "column"):
            other = self.length()
            if kind == "row":
                m, i = self.grow((other, n), depth), int(rng.integers(other))
                return f"({m[0]})[{i}, :]", lambda env: m[1](env)[i, :]
            m, j = self.grow((n, other), depth), int(rng.integers(other))
            return f"({m[0]})[:, {j}]", lambda env: m[1](env)[:, j]
        if kind == "function":
            return self.call("map", shape, depth) or self.vector(shape, depth)
        return self.call("vector", shape, depth) or self.vector(shape, depth)

    def matrix(self, shape, depth):
        rng, (n, k) = self.rng, shape
        kind = self.choice(["outer", "binary", "transpose", "product", "bracket", "scaled", "function"])
        if kind == "outer":
            a, b = self.grow((n,), depth), self.grow((k,), depth)
            return f"({a[0]}) * ({b[0]})'", lambda env: torch.outer(a[1](env), b[1](env))
        if kind == "binary":
            a, b = self.grow(shape, depth), self.grow(shape, depth)
            op = self.choice(["+", "-", ".*"])
            fn = {"+": lambda x, y: x + y, "-": lambda x, y: x - y, ".*": lambda x, y: x * y}[op]
            return f"({a[0]}) {op} ({b[0]})", lambda env: fn(a[1](env), b[1](env))
        if kind == "transpose":
            m = self.grow((k, n), depth)
            return f"({m[0]})'", lambda env: m[1](env).T
        if kind == "product":
            inner = self.length()
            a, b = self.grow((n, inner), depth), self.grow((inner, k), depth)
            return f"({a[0]}) * ({b[0]})", lambda env: a[1](env) @ b[1](env)
        if kind == "bracket" and n * k <= 6:
            items = [[self.grow((), depth) for _ in range(k)] for _ in range(n)]
            text = "; ".join(", ".join(t for t, _ in row) for row in items)
            return f"[{text}]", lambda env: torch.stack([torch.stack([f(env) for _, f in row]) for row in items])
        if kind == "scaled":
            s, m = self.grow((), depth), self.grow(shape, depth)
            return f"({s[0]}) * ({m[0]})", lambda env: s[1](env) * m[1](env)
        return self.call("map", shape, depth) or self.matrix(shape, depth)

    def call(self, kind: str, shape: tuple, depth: int):
        """A builtin of `kind` on an expression of `shape`, or None when none is usable."""
        names = [name for name, (_, _, k) in self.functions.items() if k == kind]
        if not names:
            return None
        name = self.choice(names)
        template, fn, _ = self.functions[name]
        self.tolerance = max(self.tolerance, LOOSER.get(name, TOLERANCE))
        a = self.grow(shape, depth)
        return template.format(f"({a[0]})"), lambda env: fn(a[1](env))

    # -- statements ----------------------------------------------------------------------
    def assign(self, name: str, shape: tuple, depth: int) -> None:
        text, fn = self.grow(shape, depth)
        self.statements.append(f"{name} = {text}")
        self.steps.append((name, fn))
        self.locals.append((name, shape))

    def store(self, name: str, n: int, depth: int) -> None:
        """`name[i] = s`: an element of a local vector replaced (the setindex operator)."""
        i = int(self.rng.integers(n))
        text, fn = self.grow((), depth)
        self.statements.append(f"{name}[{i}] = {text}")
        self.steps.append((name, lambda env: torch.cat([env[name][:i], fn(env).reshape(1), env[name][i + 1:]])))

    def source(self, result: str) -> str:
        body = "".join(f"    {s}\n" for s in self.statements)
        return f"function f(p)\n{body}    return {result}\nend function\n"

    def run_torch(self, env: dict, result) -> torch.Tensor:
        env = dict(env)
        for name, fn in self.steps:
            env[name] = fn(env)
        return result(env)


def random_program(seed: int, order: int, result_shape: tuple | None = None):
    """(program, Lamina source of f, the point as a Lamina literal, the result's torch function,
    member names). The point is one vector `p`, or a record p = {a, b} whose b is a vector, a
    matrix or a number; the result is a number, or a vector of `result_shape` (a Jacobian)."""
    rng = np.random.default_rng(seed)
    program = Program(rng, usable(order))
    n = int(rng.integers(2, 5))
    if rng.random() < 0.4:
        program.member("p", rng.standard_normal(n))
    else:
        second = [(int(rng.integers(2, 5)),), (int(rng.integers(2, 4)), int(rng.integers(2, 4))), ()][
            int(rng.integers(3))]
        program.member("p.a", rng.standard_normal(n))
        program.member("p.b", float(rng.standard_normal()) if second == () else rng.standard_normal(second))
    if rng.random() < 0.5:
        program.assign("v", (n,), 2)
        if rng.random() < 0.7:
            program.store("v", n, 2)
    text, result = program.grow(result_shape if result_shape is not None else (), 3)
    return program, program.source(text), result


def point_literal(program: Program) -> str:
    if program.members[0][0] == "p":
        return literal(program.members[0][1])
    return "{" + ", ".join(f"{name[2:]} = {literal(v)}" for name, v in program.members) + "}"


def torch_inputs(program: Program) -> tuple:
    return tuple(torch.tensor(v, dtype=torch.float64) for _, v in program.members)


def torch_function(program: Program, result):
    names = [name for name, _ in program.members]

    def f(*xs):
        return program.run_torch(dict(zip(names, xs)), result)
    return f


def run_lamina(source: str):
    try:
        return Interpreter().run_cell(source, "<random program>")
    finally:
        TAPE.reset()


def assert_close(got, want: torch.Tensor, what: str, tolerance: float = TOLERANCE) -> None:
    want = want.detach().numpy()
    got = np.asarray(got, dtype=np.float64)
    assert got.shape == want.shape, f"{what}: shape {got.shape}, torch {want.shape}"
    scale = max(1.0, float(np.max(np.abs(want), initial=0.0)))
    np.testing.assert_allclose(got, want, rtol=tolerance, atol=tolerance * scale, err_msg=what)


def blocks(program: Program, got) -> list:
    """Lamina's Hessian as torch's nesting: [[H]] for one vector, H.a.b as [0][1] for a record."""
    if program.members[0][0] == "p":
        return [[got]]
    keys = [name[2:] for name, _ in program.members]
    return [[got.fields[i].fields[j] for j in keys] for i in keys]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2 ** 32 - 1))
def test_random_programs_hessian_and_hvp_match_torch(seed):
    program, source, result = random_program(seed, order=2)
    rng = np.random.default_rng(seed + 1)
    direction = [rng.standard_normal(np.shape(v)) for _, v in program.members]
    point, v = point_literal(program), None
    if program.members[0][0] == "p":
        v = literal(direction[0])
    else:
        v = "{" + ", ".join(f"{name[2:]} = {literal(d)}" for (name, _), d in zip(program.members, direction)) + "}"
    hessian, product = run_lamina(source + f"x = {point}\n[hessian(f, x), hvp(f, x, {v})]")

    f, inputs = torch_function(program, result), torch_inputs(program)
    want = torch.autograd.functional.hessian(f, inputs)
    for i, row in enumerate(blocks(program, hessian)):
        for j, block in enumerate(row):
            assert_close(block, want[i][j], f"hessian block {i}, {j} of\n{source}", program.tolerance)
    _, want_product = torch.autograd.functional.hvp(f, inputs, tuple(torch.tensor(d) for d in direction))
    got_product = [product] if program.members[0][0] == "p" else list(product.fields.values())
    for k, (got, w) in enumerate(zip(got_product, want_product)):
        assert_close(got, w, f"hvp member {k} of\n{source}", program.tolerance)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2 ** 32 - 1), length=st.sampled_from([2, 3, 4]))
def test_random_programs_jacobian_matches_torch(seed, length):
    program, source, result = random_program(seed, order=1, result_shape=(length,))
    jacobian = run_lamina(source + f"jacobian(f, {point_literal(program)})")
    want = torch.autograd.functional.jacobian(torch_function(program, result), torch_inputs(program))
    got = [jacobian] if program.members[0][0] == "p" else list(jacobian.fields.values())
    for k, (g, w) in enumerate(zip(got, want)):
        assert_close(g, w, f"jacobian member {k} of\n{source}", program.tolerance)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_each_builtin_a_program_may_call_is_torchs_function(name):
    """The table's torch side is the builtin's value (whether or not it is differentiable twice
    yet), so a builtin that becomes so is compared with the right function."""
    if spec_of(name) is None:
        pytest.skip(f"{name} is not a builtin (yet)")
    template, fn, kind = FUNCTIONS[name]
    x = np.random.default_rng(0).standard_normal(4 if kind != "map" else (2, 3))
    got = run_lamina(template.format(f"({literal(x)})"))
    assert_close(got, fn(torch.tensor(x)), name)


def test_a_record_point_gives_torchs_blocks_in_member_order():
    # f(a, b) = a0^2 b0 + b1^3 at a = [1, 2], b = [3, 4]: d2f/da0^2 = 2 b0, d2f/da0 db0 = 2 a0,
    # d2f/db1^2 = 6 b1, and zeros elsewhere.
    source = "function f(p)\n    return p.a[0] ^ 2 * p.b[0] + p.b[1] ^ 3\nend function\n"
    got = run_lamina(source + "hessian(f, {a = [1.0, 2.0], b = [3.0, 4.0]})")
    assert isinstance(got, Record) and list(got.fields) == ["a", "b"]
    np.testing.assert_array_equal(got.fields["a"].fields["a"], [[6.0, 0.0], [0.0, 0.0]])
    np.testing.assert_array_equal(got.fields["a"].fields["b"], [[2.0, 0.0], [0.0, 0.0]])
    np.testing.assert_array_equal(got.fields["b"].fields["a"], [[2.0, 0.0], [0.0, 0.0]])
    np.testing.assert_array_equal(got.fields["b"].fields["b"], [[0.0, 0.0], [0.0, 24.0]])
