"""The operators of compiled code, the one place that decides their tiers.

Compiled code tests for two Python floats itself and applies Python's operator in line
(specialise.py); everything else comes here. A helper tries two floats first (a caller from
Python, or an operand the compiled test could not see), then a float or `Tracked` number on
each side, which autodiff.ops takes as it is (the scalar tape's fast path), then everything
else through `binary` and `compare`: numbers and tensors, tracked or not, go to autodiff.ops,
which owns the shape rules and records the tape; text, records and lists of numbers
(container_ops.py) and the errors are decided here; a library value with an `operator` method
(dates, categories) answers for itself. The scalar `%` is ops.mod's, as the
`mod` builtin is. Conditions (`truth`, `and`, `or`, `not` on bools and masks) and the
bracket literals, which build vectors and matrices from numbers, belong here too.
Helpers raise LaminaError without a span; the runner attaches the span of the compiled node
that called them.
"""
from __future__ import annotations

import numpy as np

from ..autodiff import linalg, ops, products
from ..errors import LaminaError
from ..values import LibObject, Tracked, describe, is_numeric, values_equal
from . import container_ops

NUMERIC = {
    "+": ops.add, "-": ops.sub, "*": ops.mul, "/": ops.div,
    ".*": ops.emul, "./": ops.ediv, "^": ops.pow, ".^": ops.epow, "%": ops.mod,
}


def _num(x, other=None):
    """An operand as autodiff.ops takes it: an int as a float, a logical tensor as 0/1 numbers
    (float32 ones beside a float32 tensor: a mask adapts to the tensor it meets, as a number does)."""
    if type(x) is int:
        return float(x)
    if type(x) is np.ndarray and x.dtype == bool:
        o = other.value if type(other) is Tracked else other
        return x.astype(np.float32 if type(o) is np.ndarray and o.dtype == np.float32 else np.float64)
    return x


def _logical(x) -> bool:
    return type(x) is np.ndarray and x.dtype == bool


def library_operator(op: str, a, b):
    """A library value that answers operators itself (dates, categories): its `operator(op, other,
    swapped)`, or None when neither side is one or the operator does not apply to it."""
    for x, other, swapped in ((a, b, False), (b, a, True)):
        if isinstance(x, LibObject) and hasattr(x, "operator"):
            out = x.operator(op, other, swapped)
            if out is not None:
                return out
    return None


def binary(op: str, a, b):
    if is_numeric(a) and is_numeric(b):
        return NUMERIC[op](_num(a, b), _num(b, a))
    if isinstance(a, LibObject) or isinstance(b, LibObject):
        out = library_operator(op, a, b)
        if out is not None:
            return out
    if op == "+" and isinstance(a, str) and isinstance(b, str):
        return a + b
    text = isinstance(a, str) or isinstance(b, str)
    # a string meeting a record or list is refused here, with the hint, not by container_ops
    if not text and (container_ops.holds_numbers(a) or container_ops.holds_numbers(b)):
        return container_ops.combine(op, a, b, binary)
    if text:
        hint = ' To build text, use interpolation: "{a} and {b}".'
    elif isinstance(a, bool) or isinstance(b, bool):
        hint = " Booleans are not numbers here; use if/else to choose a number."
    else:
        hint = container_ops.empty_note(a, b)
    raise LaminaError("TypeError", f"Cannot apply '{op}' to {describe(a)} and {describe(b)}.{hint}")


def _scalar_or_tracked(a, b) -> bool:
    """Both operands floats or tracked values: autodiff.ops takes them as they are (binary's
    checks and conversions would change nothing), the scalar tape's fast path."""
    return (type(a) is Tracked or type(a) is float) and (type(b) is Tracked or type(b) is float)


def add(a, b):
    if type(a) is float and type(b) is float:
        return a + b
    if _scalar_or_tracked(a, b):
        return ops.add(a, b)
    return binary("+", a, b)


def sub(a, b):
    if type(a) is float and type(b) is float:
        return a - b
    if _scalar_or_tracked(a, b):
        return ops.sub(a, b)
    return binary("-", a, b)


