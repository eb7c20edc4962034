"""Second derivatives through the elementwise functions, the reductions and the shaping builtins:
the Hessian Lamina builds (grad with keep = true, then grad of each element of the kept
gradient) equals torch.autograd.functional.hessian in float64, on numbers, vectors, matrices and
arrays of rank 3; third derivatives (a kept gradient of a kept gradient) equal torch's too.

Each case is an op y = f(w), wrapped in the loss sum(R .* y) + sum(S .* y)^2 for fixed random R
and S: the first term carries the op's own second derivative, the second its first derivative
squared (the cross terms), so a kept gradient that treated the op's slope as a constant fails
either way.
"""
import numpy as np
import pytest

from lamina.autodiff import ops, shaping
from lamina.autodiff.grad import grad
from lamina.autodiff.indexing import index
from lamina.autodiff.tape import TAPE
from lamina.builtins.registry import load_all
from lamina.errors import LaminaError
from lamina.values import Tracked, value_of

torch = pytest.importorskip("torch")
B = {name: spec.fn for name, spec in load_all().items()}
S, V, M, R3 = (), (4,), (3, 2), (2, 3, 2)
INF = float("inf")


def start(shape, domain: str, seed: int):
    """A point to differentiate at: a number for shape (), else an array, inside `domain`."""
    rng = np.random.default_rng(seed)
    if domain == "positive":
        x = rng.uniform(0.5, 2.0, shape)
    elif domain == "unit":
        x = rng.uniform(-0.5, 0.5, shape)
    elif domain == "away_from_zero":
        x = rng.choice([-1.0, 1.0], shape) * rng.uniform(0.3, 2.0, shape)
    else:
        x = rng.standard_normal(shape)
    return float(x) if shape == () else x


def weights(y, seed: int):
    rng = np.random.default_rng(seed + 1)
    shape = np.shape(value_of(y))
    r, s = rng.standard_normal(shape), rng.standard_normal(shape)
    return (float(r), float(s)) if shape == () else (r, s)


def lamina_loss(f, r, s):
    def loss(w):
        y = f(w)
        return ops.add(B["sum"](ops.emul(y, r)), ops.epow(B["sum"](ops.emul(y, s)), 2.0))
    return loss


def torch_loss(f, r, s):
    r, s = torch.tensor(r, dtype=torch.float64), torch.tensor(s, dtype=torch.float64)
    return lambda t: (f(t) * r).sum() + ((f(t) * s).sum()) ** 2


def lamina_hessian(loss, x0):
    """Hessian of loss at x0 (n x n, row-major over x0's elements): a kept gradient, then the
    gradient of each of its elements."""
    TAPE.reset()
    w = TAPE.leaf(x0.copy() if isinstance(x0, np.ndarray) else x0, True)
    g = grad(loss(w), w, keep=True)
    shape = np.shape(x0)
    n = int(np.prod(shape))
    H = np.zeros((n, n))
    for i in range(n):
        gi = index(g, np.unravel_index(i, shape)) if shape else g
        if type(gi) is Tracked:                 # an element that depends on w
            H[i] = np.ravel(grad(gi, w))
    return H


def torch_hessian(loss, x0):
    n = int(np.prod(np.shape(x0)))
    return torch.autograd.functional.hessian(loss, torch.tensor(x0, dtype=torch.float64)).reshape(n, n).numpy()


def check(ours, theirs, shape, domain="real", seed=0):
    x0 = start(shape, domain, seed)
    TAPE.reset()
    r, s = weights(ours(TAPE.leaf(x0, True)), seed)
    H = lamina_hessian(lamina_loss(ours, r, s), x0)
    T = torch_hessian(torch_loss(theirs, r, s), x0)
    assert np.abs(T).max() > 1e-6            # the case has a second derivative to get right
    np.testing.assert_allclose(H, T, rtol=1e-10, atol=1e-10)


# -- elementwise functions -------------------------------------------------------------------
UNARY = [("exp", torch.exp, "real"), ("expm1", torch.expm1, "real"), ("log", torch.log, "positive"),
         ("log10", torch.log10, "positive"), ("log2", torch.log2, "positive"),
         ("log1p", torch.log1p, "unit"), ("sqrt", torch.sqrt, "positive"), ("sin", torch.sin, "real"),
         ("cos", torch.cos, "real"), ("abs", torch.abs, "away_from_zero")]


@pytest.mark.parametrize("shape", [S, V, M, R3], ids=["number", "vector", "matrix", "rank3"])
@pytest.mark.parametrize("name, theirs, domain", UNARY, ids=[u[0] for u in UNARY])
def test_hessian_through_an_elementwise_function_matches_torch(name, theirs, domain, shape):
    check(lambda w: B[name](w), theirs, shape, domain)


