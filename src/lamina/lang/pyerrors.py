"""Python exceptions raised while compiled Lamina code runs -> Lamina errors.

The line number of each compiled frame in a traceback is a Lamina node id, so the
innermost compiled frame gives the span of the failing operation and the chain
of compiled frames gives the Lamina call stack.
"""
from __future__ import annotations

import difflib
import inspect
import re
import sys
from functools import partial

from ..errors import Frame, LaminaError
from ..printing import function_name
from ..values import GATE_CODE, Record, describe
from . import ast as A
from .compiler import BINDERS_KEY, TOP_LOOP, node_of
from .scope import BUILTIN_NAMES, CODE_FILENAME, ELSEWHERE, MANGLE, mangle, unmangle
from .targets import argument_for, callee_name, is_target_list

STACK_SHOWN = 12
CALLEE = "{callee}"    # translate_call_error's name for "as the call site writes it"
# NumPy's words for a size it cannot allocate or even represent.
NUMPY_TOO_LARGE = re.compile(r"Maximum allowed (size|dimension) exceeded|array is too big|too large to")
NESTED_CALLS_SHOWN = 100    # fewer Lamina calls than this in a RecursionError: a deep value


def compiled_frames(tb) -> list[tuple[str, A.Node | None]]:
    """(code name, Lamina node) of each compiled Lamina frame in a traceback, outermost first."""
    out = []
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename == CODE_FILENAME:
            out.append((code.co_name, node_of(tb.tb_frame.f_globals, tb.tb_lineno)))
        tb = tb.tb_next
    return out


def _fold_top_loops(frames: list) -> list:
    """A top-level loop runs in a function of its own (compiler.top_loop): its frame is the
    top level's, so it takes the place (and the name) of the frame that called it."""
    out = []
    for name, node in frames:
        if name == TOP_LOOP:
            name = out.pop()[0] if out else "<module>"
        out.append((name, node))
    return out


def calling_frames(frame) -> list[tuple[str, A.Node | None]]:
    """(code name, Lamina node) of each compiled frame from the outermost down to `frame`
    (included): the Lamina calls in progress, each at the node it is running."""
    out = []
    while frame is not None:
        code = frame.f_code
        if code.co_filename == CODE_FILENAME:
            out.append((code.co_name, node_of(frame.f_globals, frame.f_lineno)))
        frame = frame.f_back
    return out[::-1]


def current_span():
    """Where the innermost running Lamina code stands (for a warning), or None."""
    frames = calling_frames(sys._getframe(1))
    node = frames[-1][1] if frames else None
    return node.span if node is not None else None


def function_label(code_name: str) -> str:
    if code_name == "<lambda>":
        return "anonymous function"
    if code_name == "<module>":
        return "top level"
    if code_name.startswith("<import "):       # a module's top level (lang/modules.py)
        return code_name[1:-1]
    return unmangle(code_name)


def source_text(node: A.Node | None) -> str | None:
    """A short rendering of a simple expression, for messages that name an argument."""
    if isinstance(node, A.Name):
        return node.name
    if isinstance(node, A.Field):
        inner = source_text(node.target)
        return f"{inner}.{node.name}" if inner else None
    if isinstance(node, A.Index):
        inner = source_text(node.target)
        return f"{inner}[...]" if inner else None
    return None


def _fill_arg_markers(message: str, node: A.Node | None, exc: BaseException) -> str:
    """`{arg:0}`, `{arg:wrt}` -> the argument's source text (`w`, `p.q`): the argument at that
    place, or the one passed to the parameter of that name (targets.argument_for). An item of a
    bracket or record literal written as the argument, `{arg:wrt}[1]` or `{arg:wrt}.q`, is named
    by its own text; an argument with no short text is called by its parameter's name (`wrt`),
    or "the value" when it has none."""
    def replace(match: re.Match) -> str:
        key, item = match.group(1), match.group(2)
        arg = None
        if isinstance(node, (A.Call, A.MethodCall)):
            if key.isdigit():
                i = int(key)
                args = ([node.target] if isinstance(node, A.MethodCall) else []) + node.args
                arg = args[i] if i < len(args) else None
            else:
                arg = argument_for(node, key, _called(exc, node))
        part = _literal_item(arg, item)
        if part is not None and source_text(part):
            return source_text(part)
        name = source_text(arg) if arg is not None else None
        return (name or ("the value" if key.isdigit() else key)) + item
    callee = source_text(node.callee) if isinstance(node, A.Call) else None
    # `{callee|x}`: the callee's text or x; `{'callee|x}`: the callee's text quoted, or x.
    message = re.sub(r"\{('?)callee\|([^}]*)\}",
                     lambda m: (f"'{callee}'" if m.group(1) else callee) if callee else m.group(2), message)
    return re.sub(r"\{arg:(\w+)\}((?:\[\d+\]|\.\w+)?)", replace, message)


