"""Every builtin that is not differentiable, given float32 tensors, keeps float32 in the
tensors it returns (the differentiable ones are checked by tests/autodiff/test_gradcheck_float32.py).

It runs each builtin's probes (`@builtin(..., probes=[...])`, the calls test_tracked_arguments
runs) with float32 arguments in place of tracked ones, or its `float32_probes` where another
argument must be float32 too, so a builtin registered later is covered by its probes without new
test code. Numbers are float64 everywhere (they are Python floats), so only arrays are checked;
the results that are float64 by the language's rule (numbers in essence: indices, counts,
statistical tests) are declared on the decorator as `float64_results=(reason, paths)`."""
from __future__ import annotations

import contextlib
import io

import numpy as np
import pytest
from builtin_checks import in_tmp_dir  # noqa: F401  (autouse fixtures)

from lamina.builtins.registry import load_all
from lamina.errors import LaminaError
from lamina.interpreter import Interpreter
from lamina.values import LibObject, Record, Tracked

SETUP = ("p = float32([1.5, 2.0, 2.5, 3.0])\nq = float32([0, 1; 1, 0; 1, 1; 2, 0])\n"
         "c = float32([1, 0, 1, 0])\n")


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


REGISTRY = load_all()
NAMES = sorted(n for n, s in REGISTRY.items() if isinstance(s.probes, list))


@pytest.mark.parametrize("name", NAMES)
def test_a_builtin_keeps_float32(name):
    spec = REGISTRY[name]
    reason, allowed = spec.float64_results or ("", ())
    problems, excused = [], 0
    for call in spec.float32_probes or spec.probes:
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
    assert excused or not reason, f"{name} keeps float32 now: take float64_results= off its @builtin"
