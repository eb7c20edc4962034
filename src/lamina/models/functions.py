"""Lamina functions a model holds (compile's loss = f, a custom layer's forward and shapes), and
how they are saved: as their source text, as cluster/package.py sends a function to a worker.

A function is saved as {"function": its name, "source": a program that defines it and nothing
else}: a `function ... end function` definition as written, or `f = (p, x) -> ...` for an
anonymous one; a builtin passed as a function is {"builtin": its name}. Only a function that
stands alone can be saved: one that reads the program's other variables or functions, or
captures a variable of the function it was made in, would mean something else in another
program, so save_model refuses it and names what it reads.

load_model does not trust a file: the source must parse as exactly that one definition (no other
statement runs), it is compiled by the `compile_fn` the caller passes (builtins/models.py: a
fresh Interpreter, since models may not import one), and every call of a function read from a
file runs with no permission to read or write files (SAVED_PERMISSIONS). A sweep's worker rebuilds
a model or spec it was sent the same way (cluster/worker.py), and its functions run so too.
"""
from __future__ import annotations

import re

from ..errors import LaminaError, Source
from ..files import Permissions, using
from ..lang import ast as A
from ..lang.compiler import node_of
from ..lang.expressions import matching_closers
from ..lang.lexer import tokenize
from ..lang.parser import Parser, parse
from ..lang.scope import CODE_FILENAME, MANGLE, unmangle

SAVED_PERMISSIONS = Permissions((), (), sandbox=True)
NAME = re.compile(r"[A-Za-z_]\w*\Z")


class SavedFunction:
    """A function read from a model file: called with no file permissions, and saved again as
    the source it was read from."""

    def __init__(self, fn, saved: dict):
        self.fn, self.saved = fn, saved
        self.__name__ = saved.get("function") or saved.get("builtin")
        if "builtin" in saved:              # printed as the function it stands for
            self.__lamina_builtin__ = saved["builtin"]
        else:
            self.__code__ = fn.__code__

    def __call__(self, *args, **kwargs):
        with using(SAVED_PERMISSIONS):
            return self.fn(*args, **kwargs)


def is_lamina_function(x) -> bool:
    code = getattr(x, "__code__", None)
    return code is not None and code.co_filename == CODE_FILENAME and hasattr(x, "__globals__")


def label(fn) -> str:
    """A function's name in messages and summaries: `my_loss`, `the anonymous function`."""
    if isinstance(fn, SavedFunction):
        fn = fn.fn
    builtin = getattr(fn, "__lamina_builtin__", None)
    if builtin is not None:
        return builtin
    name = getattr(getattr(fn, "__code__", None), "co_name", "<lambda>")
    return "the anonymous function" if name == "<lambda>" else unmangle(name)


def saved(fn, what: str) -> dict:
    """How `fn` is written in a model file, or a ValueError that names `what` and why not."""
    if isinstance(fn, SavedFunction):
        return fn.saved
    builtin = getattr(fn, "__lamina_builtin__", None)
    if builtin is not None:
        return {"builtin": builtin}
    if not is_lamina_function(fn):
        raise LaminaError("ValueError", f"save_model cannot save {what}: it is not a function written "
                          f"in Lamina.")
    code, namespace = fn.__code__, fn.__globals__
    node = node_of(namespace, code.co_firstlineno)
    if not isinstance(node, (A.FunctionDef, A.Lambda)):
        raise LaminaError("ValueError", f"save_model cannot save {what}: it was compiled from no Lamina "
                          f"definition.")
    remedy = ("A saved function may use its parameters and builtins only: pass what it needs as a "
              "parameter, or write the number into it.")
    if code.co_freevars:
        names = ", ".join(unmangle(n) for n in code.co_freevars)
        raise LaminaError("ValueError", f"save_model cannot save {what}: it captures {names} from the "
                          f"function it was made in. {remedy}")
    own = MANGLE + node.name if isinstance(node, A.FunctionDef) else None
    reads = [unmangle(n) for n in global_names(code) if n in namespace and n != own]
    if reads:
        raise LaminaError("ValueError", f"save_model cannot save {what}: it reads the program's "
                          f"{'variable' if len(reads) == 1 else 'variables'} {', '.join(reads)}. {remedy}")
    text = definition_text(node)
    if isinstance(node, A.FunctionDef):
        return {"function": node.name, "source": text}
    return {"function": "f", "source": f"f = {text}"}


