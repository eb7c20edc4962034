"""Whether a builtin, or a function of the program, can take the arguments a call gives it,
said as the running program would.

Each builtin's parameters are read from its function (the registry's record of it); a
stand-in with the same parameters is called with placeholders, and Python's complaint goes
through the same translation the interpreter uses (lang/pyerrors.py). So the editor's message
is, word for word, the TypeError `lamina` would print when the call runs.
"""
from __future__ import annotations

import inspect
import re
from dataclasses import dataclass
from functools import lru_cache, partial

from ..builtins.registry import BuiltinSpec
from ..lang.pyerrors import translate_call_error
from ..lang.scope import mangle, unmangle


@dataclass(frozen=True)
class CallProblem:
    message: str
    keyword: str | None      # the keyword the call should not have given, if that is the problem


_STAND_INS: dict[str, object] = {}


def _stand_in(spec: BuiltinSpec):
    """A function with the builtin's parameters (a scoped builtin's Scope among them: a call
    gives it first, as the interpreter's partial does, and the message leaves it out)."""
    if spec.name not in _STAND_INS:
        _STAND_INS[spec.name] = _make_stand_in(spec)
    return _STAND_INS[spec.name]


def _make_stand_in(spec: BuiltinSpec):
    params = list(inspect.signature(spec.fn).parameters.values())
    parts, star_done = [], False
    for p in params:
        if p.kind is p.VAR_POSITIONAL:
            parts.append(f"*{p.name}")
            star_done = True
        elif p.kind is p.VAR_KEYWORD:
            parts.append(f"**{p.name}")
        elif p.kind is p.KEYWORD_ONLY and not star_done:
            parts += ["*", f"{p.name}=None" if p.default is not p.empty else p.name]
            star_done = True
        else:
            parts.append(f"{p.name}=None" if p.default is not p.empty else p.name)
            if p.kind is p.POSITIONAL_ONLY and (params.index(p) + 1 == len(params)
                                                or params[params.index(p) + 1].kind is not p.POSITIONAL_ONLY):
                parts.append("/")
    return _function(spec.name, ", ".join(parts))


@lru_cache(maxsize=4096)
def _function(name: str, parameters: str):
    """A Python function of that name and parameters that does nothing (SyntaxError for
    parameters Python refuses)."""
    namespace: dict = {}
    exec(f"def {mangle(name)}({parameters}):\n    pass\n", namespace)
    return namespace[mangle(name)]


def _complaint(stand_in, called, name: str, positional: int, keywords: dict) -> CallProblem | None:
    """What the run says when `called` (as the program calls it) gets these arguments; the
    stand-in, with its parameters, raises Python's TypeError for them."""
    try:
        stand_in(*([None] * positional), **keywords)
    except TypeError as exc:
        err = translate_call_error(called, exc, name)
        m = re.search(r"unexpected keyword argument '(\w+)'", str(exc))
        return CallProblem(err.message, unmangle(m.group(1)) if m else None)
    return None


def _as_called(spec: BuiltinSpec):
    """The builtin as a program calls it: a scoped one bound to a Scope (the interpreter's
    _bound_to), so that its parameters, as a message lists them, are those a call gives."""
    if not spec.scoped:
        return spec.fn
    bound = partial(spec.fn, None)
    bound.__lamina_shapes__ = spec.fn.__lamina_shapes__
    return bound


def check_call(spec: BuiltinSpec, positional: int, keywords: list[str]) -> CallProblem | None:
    try:
        stand_in = _stand_in(spec)
    except (ValueError, TypeError, SyntaxError):     # a builtin whose parameters cannot be read
        return None
    return _complaint(stand_in, _as_called(spec), spec.name, positional + spec.scoped,
                      {k: None for k in keywords})


def check_function_call(name: str, params: list[tuple[str, bool]], positional: int,
                        keywords: list[str]) -> CallProblem | None:
    """check_call for a function the program defines: `params` are its (name, has a default)."""
    written = ", ".join(mangle(p) + ("=None" if default else "") for p, default in params)
    try:
        stand_in = _function(name, written)
    except SyntaxError:             # parameters the run refuses too (a name twice)
        return None
    return _complaint(stand_in, stand_in, name, positional, {mangle(k): None for k in keywords})
