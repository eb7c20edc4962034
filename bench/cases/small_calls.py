"""Benchmark cases for small statistics calls (bench protocol: `cases()` returns case dicts).

corr of two vectors, std and median of one, at 10^5 and at 1,000 values, by the functions
the builtins call (lamina.stats), against NumPy by hand (np.corrcoef(x, y)[0, 1],
np.std(x, ddof = 1), np.median(x)); and logreg of 32 rows and 2 predictors against
statsmodels' Logit (with a constant column, Newton's method, its default). One repetition is
a loop of CALLS calls (fits), so that a call of a few microseconds is timed over milliseconds;
each row also reports the time per call. `bench/run.py --only small_calls` runs these alone.
"""
from __future__ import annotations

import numpy as np
from peers import lazy, needs  # bench/peers.py

NUMPY = "numpy (by hand)"


def data(n: int):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(n)
    return x, 0.5 * x + rng.standard_normal(n)


def logistic_data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((32, 2))
    return X, (X @ np.array([1.0, -1.0]) + rng.standard_normal(32) > 0).astype(np.float64)


def lamina_calls(module: str, name: str, args, calls: int):
    """The function the builtin calls (lamina.stats.<module>.<name>; the builtin passes its
    arguments on and adds nothing measurable)."""
    def setup():
        import importlib
        fn, a = getattr(importlib.import_module(f"lamina.stats.{module}"), name), args()
        return lambda: [fn(*a) for _ in range(calls)]
    return lazy(setup)


def numpy_calls(fn, args, calls: int):
    def setup():
        a = args()
        return lambda: [fn(*a) for _ in range(calls)]
    return lazy(setup)


def statsmodels_fits(calls: int):
    def setup():
        import statsmodels.api as sm
        X, y = logistic_data()
        design = sm.add_constant(X)
        return lambda: [sm.Logit(y, design).fit(disp=0) for _ in range(calls)]
    return needs("statsmodels") or lazy(setup)


def cases() -> list[dict]:
    out = []
    for n, calls in [(100_000, 20), (1_000, 500)]:
        for module, name, fn, args in [
                ("moments", "corr", lambda x, y: np.corrcoef(x, y)[0, 1], lambda n=n: data(n)),
                ("moments", "std", lambda x: np.std(x, ddof=1), lambda n=n: data(n)[:1]),
                ("descriptive", "median", np.median, lambda n=n: data(n)[:1])]:
            out.append({"name": f"small calls: {name} of {n:,} values", "sizes": f"{n:,} values, {calls} calls",
                        "dtype": "float64", "per": [calls, "call"], "goal": {"peer": NUMPY, "within": 2.0},
                        "impls": {"lamina": lamina_calls(module, name, args, calls),
                                  NUMPY: numpy_calls(fn, args, calls)}})
    fits = 20
    out.append({"name": "small calls: logreg of 32 rows", "sizes": f"32 x 2, {fits} fits", "dtype": "float64",
                "per": [fits, "fit"], "goal": {"peer": "statsmodels Logit", "within": 2.0},
                "impls": {"lamina": lamina_calls("models", "logreg", logistic_data, fits),
                          "statsmodels Logit": statsmodels_fits(fits)}})
    return out
