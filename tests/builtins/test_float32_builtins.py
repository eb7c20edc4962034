"""Every builtin that is not differentiable, given float32 tensors, keeps float32 in the
tensors it returns (the differentiable ones are checked by tests/autodiff/test_gradcheck_float32.py).

It runs the calls of test_tracked_arguments.PROBES with float32 arguments in place of tracked
ones, so a builtin registered later is covered by its probe without new test code. Numbers are
float64 everywhere (they are Python floats), so only arrays are checked."""
from __future__ import annotations

import contextlib
import io

import numpy as np
import pytest
from builtin_checks import in_tmp_dir  # noqa: F401  (autouse fixtures)
from test_tracked_arguments import NET, PROBES, REGISTRY, Y

from lamina.errors import LaminaError
from lamina.interpreter import Interpreter
from lamina.values import LibObject, Record, Tracked

SETUP = ("p = float32([1.5, 2.0, 2.5, 3.0])\nq = float32([0, 1; 1, 0; 1, 1; 2, 0])\n"
         "c = float32([1, 0, 1, 0])\n")

# Probes that need float32 in another argument too (a model, an optimizer's parameters).
NET32 = NET.replace('seed = 1)', 'seed = 1, dtype = "float32")')
FLOAT32_PROBES = {
    "eig": ["eig(q[0:2, :])", "eig(float32([1, 2; 3, 1]))"],
    "grad": ["w = param(p)\ngrad(sum(w .* w), wrt = w)"],
    "fit": [NET32 + f"fit(net, q, float32({Y}))"], "evaluate": [NET32 + f"evaluate(net, q, float32({Y}))"],
    "predict": [NET32 + "predict(net, q)"],
    "quick_mlp": [f"quick_mlp(q, float32({Y}), epochs = 2, dtype = \"float32\")"],
    "optimizer_step": ["optimizer_step(sgd(float32([1, 2, 3, 4]), 0.1), p)"],
    "parallel_map": ["parallel_map(x -> x, p)", "parallel_map(x -> x * q, [1, 2])"],
    "train_loop": ["train_loop(w -> sum((w - 1) .^ 2), p, 2, optimizer = sgd(lr = 0.1), returning = \"all\")"],
}

# Results that are float64 by the language's rule (docs/language.md, "Precision"): numbers are
# float64, and these results are numbers in essence. name -> (reason, the result paths allowed).
COUNTS = "indices, counts and sizes are whole numbers, and numbers are float64"
STATISTICS = "a statistical test or fit computes in float64, as SciPy and statsmodels do"
NOT_FLOAT32: dict[str, tuple[str, tuple[str, ...]]] = {
    **{name: (COUNTS, ("result",)) for name in ("argmin", "argsort", "find", "confusion_matrix", "size", "range")},
    "histogram": (COUNTS, ("result.counts",)), "kmeans": (COUNTS, ("result.labels",)),
    **{name: (STATISTICS, ("result",)) for name in ("chisq_test", "corr_test", "t_test", "describe", "linreg",
                                                    "logreg", "polyfit")},
    "sweep": ("a configuration's settings are numbers", ("result",)),
    "with_column": ("a table's number columns are float64", ("result",)),
    "train_loop": ("its losses are numbers", ("result.losses",)),
}


def float64_arrays(x, path: str = "result", seen=None) -> list[tuple[str, str]]:
    """(path, problem) for each float64 array in a result, its lists, records and library
    objects' fields."""
    seen = set() if seen is None else seen
    if id(x) in seen:
        return []
    seen.add(id(x))
    if type(x) is Tracked:
        x = x.value
    if isinstance(x, np.ndarray):
        return [(path, f"{path} is float64 {x.shape}")] if x.dtype == np.float64 else []
    if isinstance(x, list):
        return [p for i, item in enumerate(x) for p in float64_arrays(item, f"{path}[{i}]", seen)]
    if isinstance(x, Record):
        return [p for k, v in x.fields.items() for p in float64_arrays(v, f"{path}.{k}", seen)]
    if isinstance(x, LibObject):
        found = []
        for name in x.field_names():
            try:
                value = x.get(name)
            except LaminaError:
                continue
            found += float64_arrays(value, f"{path}.{name}", seen)
        return found
    return []


def run_float32(call: str):
    interp = Interpreter()
    setup, _, last = (SETUP + call).rpartition("\n")
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        interp.run(f"{setup}\nprobe_result = {last}\n", "<float32 probe>")
    return interp.get("probe_result")


NAMES = sorted(n for n, s in REGISTRY.items() if s.tracked != "differentiable" and not isinstance(PROBES[n], str))


@pytest.mark.parametrize("name", NAMES)
def test_a_builtin_keeps_float32(name):
    reason, allowed = NOT_FLOAT32.get(name, ("", ()))
    problems, excused = [], 0
    for call in FLOAT32_PROBES.get(name, PROBES[name]):
        try:
            result = run_float32(call)
        except LaminaError as error:
            problems.append(f"{call}: {error.kind}: {error.message}")
            continue
        for path, problem in float64_arrays(result):
            if path.startswith(allowed):
                excused += 1
            else:
                problems.append(f"{call}: {problem}")
    assert not problems, "\n".join(problems)
    assert excused or not reason, f"{name} keeps float32 now: take it out of NOT_FLOAT32"
