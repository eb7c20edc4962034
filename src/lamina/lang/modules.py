"""`import helpers`: finding a module's file, loading it once per process, the module value.

`import helpers` looks for helpers.lam in the importing file's folder (the current folder for
the REPL, `-e` and notebooks), then in each folder on LAMINA_PATH; `import "lib/prep.lam"`
names the file by its path from the importing file's folder. A module's top level runs once
per process: the loaded module is kept by the file's real path, so two spellings of one file
give the same module. A module runs in its own namespace (its own node table, so its errors
show its own file and line) and the importer sees only the module value: its top-level names
that do not start with `_`.

Running the text is the interpreter's business (it owns namespaces and builtins): `load` gets
that as a function `run(text, path, name) -> namespace`.

A worker of `sweep` (another process, perhaps another machine) gets the modules of the program
it serves as text: `shipped` registers each under the path the program knew it by, and `import`
finds a shipped module there before looking at the disk, so a worker runs what the program
ran even where the files do not exist (or have changed since).
"""
from __future__ import annotations

import difflib
import io
import os
from contextlib import contextmanager
from typing import BinaryIO, Callable

from ..errors import LaminaError
from ..files import expand_home, open_regular
from ..printing import format_value
from ..values import LibObject, describe
from . import ast as A
from .compiler import NODES_KEY, node_of
from .scope import CODE_FILENAME, MANGLE, mangle, unmangle

MODULES: dict[str, "Module"] = {}      # real path -> the loaded module, for the whole process
LOADING: list[tuple[str, str]] = []     # (real path, shown path) of modules being loaded, outermost first
SHIPPED: dict[str, tuple[str, str]] = {}   # shown path -> (real path where it was read, text), on a worker


@contextmanager
def shipped(entries: list[tuple[str, str, str]]):
    """While the block runs, `import` finds each (shown path, real path, text) by its shown
    path without reading a file (a worker's task)."""
    saved = dict(SHIPPED)
    SHIPPED.update((os.path.normpath(shown), (real, text)) for shown, real, text in entries)
    try:
        yield
    finally:
        SHIPPED.clear()
        SHIPPED.update(saved)


def read_module_source(file: BinaryIO, path: str) -> str:
    """The text of a module's file, opened by `find` (what is read is what was checked)."""
    try:
        return io.TextIOWrapper(file, encoding="utf-8-sig").read()     # as open() reads text
    except OSError as exc:
        raise cannot_read(path, exc) from None
    except UnicodeDecodeError:
        raise LaminaError("ImportError", f"The module {path} is not UTF-8 text.") from None


def cannot_read(path: str, exc: OSError) -> LaminaError:
    return LaminaError("ImportError", f"Cannot read the module {path}: {exc.strerror or exc}.")


def search_folders(directory: str | None) -> list[str]:
    """The importing file's folder ("" for the current folder), then LAMINA_PATH's."""
    return [directory or ""] + [expand_home(d) for d in os.environ.get("LAMINA_PATH", "").split(os.pathsep) if d]


def resolve(spec: str, is_path: bool, directory: str | None) -> str:
    """The path of the module's file, as it will be shown in messages."""
    shown, _, source = find(spec, is_path, directory)
    if not isinstance(source, str):
        source.close()
    return shown


def find(spec: str, is_path: bool, directory: str | None) -> tuple[str, str, BinaryIO | str]:
    """The module's file: its path as messages show it, its real path, and its text (a module
    shipped to a worker) or the file, open for reading. Under permissions each candidate is
    checked before it is looked at, and one walk of its path gives the verdict, whether a
    file is there, and the file read (files.open_regular)."""
    file = expand_home(spec) if is_path else spec + ".lam"
    what = f'"{spec}"' if is_path else f"'{spec}'"
    if not os.path.basename(file):
        raise LaminaError("ImportError", f"No module {what}: an import path names a file, such as \"lib/prep.lam\".")
    folders = [""] if os.path.isabs(file) else search_folders(directory)
    folder_named_so = None      # a folder named like the file (ls shows it): said so
    denied = None               # the first candidate the run may not read: its error, if none is found
    for folder in folders:
        candidate = os.path.normpath(os.path.join(folder, file))
        if candidate in SHIPPED:
            return (candidate, *SHIPPED[candidate])
        try:
            found = open_regular(candidate, "import")
        except LaminaError as exc:      # a denial before looking: whether a file outside exists is no answer
            if exc.kind != "PermissionError":
                raise
            denied = denied or exc
            continue
        except OSError as exc:
            raise cannot_read(candidate, exc) from None
        if found is not None:
            return (candidate, *found)
        if folder_named_so is None and os.path.isdir(candidate):
            folder_named_so = candidate
    if denied is not None:
        raise denied
    where = ", ".join(f or "." for f in folders)
    path_note = "" if os.environ.get("LAMINA_PATH") else " (LAMINA_PATH is not set)"
    if folder_named_so is not None:
        raise LaminaError("ImportError", f"No module {what}: there is no file {file} in {where}{path_note}; "
                          f"{folder_named_so} is a folder.")
    raise LaminaError("ImportError", f"No module {what}: there is no {file} in {where}{path_note}.")