PAIRWISE = {
    "max with a constant": (lambda w, c: B["max"](w, c), lambda t, c: torch.maximum(t, c)),
    "min with a constant": (lambda w, c: B["min"](c, w), lambda t, c: torch.minimum(c, t)),
    "max of two tracked": (lambda w, c: B["max"](w, B["sin"](w)), lambda t, c: torch.maximum(t, torch.sin(t))),
    "clamp": (lambda w, c: B["clamp"](w, -0.5, 0.8), lambda t, c: torch.clamp(t, -0.5, 0.8)),
    "mod": (lambda w, c: B["mod"](w, 0.7), lambda t, c: torch.remainder(t, 0.7)),
    "mod by a tracked divisor": (lambda w, c: B["mod"](3.1, ops.add(B["abs"](w), 0.5)),
                                 lambda t, c: torch.remainder(torch.tensor(3.1, dtype=torch.float64), t.abs() + 0.5)),
}


@pytest.mark.parametrize("shape", [S, V, M, R3], ids=["number", "vector", "matrix", "rank3"])
@pytest.mark.parametrize("name", list(PAIRWISE))
def test_hessian_through_max_min_clamp_and_mod_matches_torch(name, shape):
    ours, theirs = PAIRWISE[name]
    c = start(shape, "real", 7)          # w wins some elements and c others
    if shape == S:                       # the number w wins: its second derivative is the loss's
        c = start(S, "away_from_zero", 3) + (1.0 if "min" in name else -1.0)
    tc = torch.tensor(c, dtype=torch.float64)
    check(lambda w: ours(w, c), lambda t: theirs(t, tc), shape, "away_from_zero", seed=3)


# -- reductions ------------------------------------------------------------------------------
def torch_axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    return tuple(axis) if isinstance(axis, list) else (axis,)


REDUCTIONS = {
    "sum": (lambda t, d: t.sum(dim=d, keepdim=True)),
    "mean": (lambda t, d: t.mean(dim=d, keepdim=True)),
    "prod": (lambda t, d: _torch_prod(t, d)),
    "max": (lambda t, d: t.amax(dim=d, keepdim=True)),
    "min": (lambda t, d: t.amin(dim=d, keepdim=True)),
    "logsumexp": (lambda t, d: torch.logsumexp(t, dim=d, keepdim=True)),
}


def _torch_prod(t, dims):
    for d in sorted(dims, reverse=True):
        t = t.prod(dim=d, keepdim=True)
    return t


REDUCE_SHAPES = [(V, None), (M, None), (M, 0), (M, 1), (M, -1), (R3, None), (R3, 1), (R3, -1),
                 (R3, [0, 2]), (R3, [2, 1])]


def _lamina_axis(axis):
    return None if axis is None else [float(a) for a in axis] if isinstance(axis, list) else float(axis)


@pytest.mark.parametrize("shape, axis", REDUCE_SHAPES, ids=[f"{len(s)}d-axis{a}" for s, a in REDUCE_SHAPES])
@pytest.mark.parametrize("name", list(REDUCTIONS))
def test_hessian_through_a_reduction_matches_torch(name, shape, axis):
    theirs = REDUCTIONS[name]
    dims = torch_axes(axis, len(shape))
    check(lambda w: B[name](w, axis=_lamina_axis(axis)) if axis is not None else B[name](w),
          lambda t: theirs(t, dims) if axis is not None else theirs(t, dims).reshape(()),
          shape, "positive" if name == "prod" else "real", seed=len(shape))


@pytest.mark.parametrize("name", ["sum", "mean", "prod", "max", "min", "logsumexp"])
def test_a_reduction_of_a_number_is_the_number_to_second_order(name):
    check(lambda w: B[name](w), lambda t: t, S, "positive")


SKIPPING = {
    "sum": lambda t, keep, d: torch.where(keep, t, 0.0).sum(dim=d, keepdim=True),
    "mean": lambda t, keep, d: torch.where(keep, t, 0.0).sum(dim=d, keepdim=True) / keep.sum(dim=d, keepdim=True),
    "prod": lambda t, keep, d: _torch_prod(torch.where(keep, t, 1.0), d),
    "max": lambda t, keep, d: torch.where(keep, t, -INF).amax(dim=d, keepdim=True),
}


