"""Arithmetic on records and lists, member by member: `0.5 * g`, `g1 + g2`, `-g`.

grad() returns gradients in the structure of its wrt (a record or list of numbers and
tensors), and a training loop by hand scales, sums and averages them. A number (tracked or
not) meets every member; two containers meet member by member and must have the same
structure (records the same field names, the result in the left one's order; lists the same
length); members that are records or lists go the same way, so any depth works. Each
member's operation is the operator itself, with its own rules and gradient.

Only containers of numbers and tensors take part (a record holding text, such as an
error's record, stays a TypeError as before), and an empty record or list holds none: a
list has no element type, and `filter` of text can return an empty one, so `+ 1` on it
is refused rather than an empty result (`[]` is an empty vector, numbers, and stays one).
A string meeting a container is left to operators.binary, whose message says to
interpolate. `*`, `/` and `^` between two containers are refused: on matrix members they would be matrix
products and solves, which is rarely what a record of gradients means; `.*`, `./` and `.^`
say elementwise.
"""
from __future__ import annotations

from collections.abc import Callable

from ..errors import LaminaError
from ..values import Record, Tracked, describe, is_numeric

ELEMENTWISE = {"+", "-", ".*", "./", ".^", "%"}      # also between two containers
SCALING = {"*", "/", "^"}                          # only with a number on one side


def is_container(x) -> bool:
    return isinstance(x, (Record, list))


def holds_numbers(x) -> bool:
    """Whether x is a record or list that holds members, and whose members, at any depth, are
    numbers and tensors (the containers these operators take: a record of text, such as an
    error's, and an empty one stay refused)."""
    members = x.fields.values() if isinstance(x, Record) else x if isinstance(x, list) else ()
    return bool(members) and all(_member_numeric(v) for v in members)


def empty_note(*operands) -> str:
    """Why an empty record or list among the operands takes no arithmetic ("" when none is)."""
    for x in operands:
        if is_container(x) and not (x.fields if isinstance(x, Record) else x):
            return (f" An empty {_kind(x)} holds no numbers, and only records and lists of numbers "
                    "and tensors take arithmetic member by member.")
    return ""


def _member_numeric(v) -> bool:
    return holds_numbers(v) if is_container(v) else is_numeric(v)


def is_number(x) -> bool:
    """A number, tracked or not: a float or an int, never a bool (a bracket literal of these is
    a vector, operators.bracket)."""
    v = x.value if type(x) is Tracked else x
    return type(v) is float or (type(v) is int and not isinstance(v, bool))


def combine(op: str, a, b, apply: Callable):
    """`a op b` where at least one side is a record or list; `apply(op, x, y)` is the operator
    on two members."""
    if op not in ELEMENTWISE | SCALING:
        _refuse(op, a, b, "")
    if is_container(a) and is_container(b):
        if op in SCALING:
            _refuse(op, a, b, f" Between two {_kind(a)}s, write the elementwise '.{op}'"
                              f" (member by member); '{op}' takes a number on one side.")
        return _pairwise(op, a, b, apply)
    if is_container(a) and is_number(b):
        return _each(a, lambda x: apply(op, x, b))
    if is_container(b) and is_number(a):
        return _each(b, lambda y: apply(op, a, y))
    _refuse(op, a, b, f" A {_kind(a if is_container(a) else b)} meets a number (each member) or "
                      f"another one of the same structure (member by member).")


def negate(a, neg: Callable):
    """`-a` for a record or list: each member negated."""
    return _each(a, neg)


def _each(c, fn: Callable):
    if isinstance(c, Record):
        return Record({k: fn(v) for k, v in c.fields.items()})
    return [fn(v) for v in c]


def _pairwise(op: str, a, b, apply: Callable):
    if isinstance(a, Record) and isinstance(b, Record):
        if set(a.fields) != set(b.fields):
            _refuse(op, a, b, f" The fields differ: {_fields(a)} and {_fields(b)}.")
        return Record({k: _member(f"field '{k}'", apply, op, v, b.fields[k]) for k, v in a.fields.items()})
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            _refuse(op, a, b, f" The lengths differ: {len(a)} and {len(b)}.")
        return [_member(f"item {i}", apply, op, x, y) for i, (x, y) in enumerate(zip(a, b))]
    _refuse(op, a, b, " A record meets a record and a list a list.")


def _member(where: str, apply: Callable, op: str, x, y):
    try:
        return apply(op, x, y)
    except LaminaError as err:
        if err.located:
            raise
        raise LaminaError(err.kind, f"In {where}: {err.message}") from None


def _kind(x) -> str:
    return "record" if isinstance(x, Record) else "list"


def _fields(r: Record) -> str:
    return "{" + ", ".join(r.fields) + "}"


def _refuse(op: str, a, b, why: str):
    raise LaminaError("TypeError", f"Cannot apply '{op}' to {describe(a)} and {describe(b)}.{why}")
