"""One task: rebuild the function a Package describes in a fresh Interpreter, and call it once.

The worker compiles the program's source again but runs none of its top level, so the
`sweep` call itself, and everything else the program does at its top level, happens once, in
the caller. The top-level variables the function reads are set from the values packed at the
call; the modules it uses are imported from their shipped text (their top level runs, once
per worker process, as any import's does). A function is found in the fresh compile by where
its definition starts; the code is the same, so are its errors' files and lines. A model spec or
model sent as save_model writes it is rebuilt as load_model rebuilds one: each of its functions
compiled alone from its source by a fresh Interpreter, and run with no file permissions
(models/functions.py).

`run_task` is what a Ray task runs, and what `workers = 1` runs in the caller's process: with
the tape and the global generator of its own (restored afterwards), its printed output
captured and handed back with the result.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import time
import types
from dataclasses import dataclass

from ..autodiff.tape import TAPE
from ..errors import LaminaError, ProgramExit, Source, Span
from ..lang import ast as A
from ..lang import modules
from ..lang.compiler import NODES_KEY, node_of
from ..lang.scope import builtins_of, mangle
from ..rng import isolated, reseed
from ..values import Record
from ..warnings import set_enabled
from .package import (
    BuiltinRef,
    Empty,
    FunctionRef,
    Itself,
    ListOf,
    ModelOf,
    ModuleRef,
    Package,
    RecordOf,
    SpecOf,
)

_RUNNING: list[int] = []      # tasks running in this process now (a sweep inside one runs serially)


def running_in_worker() -> bool:
    return bool(_RUNNING)


@dataclass
class Outcome:
    index: int
    value: object = None                 # what the check made of the function's result
    error: LaminaError | None = None
    output: str = ""                     # what it printed
    warnings: str = ""                   # what it wrote to standard error (warnings)
    seconds: float = 0.0                 # the call alone, without compiling
    exit: int | None = None              # the status of an exit(code) the call made: the caller ends too


def run_task(package: Package, index: int, item, seed: int, check) -> Outcome:
    """Call the package's function with `item` after seed(seed); `check(value)` turns the
    result into what travels back, or raises a LaminaError that becomes the outcome's error."""
    outcome = Outcome(index)
    out, err = io.StringIO(), io.StringIO()
    _RUNNING.append(index)
    try:
        with _in_folder(package.cwd), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
                TAPE.isolated(), isolated(), modules.shipped(package.modules):
            try:
                built = Builder(package)
                argument = built.value(item)
                reseed(seed)
                start = time.perf_counter()
                try:
                    value = _placed(built.interp.call, package.function, built.function, argument)
                finally:
                    outcome.seconds = time.perf_counter() - start
                outcome.value = _placed(check, package.function, value)
            except LaminaError as exc:
                outcome.error = exc
            except ProgramExit as exc:     # travels back (a Ray worker must not end), to end the caller
                outcome.exit = exc.code
    finally:
        _RUNNING.pop()
    outcome.output, outcome.warnings = out.getvalue(), err.getvalue()
    return outcome


def _placed(action, function, *args):
    """`action(*args)`; an error with no place of its own (the function called with the wrong
    number of arguments, a result the check refuses) points at the function's definition."""
    try:
        return action(*args)
    except LaminaError as exc:
        if exc.span is None and isinstance(function, FunctionRef):
            exc.span = Span(function.source, function.line, function.col)
        raise


@contextlib.contextmanager
def _in_folder(folder: str):
    """The caller's working folder, where it exists (a remote machine may not have it)."""
    here = os.getcwd()
    if folder == here or not os.path.isdir(folder):
        yield
        return
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(here)


def _compile_quietly(interp, source: Source) -> tuple:
    """The code of a source the program compiled already where it started: its compile-time
    warnings (a discarded result, lang/discarded.py) were written there, once."""
    before = set_enabled(False)
    try:
        return interp.compile(source.text, source.name)
    finally:
        set_enabled(before)