def mul(a, b):
    if type(a) is float and type(b) is float:
        return a * b
    if _scalar_or_tracked(a, b):
        return ops.mul(a, b)
    return binary("*", a, b)


def div(a, b):
    if type(a) is float and type(b) is float and b:
        return a / b
    return binary("/", a, b)


def emul(a, b):
    if type(a) is float and type(b) is float:
        return a * b
    return binary(".*", a, b)


def ediv(a, b):
    if type(a) is float and type(b) is float and b:
        return a / b
    return binary("./", a, b)


def mod(a, b):
    """`a % b`: floored, by ops.mod alone (the `mod` builtin's function), numbers as they are."""
    if (type(a) is float or type(a) is Tracked) and (type(b) is float or type(b) is Tracked):
        return ops.mod(a, b)
    return binary("%", a, b)


def ldiv(a, b):
    """`A \\ b`: the x with A x = b, by the function the solve builtin uses; a number divides."""
    if not (is_numeric(a) and is_numeric(b)):
        return binary("\\", a, b)
    a, b = _num(a, b), _num(b, a)
    if type(a.value if type(a) is Tracked else a) is float:
        return ops.ediv(b, a)
    try:
        return linalg.solve(a, b)
    except LaminaError as err:
        raise LaminaError(err.kind, f"A \\ b solves A x = b, as solve(A, b) does: {err.message}") from None


def matmul(a, b):
    """`A @ B`: the matmul builtin's product (NumPy's and PyTorch's @), batched over leading axes."""
    if not (is_numeric(a) and is_numeric(b)):
        return binary("@", a, b)
    try:
        return products.matmul(_num(a, b), _num(b, a))
    except LaminaError as err:
        raise LaminaError(err.kind, f"A @ B is matmul(A, B): {err.message}") from None


def power(a, b):
    if type(a) is float and type(b) is float:
        return ops.fpow(a, b)
    return binary("^", a, b)


def epower(a, b):
    if type(a) is float and type(b) is float:
        return ops.fpow(a, b)
    return binary(".^", a, b)


def neg(a):
    if type(a) is float:
        return -a
    if is_numeric(a):
        return ops.neg(_num(a))
    if container_ops.holds_numbers(a):
        return container_ops.negate(a, neg)
    raise LaminaError("TypeError", f"Cannot negate {describe(a)}.{container_ops.empty_note(a)}")


def pos(a):
    if is_numeric(a):
        return a
    raise LaminaError("TypeError", f"Unary '+' needs a number or tensor, not {describe(a)}.")


def transpose(a):
    if _logical(a) and a.ndim <= 2:
        return a.T.copy() if a.ndim == 2 else a.reshape(1, -1)     # a mask stays a mask
    if is_numeric(a):
        return ops.transpose(_num(a))
    raise LaminaError("TypeError", f"Cannot transpose {describe(a)}; ' transposes a vector or matrix.")


def compare(op: str, a, b):
    if is_numeric(a) and is_numeric(b):
        return ops.compare(op, _num(a, b), _num(b, a))
    if isinstance(a, LibObject) or isinstance(b, LibObject):
        out = library_operator(op, a, b)
        if out is not None:
            return out
    if op in ("==", "!=") and isinstance(a, list) != isinstance(b, list) and isinstance(a if isinstance(b, list) else b, str):
        # a text column against one string (t.species == "setosa"): a mask, item by item
        items, text = (a, b) if isinstance(a, list) else (b, a)
        same = np.array([x == text for x in items], dtype=bool)
        return same if op == "==" else ~same
    if op == "==":
        return values_equal(a, b)
    if op == "!=":
        return not values_equal(a, b)
    if isinstance(a, str) and isinstance(b, str):
        return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
    raise LaminaError("TypeError", f"Cannot compare {describe(a)} and {describe(b)} with '{op}'.")


def lt(a, b):
    if type(a) is float and type(b) is float:
        return a < b
    return compare("<", a, b)


