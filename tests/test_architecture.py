"""Imports only point down the layers (docs/ARCHITECTURE.md).

The layer order is written once, here. Every module of the package is parsed with `ast`,
and every import of another Lamina module (at the top or inside a function, or through
`importlib.import_module` or `__import__` with a literal name) must go to a lower layer, or stay
inside the importing module's own package. Two packages on one layer (lang, nn and optim; stats
and models) do not import each other. No modules import each other in a circle, inside a
package or across packages, but the one the registry makes by importing the modules that
register into it (LOADER).
"""
from __future__ import annotations

import ast
import pathlib
import re

PACKAGE = pathlib.Path(__file__).parents[1] / "src" / "lamina"

LAYERS = [
    ["fields"],
    ["errors", "malloc_tuning", "blas_tuning", "ownership"],
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
# The one sanctioned upward import, (importer, imported) exactly: help() renders a builtin's page.
ALLOWED = {("builtins.core", "docs.help")}
# The one circle allowed: the registry imports the modules that register into it (load_all, and
# spec_of the one index.py names for a builtin), so its imports of its own package are left out
# of the circle check. It imports by a name computed at run time, which ast cannot follow, and so
# does models/layers/__init__.py, which imports every file of its own folder so that a layer is
# registered by its file alone (each of those files' imports is checked as any module's).
LOADER = "builtins.registry"
COMPUTED = {LOADER, "models.layers"}


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
    package = package_of(path, module)
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
        elif is_import_call(node) and (target := literal_import(node, package)) is not None:
            out.append((node.lineno, target))
    return out


def is_import_call(node: ast.AST) -> bool:
    """importlib.import_module(...), import_module(...) or __import__(...)."""
    if not isinstance(node, ast.Call):
        return False
    f = node.func
    if isinstance(f, ast.Attribute):
        return f.attr == "import_module" and isinstance(f.value, ast.Name) and f.value.id == "importlib"
    return isinstance(f, ast.Name) and f.id in ("import_module", "__import__")


def literal_import(call: ast.Call, package: list[str]) -> str | None:
    """The Lamina module (relative to the package) that an import call names by a literal; None
    for a module outside Lamina or a name computed at run time (see computed_imports)."""
    name = call.args[0] if call.args else None
    if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
        return None
    text = name.value
    if not text.startswith("."):
        return text.partition(".")[2] if text.split(".")[0] == "lamina" else None
    anchor = call.args[1] if len(call.args) > 1 else None
    if isinstance(anchor, ast.Constant) and isinstance(anchor.value, str) and anchor.value.split(".")[0] == "lamina":
        package = anchor.value.split(".")[1:]
    elif not (isinstance(anchor, ast.Name) and anchor.id == "__package__"):
        return None
    level = len(text) - len(text.lstrip("."))
    return ".".join(package[:len(package) - level + 1] + [text.lstrip(".")]).strip(".")


def computed_imports(path: pathlib.Path, source: str | None = None) -> list[int]:
    """The lines of the import calls whose module cannot be read from the source: a name
    computed at run time, or a relative name against an anchor that is not a literal."""
    package = package_of(path, module_name(path))
    lines = []
    for node in ast.walk(ast.parse(source if source is not None else path.read_text())):
        if not (is_import_call(node) and node.args):
            continue
        name = node.args[0]
        literal = isinstance(name, ast.Constant) and isinstance(name.value, str)
        if not literal or (name.value.startswith(".") and literal_import(node, package) is None):
            lines.append(node.lineno)
    return lines


def package_of(path: pathlib.Path, module: str) -> list[str]:
    """The package a module's relative imports start from, as names below lamina."""
    parts = module.split(".") if module else []
    return parts if path.name == "__init__.py" else parts[:-1]


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
        allowed = (module, target) in ALLOWED
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


def test_the_allowed_upward_import_is_there():
    # an allowance the code no longer uses would let the next such import in unseen
    for importer, imported in ALLOWED:
        path = PACKAGE / (importer.replace(".", "/") + ".py")
        assert imported in {t for _, t in imports_of(path, importer)}, f"{importer} no longer imports {imported}"


def test_an_importlib_upward_import_is_caught():
    path = PACKAGE / "autodiff" / "ops.py"
    for call in ('importlib.import_module("lamina.docs.help")', 'importlib.import_module("..docs.help", __package__)',
                 '__import__("lamina.docs.help")', 'import_module(".help", "lamina.docs")'):
        assert upward_imports(path, f"import importlib\n\ndef f():\n    {call}\n") == [
            "lamina.autodiff.ops (line 4, layer 7: autodiff) imports lamina.docs.help (layer 13: docs)"], call
    # the sanctioned import holds for help() in builtins/core.py only, not for its neighbours
    assert upward_imports(PACKAGE / "builtins" / "core.py", "from ..docs.help import help_for\n") == []
    assert upward_imports(PACKAGE / "builtins" / "tables.py", "from ..docs.help import help_for\n")
    assert upward_imports(PACKAGE / "builtins" / "core.py", "from ..docs.pages import page\n")


def test_only_the_registry_imports_by_a_computed_name():
    found = {module_name(path) for path in PACKAGE.rglob("*.py") if computed_imports(path)}
    assert found == COMPUTED, f"imports by a name computed at run time, which no test can follow: {found - COMPUTED}"
    assert computed_imports(PACKAGE / "values.py", "import importlib\nimportlib.import_module(name)\n") == [2]


def module_graph(planted: dict[str, str] | None = None) -> dict[str, dict[str, int]]:
    """{module: {module it imports: line}} over the package, function-level imports and import
    calls with a literal name included; `planted` replaces a module's source (the tests below)."""
    paths = {module_name(path): path for path in PACKAGE.rglob("*.py")}
    graph: dict[str, dict[str, int]] = {}
    for module, path in paths.items():
        graph[module] = {}
        for line, target in imports_of(path, module, (planted or {}).get(module)):
            while target not in paths and "." in target:    # `from .m import name` names m.name
                target = target.rpartition(".")[0]
            if target in paths and target != module:
                graph[module].setdefault(target, line)
    return graph


def import_circles(graph: dict[str, dict[str, int]]) -> list[str]:
    """Each group of modules that import each other in a circle (Tarjan's strongly connected
    components), as the imports that close it."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups = []

    def visit(v: str) -> None:
        order[v] = low[v] = len(order)
        stack.append(v)
        for w in graph[v]:
            if w not in order:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], order[w])
        if low[v] == order[v]:
            group = set()
            while not group or w != v:
                w = stack.pop()
                group.add(w)
            if len(group) > 1:
                groups.append(", ".join(f"lamina.{a} (line {line}) imports lamina.{b}" for a in sorted(group)
                                        for b, line in sorted(graph[a].items()) if b in group))

    for v in sorted(graph):
        if v not in order:
            visit(v)
    return groups


def without_the_loader(graph: dict[str, dict[str, int]]) -> dict[str, dict[str, int]]:
    package = LOADER.rpartition(".")[0] + "."
    return {**graph, LOADER: {m: line for m, line in graph[LOADER].items() if not m.startswith(package)}}


def test_no_modules_import_each_other_in_a_circle():
    circles = import_circles(without_the_loader(module_graph()))
    assert not circles, "modules that import each other in a circle:\n" + "\n".join(circles)


def test_a_circle_inside_a_package_is_caught():
    # stats/table.py once imported with_column from tableops.py inside a method; tableops imports
    # table (rows.py, which imports only table inside the package, keeps the circle short)
    planted = "from __future__ import annotations\n\ndef f():\n    from .rows import best\n"
    circles = import_circles(without_the_loader(module_graph({"stats.table": planted})))
    line = next(i for i, text in enumerate((PACKAGE / "stats" / "rows.py").read_text().splitlines(), 1)
                if text.startswith("from .table import"))
    assert circles == ["lamina.stats.rows (line %d) imports lamina.stats.table, " % line +
                       "lamina.stats.table (line 4) imports lamina.stats.rows"], circles


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
# import (SciPy, matplotlib, the cluster, the docs, the tables on pyarrow) or what would form a cycle; anything else,
# an error path's needs included (under a memory limit an import fails), goes at the top.
DEFERRED = {
    "builtins/core.py": {"..stats.table", "..stats.tableops", "..docs.help"},
    "builtins/logic.py": {"..stats.categories", "..stats.columns", "..stats.dates"},
    "builtins/sequences.py": {"..stats.dates"},
    "builtins/models.py": {"..models.save", "..stats.mle"},
    "builtins/nn.py": {"..models.layers.dense", "..models.layers.dropout"},
    "builtins/parallel.py": {"..cluster"},
    "builtins/stats.py": {"..stats.table", "..stats.tableops"},
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


def missing_files(page: str, root: pathlib.Path) -> list[str]:
    """The `file.py` names in a page that no file of the repository ends with."""
    files = {p.relative_to(root).as_posix() for p in root.rglob("*.py") if ".venv" not in p.parts}
    return [name for name in sorted(set(re.findall(r"`([\w/.]+\.py)`", page)))
            if not any(f == name or f.endswith("/" + name) for f in files)]


def test_the_architecture_page_names_only_files_that_exist():
    root = PACKAGE.parents[1]
    missing = missing_files((root / "docs" / "ARCHITECTURE.md").read_text(), root)
    assert not missing, f"docs/ARCHITECTURE.md names files that are gone: {missing}"
    assert missing_files("compiled twice (`lang/loops.py`), see `lang/parser.py`", root) == ["lang/loops.py"]
