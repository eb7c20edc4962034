"""The language's operators: forward values and their VJPs, side by side.

Operands are Python floats, float64 or float32 arrays (1-D vectors, 2-D matrices) or
Tracked values; the runtime has dealt with every other kind before calling
here. Each op computes its value and hands `record` one VJP per input; record
keeps only the VJPs of live tracked inputs, so untracked code pays nothing for
them. Scalars come back as Python floats and arrays are always fresh. VJP
closures capture arrays and shapes, and (for the keep sweep's second rule) the operands as
given, tracked or not.

Second order (autodiff/tape.py): each op here is `second_order`: when `TAPE.keeping`, its VJPs
compute with these same ops on the operands, so a kept gradient is recorded. The first rule,
on NumPy arrays, is the one every ordinary sweep runs.

Arithmetic is IEEE: Python's float `/` and `**` raise where IEEE gives Inf or
NaN, so the scalar paths go through `fdiv` and `fpow`.

The runtime calls: add sub neg emul ediv epow mod (elementwise, broadcast.py's rule),
mul div pow transpose compare, and from indexing.py index setindex
build_vector build_matrix. OPERATORS lists them for the generic gradient check.
"""
from __future__ import annotations

import math
import operator
from functools import partial

import numpy as np

from ..errors import LaminaError, describe_shape, shape_str
from ..values import Tracked
from .broadcast import align, unbroadcast
from .cases import Const, GradCase
from .indexing import OuterKey, build_matrix, build_vector, index, setindex  # noqa: F401  (the runtime's entry points)
from .tape import TAPE, record, record1, record2, second_order, second_order_vjp

INF = math.inf
NAN = math.nan


def fdiv(x: float, y: float) -> float:
    """x / y on floats with IEEE results for a zero divisor."""
    if y:
        return x / y
    if x != x or x == 0:
        return NAN
    return math.copysign(INF, x) * math.copysign(1.0, y)


def fsqrt(x: float) -> float:
    """sqrt of a float: math's, which IEEE rounds exactly as NumPy's does; NaN below 0 (and for
    NaN, which fails x >= 0). sqrt(-0) is -0."""
    return math.sqrt(x) if x >= 0.0 else NAN


def fpow(x: float, y: float) -> float:
    """x ^ y on floats, to the bit what NumPy's power gives a vector raised to the number y
    (Python's `**` goes through the C library's pow, which differs in the last bit now and
    then): overflow is Inf, a complex result NaN. The exponents NumPy's power computes
    without pow are computed here the same way, without its 0.7 us call."""
    if y == 2.0:
        return x * x
    if y == 0.5:
        return fsqrt(x)
    if y == 1.0:
        return x
    if y == 0.0:
        return 1.0
    if y == -1.0:
        return fdiv(1.0, x)
    return float(np.power(x, y))


@second_order_vjp
def identity(g):
    return g


def times(c):
    """The VJP `g -> c * g` for a saved number or array `c`: a Python float stands for itself
    (see autodiff/tape.py), anything else is a partial (fewer objects than a closure)."""
    return c if type(c) is float else partial(operator.mul, c)


@second_order_vjp
def _negate(g):
    return neg(g) if TAPE.keeping else -g


def _shape(x) -> str:
    return shape_str(x.shape) if type(x) is np.ndarray else "a number"


# -- elementwise, with broadcasting --------------------------------------------
@second_order
def add(a, b):
    x = a.value if type(a) is Tracked else a
    y = b.value if type(b) is Tracked else b
    if type(x) is float and type(y) is float:
        return record2(x + y, a, b, 1.0, 1.0)
    x2, y2, sx, sy = align(x, y, "+")
    return record(x2 + y2, (a, b), (lambda g: unbroadcast(g, sx), lambda g: unbroadcast(g, sy)))


@second_order
def sub(a, b):
    x = a.value if type(a) is Tracked else a
    y = b.value if type(b) is Tracked else b
    if type(x) is float and type(y) is float:
        return record2(x - y, a, b, 1.0, -1.0)
    x2, y2, sx, sy = align(x, y, "-")
    return record(x2 - y2, (a, b), (lambda g: unbroadcast(g, sx), lambda g: unbroadcast(_negate(g), sy)))


@second_order
def neg(a):
    x = a.value if type(a) is Tracked else a
    return record1(-x, a, -1.0 if type(x) is float else _negate)