def global_names(code) -> list[str]:
    """The mangled global names a code object reads, its nested functions' included."""
    out, stack = [], [code]
    while stack:
        c = stack.pop()
        out.extend(n for n in c.co_names if n.startswith(MANGLE))
        stack.extend(k for k in c.co_consts if hasattr(k, "co_names"))
    return list(dict.fromkeys(out))


def definition_text(node) -> str:
    """The text of a function's definition, `function f(...) ... end function` or `(p, x) -> ...`,
    found by parsing its source again from where the definition starts."""
    source = node.span.source
    tokens = tokenize(source)
    at = next(i for i, t in enumerate(tokens) if (t.span.line, t.span.col) == (node.span.line, node.span.col))
    parser = Parser(tokens, source)
    if isinstance(node, A.Lambda):          # node.span is the arrow: start at its parameters
        openers = {close: open_ for open_, close in matching_closers(tokens).items()}
        at = openers.get(at - 1, at - 1)
        parser.pos = at
        parser.expression()
    else:                                   # node.span is the name: start at `function`
        at -= tokens[at - 1].is_kw("function")
        parser.pos = at
        parser.statement()
    last = tokens[parser.pos - 1]
    lines = source.text.split("\n")
    first = tokens[at].span
    if first.line == last.span.line:
        return lines[first.line - 1][first.col - 1:last.span.col - 1 + len(last.text)]
    return "\n".join([lines[first.line - 1][first.col - 1:], *lines[first.line:last.span.line - 1],
                      lines[last.span.line - 1][:last.span.col - 1 + len(last.text)]])


def compiler(host, origin: str):
    """The `compile_fn` rebuild takes: a function's source run by a fresh Interpreter of the
    program's kind (`host.make`, a lang.scope.Host) with no file permissions, as the text
    `<name, origin>`, and the value of its variable `name`."""
    def compile_fn(text: str, name: str):
        interp = host.make(None, SAVED_PERMISSIONS)
        interp.run(text, f"<{name}, {origin}>")
        return interp.get(name)
    return compile_fn


def rebuild(value, compile_fn, where: str):
    """The function a file's {"function", "source"} or {"builtin"} record stands for, or a
    ValueError naming `where` (a field of the header). `compile_fn(text, name)` compiles a program
    and gives the value of its variable `name`; None when the caller cannot compile Lamina."""
    if not isinstance(value, dict) or set(value) not in ({"builtin"}, {"function", "source"}):
        raise LaminaError("ValueError", f"{where} is not a saved function (a record of a function's "
                          f"name and source, or of a builtin's name)")
    if compile_fn is None:
        raise LaminaError("ValueError", f"{where} is a Lamina function, which only load_model called "
                          f"from Lamina can read")
    if "builtin" in value:
        name = value["builtin"]
        if not isinstance(name, str) or not NAME.match(name):
            raise LaminaError("ValueError", f"{where}.builtin is not a builtin's name")
        return SavedFunction(compile_fn(f"f = {name}", "f"), value)
    name, text = value["function"], value["source"]
    if not isinstance(name, str) or not NAME.match(name) or not isinstance(text, str):
        raise LaminaError("ValueError", f"{where} does not hold a function's name and source text")
    try:
        program = parse(Source(f"<{name}, read from a model file>", text))
    except LaminaError as e:
        raise LaminaError("ValueError", f"{where}'s source does not parse: {e.message.rstrip('.')}") from None
    body = program.body
    one = len(body) == 1 and (
        (isinstance(body[0], A.FunctionDef) and body[0].name == name)
        or (isinstance(body[0], A.Assign) and body[0].op is None and isinstance(body[0].target, A.Name)
            and body[0].target.name == name and isinstance(body[0].value, A.Lambda)))
    if not one:
        raise LaminaError("ValueError", f"{where}'s source is not one definition of the function {name} "
                          f"(and nothing else)")
    return SavedFunction(compile_fn(text, name), value)