@pytest.mark.parametrize("shape, axis", [(M, None), (M, 0), (R3, [1, 2])], ids=["all", "axis0", "axes12"])
@pytest.mark.parametrize("name", list(SKIPPING))
def test_hessian_with_skipnan_leaves_the_nans_out(name, shape, axis):
    x0 = start(shape, "positive", 5)
    x0.reshape(-1)[[1, 4]] = np.nan
    keep = torch.tensor(~np.isnan(x0))
    dims = torch_axes(axis, len(shape))

    def ours(w):
        return B[name](w, axis=_lamina_axis(axis), skipnan=True)
    TAPE.reset()
    r, s = weights(ours(TAPE.leaf(x0, True)), 5)
    H = lamina_hessian(lamina_loss(ours, r, s), x0)
    shaped = (lambda y: y) if axis is not None else (lambda y: y.reshape(()))
    T = torch_hessian(torch_loss(lambda t: shaped(SKIPPING[name](t, keep, dims)), r, s), np.nan_to_num(x0, nan=7.0))
    np.testing.assert_allclose(H, T, rtol=1e-10, atol=1e-10)
    nan = np.isnan(x0).reshape(-1)
    assert np.all(H[nan] == 0.0) and np.all(H[:, nan] == 0.0)


@pytest.mark.parametrize("shape, axis", [(V, None), (M, None), (M, 1), (R3, [0, 2])],
                         ids=["vector", "matrix", "matrix-axis1", "rank3-axes02"])
def test_hessian_of_prod_is_exact_with_zero_elements(shape, axis):
    x0 = start(shape, "positive", 2)
    x0.reshape(-1)[[0, 3]] = 0.0            # two zeros: in one slice, or in two
    dims = torch_axes(axis, len(shape))

    def ours(w):
        return B["prod"](w, axis=_lamina_axis(axis)) if axis is not None else B["prod"](w)
    TAPE.reset()
    r, s = weights(ours(TAPE.leaf(x0, True)), 2)
    H = lamina_hessian(lamina_loss(ours, r, s), x0)
    # by hand: d2 prod / dx_i dx_j is the product of the others of the slice (0 on the diagonal);
    # the slices in the order of the result's elements (the kept axes in their order)
    n = x0.size
    flat = x0.reshape(-1)
    ids = np.arange(n).reshape(shape)
    reduced = [d % len(shape) for d in dims]
    kept = np.moveaxis(ids, reduced, list(range(-len(reduced), 0))).reshape(-1, int(np.prod([shape[d] for d in reduced])))
    rr, ss = np.ravel(r), np.ravel(s)
    value = np.array([np.prod(flat[m]) for m in kept])
    first = np.zeros((len(kept), n))
    second = np.zeros((len(kept), n, n))
    for k, m in enumerate(kept):
        for i in m:
            first[k, i] = np.prod(flat[[j for j in m if j != i]])
            for j in m:
                if j != i:
                    second[k, i, j] = np.prod(flat[[q for q in m if q not in (i, j)]])
    lin = ss @ value
    expected = np.einsum("k,kij->ij", rr, second) + 2 * np.outer(ss @ first, ss @ first) + 2 * lin * np.einsum("k,kij->ij", ss, second)
    np.testing.assert_allclose(H, expected, rtol=1e-12, atol=1e-12)