def _literal_item(arg: A.Node | None, item: str) -> A.Node | None:
    """The syntax of item `[i]` of a bracket literal, or `.name` of a record literal."""
    if item.startswith("[") and is_target_list(arg) and arg.rows:
        i = int(item[1:-1])
        return arg.rows[0][i] if i < len(arg.rows[0]) else None
    if item.startswith(".") and isinstance(arg, A.RecordLit):
        return next((v for k, v in arg.fields if k == item[1:]), None)
    return None


def current_place() -> str | None:
    """`file:line` of the Lamina code running now (the innermost compiled frame), if any."""
    span = current_span()
    return f"{span.source.name}:{span.line}" if span is not None else None


def to_lamina_error(exc: BaseException, outer: list | tuple = ()) -> LaminaError:
    """`exc` as a LaminaError with the span of the failing node and the Lamina call stack.
    `outer`: the compiled frames above the traceback's first (for an error caught by `catch`,
    whose traceback starts at the frame that catches it)."""
    if isinstance(exc, BrokenPipeError):
        raise exc    # the reader went away (`lamina prog.lam | head`): not the program's fault
    if isinstance(exc, LaminaError) and exc.located:
        return exc   # caught once and raised again by error(err): where it first happened
    frames = _fold_top_loops(list(outer) + compiled_frames(exc.__traceback__))
    node = frames[-1][1] if frames else None
    err = exc if isinstance(exc, LaminaError) else _translate(exc, node, frames)
    err.message = _fill_arg_markers(err.message, node, exc)
    if err.span is None and node is not None:
        err.span = node.span
    if not err.stack:
        stack = [Frame(function_label(frames[k][0]), frames[k - 1][1].span) for k in range(1, len(frames))]
        if isinstance(node, A.Import) and err.span is not None and err.span.source is not node.span.source:
            stack.append(Frame(f"import {node.alias}", node.span))   # it failed to load
        stack = _collapse(stack)
        if len(stack) > STACK_SHOWN:
            err.note = (err.note + "; " if err.note else "") + f"{len(stack) - STACK_SHOWN} earlier calls are not shown"
            stack = stack[-STACK_SHOWN:]
        err.stack = stack
    return err


class ErrorRecord(Record):
    """The record `catch err` binds: kind, message, file, line, column, stack. It keeps the
    error itself, so that error(err) raises it again with its first span and stack."""
    __slots__ = ("error",)

    def __init__(self, err: LaminaError):
        span = err.span
        super().__init__({
            "kind": err.kind, "message": err.message,
            "file": span.source.name if span else None,
            "line": float(span.line) if span else None,
            "column": float(span.col) if span else None,
            "stack": [Record({"name": f.function, "file": f.span.source.name,
                              "line": float(f.span.line), "column": float(f.span.col)}) for f in err.stack],
        })
        self.error = err


def caught(exc: Exception) -> ErrorRecord | None:
    """The record for `catch err`, with the span and stack the command line would print; None
    for an exception no program may catch (a bug in Lamina, a closed output pipe)."""
    if isinstance(exc, BrokenPipeError):
        return None
    catcher = sys._getframe(1)
    err = to_lamina_error(exc, calling_frames(catcher.f_back))
    if err.kind == "InternalError":
        return None
    err.located = True
    return ErrorRecord(err)


def _collapse(stack: list[Frame]) -> list[Frame]:
    """Runs of the same call (deep recursion) shown once with a count."""
    out: list[Frame] = []
    i = 0
    while i < len(stack):
        j = i
        while j + 1 < len(stack) and stack[j + 1] == stack[i]:
            j += 1
        count = j - i + 1
        frame = stack[i]
        out.append(frame if count == 1 else Frame(f"{frame.function} (x{count})", frame.span))
        i = j + 1
    return out


def read_before_assigned(name: str) -> str:
    return (f"'{name}' is read before it is assigned in this function. Assigning to '{name}' "
            "anywhere in a function makes it local there, with no value until an assignment runs (one "
            f"in a branch not taken leaves it without); to read an outer '{name}', pass it in as an argument.")