@second_order
def emul(a, b):
    x = a.value if type(a) is Tracked else a
    y = b.value if type(b) is Tracked else b
    if type(x) is float and type(y) is float:
        return record2(x * y, a, b, b, a)            # each operand, float or tracked, is the other's partial
    x2, y2, sx, sy = align(x, y, ".*")
    return record(x2 * y2, (a, b), (lambda g: unbroadcast(emul(g, b) if TAPE.keeping else _times(g, y2), sx),
                                    lambda g: unbroadcast(emul(g, a) if TAPE.keeping else _times(g, x2), sy)))


def _times(g, y):
    """g .* y in a VJP; y itself when g is a sum's gradient of ones spread over y's shape (a
    broadcast view, autodiff/reductions.py), as in `sum(a .* b)`: the sweep never writes into a
    contribution it did not allocate, and grad copies one that others hold."""
    if type(g) is np.ndarray and not any(g.strides) and g.size and type(y) is np.ndarray \
            and g.shape == y.shape and g.dtype == y.dtype and g.flat[0] == 1.0:    # the rare test first
        return y
    return g * y


@second_order
def ediv(a, b):
    x = a.value if type(a) is Tracked else a
    y = b.value if type(b) is Tracked else b
    if type(x) is float and type(y) is float:
        out = fdiv(x, y)
        return record(out, (a, b), (lambda g: ediv(g, b) if TAPE.keeping else fdiv(g, y),
                                    lambda g: _quotient_slope(g, a, b) if TAPE.keeping else fdiv(-g * out, y)))
    x2, y2, sx, sy = align(x, y, "./")
    out = x2 / y2
    return record(out, (a, b), (lambda g: unbroadcast(ediv(g, b) if TAPE.keeping else g / y2, sx),
                                lambda g: unbroadcast(_quotient_slope(g, a, b) if TAPE.keeping
                                                      else -g * out / y2, sy)))


def _quotient_slope(g, a, b):
    """d(a ./ b)/db times g on the tape: -g .* (a ./ b) ./ b."""
    return neg(ediv(emul(g, ediv(a, b)), b))


@second_order
def epow(a, b):
    x = a.value if type(a) is Tracked else a
    y = b.value if type(b) is Tracked else b
    if type(x) is float and type(y) is float:
        out = fpow(x, y)
        if type(a) is not Tracked and type(b) is not Tracked:
            return out
        return record(out, (a, b), (lambda g: _base_slope(g, a, b, y) if TAPE.keeping else
                                    (0.0 if y == 0 else g * y * fpow(x, y - 1.0)),
                                    lambda g: _exponent_slope(g, a, b, x) if TAPE.keeping else
                                    g * out * _log_base(x)))
    x2, y2, sx, sy = align(x, y, ".^")
    out = np.power(x2, y2)
    return record(out, (a, b), (lambda g: unbroadcast(_base_slope(g, a, b, y2) if TAPE.keeping else
                                                      g * _dpow_base(x2, y2), sx),
                                lambda g: unbroadcast(_exponent_slope(g, a, b, x2) if TAPE.keeping else
                                                      g * out * _log_base(x2), sy)))


def _base_slope(g, a, b, y):
    """d(a .^ b)/da times g on the tape: g .* b .* a .^ (b - 1) (0 where b is a constant 0)."""
    if type(b) is not Tracked:
        if type(y) is float:
            if y == 0.0:
                return emul(g, 0.0)
            if y == 2.0:
                return emul(g, emul(2.0, a))
            return emul(g, emul(y, epow(a, y - 1.0)))
        return emul(g, emul(y, epow(a, sub(b, 1.0))))
    return emul(g, emul(b, epow(a, sub(b, 1.0))))


def _exponent_slope(g, a, b, x):
    """d(a .^ b)/db times g on the tape: g .* a .^ b .* log(a) (a = 0 contributing 0)."""
    if type(a) is not Tracked:
        return emul(g, emul(epow(a, b), _log_base(x)))
    return emul(g, emul(epow(a, b), log_of(a)))


@second_order
def log_of(a):
    """The natural log on the tape, for epow's second rule (functions.log is the builtin's)."""
    x = a.value if type(a) is Tracked else a
    out = float(np.log(x)) if type(x) is float else np.log(x)
    return record1(out, a, lambda g: ediv(g, a) if TAPE.keeping else _quotient(g, x))


def _quotient(g, x):
    return fdiv(g, x) if type(g) is float and type(x) is float else g / x