def load(spec: str, is_path: bool, directory: str | None,
         run: Callable[[str, str, str], dict]) -> "Module":
    """The module `import spec` names, loading (running) it the first time."""
    # checked even when loaded (by find): an unrestricted interpreter may have loaded it first
    shown, real, source = find(spec, is_path, directory)
    try:
        if real in MODULES:
            return MODULES[real]
        loading = [r for r, _ in LOADING]
        if real in loading:
            chain = [s for _, s in LOADING[loading.index(real):]] + [shown]
            steps = f"{chain[0]} imports " + ", which imports ".join(chain[1:])
            raise LaminaError("ImportError", f"Circular import: {steps}. Modules cannot import each other "
                              "in a circle; move what they share into a module of its own.")
        text = source if isinstance(source, str) else read_module_source(source, shown)
    finally:
        if not isinstance(source, str):
            source.close()
    name = os.path.splitext(os.path.basename(shown))[0]
    LOADING.append((real, shown))
    try:
        namespace = run(text, shown, name)
    finally:
        LOADING.pop()
    module = Module(name, shown, namespace)
    MODULES[real] = module
    return module


@contextmanager
def running(name: str):
    """While a program file runs, a module that imports it back is a circular import (rather
    than a second run of the program's top level)."""
    if not os.path.isfile(name):
        yield
        return
    LOADING.append((os.path.realpath(name), name))
    try:
        yield
    finally:
        LOADING.pop()


class Module(LibObject):
    """A loaded module: its public top-level names are its fields (`h.fit_line`, `h.LR`)."""
    type_name = "module"

    def __init__(self, name: str, path: str, namespace: dict):
        self.name = name
        self.path = path
        self.namespace = namespace

    def field_names(self) -> list[str]:
        return [unmangle(k) for k in self.namespace
                if k.startswith(MANGLE) and not k.startswith(MANGLE + "_")]

    def get(self, name: str):
        if not name.startswith("_") and mangle(name) in self.namespace:
            return self.namespace[mangle(name)]
        raise LaminaError("NameError", no_member(self.name, name, self.field_names()))

    def describe(self) -> str:
        return f"<module {self.name} from {self.path}>"

    def help_text(self) -> str:
        """The module's leading comment, its functions with theirs, and its other values."""
        lines = [f"module {self.name} ({self.path})"]
        source = self._source_lines()
        start = next((i for i, line in enumerate(source) if line.strip()), len(source))
        header = _comment_block(source, start, step=1)
        after = source[start + len(header)] if start + len(header) < len(source) else ""
        if after.split(None, 1)[:1] != ["function"]:     # else it is the first function's comment
            lines += ["  " + c for c in header]
        functions, values = [], []
        for field in self.field_names():
            value = self.namespace[mangle(field)]
            code = getattr(value, "__code__", None)
            if code is not None and code.co_filename == CODE_FILENAME:
                call, *doc = function_help(field, value)
                functions.append(["  " + call] + ["      " + line for line in doc])
            elif not isinstance(value, Module):
                text = format_value(value, quote_strings=True, top=False)    # as code writes it
                if len(text) > 60 or "\n" in text:
                    text = describe(value)
                values.append(f"  {field} = {text}")
        if functions:
            lines += ["", "Functions:"] + [line for f in functions for line in f]
        if values:
            lines += ["", "Values:"] + values
        return "\n".join(lines)

    def _source_lines(self) -> list[str]:
        nodes = self.namespace.get(NODES_KEY, ())
        return nodes[0].span.source.lines() if nodes else []


def function_help(name: str, fn) -> list[str]:
    """A Lamina function's call line, `name(a, by = 2)`, then its leading comment: the `#`
    lines just above its `function` line (or else just below it). The node table of the
    program that defined it (its globals) gives its parameters as written."""
    node = node_of(fn.__globals__, fn.__code__.co_firstlineno)
    if isinstance(node, (A.FunctionDef, A.Lambda)):
        if isinstance(node, A.FunctionDef):
            pairs = [(p.name, p.default) for p in node.params]
        else:
            pairs = list(zip(node.params, [None] * (len(node.params) - len(node.defaults)) + node.defaults))
        params = ", ".join(n if d is None else f"{n} = {_default_text(d)}" for n, d in pairs)
    else:
        params = ", ".join(unmangle(a) for a in fn.__code__.co_varnames[:fn.__code__.co_argcount])
    doc = []
    if isinstance(node, A.FunctionDef):
        source, line = node.span.source.lines(), node.span.line
        doc = _comment_block(source, line - 2, step=-1) or _comment_block(source, line, step=1)
    return [f"{name}({params})"] + doc


def no_member(module: str, name: str, fields: list[str]) -> str:
    """The message for `module.name` when the module has no (public) `name`."""
    close = difflib.get_close_matches(name, fields, n=3)
    hint = f" Did you mean {' or '.join(repr(c) for c in close)}?" if close else \
        f" It defines {', '.join(fields) or 'nothing'}."
    private = " (names starting with '_' stay inside their module)" if name.startswith("_") else ""
    return f"The module {module} has no '{name}'{private}.{hint}"


def _default_text(node: A.Node) -> str:
    if isinstance(node, A.Number):
        return format_value(float(node.value))
    if isinstance(node, A.String) and all(isinstance(p, str) for p in node.parts):
        return '"' + "".join(node.parts) + '"'
    if isinstance(node, (A.Bool, A.NoneLit)):
        return "none" if isinstance(node, A.NoneLit) else str(node.value).lower()
    return "..."


def _comment_block(lines: list[str], start: int, step: int) -> list[str]:
    """The run of `#` comment lines from line index `start` going up (step -1) or down (+1)."""
    out, i = [], start
    while 0 <= i < len(lines) and lines[i].strip().startswith("#"):
        out.append(lines[i].strip().lstrip("#").strip())
        i += step
    return out[::-1] if step < 0 else out