# -- shaping, joining, diag ------------------------------------------------------------------
SHAPING = [
    ("reshape", M, lambda w: B["reshape"](w, 2.0, 3.0), lambda t: t.reshape(2, 3)),
    ("reshape to a number", (1, 1), lambda w: B["reshape"](w, np.zeros(0)), lambda t: t.reshape(())),
    ("reshape rank 3", R3, lambda w: B["reshape"](w, 4.0, -1.0), lambda t: t.reshape(4, -1)),
    ("permute", R3, lambda w: B["permute"](w, np.array([2.0, 0.0, 1.0])), lambda t: t.permute(2, 0, 1)),
    ("transpose", M, lambda w: B["transpose"](w), lambda t: t.T),
    ("transpose of a vector", V, lambda w: B["transpose"](w), lambda t: t[None, :]),
    ("squeeze", (2, 1, 3), lambda w: B["squeeze"](w), lambda t: t.squeeze()),
    ("unsqueeze", M, lambda w: B["unsqueeze"](w, 1.0), lambda t: t.unsqueeze(1)),
    ("cat", R3, lambda w: B["cat"](w, B["sin"](w), axis=1.0), lambda t: torch.cat([t, torch.sin(t)], 1)),
    ("stack", M, lambda w: B["stack"](B["exp"](w), w, axis=2.0), lambda t: torch.stack([torch.exp(t), t], 2)),
    ("stack of numbers", S, lambda w: B["stack"](w, B["sin"](w)), lambda t: torch.stack([t, torch.sin(t)])),
    ("hcat", V, lambda w: B["hcat"](w, B["sin"](w)), lambda t: torch.stack([t, torch.sin(t)], 1)),
    ("hcat with a number", S, lambda w: B["hcat"](w, B["sin"](w), 2.0),
     lambda t: torch.stack([t, torch.sin(t), torch.tensor(2.0, dtype=torch.float64)])[None, :]),
    ("hcat of matrices", M, lambda w: B["hcat"](B["cos"](w), w), lambda t: torch.cat([torch.cos(t), t], 1)),
    ("vcat of vectors", V, lambda w: B["vcat"](w, B["sum"](w), B["sin"](w)), lambda t: torch.cat([t, t.sum()[None], torch.sin(t)])),
    ("vcat of matrices", M, lambda w: B["vcat"](w, B["sum"](w, axis=0.0)),
     lambda t: torch.cat([t, t.sum(0, keepdim=True)], 0)),
    ("fill", S, lambda w: B["fill"](w, 2.0, 3.0), lambda t: t.expand(2, 3)),
    ("linspace", S, lambda w: B["linspace"](w, ops.epow(w, 2.0), 5.0),
     lambda t: t + (t ** 2 - t) * torch.linspace(0, 1, 5, dtype=torch.float64)),
    ("take, repeating a row", M, lambda w: shaping.take(w, np.array([2, 0, 2])), lambda t: t[[2, 0, 2]]),
    ("diag of a vector", V, lambda w: B["diag"](w), lambda t: torch.diag(t)),
    ("diag of a vector, offset", V, lambda w: B["diag"](w, -1.0), lambda t: torch.diag(t, -1)),
    ("diag of a matrix", (3, 3), lambda w: B["diag"](w), lambda t: torch.diagonal(t)),
    ("diag of a wide matrix, offset", (3, 4), lambda w: B["diag"](w, 1.0), lambda t: torch.diagonal(t, 1)),
]


@pytest.mark.parametrize("name, shape, ours, theirs", SHAPING, ids=[c[0] for c in SHAPING])
def test_hessian_through_shaping_and_joining_matches_torch(name, shape, ours, theirs):
    check(lambda w: ours(B["exp"](w)), lambda t: theirs(torch.exp(t)), shape, seed=11)


# -- sequences and norms ---------------------------------------------------------------------
OTHERS = [
    ("diff", V, None, lambda w: B["diff"](w), lambda t: torch.diff(t)),
    ("diff along rows", M, None, lambda w: B["diff"](w, 1.0), lambda t: torch.diff(t, dim=1)),
    ("cumprod", V, None, lambda w: B["cumprod"](w), lambda t: torch.cumprod(t, 0)),
    ("cumprod of a matrix", M, None, lambda w: B["cumprod"](w), lambda t: torch.cumprod(t.reshape(-1), 0)),
    ("cumprod down the columns", M, None, lambda w: B["cumprod"](w, 0.0), lambda t: torch.cumprod(t, 0)),
    ("reverse", M, None, lambda w: B["reverse"](w, 1.0), lambda t: torch.flip(t, [1])),
    ("norm", V, None, lambda w: B["norm"](w), lambda t: torch.linalg.vector_norm(t)),
    ("norm 3", V, None, lambda w: B["norm"](w, 3.0), lambda t: torch.linalg.vector_norm(t, 3)),
    ("norm 1.5", M, None, lambda w: B["norm"](w, "fro"), lambda t: torch.linalg.matrix_norm(t)),
    ("norm 1", V, None, lambda w: B["norm"](w, 1.0), lambda t: torch.linalg.vector_norm(t, 1)),
    ("norm Inf", V, None, lambda w: B["norm"](w, INF), lambda t: torch.linalg.vector_norm(t, INF)),
    ("matrix norm 1", M, None, lambda w: B["norm"](w, 1.0), lambda t: torch.linalg.matrix_norm(t, 1)),
    ("matrix norm Inf", M, None, lambda w: B["norm"](w, INF), lambda t: torch.linalg.matrix_norm(t, INF)),
]


@pytest.mark.parametrize("name, shape, _, ours, theirs", OTHERS, ids=[c[0] for c in OTHERS])
def test_hessian_through_sequences_and_norms_matches_torch(name, shape, _, ours, theirs):
    check(ours, theirs, shape, "away_from_zero", seed=13)


def test_a_kept_gradient_of_cumprod_with_a_zero_factor_is_refused(run):
    with pytest.raises(LaminaError) as info:
        run("p = param([2.0, 0.0, 3.0])\ng = grad(sum(cumprod(p)), wrt = p, keep = true)")
    assert info.value.kind == "TapeError" and "cumprod" in info.value.message