def _translate(exc: BaseException, node, frames) -> LaminaError:
    if isinstance(exc, RecursionError):
        if len(frames) < NESTED_CALLS_SHOWN:
            # Few Lamina calls: the depth is in a value (a list in a list in a list ...).
            what = source_text(getattr(node, "callee", None))
            return LaminaError("ValueError", f"A value is nested too deeply for "
                               f"{repr(what) if what else 'this operation'} to go through.")
        name = function_label(frames[-1][0]) if frames else "a function"
        return LaminaError("RecursionError", f"Too many nested calls ({len(frames)} deep, in {name}); "
                           "check that the recursion reaches a base case.")
    # A NameError raised inside a builtin's own Python is Lamina's bug, not an undefined variable.
    if isinstance(exc, UnboundLocalError) and _raised_by_compiled_code(exc):
        name = _python_name(exc)
        return LaminaError("NameError", read_before_assigned(name))
    if isinstance(exc, NameError) and _raised_by_compiled_code(exc):
        name = _python_name(exc)
        return LaminaError("NameError", f"Undefined variable '{name}'.{_not_yet(name, exc, node) or _suggest(name, exc)}")
    if isinstance(exc, TypeError) and _raised_by_compiled_code(exc):
        name = source_text(getattr(node, "callee", None))
        return translate_call_error(_visible(exc).get(mangle(name or "")), exc, name, node)
    if isinstance(exc, MemoryError) or (isinstance(exc, ValueError) and NUMPY_TOO_LARGE.search(str(exc))):
        detail = f" ({exc})" if str(exc) else ""
        return LaminaError("ValueError", f"The result is too large to hold in memory{detail}.")
    return LaminaError("InternalError", f"{type(exc).__name__}: {exc}",
                       note="this is a bug in Lamina; run with LAMINA_DEBUG=1 to see the Python traceback")


def called_itself(tb) -> bool:
    """Whether the exception of traceback `tb` came from the call at tb's frame itself: raised
    there, or by the rank gate (values.rank_gate) calling the builtin it wraps."""
    return tb.tb_next is None or _gate_called(tb.tb_next)


def _gate_called(tb) -> bool:
    """Whether `tb` is the last frame and a rank gate's: it called its builtin with arguments
    that did not bind."""
    return tb.tb_next is None and tb.tb_frame.f_code is GATE_CODE


def _raised_by_compiled_code(exc: BaseException) -> bool:
    return _innermost_frame(exc).f_code.co_filename == CODE_FILENAME


def _python_name(exc: NameError) -> str:
    name = getattr(exc, "name", None)
    if not name:
        m = re.search(r"'(\w+)'", str(exc))
        name = m.group(1) if m else "?"
    return unmangle(name)


def _visible(exc: BaseException) -> dict:
    """Every name the innermost compiled frame sees: its locals, globals and the builtins its
    program has used."""
    frame = _innermost_frame(exc)
    builtins = frame.f_globals.get("__builtins__", {})
    return {**(builtins if isinstance(builtins, dict) else {}), **frame.f_globals, **frame.f_locals}


def _called(exc: BaseException, node: A.Node):
    """The function a call node calls, as the innermost compiled frame of `exc` sees its name."""
    name, tb, frame = callee_name(node), exc.__traceback__, None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == CODE_FILENAME:
            frame = tb.tb_frame
        tb = tb.tb_next
    if name is None or frame is None:
        return None
    builtins = frame.f_globals.get("__builtins__", {})
    for names in (frame.f_locals, frame.f_globals, builtins if isinstance(builtins, dict) else {}):
        if mangle(name) in names:
            return names[mangle(name)]
    return None


def _innermost_frame(exc: BaseException):
    """The frame `exc` was raised in, or, raised by a builtin's rank gate calling the builtin
    (its arguments did not bind), the frame that called the gate."""
    tb = exc.__traceback__
    while tb.tb_next is not None and not _gate_called(tb.tb_next):
        tb = tb.tb_next
    return tb.tb_frame


def _not_yet(name: str, exc: BaseException, node) -> str:
    """Why a name the program does bind is undefined here: the statement binding it has not run."""
    binder = _innermost_frame(exc).f_globals.get(BINDERS_KEY, {}).get(name)
    if binder is None:
        return ""
    span = binder.span
    same = node is not None and node.span.source is span.source
    return not_yet(name, isinstance(binder, A.FunctionDef), f"line {span.line}" if same else
                   f"{span.source.name}:{span.line}")


def not_yet(name: str, function: bool, where: str) -> str:
    """The end of the NameError for a name whose first binding (at `where`) has not run."""
    if function:
        return (f" The function {name} is defined at {where}, which has not run yet: a definition runs "
                f"in order, like any statement, so define {name} above its first call.")
    return f" Its first assignment, at {where}, has not happened yet."


def _suggest(name: str, exc: BaseException) -> str:
    """The closest of the names the program sees and of every builtin's name, which the program's
    builtins hold without importing the builtins' modules: an error path imports nothing, since
    under a memory limit the import itself would fail."""
    builtins = _innermost_frame(exc).f_globals.get("__builtins__", {})
    every_builtin = builtins.get(BUILTIN_NAMES, ()) if isinstance(builtins, dict) else ()
    elsewhere = builtins.get(ELSEWHERE, {}) if isinstance(builtins, dict) else {}
    return did_you_mean(name, {unmangle(k) for k in _visible(exc) if k.startswith(MANGLE)} | set(every_builtin),
                        elsewhere)


