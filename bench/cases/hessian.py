"""The Hessian of a log-likelihood (issue 42): a Poisson regression's negative log-likelihood,
p = 100 coefficients over n = 10,000 observations, in float64,

    nll(w) = sum(exp(X w) - y .* (X w)),      its Hessian X' diag(exp(X w)) X,

taken by Lamina's `hessian(nll, w)` (a gradient kept on the tape, then one reverse sweep per
coefficient over the tape it recorded), against PyTorch's torch.func.hessian (forward over
reverse, the 100 directions vectorised by vmap: two matrix products) and
torch.autograd.functional.hessian (reverse over reverse, one backward per coefficient, as
Lamina does), at torch's default thread count; and the closed form by hand in NumPy, the floor
of this work. Lamina runs as a program: the data bound to names in an Interpreter, `H =
hessian(nll, w0)` compiled once and run per repetition. Every peer's Hessian is checked
against the closed form in its warm-up (untimed). `bench/run.py --only hessian` runs it alone.

Measured on the 2-core machine (`bench/run.py --only hessian --repeat 40 --rounds 8`, load about
1): Lamina 25.2 ms (21.4 ms - 1.64 s), torch.func.hessian 62.5 ms (51.7 - 251.7 ms), 0.40x; a
second run 25.0 against 60.4 ms, 0.41x. One thread on every side (OPENBLAS_NUM_THREADS=1
OMP_NUM_THREADS=1): 36.2 against 156.9 ms, 0.23x. Under load (4 to 6 on 2 cores) BLAS's two
threads wait on each other and every peer's wall clock spreads tenfold; bench/cputime.py with one
thread gave 55.5 against 126.5 ms of process time (0.44x) then. Lamina's time is its 200
matrix-vector products, two per sweep over the kept gradient (X' and X against a one-hot's
path); the closed form is two matrix products (7 ms), which a sweep of all 100 seeds at once
would also be.
"""
from __future__ import annotations

import numpy as np
from peers import lazy, needs  # bench/peers.py

N, P = 10_000, 100
SIZES = f"n = {N:,} observations, p = {P} coefficients: the {P} x {P} Hessian"
NLL = """
function nll(w)
    eta = X * w
    return sum(exp(eta) - y .* eta)
end function
"""


def data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((N, P)) / np.sqrt(P)
    y = rng.poisson(np.exp(X @ (0.3 * rng.standard_normal(P)))).astype(np.float64)
    w0 = 0.1 * rng.standard_normal(P)
    return X, y, w0


def closed_form(X, y, w0) -> np.ndarray:
    return X.T @ (np.exp(X @ w0)[:, None] * X)


def checked(hessian, X, y, w0):
    """`hessian` (a repetition's result), after checking it once against the closed form."""
    want = closed_form(X, y, w0)
    got = np.asarray(hessian)
    if got.shape != want.shape or not np.allclose(got, want, rtol=1e-10, atol=1e-10 * np.abs(want).max()):
        raise AssertionError("the Hessian differs from X' diag(exp(X w)) X")


# -- Lamina -----------------------------------------------------------------------------
def lamina():
    def setup():
        from lamina.interpreter import Interpreter
        from lamina.lang.scope import mangle
        X, y, w0 = data()
        interp = Interpreter()
        for name, value in (("X", X), ("y", y), ("w0", w0)):
            interp.namespace[mangle(name)] = value
        interp.run(NLL, "<bench>")
        code = interp.compile("H = hessian(nll, w0)", "<bench>")
        interp.run_code(code)
        checked(interp.namespace[mangle("H")], X, y, w0)
        return lambda: interp.run_code(code)
    return lazy(setup)


# -- PyTorch ----------------------------------------------------------------------------
def torch_peer(how: str):
    return needs("torch") or lazy(lambda: _torch(how))


def _torch(how: str):
    import torch
    X, y, w0 = data()
    Xt, yt, wt = (torch.from_numpy(a) for a in (X, y, w0))

    def nll(w):
        eta = Xt @ w
        return (torch.exp(eta) - yt * eta).sum()
    if how == "func":
        hessian = torch.func.hessian(nll)
        run = lambda: hessian(wt)       # noqa: E731
    else:
        run = lambda: torch.autograd.functional.hessian(nll, wt)    # noqa: E731
    checked(run().numpy(), X, y, w0)
    return run


# -- NumPy by hand ----------------------------------------------------------------------
def numpy_by_hand():
    def setup():
        X, y, w0 = data()
        return lambda: closed_form(X, y, w0)
    return lazy(setup)


def cases() -> list[dict]:
    return [{"name": "hessian of a Poisson log-likelihood", "sizes": SIZES, "dtype": "float64",
             "repeat": 40, "rounds": 4, "goal": {"peer": "torch.func.hessian float64", "within": 2.0},
             "notes": ["Lamina: one kept gradient, then one reverse sweep per coefficient (100 sweeps of "
                       "two matrix-vector products each); torch.func.hessian: forward over reverse with "
                       "the 100 directions vectorised; torch.autograd.functional.hessian: one backward "
                       "per coefficient, as Lamina"],
             "impls": {"lamina": lamina(),
                       "torch.func.hessian float64": torch_peer("func"),
                       "torch.autograd.functional.hessian float64": torch_peer("autograd"),
                       "numpy closed form (by hand)": numpy_by_hand()}}]