def le(a, b):
    if type(a) is float and type(b) is float:
        return a <= b
    return compare("<=", a, b)


def gt(a, b):
    if type(a) is float and type(b) is float:
        return a > b
    return compare(">", a, b)


def ge(a, b):
    if type(a) is float and type(b) is float:
        return a >= b
    return compare(">=", a, b)


def eq(a, b):
    if type(a) is float and type(b) is float:
        return a == b
    return compare("==", a, b)


def ne(a, b):
    if type(a) is float and type(b) is float:
        return a != b
    return compare("!=", a, b)


def truth(c) -> bool:
    """A condition's value: a bool, or a number (nonzero is true)."""
    if c is True or c is False:
        return c
    if type(c) is Tracked:
        c = c.value
    if isinstance(c, (float, int)):
        if c != c:
            raise LaminaError("ValueError", "A condition is NaN, which is neither true nor false.")
        return c != 0
    if isinstance(c, np.ndarray):
        raise LaminaError("TypeError", f"A condition must be true or false, not {describe(c)}; "
                          "use any(...) or all(...) to reduce a comparison of tensors.")
    raise LaminaError("TypeError", f"A condition must be true or false, not {describe(c)}.")


def not_(c):
    """`not c`: a bool, or elementwise on a mask."""
    if _logical(c):
        return ~c
    return not truth(c)


def and_rest(a, b):
    """`a and b` when a is a mask or a true bool (or nonzero number): elementwise with a mask,
    else b (a bool, or a mask as it is, so `true and m` is `m`)."""
    if type(a) is np.ndarray:
        return mask_and(a, b)
    return b if b is True or b is False else logic_rest(b)


def or_rest(a, b):
    """`a or b` when a is a mask or a false bool (or zero): as and_rest."""
    if type(a) is np.ndarray:
        return mask_or(a, b)
    return b if b is True or b is False else logic_rest(b)


def mask_and(a, b):
    """`a and b` when a is a tensor: elementwise on masks (both sides are evaluated)."""
    return _mask_logic("and", a, b, np.logical_and)


def mask_or(a, b):
    return _mask_logic("or", a, b, np.logical_or)


def logic_rest(b):
    """The right side of `a and b` or `a or b` when a (a bool or number) did not decide: a mask
    as it is, so `true and m` is `m` elementwise; anything else as a condition."""
    return b if _logical(b) else truth(b)


def _mask_logic(word: str, a, b, fn):
    if not _logical(a):
        truth(a)                              # the error for a numeric tensor as a condition
    if not (_logical(b) or type(b) is bool):
        raise LaminaError("TypeError", f"'{word}' combines two masks elementwise, but its right side is "
                          f"{describe(b)}; compare it first (x > 0) to make a mask.")
    x, y, _, _ = ops.align(a, b, word)
    return fn(x, y)


# -- literals: numbers into vectors and matrices ---------------------------------
def bracket(items: tuple):
    """`[a, b, c]`: a vector when every item is a number, one value when the items' kind joins
    them (single dates into a vector of dates: LibObject.bracketed), otherwise a list."""
    if all(type(x) is float for x in items):
        return np.array(items, dtype=np.float64) if items else np.zeros(0)
    if all(container_ops.is_number(x) for x in items):
        return ops.build_vector([_num(x) for x in items])
    if items and isinstance(items[0], LibObject):
        joined = type(items[0]).bracketed(items)
        if joined is not None:
            return joined
    return list(items)


def matrix(rows: tuple):
    """`[a, b; c, d]`: rows of numbers (or vectors, which contribute their elements)."""
    for r, row in enumerate(rows):
        for x in row:
            vector = is_numeric(x) and np.ndim(x.value if type(x) is Tracked else x) == 1
            if not container_ops.is_number(x) and not vector:
                raise LaminaError("TypeError", f"Row {r} of a matrix literal holds {describe(x)}; "
                                  "';' builds a matrix from numbers and vectors only.")
    return ops.build_matrix([[_num(x) for x in row] for row in rows])
