"""What a worker receives: functions as source text and position, values as data.

A Lamina function is Python code compiled from the program's text, and its code object and
closure belong to this process. So nothing of the interpreter is pickled: a function goes as a
`FunctionRef` (the source it was compiled from, the line and column where its definition
starts, and the values of its defaults and of the variables it captured), and the worker
compiles the same source and picks the code that starts there (worker.py). The program's
top-level variables that the function reads (directly or through the functions it calls)
go by value, as they are at the moment of the call; a module goes as its text; a builtin by
its name. A model spec or model that holds Lamina functions (a custom layer's, compile's
loss = f), which pickle cannot send, goes as save_model writes it (`SpecOf`, `ModelOf`): each
function as its source alone (models/functions.py); one that cannot stand alone is refused with
save_model's own reason. A value that cannot travel (a tracked value, an object of the
interpreter) is a TypeError here, before any work starts.
"""
from __future__ import annotations

import json
import os
import pickle
from dataclasses import dataclass, field

import numpy as np

from ..autodiff.handed import thawed
from ..errors import LaminaError, Source
from ..lang import ast as A
from ..lang.compiler import NODES_KEY, node_of
from ..lang.modules import MODULES, Module
from ..lang.scope import Host, unmangle
from ..models.functions import global_names, is_lamina_function   # as a model file saves a function
from ..stats.table import Table
from ..values import LibObject, Record, Tracked, describe

PLAIN = (float, int, bool, str, type(None), np.ndarray, Table)


@dataclass(frozen=True)
class FunctionRef:
    home: str              # "" for the program's own functions, else the real path of their module
    source: Source         # the text its definition was compiled from
    line: int              # where the definition (`function` or a lambda's parameters) starts
    col: int
    label: str             # its name in messages
    defaults: tuple        # packed values of its parameters' defaults
    closure: tuple         # packed values of the variables it captured, in co_freevars order


@dataclass(frozen=True)
class ModuleRef:
    real: str


@dataclass(frozen=True)
class BuiltinRef:
    name: str


@dataclass(frozen=True)
class SpecOf:
    header: str            # JSON: the example's shape and each layer's kind and settings (save.spec_header)


@dataclass(frozen=True)
class ModelOf:
    arrays: dict           # a model file's members: the JSON header and the arrays (save.model_arrays)
    interrupted: bool      # not in a file: whether Ctrl-C stopped the fit that made it


@dataclass(frozen=True)
class ListOf:
    items: tuple


@dataclass(frozen=True)
class RecordOf:
    fields: tuple          # (name, packed value) pairs


class Itself:
    """A captured variable that holds the function capturing it (a recursive inner function)."""


class Empty:
    """A captured variable not yet assigned when the function was made."""


@dataclass
class Package:
    host: Host
    cwd: str                                   # the caller's working folder (a local worker's too)
    function: object                           # the packed function to call
    sources: list[Source] = field(default_factory=list)     # the program's texts its functions come from
    modules: list[tuple[str, str, str]] = field(default_factory=list)   # (shown path, real path, text)
    globals: dict[str, object] = field(default_factory=dict)  # mangled name -> packed value


def builtin_name(x) -> str | None:
    return getattr(x, "__lamina_builtin__", None)


def function_label(fn) -> str:
    name = fn.__code__.co_name
    return "the anonymous function" if name == "<lambda>" else unmangle(name)


