"""The composition root: one Interpreter per program, REPL session or notebook kernel.

It wires the pipeline together (source -> tokens -> tree -> Python code -> run) over the
builtins the registry holds. An Interpreter keeps the top-level variables of its program
between runs, and its own compile state (the node table and constant arrays live in its
namespace), so dropping it frees everything it compiled. Errors leave as LaminaError with
a span and the Lamina call stack.
"""
from __future__ import annotations

import gc
import os
import sys
import warnings
from functools import partial

from .autodiff.handed import thawed
from .builtins.index import ELSEWHERE as ELSEWHERE_NAMES
from .builtins.registry import MODULES, load_all, spec_of
from .errors import LaminaError, Source, Span
from .files import EVERYTHING, Permissions, using
from .lang import compiler, modules, runtime
from .lang.parser import parse
from .lang.pyerrors import current_span, to_lamina_error
from .lang.scope import BUILTIN_NAMES, CONSTANTS, ELSEWHERE, LOADER, MANGLE, Host, Scope, builtins_of, mangle
from .warnings import set_locator

set_locator(current_span)    # a warning names the Lamina line that caused it

# Python frames per Lamina call is one, so this is (about) the deepest Lamina recursion.
RECURSION_LIMIT = 10_000


def builtins_namespace() -> dict:
    """What every program's builtins start with: the runtime helpers and the constants. The
    builtins themselves join as a program's code names them (Interpreter.load_builtins), so
    a program imports only the builtin modules it uses."""
    return {**runtime.HELPERS, **{mangle(name): value for name, value in CONSTANTS.items()}}


def _bound_to(scope: Scope, spec):
    """A scoped builtin with this program's scope as its first argument."""
    bound = partial(spec.fn, scope)
    bound.__lamina_builtin__ = spec.fn.__lamina_builtin__
    bound.__lamina_shapes__ = spec.fn.__lamina_shapes__
    bound.__lamina_pure__ = spec.fn.__lamina_pure__     # lang/discarded.py's warning reads it
    return bound


def _run_module(permissions: Permissions, text: str, path: str, name: str) -> dict:
    """Run a module's text in a namespace of its own, under its importer's permissions (which
    the interpreters its builtins start, such as parallel_map's, inherit); returns the
    namespace. Errors pass on as they are, so the importer's traceback reaches into the
    module's frames."""
    interp = Interpreter(os.path.dirname(path), permissions)
    label = f"<import {name}>"    # its top level in a call stack: `import helpers, called at ...`
    for chunk in interp.compile(text, path):
        exec(chunk.replace(co_name=label, co_qualname=label), interp.namespace)
    return interp.namespace


class Interpreter:
    def __init__(self, directory: str | None = None, permissions: Permissions = EVERYTHING):
        """`directory`: the folder `import` looks in first (the program file's); None means the
        current folder at the time of the import (the REPL, -e, notebooks). `permissions`: the
        files its program may read and write (files.py)."""
        self.permissions = permissions
        if sys.getrecursionlimit() < RECURSION_LIMIT:
            sys.setrecursionlimit(RECURSION_LIMIT)
        builtins = builtins_namespace()
        # The runtime helpers (`_add`, `_index`, ...) live in the namespace itself too: top-level
        # code finds them in its globals instead of missing there before the builtins.
        self.namespace = {"__builtins__": builtins, **runtime.HELPERS}
        self.directory = directory
        self.scope = Scope(self.namespace, Host(Interpreter, directory, permissions))
        builtins["_import"] = self.import_module
        builtins[LOADER] = self.load_builtins
        builtins[BUILTIN_NAMES] = MODULES.keys()
        builtins[ELSEWHERE] = ELSEWHERE_NAMES

    def load_builtins(self, keys=None) -> None:
        """Put the builtins of these mangled names (None: every builtin) into the program's
        builtins where they are missing, a scoped one bound to this program's scope; names
        that are no builtin are skipped. Their modules are imported on first use."""
        builtins = self.namespace["__builtins__"]
        if keys is None:
            keys = [mangle(name) for name in load_all()]
        for key in keys:
            if key in builtins or not key.startswith(MANGLE):
                continue
            spec = spec_of(key[len(MANGLE):])
            if spec is not None:
                builtins[key] = _bound_to(self.scope, spec) if spec.scoped else spec.fn

    def import_module(self, spec: str, is_path: bool):
        return modules.load(spec, is_path, self.directory, partial(_run_module, self.permissions))

    def compile(self, text: str, name: str, echo: bool = False, result: bool = False) -> tuple:
        """The program's code objects (run them with run_code); a SyntaxError before any runs.
        `echo`: top-level expression statements print their values (the REPL); `result`: the
        last statement's value, when it is an expression, is kept for run_cell."""
        if text.startswith("\ufeff"):      # a byte-order mark some editors put first
            text = text[1:]
        source = Source(name, text)
        paused = gc.isenabled()
        gc.disable()         # millions of young syntax nodes would set off collection after collection
        try:
            with using(self.permissions):
                code = compiler.compile_program(parse(source), self.namespace, echo, result)
        except RecursionError:
            raise LaminaError("SyntaxError", "The program is nested too deeply to parse.",
                              Span(source, 1, 1)) from None
        finally:
            if paused:
                gc.enable()
        self.load_builtins(compiler.global_names(code))
        return code

    def run(self, text: str, name: str = "<program>", echo: bool = False) -> None:
        with modules.running(name):
            self.run_code(self.compile(text, name, echo))

    def run_cell(self, text: str, name: str):
        """Run a notebook cell: the value of its last statement when that is an expression, else
        none (a cell that ends with an assignment or a loop shows nothing)."""
        return self.run_result(self.compile(text, name, result=True))

    def run_result(self, code: tuple):
        """Run code compiled with result=True and hand back (and forget) its last value."""
        self.namespace.pop(compiler.RESULT_KEY, None)
        try:
            self.run_code(code)
        finally:
            value = self.namespace.pop(compiler.RESULT_KEY, None)
        return thawed(value)

    def run_code(self, code: tuple) -> None:
        try:
            with warnings.catch_warnings(), using(self.permissions):
                # NumPy's RuntimeWarnings ("Mean of empty slice") would leak Python text onto
                # stderr; Lamina's IEEE results (NaN, Inf) carry the information instead.
                warnings.simplefilter("ignore", RuntimeWarning)
                for chunk in code:
                    exec(chunk, self.namespace)
        except Exception as exc:
            raise to_lamina_error(exc) from exc

    def call(self, fn, *args):
        """Call a function of this program from Python (a sweep's configuration on a worker),
        under the program's permissions; an error leaves as a LaminaError, as from run_code."""
        try:
            with warnings.catch_warnings(), using(self.permissions):
                warnings.simplefilter("ignore", RuntimeWarning)
                return thawed(runtime.call(fn, args))
        except Exception as exc:
            raise to_lamina_error(exc) from exc

    def get(self, name: str):
        key = mangle(name)
        return thawed(self.namespace[key]) if key in self.namespace else \
            builtins_of(self.namespace, (key,)).get(key)