def test_a_kept_gradient_of_the_spectral_norm_is_refused_as_first_order(run):
    with pytest.raises(LaminaError) as info:
        run("p = param([1.0, 2.0; 3.0, 4.0])\ng = grad(norm(p, 2), wrt = p, keep = true)")
    assert info.value.kind == "TapeError" and "first order only" in info.value.message


# -- third order -----------------------------------------------------------------------------
def third(loss, x0, v):
    """D^3 loss [v, v, .] at x0: a kept gradient along v, kept again along v, then a gradient."""
    TAPE.reset()
    w = TAPE.leaf(x0.copy() if isinstance(x0, np.ndarray) else x0, True)
    g1 = grad(loss(w), w, keep=True)
    g2 = grad(B["sum"](ops.emul(g1, v)), w, keep=True)
    return grad(B["sum"](ops.emul(g2, v)), w)


def torch_third(loss, x0, v):
    t = torch.tensor(x0, dtype=torch.float64, requires_grad=True)
    tv = torch.tensor(v, dtype=torch.float64)
    (g1,) = torch.autograd.grad(loss(t), t, create_graph=True)
    (g2,) = torch.autograd.grad((g1 * tv).sum(), t, create_graph=True)
    (g3,) = torch.autograd.grad((g2 * tv).sum(), t)
    return g3.numpy()


def test_third_derivative_of_a_number_through_every_unary_function_matches_torch():
    def ours(w):
        terms = [ops.emul(B["exp"](B["sin"](w)), B["log"](w)), ops.emul(B["sqrt"](w), B["cos"](w)),
                 ops.ediv(B["expm1"](w), B["log1p"](w)), ops.emul(B["log10"](w), B["log2"](w)),
                 ops.emul(B["abs"](ops.sub(w, 3.0)), ops.epow(w, 2.5))]
        out = terms[0]
        for t in terms[1:]:
            out = ops.add(out, t)
        return out

    def theirs(t):
        return (torch.exp(torch.sin(t)) * torch.log(t) + torch.sqrt(t) * torch.cos(t)
                + torch.expm1(t) / torch.log1p(t) + torch.log10(t) * torch.log2(t)
                + torch.abs(t - 3.0) * t ** 2.5)
    for x in (0.7, 1.3, 2.2):
        assert third(ours, x, 1.0) == pytest.approx(float(torch_third(theirs, x, 1.0)), rel=1e-10, abs=1e-10)


@pytest.mark.parametrize("name", ["logsumexp", "prod", "mean", "max", "norm"])
def test_third_derivative_through_a_reduction_matches_torch(name):
    x0 = start(M, "positive", 21)
    v = start(M, "real", 22)
    ours = {"logsumexp": lambda w: ops.epow(B["logsumexp"](w, axis=1.0), 2.0),
            "prod": lambda w: B["prod"](w, axis=0.0),
            "mean": lambda w: ops.epow(B["mean"](B["exp"](w), axis=0.0), 3.0),
            "max": lambda w: ops.epow(B["max"](w, axis=1.0), 3.0),
            "norm": lambda w: ops.epow(B["norm"](w), 3.0)}[name]
    theirs = {"logsumexp": lambda t: torch.logsumexp(t, 1, keepdim=True) ** 2,
              "prod": lambda t: t.prod(0, keepdim=True),
              "mean": lambda t: torch.exp(t).mean(0, keepdim=True) ** 3,
              "max": lambda t: t.amax(1, keepdim=True) ** 3,
              "norm": lambda t: torch.linalg.matrix_norm(t) ** 3}[name]
    r = start(np.shape(value_of(ours(x0))), "real", 23)
    tr = torch.tensor(r, dtype=torch.float64)
    got = third(lambda w: B["sum"](ops.emul(ours(w), r)), x0, v)
    want = torch_third(lambda t: (theirs(t) * tr).sum(), x0, v)
    assert np.abs(want).max() > 1e-3
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


def test_a_program_takes_the_hessian_of_a_log_sum_exp(run):
    lines = run("p = param([0.5, -1.0, 2.0])\n"
                "g = grad(logsumexp(p), wrt = p, keep = true)\n"
                "h = vcat(grad(g[0], wrt = p)', grad(g[1], wrt = p)', grad(g[2], wrt = p)')\n"
                "s = exp(p - logsumexp(p))\n"
                "print(max(abs(h - (diag(s) - s * s'))) < 1e-15, abs(sum(h)) < 1e-15)")
    assert lines == ["true true"]