def mod(a, b):
    """Floored modulo, as Julia's `mod` and NumPy's `np.mod`: a - b floor(a / b), with the sign of b.

    IEEE: mod(a, 0) and mod(Inf, b) are NaN. The one implementation behind the `mod` builtin
    (and the `%` operator). d/da = 1, d/db = -floor(a / b).
    """
    if type(a) is float and type(b) is float:       # two plain numbers: nothing to record
        return a % b if b else NAN                  # Python's float % is floored; Inf % b is NaN
    x = a.value if type(a) is Tracked else a
    y = b.value if type(b) is Tracked else b
    if type(x) is float and type(y) is float:
        if y == 0 or x - x != 0:
            return record2(NAN, a, b, identity, _nan_like)
        q = x // y
        return record2(x % y, a, b, 1.0, -q)
    return _mod_tensors(a, b, x, y)


@second_order
def _mod_tensors(a, b, x, y):
    """mod of tensors (its own function: the closures' cells would cost every call of mod)."""
    x2, y2, sx, sy = align(x, y, "mod")
    out = np.mod(x2, y2)
    q = np.floor_divide(x2, y2)
    return record(out, (a, b), (lambda g: unbroadcast(g, sx),
                                lambda g: unbroadcast(emul(g, -q) if TAPE.keeping else -g * q, sy)))


@second_order_vjp
def _nan_like(g):
    return NAN


def _dpow_base(x, y):
    """d(x^y)/dx = y * x^(y-1), and 0 where y == 0 (x^0 is constant even at x = 0)."""
    if type(y) is float:
        if y == 2.0:
            return 2.0 * x
        return np.zeros_like(x) if y == 0 else y * np.power(x, y - 1.0)
    return np.where(y == 0, 0.0, y * np.power(x, y - 1.0))


def _log_base(x):
    """log(x) for d(x^y)/dy, taking x = 0 as contributing 0 (x^y is flat in y there for y > 0)."""
    if type(x) is float:
        return 0.0 if x == 0 else (float(np.log(x)) if x > 0 else NAN)     # NumPy's log, as for arrays
    return np.log(np.where(x == 0, 1.0, x))


# -- products and division -----------------------------------------------------
@second_order
def mul(a, b):
    """`*`: scaling when either side is a number, else the matrix product. A 1 x n row times an
    n-vector or an n x 1 column is a number (`v' * v`, `x' * A * x`), as in MATLAB."""
    x = a.value if type(a) is Tracked else a
    y = b.value if type(b) is Tracked else b
    if type(x) is float:
        if type(y) is float:
            return record2(x * y, a, b, b, a)
        return record(x * y, (a, b), (lambda g: unbroadcast(emul(g, b), ()) if TAPE.keeping else float(np.vdot(g, y)),
                                      lambda g: emul(g, a) if TAPE.keeping else g * x))
    if type(y) is float:
        return record(x * y, (a, b), (lambda g: emul(g, b) if TAPE.keeping else g * y,
                                      lambda g: unbroadcast(emul(g, a), ()) if TAPE.keeping else float(np.vdot(g, x))))
    if x.ndim > 2 or y.ndim > 2:
        raise LaminaError("ShapeError", f"The product * is for vectors and matrices, not "
                          f"{describe_shape(x.shape if x.ndim > 2 else y.shape)}: use matmul(a, b) for a "
                          f"batched product, einsum for others, or .* for the elementwise product.")
    if x.ndim == 2 and y.ndim == 2:
        if x.shape[1] != y.shape[0]:
            raise LaminaError("ShapeError", f"Matrix product needs inner sizes to agree: "
                              f"{_shape(x)} * {_shape(y)}.")
        if x.shape[0] == 1 and y.shape[1] == 1:       # a row times a column: a number
            return record(float(x[0] @ y[:, 0]), (a, b), (lambda g: emul(g, transpose(b)) if TAPE.keeping else g * y.T,
                                                          lambda g: emul(g, transpose(a)) if TAPE.keeping else g * x.T))
        return record(x @ y, (a, b), (lambda g: mul(g, transpose(b)) if TAPE.keeping else g @ y.T,
                                      lambda g: mul(transpose(a), g) if TAPE.keeping else x.T @ g))
    if x.ndim == 2:
        if x.shape[1] != y.shape[0]:
            raise LaminaError("ShapeError", f"Matrix-vector product needs the vector's length to equal "
                              f"the matrix's column count: {_shape(x)} * {shape_str(y.shape)}.")
        if x.shape[0] == 1:                           # a row times a vector (v' * v): a number
            row = x[0]
            return record(float(row @ y), (a, b), (lambda g: emul(g, transpose(b)) if TAPE.keeping else g * y[None, :],
                                                  lambda g: emul(g, index(a, (0, slice(None)))) if TAPE.keeping
                                                  else g * row))
        return record(x @ y, (a, b), (lambda g: mul(g, transpose(b)) if TAPE.keeping else np.outer(g, y),
                                      lambda g: mul(transpose(a), g) if TAPE.keeping else g @ x))
    if y.ndim == 2:
        if y.shape[0] != 1:
            raise LaminaError("ShapeError", f"In vector * matrix the vector is a column ({len(x)}x1), so "
                              f"it can only multiply a 1xp matrix, not {_shape(y)}; to multiply it "
                              f"as a row, write v' * M.")
        row = y[0]
        return record(np.outer(x, row), (a, b), (lambda g: mul(g, index(b, (0, slice(None)))) if TAPE.keeping
                                                  else g @ row,
                                                  lambda g: mul(transpose(a), g) if TAPE.keeping else (x @ g)[None, :]))
    raise LaminaError("ShapeError", f"The product * of two vectors ({shape_str(x.shape)} and "
                      f"{shape_str(y.shape)}) is not defined; use dot(a, b) for the inner product "
                      f"or .* for the elementwise product.")


