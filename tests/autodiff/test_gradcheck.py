"""Every differentiable builtin and operator, against central finite differences.

The cases come from the registry and ops.OPERATORS, so a builtin registered
later (by any module) is checked here without new test code.
"""
import importlib
import pkgutil

import pytest

from lamina.builtins import registry


def _load_each():
    """Import every builtin module that imports cleanly (while some are still being written)."""
    import lamina.builtins
    for info in pkgutil.iter_modules(lamina.builtins.__path__):
        if info.name not in ("registry", "modules"):
            try:
                importlib.import_module(f"lamina.builtins.{info.name}")
            except (ImportError, ValueError):
                pass


try:
    registry.load_all()
except ImportError:
    _load_each()

from lamina.autodiff import gradcheck  # noqa: E402

CASES = gradcheck.all_cases()


@pytest.mark.parametrize("case_id, fn, case", CASES, ids=[c[0] for c in CASES])
def test_gradient_matches_finite_differences(case_id, fn, case):
    assert case is not None, f"{case_id} is differentiable but declares no GradCase"
    problems = gradcheck.check(case_id, fn, case)
    assert not problems, "\n".join(problems)


def test_the_core_differentiable_builtins_are_checked():
    names = {c[0].split("#")[0] for c in CASES}
    for name in ("exp", "log", "sqrt", "abs", "sum", "mean", "min", "max", "dot", "transpose",
                 "reshape", "hcat", "vcat"):
        assert f"builtin:{name}" in names
    for op in ("add", "sub", "mul", "div", "emul", "ediv", "pow", "epow", "neg", "transpose",
               "index", "setindex", "build_vector", "build_matrix"):
        assert f"op:{op}" in names