def known_elsewhere(name: str, elsewhere: dict) -> str:
    """"R's lm is linreg in Lamina", for a name of `elsewhere` (builtins/index.py's ELSEWHERE)."""
    builtin, language, _ = elsewhere[name]
    whose = language + ("'" if language.endswith("s") else "'s")
    return f"{whose} {name} is {builtin} in Lamina"


def did_you_mean(name: str, known, elsewhere: dict | None = None) -> str:
    """` Did you mean 'a' or 'b'?` for the names closest to a misspelt one, or ""; for a name
    another language gives a builtin (`elsewhere`, builtins/index.py's ELSEWHERE), that builtin."""
    if elsewhere and name in elsewhere:
        return f" {known_elsewhere(name, elsewhere)}: {elsewhere[name][2]}."
    close = difflib.get_close_matches(name, sorted(known), n=3)
    return f" Did you mean {' or '.join(repr(c) for c in close)}?" if close else ""


PY_KINDS = {"float": "a number", "str": "a string", "list": "a list", "Record": "a record",
            "ndarray": "a tensor", "NoneType": "none", "bool": "a bool", "Tracked": "a tracked value",
            "int": "a number"}


def translate_call_error(f, exc: TypeError, name: str | None = None, node: A.Node | None = None) -> LaminaError:
    """Python's message for a bad call, in Lamina's words."""
    text = str(exc)
    label = name or (function_name(f) if f is not None and callable(f) else None)
    m = re.search(r"'([\w.]+)' object is not callable", text)
    if m:
        kind = m.group(1).rsplit(".", 1)[-1]
        what = describe(f) if f is not None else PY_KINDS.get(kind, "not a function")
        # A callee written as a literal (`[1, 2](0)`) has no name: "This value".
        subject = ("{'callee|This value}" if name == CALLEE else f"'{label}'" if label else "This value")
        message = f"{subject} is {what}, not a function, so it cannot be called."
        if kind in ("ndarray", "Tracked", "list", "str"):
            written = "{callee|value}" if name == CALLEE else label or "value"
            message += (f" To index it, use square brackets: {written}[{_call_arguments(node)}] "
                        "(indices start at 0).")
        return LaminaError("TypeError", message)
    text = re.sub(r"\bL_(\w+)", r"\1", text)
    # Python 3.13 suggests a keyword itself; _keyword_hint below gives Lamina's suggestion.
    text = re.sub(r"\. Did you mean '\w+'\?$", "", text)
    own = function_name(f) if f is not None and callable(f) else "anonymous"
    own = ("The anonymous function" if text.startswith("<lambda>()")
           else "The function" if own == "anonymous" else f"'{own}'")
    text = re.sub(r"^[\w.<>]+\(\) ", "", text).replace("positional ", "")
    if isinstance(f, partial) and f.args:       # a scoped builtin: its scope is no argument of the call's
        text = re.sub(r"(?<=from )\d+|\d+(?= to \d| arguments?\b| (?:was|were) given)",
                      lambda m: str(int(m.group()) - len(f.args)), text)
        text = re.sub(r"\b1 arguments\b", "1 argument", text)
    if text.startswith("missing "):
        text = "is " + text
    # The name the call site writes, quoted, when it has one (CALLEE: filled in once known).
    subject = "{'callee|" + own + "}" if name == CALLEE else f"'{name}'" if name else own
    msg = f"{subject} {text}."
    unknown = re.search(r"unexpected keyword argument '(\w+)'", text)
    if unknown:
        msg += _keyword_hint(f, unknown.group(1))
    shapes = getattr(f, "__lamina_shapes__", ())
    return LaminaError("TypeError", msg + (f" Call shapes: {', '.join(shapes)}." if shapes else ""))


def _call_arguments(node: A.Node | None) -> str:
    """The text between the parentheses of a call as written (`1, 2` of `A(1, 2)`), or `...`."""
    if not isinstance(node, A.Call):
        return "..."
    span = node.span
    line = span.source.line(span.line)
    start = span.col - 1 + span.length
    if line[start:start + 1] != "(":
        return "..."
    depth = 0
    for i in range(start, len(line)):
        depth += {"(": 1, ")": -1}.get(line[i], 0)
        if depth == 0:
            return line[start + 1:i]
    return "..."


def _keyword_hint(f, given: str) -> str:
    """` Did you mean 'epochs'?` for a misspelled keyword, from the function's parameters."""
    try:
        params = [unmangle(p.name) for p in inspect.signature(f).parameters.values()
                  if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]     # hcat's *args is no keyword
    except (TypeError, ValueError):
        return ""
    close = difflib.get_close_matches(given, params, n=2, cutoff=0.6)
    if close:
        return f" Did you mean {' or '.join(repr(c) for c in close)}?"
    return f" Its parameters are {', '.join(params)}." if params else ""