def div(a, b):
    """`/`: division by a number (tensor / tensor is an error that points at ./ and solve)."""
    x = a.value if type(a) is Tracked else a
    y = b.value if type(b) is Tracked else b
    if type(y) is not float:
        if type(x) is float:
            raise LaminaError("TypeError", f"Cannot divide a number by {describe_shape(y.shape)} with /; "
                              f"use ./ for elementwise division.")
        raise LaminaError("TypeError", f"Cannot divide {describe_shape(x.shape)} by {describe_shape(y.shape)} "
                          f"with /, which needs a number as the divisor; use ./ for elementwise "
                          f"division, or solve(A, b) to solve a linear system.")
    return ediv(a, b)


def pow(a, b):
    """`^`: a number to a power (tensors use .^)."""
    x = a.value if type(a) is Tracked else a
    y = b.value if type(b) is Tracked else b
    if type(x) is not float or type(y) is not float:
        t = x if type(x) is not float else y
        raise LaminaError("TypeError", f"The ^ operator raises a number to a power, but got "
                          f"{describe_shape(np.shape(t))}; use .^ for the elementwise power.")
    return epow(a, b)


@second_order
def transpose(a):
    """`a'`: a vector becomes a 1 x n matrix; a matrix is transposed; a number stays."""
    x = a.value if type(a) is Tracked else a
    if type(x) is float:
        return a
    if x.ndim == 1:
        return record(x.reshape(1, -1).copy(), (a,),
                      (lambda g: index(g, (0, slice(None))) if TAPE.keeping else g.reshape(-1),))
    if x.ndim > 2:
        raise _transpose_rank(x.shape)
    return record(x.T.copy(), (a,), (lambda g: transpose(g) if TAPE.keeping else g.T,))


def _transpose_rank(shape: tuple) -> LaminaError:
    order = ", ".join(str(k) for k in range(len(shape) - 2)) + f", {len(shape) - 1}, {len(shape) - 2}"
    return LaminaError("ShapeError", f"' transposes a vector or matrix, not {describe_shape(shape)}: "
                       f"use permute(a, [{order}]) to swap its last two axes.")


# -- comparisons (never tracked) -----------------------------------------------
_PY_COMPARE = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
               "==": operator.eq, "!=": operator.ne}
_NP_COMPARE = {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal,
               "==": np.equal, "!=": np.not_equal}


def compare(op: str, a, b):
    """Numbers give a bool; tensors compare elementwise (with broadcasting) to a logical tensor
    (a NumPy bool array: a mask, which prints and adds as 0/1)."""
    x = a.value if type(a) is Tracked else a
    y = b.value if type(b) is Tracked else b
    if type(x) is float and type(y) is float:
        return _PY_COMPARE[op](x, y)
    x2, y2, _, _ = align(x, y, op)
    return _NP_COMPARE[op](x2, y2)


# -- the table the generic gradient check runs over ----------------------------
S, V, M, T3, T4 = (), (3,), (2, 3), (2, 3, 4), (2, 1, 3, 2)
_PAIRS = [GradCase((S, S)), GradCase((V, V)), GradCase((M, M)), GradCase((S, M)), GradCase((V, S)),
          GradCase((M, (2,))), GradCase(((2,), M)), GradCase((M, (1, 3))), GradCase(((2, 1), M)),
          GradCase(((2, 1), (1, 3))),
          # rank 3 and 4: a number, the same shape, or the same rank stretched on its 1s
          GradCase((T3, T3)), GradCase((S, T3)), GradCase((T3, (1, 3, 1))), GradCase(((2, 1, 4), (1, 3, 1))),
          GradCase((T4, (2, 2, 1, 1)))]