class Packer:
    """Packs values for the workers of one call of `who` (sweep, parallel_map), made from the
    program whose top-level variables are `namespace`."""

    def __init__(self, who: str, namespace: dict, host: Host):
        self.who, self.namespace = who, namespace
        self.package = Package(host, os.getcwd(), None)
        self.sources: dict[Source, None] = {}
        self.modules: dict[str, tuple] = {}
        self.packing: list = []          # functions being packed (to find one that captures itself)
        self.done: dict[int, FunctionRef] = {}   # id of a function packed already -> its reference
        self.fn_label = "the function"

    def main(self, fn) -> Package:
        self.fn_label = function_label(fn) if is_lamina_function(fn) else "the function"
        self.package.function = self.value(fn, self.fn_label)
        self.package.sources = list(self.sources)
        self.package.modules = list(self.modules.values())
        return self.package

    def refuse(self, what: str, holds: str, remedy: str) -> LaminaError:
        return LaminaError("TypeError", f"{self.who} cannot send {self.fn_label} to its workers: "
                           f"{what} {holds}. {remedy}")

    # -- values ---------------------------------------------------------------------
    def value(self, x, what: str):
        """`x` as it travels: itself when it is plain data, else a reference the worker resolves."""
        x = thawed(x)                # a value computed from gradients travels as its number
        if type(x) is Tracked:
            raise self.refuse(what, f"holds {describe(x)} that is tracked (made by param() or track())",
                              "A tracked value belongs to this process's tape: pass detach(x) to send its "
                              "number, or make it inside the function.")
        if is_lamina_function(x):
            return self.function(x, what)
        if builtin_name(x) is not None:
            return BuiltinRef(builtin_name(x))
        if isinstance(x, Module):
            return self.module(x)
        if isinstance(x, list):
            items = tuple(self.value(v, f"{what}[{i}]") for i, v in enumerate(x))
            return ListOf(items) if any(p is not v for p, v in zip(items, x)) else x
        if isinstance(x, Record):
            fields = tuple((k, self.value(v, f"{what}.{k}")) for k, v in x.fields.items())
            return RecordOf(fields) if any(p is not v for (_, p), v in zip(fields, x.fields.values())) else x
        if isinstance(x, PLAIN):
            return x
        if isinstance(x, LibObject) and _pickles(x):
            return x
        if isinstance(x, LibObject) and _is_model(x):
            return self.model(x, what)
        raise self.refuse(what, f"holds {describe(x)}, an object of this process that cannot be sent",
                          "Make it inside the function, or send the data it is made from.")

    def model(self, x, what: str):
        """A spec or model that holds Lamina functions, as save_model writes it; the worker
        rebuilds it as load_model does (worker.py)."""
        from ..models.model import Model
        from ..models.save import model_arrays, spec_header
        try:
            if isinstance(x, Model):
                return ModelOf(model_arrays(x), x.interrupted)
            return SpecOf(json.dumps(spec_header(x)))
        except LaminaError as e:
            raise LaminaError("TypeError", f"{self.who} cannot send {self.fn_label} to its workers: {what} "
                              f"holds {describe(x)}, which is sent as save_model would save it, and "
                              f"{e.message}") from None

    def function(self, fn, what: str):
        if id(fn) in self.done:
            return self.done[id(fn)]
        if fn in self.packing:
            if fn is self.packing[-1]:
                return Itself()
            raise self.refuse(what, "refers back to a function that captures it",
                              "Define these functions at the top level of the program instead.")
        code, namespace = fn.__code__, fn.__globals__
        node = node_of(namespace, code.co_firstlineno)
        if not isinstance(node, (A.FunctionDef, A.Lambda)):
            raise self.refuse(what, "is a function compiled from no Lamina definition",
                              "Only functions written in Lamina can be sent.")
        home = "" if namespace is self.namespace else self.home_module(namespace, what)
        label = function_label(fn)
        self.packing.append(fn)
        try:
            defaults = tuple(self.value(d, f"a default of {label}") for d in fn.__defaults__ or ())
            cells = zip(code.co_freevars, fn.__closure__ or ())
            closure = tuple(self.cell(c, f"the variable {unmangle(n)} that {label} captures") for n, c in cells)
        finally:
            self.packing.pop()
        ref = FunctionRef(home, node.span.source, node.span.line, node.span.col, label, defaults, closure)
        self.done[id(fn)] = ref
        if not home:
            self.sources[node.span.source] = None
            self.program_globals(code)
        return ref

    def cell(self, cell, what: str):
        try:
            contents = cell.cell_contents
        except ValueError:
            return Empty()
        return self.value(contents, what)

    def program_globals(self, code) -> None:
        """The program's top-level variables that `code` reads, packed once each."""
        for name in global_names(code):
            if name in self.package.globals or name not in self.namespace:
                continue            # packed already (or being packed), or a builtin
            self.package.globals[name] = None
            self.package.globals[name] = self.value(self.namespace[name], f"the variable {unmangle(name)}")

    # -- modules ----------------------------------------------------------------------
    def home_module(self, namespace: dict, what: str) -> str:
        for real, module in MODULES.items():
            if module.namespace is namespace:
                self.module(module)
                return real
        raise self.refuse(what, "is a function of another program or session",
                          "Define it in this program or in a module it imports.")

    def module(self, module: Module) -> ModuleRef:
        real = next((r for r, m in MODULES.items() if m is module), None)
        if real is None:
            raise self.refuse(f"the module {module.name}", "is not among the modules this process has loaded",
                              "Import it in the program.")
        if real not in self.modules:
            nodes = module.namespace.get(NODES_KEY, ())
            self.modules[real] = (module.path, real, nodes[0].span.source.text if nodes else "")
            for value in list(module.namespace.values()):
                if isinstance(value, Module):      # its own imports (a worker finds them shipped)
                    self.module(value)
        return ModuleRef(real)


def _is_model(x) -> bool:
    from ..models.model import Model       # loaded already where x is one (sweep alone does not load it)
    from ..models.spec import ModelSpec
    return isinstance(x, (Model, ModelSpec))


def _pickles(x) -> bool:
    try:
        pickle.dumps(x)
    except Exception:
        return False
    return True


def plain_result(value, who: str, what: str = "the result"):
    """A result that can travel back from a worker: data only, nothing tracked, no functions."""
    value = thawed(value)
    if type(value) is Tracked:
        raise LaminaError("TypeError", f"{who}'s function returned a tracked value ({what}); return "
                          f"detach(...) of it (a tape does not leave its worker).")
    if isinstance(value, list):
        for i, v in enumerate(value):
            plain_result(v, who, f"{what}[{i}]")
    elif isinstance(value, Record):
        for k, v in value.fields.items():
            plain_result(v, who, f"{what}.{k}")
    elif not isinstance(value, PLAIN) and not (isinstance(value, LibObject) and not isinstance(value, Module)
                                               and _pickles(value)):
        raise LaminaError("TypeError", f"{who}'s function returned {describe(value)} ({what}), which "
                          f"cannot be sent back from a worker; return data (numbers, tensors, strings, "
                          f"lists, records, tables).")
    return value
