"""Imports only point down the layers (docs/ARCHITECTURE.md).

The layer order is written once, here. Every module of the package is parsed with `ast`,
and every import of another Lamina module (at the top or inside a function) must go to a
lower layer, or stay inside the importing module's own package. Two packages on one layer
(lang, nn and optim; stats and models) do not import each other.
"""
from __future__ import annotations

import ast
import pathlib

PACKAGE = pathlib.Path(__file__).parents[1] / "src" / "lamina"

LAYERS = [
    ["fields"],
    ["errors", "malloc_tuning"],
    ["warnings"],
    ["rng", "files"],
    ["values"],
    ["formatting"],
    ["printing"],
    ["autodiff"],
    ["lang", "nn", "optim"],
    ["stats", "models"],
    ["cluster"],
    ["builtins"],
    ["interpreter", "highlight"],
    ["docs"],
    ["console", "completion"],
    ["repl", "kernel", "lsp"],
    ["cli"],
    ["__main__", "__init__"],
]
# The one sanctioned upward call: help() renders a builtin's page.
ALLOWED = {("builtins.core", "docs.help")}


def layer_of(module: str) -> tuple[int, str]:
    """(layer index, unit) of a module named relative to the package: `lang.parser` -> lang."""
    unit = module.split(".")[0] if module else "__init__"
    for i, names in enumerate(LAYERS):
        if unit in names:
            return i, unit
    raise AssertionError(f"module lamina.{module} is in no layer; add its package to LAYERS")


def imports_of(path: pathlib.Path, module: str, source: str | None = None) -> list[tuple[int, str]]:
    """(line, imported module relative to the package) for every Lamina import in a file."""
    tree = ast.parse(source if source is not None else path.read_text())
    package = module.split(".")[:-1] if path.name != "__init__.py" else module.split(".")
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
                names = [target] if node.module else [".".join(base + [a.name]) for a in node.names]
            elif node.module and node.module.split(".")[0] == "lamina":
                names = [node.module.partition(".")[2]]
            else:
                continue
            out.extend((node.lineno, n.strip(".")) for n in names)
        elif isinstance(node, ast.Import):
            out.extend((node.lineno, a.name.partition(".")[2]) for a in node.names
                       if a.name.split(".")[0] == "lamina")
    return out


def module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def upward_imports(path: pathlib.Path, source: str | None = None) -> list[str]:
    module = module_name(path)
    here, unit = layer_of(module)
    problems = []
    for line, target in imports_of(path, module, source):
        there, other = layer_of(target)
        if other == unit and module:
            continue
        allowed = any(module.startswith(a) and target.startswith(b) for a, b in ALLOWED)
        if (there > here or (there == here and other != unit)) and not allowed:
            problems.append(f"lamina.{module or '__init__'} (line {line}, layer {here}: {unit}) imports "
                            f"lamina.{target} (layer {there}: {other})")
    return problems


def test_imports_only_point_down():
    problems = [p for path in sorted(PACKAGE.rglob("*.py")) for p in upward_imports(path)]
    assert not problems, "imports that point up the layers:\n" + "\n".join(problems)


def test_an_upward_import_is_caught():
    # autodiff importing the registry (as it once did) points up from layer 7 to layer 11.
    path = PACKAGE / "autodiff" / "ops.py"
    problems = upward_imports(path, "from ..builtins.registry import GradCase\n")
    assert problems == ["lamina.autodiff.ops (line 1, layer 7: autodiff) imports "
                        "lamina.builtins.registry (layer 11: builtins)"]
    inside = upward_imports(PACKAGE / "values.py", "def f():\n    from .lang.printing import x\n")
    assert inside and "lamina.lang.printing" in inside[0]


def test_two_packages_of_one_layer_do_not_import_each_other():
    problems = upward_imports(PACKAGE / "nn" / "gru.py", "from ..optim.base import Rule\n")
    assert problems and "layer 8: optim" in problems[0]


def test_every_module_is_in_a_layer():
    for path in PACKAGE.rglob("*.py"):
        layer_of(module_name(path))


def positional_pass_throughs(source: str) -> list[str]:
    """Calls inside a builtin that pass three or more arguments by position, two or more of them
    its own parameters after the first: reordering a parameter of the callee would then
    misroute arguments silently."""
    found = []
    for node in ast.parse(source).body:
        if not (isinstance(node, ast.FunctionDef) and any(
                isinstance(d, ast.Call) and getattr(d.func, "id", "") == "builtin" for d in node.decorator_list)):
            continue
        params = {a.arg for a in node.args.args}
        for call in ast.walk(node):
            if isinstance(call, ast.Call) and len(call.args) >= 3 and sum(
                    isinstance(a, ast.Name) and a.id in params for a in call.args[1:]) >= 2:
                found.append(f"{node.name}: {ast.unparse(call)}")
    return found


def test_builtins_pass_their_arguments_on_by_keyword():
    found = [f"{path.name}: {c}" for path in sorted((PACKAGE / "builtins").glob("*.py"))
             for c in positional_pass_throughs(path.read_text())]
    assert not found, "pass their parameters on by position:\n" + "\n".join(found)


def test_a_positional_pass_through_is_caught():
    source = '@builtin("f")\ndef f(x, y, z=1):\n    return g(x, y, z)\n'
    assert positional_pass_throughs(source) == ["f: g(x, y, z)"]
    assert positional_pass_throughs(source.replace("g(x, y, z)", "g(x, y=y, z=z)")) == []


# An import statement inside a function runs on every call: about 4 us for a relative one
# (`from ..lang.runtime import call`), which made assert(...) in a loop 15x slower than its
# work. In the interpreter's runtime and in builtins, a function imports only what is slow to
# import (SciPy, matplotlib, the cluster, the docs) or what would form a cycle; anything else,
# an error path's needs included (under a memory limit an import fails), goes at the top.
DEFERRED = {
    "builtins/core.py": {"..stats.table", "..stats.tableops", "..docs.help"},
    "builtins/models.py": {"..models.save"},
    "builtins/nn.py": {"..models.layers.dense", "..models.layers.dropout"},
    "builtins/parallel.py": {"..cluster"},
    "builtins/registry.py": {".", "..autodiff"},
    "lang/runtime.py": {".pyerrors"},
}


def function_imports(path: pathlib.Path) -> set[str]:
    found = set()
    for fn in ast.walk(ast.parse(path.read_text())):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(fn):
                if isinstance(node, ast.ImportFrom):
                    found.add("." * node.level + (node.module or ""))
                elif isinstance(node, ast.Import):
                    found.update(alias.name for alias in node.names)
    return found


def test_builtins_and_the_runtime_import_at_the_top():
    extra = {}
    for package in ("builtins", "lang"):
        for path in sorted((PACKAGE / package).glob("*.py")):
            name = f"{package}/{path.name}"
            unexpected = function_imports(path) - DEFERRED.get(name, set())
            if unexpected:
                extra[name] = sorted(unexpected)
    assert not extra, f"imports inside functions (move them to the module's top): {extra}"


def test_a_function_level_import_is_caught(tmp_path):
    source = tmp_path / "m.py"
    source.write_text("import math\n\ndef f():\n    from ..lang.runtime import call\n    import json\n")
    assert function_imports(source) == {"..lang.runtime", "json"}