_MASK3 = np.arange(24).reshape(T3) % 3 == 0

OPERATORS: dict[str, tuple] = {
    "add": (add, _PAIRS),
    "sub": (sub, _PAIRS),
    "emul": (emul, _PAIRS),
    "ediv": (ediv, [GradCase(c.args, domain="away_from_zero") for c in _PAIRS]),
    "epow": (epow, [GradCase(c.args, domain="positive") for c in _PAIRS]
             + [GradCase((M, Const(2.0))), GradCase((V, Const(3.0))), GradCase((S, Const(0.0)))]),
    "neg": (neg, [GradCase((S,)), GradCase((V,)), GradCase((M,)), GradCase((T3,)), GradCase((T4,))]),
    "mod": (mod, [GradCase(c.args, domain="away_from_zero") for c in _PAIRS]),
    "mul": (mul, [GradCase((S, S)), GradCase((S, M)), GradCase((V, S)), GradCase(((2, 3), (3, 4))),
                  GradCase(((2, 3), (3,))), GradCase(((3,), (1, 4))), GradCase(((1, 3), (3,))),
                  GradCase(((1, 3), (3, 1))), GradCase(((1, 3), (3, 2)))]),
    "div": (div, [GradCase((S, S), domain="away_from_zero"), GradCase((M, S), domain="away_from_zero"),
                  GradCase((V, S), domain="away_from_zero")]),
    "pow": (pow, [GradCase((S, S), domain="positive"), GradCase((S, Const(3.0)))]),
    "transpose": (transpose, [GradCase((S,)), GradCase((V,)), GradCase((M,))]),
    "index": (index, [GradCase((V, Const((1,)))), GradCase((V, Const((slice(0, 2),)))),
                      GradCase((M, Const((1, 2)))), GradCase((M, Const((0, slice(None))))),
                      GradCase((M, Const((slice(1, 2), slice(0, 2))))),
                      # index lists (repeats add up) and a mask of the matrix's shape
                      GradCase((V, Const((np.array([2, 0, 2]),)))),
                      GradCase((M, Const((np.array([1, 0, 1]), slice(None))))),
                      GradCase((M, Const(np.ix_([1, 0], [2, 2, 0])))),
                      GradCase((M, Const((np.array([[True, False, True], [False, False, True]]),)))),
                      # rank 3 and 4: positions drop their axes, slices and lists keep theirs
                      GradCase((T3, Const((1, slice(None), 2)))), GradCase((T3, Const((slice(0, 1), 2, slice(None))))),
                      GradCase((T3, Const((np.array([1, 1, 0]), slice(None), slice(None))))),
                      GradCase((T3, Const(OuterKey.of(T3, [1, slice(None), np.array([3, 0, 3])])))),
                      GradCase((T3, Const(OuterKey.of(T3, [np.array([1, 0]), np.array([2, 2]), slice(1, 3)])))),
                      GradCase((T3, Const((_MASK3,)))), GradCase((T4, Const((1, 0, slice(None), 1))))]),
    "setindex": (setindex, [GradCase((V, Const((1,)), S)), GradCase((M, Const((0, slice(None))), V)),
                            GradCase((M, Const((slice(None), slice(1, 3))), (2, 2))),
                            GradCase((M, Const((slice(0, 1), slice(None))), V)),
                            GradCase((M, Const((slice(None), slice(0, 2))), S)),
                            # repeated positions: the last write lands; a row stretched over rows
                            GradCase((V, Const((np.array([0, 2, 0]),)), V)),
                            GradCase((M, Const((np.array([1, 1]), slice(None))), (1, 3))),
                            GradCase((M, Const((slice(None), np.array([0, 2]))), (2, 2))),
                            GradCase((M, Const((np.array([[True, False, True], [False, False, True]]),)), S)),
                            GradCase((T3, Const((1, slice(None), slice(None))), (3, 4))),
                            GradCase((T3, Const((slice(None), slice(None), slice(1, 3))), (2, 1, 2))),
                            GradCase((T3, Const(OuterKey.of(T3, [np.array([1, 1]), 0, slice(None)])), (2, 4))),
                            GradCase((T3, Const((_MASK3,)), S)), GradCase((T4, Const((0, 0)), (3, 2)))]),
    "build_vector": (lambda *items: build_vector(list(items)), [GradCase((S, S, S))]),
    "build_matrix": (lambda a, b, c, d: build_matrix([[a, b], [c, d]]), [GradCase((S, S, S, S))]),
    "build_matrix_rows": (lambda u, s, w: build_matrix([[u, s], [s, w]]),
                          [GradCase(((2,), S, (2,)))]),
}