class Builder:
    """A fresh Interpreter holding what the package describes, and the function to call."""

    def __init__(self, package: Package):
        self.package = package
        host = package.host
        self.interp = host.make(host.directory, host.permissions)
        self.codes: dict[tuple, types.CodeType] = {}
        for source in package.sources:
            chunks = _compile_quietly(self.interp, source)
            self._index(chunks, self.interp.namespace, source)
        self.indexed = set(package.sources)
        self.loaded: dict[str, modules.Module] = {}
        namespace = self.interp.namespace
        for name, packed in package.globals.items():
            namespace[name] = self.value(packed)
        self.function = self.value(package.function)

    def _index(self, chunks, namespace: dict, source: Source) -> None:
        """Every function and lambda compiled from `source`, by where its definition starts."""
        stack = list(chunks)
        while stack:
            code = stack.pop()
            stack.extend(k for k in code.co_consts if isinstance(k, types.CodeType))
            node = node_of(namespace, code.co_firstlineno)
            if isinstance(node, (A.FunctionDef, A.Lambda)) and node.span.source == source:
                self.codes[(source, node.span.line, node.span.col)] = code

    def value(self, packed):
        if isinstance(packed, FunctionRef):
            return self.function_of(packed)
        if isinstance(packed, ModuleRef):
            return self.module(packed.real)
        if isinstance(packed, BuiltinRef):
            key = mangle(packed.name)
            return builtins_of(self.interp.namespace, (key,))[key]
        if isinstance(packed, ListOf):
            return [self.value(v) for v in packed.items]
        if isinstance(packed, RecordOf):
            return Record({k: self.value(v) for k, v in packed.fields})
        if isinstance(packed, (SpecOf, ModelOf)):
            return self.model(packed)
        return packed

    def model(self, packed: SpecOf | ModelOf):
        """The spec or model, rebuilt as load_model rebuilds one (its functions as load_model's)."""
        from ..models.archive import Bad
        from ..models.functions import compiler
        from ..models.save import model_from_arrays, spec_from_header
        compile_fn = compiler(self.package.host, "sent to a worker")
        try:
            if isinstance(packed, SpecOf):
                return spec_from_header(json.loads(packed.header), compile_fn)
            return model_from_arrays(packed.arrays, compile_fn).evolve(interrupted=packed.interrupted)
        except Bad as e:
            what = "model spec" if isinstance(packed, SpecOf) else "model"
            detail = str(e).removeprefix("its header's ")
            raise LaminaError("ValueError", f"The worker could not rebuild the {what} it was sent, whose "
                              f"functions run there as load_model's do, with no permission to read or "
                              f"write files: {detail}.") from None

    def function_of(self, ref: FunctionRef):
        if ref.home:
            namespace = self.module(ref.home).namespace
            if ref.source not in self.indexed:
                # The module's own compile numbered its nodes from 1, as this fresh one does, so
                # the code found here reads the module's node table correctly.
                scratch = self.package.host.make(None, self.package.host.permissions)
                self._index(_compile_quietly(scratch, ref.source), scratch.namespace, ref.source)
                self.indexed.add(ref.source)
        else:
            namespace = self.interp.namespace
        code = self.codes.get((ref.source, ref.line, ref.col))
        if code is None:
            raise LaminaError("Error", f"The worker found no definition of {ref.label} at "
                              f"{ref.source.name}:{ref.line}:{ref.col}; the program it received differs.")
        cells = tuple(types.CellType() if isinstance(v, (Itself, Empty)) else types.CellType(self.value(v))
                      for v in ref.closure)
        fn = types.FunctionType(code, namespace, code.co_name, tuple(self.value(d) for d in ref.defaults) or None,
                                cells or None)
        for cell, v in zip(cells, ref.closure):
            if isinstance(v, Itself):
                cell.cell_contents = fn
        return fn

    def module(self, real: str) -> modules.Module:
        if real in self.loaded:
            return self.loaded[real]
        shown, _, text = next(m for m in self.package.modules if m[1] == real)
        known = modules.MODULES.get(real)
        if known is not None and _text_of(known) != text:
            del modules.MODULES[real]      # a worker kept from an earlier run of an edited module
        loader = self.package.host.make(None, self.package.host.permissions)
        module = loader.import_module(shown, True)
        self.loaded[real] = module
        return module


def _text_of(module: modules.Module) -> str:
    nodes = module.namespace.get(NODES_KEY, ())
    return nodes[0].span.source.text if nodes else ""
