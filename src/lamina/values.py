"""Lamina's runtime values and the checks every builtin uses on its arguments.

number -> Python float · bool -> bool · string -> str · none -> None
tensor -> numpy float64 or float32 array, 1-D (vector) or 2-D (matrix); float64 by default
(numbers are always float64 Python floats: only tensors carry a dtype, see `dtype_name`)
logical tensor (a mask, from comparing tensors) -> numpy bool array; as a number it is 0/1
list -> Python list · record -> Record · function -> Python callable
tracked number or tensor -> Tracked (recorded on lamina.autodiff.tape) · library objects -> LibObject

Values have value semantics: nothing mutates a value in place that another
binding could see (the runtime copies before a write into a shared value).
"""
from __future__ import annotations

import functools
import math

import numpy as np

from .errors import LaminaError, describe_shape, shape_str
from .fields import Frozen


class Tracked:
    """A number or tensor recorded on the autodiff tape (lamina.autodiff.tape).

    `node` is its entry's id on the tape and `gen` the tape generation it was recorded in:
    a value whose generation is not the tape's current one predates a tape_reset().
    `entry` is how it was computed (None for a leaf): the value owns its history, so the
    history is freed with the last value that needs it (see autodiff/tape.py).
    """
    __slots__ = ("value", "node", "gen", "trainable", "entry")

    def __init__(self, value, node: int, gen: int, trainable: bool = False, entry=None):
        self.value = value
        self.node = node
        self.gen = gen
        self.trainable = trainable
        self.entry = entry

    def __repr__(self):
        return f"Tracked(node={self.node}, gen={self.gen}, value={self.value!r})"


def value_of(x):
    """The plain number or array behind a possibly tracked value."""
    return x.value if type(x) is Tracked else x


class Record:
    """`{name = value, ...}`: named fields in insertion order."""
    __slots__ = ("fields",)

    def __init__(self, fields: dict):
        self.fields = fields

    def get(self, name: str):
        try:
            return self.fields[name]
        except KeyError:
            raise LaminaError("NameError", f"Record has no field '{name}'; its fields are "
                              f"{', '.join(self.fields) or '(none)'}.") from None

    def with_field(self, name: str, value) -> "Record":
        fields = dict(self.fields)
        fields[name] = value
        return Record(fields)

    def __eq__(self, other):
        return values_equal(self, other)

    __hash__ = None


class LibObject:
    """Base of library values (optimizers, models, schedules, ...).

    Fields listed by `field_names` are readable with `obj.name`; a name that
    starts with `_` is readable too (`opt._params`). Library objects are
    immutable: operations return new ones.
    """
    type_name = "object"

    def field_names(self) -> list[str]:
        return []

    def get(self, name: str):
        if name in self.field_names():
            return getattr(self, name)
        raise LaminaError("NameError", f"{with_article(self.type_name).capitalize()} has no field '{name}'"
                          + (f"; its fields are {', '.join(self.field_names())}." if self.field_names() else "."))

    def describe(self) -> str:
        return f"<{self.type_name}>"

    def with_field(self, name: str, value) -> "LibObject | None":
        """`obj.name = value`: a new object with that field set, or None where fields cannot be set."""
        return None

    def html(self) -> str | None:
        """The report as HTML, for a notebook to show beside describe()'s text; None: text only."""
        return None

    def elements(self) -> list | None:
        """What `for x in obj` visits, in order, or None where the object is no sequence."""
        return None

    @classmethod
    def bracketed(cls, items: tuple):
        """`[a, b, ...]` whose first item is of this class: one value that joins them (as a bracket
        of numbers is a vector), or None, which leaves the literal a list."""
        return None


def is_function(x) -> bool:
    return callable(x) and not isinstance(x, (LibObject, type))


def type_name(x) -> str:
    """The name a program sees for a value's kind (the `type` builtin)."""
    if type(x) is Tracked:
        x = x.value
    if isinstance(x, bool):
        return "bool"
    if isinstance(x, (float, int)):
        return "number"
    if isinstance(x, str):
        return "string"
    if x is None:
        return "none"
    if isinstance(x, np.ndarray):
        kind = "vector" if x.ndim == 1 else "matrix" if x.ndim == 2 else "array"
        return f"logical {kind}" if x.dtype == bool else kind
    if isinstance(x, list):
        return "list"
    if isinstance(x, Record):
        return "record"
    if isinstance(x, LibObject):
        return x.type_name
    if callable(x):
        return "function"
    return "object"


def with_article(noun: str) -> str:
    """`an optimizer`, `a model`: the noun with its indefinite article."""
    return f"an {noun}" if noun[:1] in "aeiou" else f"a {noun}"


def describe(x) -> str:
    """A value's kind and shape as messages name it: `a 2x3 matrix`, `a string`."""
    v = value_of(x)
    if isinstance(v, np.ndarray):
        if v.dtype == bool:
            return f"a logical vector of length {len(v)}" if v.ndim == 1 else \
                f"a {shape_str(v.shape)} logical {'matrix' if v.ndim == 2 else 'array'}"
        return describe_shape(v.shape)
    if v is None:
        return "none"           # the value itself, as `true` is: "not none", never "not a none"
    if isinstance(v, LibObject) and hasattr(v, "kind_text"):
        return v.kind_text()    # a library value of many elements says how many (dates)
    return with_article(type_name(x))


def is_numeric(x) -> bool:
    """A number, a tensor, or a tracked one of those (bools are not numbers)."""
    v = x.value if type(x) is Tracked else x
    return (type(v) is float or type(v) is int or isinstance(v, np.ndarray)) and not isinstance(v, bool)


def as_float(x, what: str) -> float:
    v = value_of(x)
    if isinstance(v, bool) or not isinstance(v, (float, int, np.floating)):
        if isinstance(v, np.ndarray) and v.size == 1:
            return float(v.reshape(()))
        raise LaminaError("TypeError", f"{what} must be a number, not {describe(x)}.")
    return float(v)


LARGEST_WHOLE = 2 ** 53     # beyond it a float64 no longer holds every whole number


def as_int(x, what: str, minimum: int | None = None) -> int:
    f = as_float(x, what)
    if f != f or f in (float("inf"), float("-inf")) or f != int(f):
        raise LaminaError("TypeError", f"{what} must be a whole number, not {format_number(f)}.")
    if abs(f) > LARGEST_WHOLE:
        raise LaminaError("ValueError", f"{what} is too large: {format_number(f)} (a count, size or "
                          f"index is at most 2^53 = {LARGEST_WHOLE} in size).")
    n = int(f)
    if minimum is not None and n < minimum:
        raise LaminaError("ValueError", f"{what} must be at least {minimum}, not {n}.")
    return n


def dtype_name(x) -> str:
    """"float32" for a float32 tensor (tracked or not), "logical" for a mask, else "float64"
    (numbers are float64)."""
    v = value_of(x)
    if type(v) is np.ndarray and v.dtype != np.float64:
        return "logical" if v.dtype == bool else "float32"
    return "float64"


def float_array(a) -> np.ndarray:
    """`a` as a tensor: a float32 or float64 array stays as it is, anything else becomes float64."""
    a = np.asarray(a)
    return a if a.dtype == np.float64 or a.dtype == np.float32 else a.astype(np.float64)


def tensor_dtype(*values):
    """The dtype of a result built from `values` (numbers, tensors, tracked or not): float32 when
    every tensor among them is float32 (numbers adapt to the tensors), else float64."""
    dtype = None
    for x in values:
        v = value_of(x)
        if type(v) is np.ndarray:
            if v.dtype != np.float32:
                return np.float64
            dtype = np.float32
    return dtype or np.float64


def numeric(x, what: str):
    """The plain number (a float) or tensor (a float64 or float32 array) behind an argument,
    tracked or not; an array of any other dtype becomes float64."""
    if type(x) is float:
        return x
    v = x.value if type(x) is Tracked else x
    if type(v) is np.ndarray:
        return v if v.dtype == np.float64 or v.dtype == np.float32 else v.astype(np.float64)
    if isinstance(v, (float, int)) and not isinstance(v, bool):
        return float(v)
    raise LaminaError("TypeError", f"{what} must be a number or tensor, not {describe(x)}.")


def numeric_or_tracked(x, what: str):
    """A number or tensor argument as an op takes it: a tracked one as it is, else numeric(x)."""
    return x if type(x) is Tracked or type(x) is float else numeric(x, what)


def lamina_value(a):
    """A NumPy result as a Lamina value: a 0-d array or NumPy scalar becomes a float, an array
    a float64 or float32 array (the array itself when it is one already; other dtypes become
    float64)."""
    if np.ndim(a) == 0:
        return float(a)
    return float_array(a)


class Range(Frozen):
    """The numbers a setting accepts: from low to high, each end included unless it is open;
    `whole` asks for a whole number. Optimizer and schedule settings declare one each."""

    def __init__(self, low: float = -math.inf, high: float = math.inf, low_open: bool = False,
                 high_open: bool = True, whole: bool = False):
        self.low, self.high, self.low_open, self.high_open, self.whole = low, high, low_open, high_open, whole

    def contains(self, v: float) -> bool:
        above = v > self.low if self.low_open else v >= self.low
        below = v < self.high if self.high_open else v <= self.high
        return above and below

    def check(self, value, what: str) -> float:
        v = float(as_int(value, what)) if self.whole else as_float(value, what)
        if not self.contains(v):
            finite = "finite and " if v == self.high == math.inf else ""
            raise LaminaError("ValueError", f"{what} must be {finite}{self.words()}, not {format_number(v)}.")
        return v

    def words(self) -> str:
        low, high = format_number(self.low), format_number(self.high)
        if self.high == math.inf:
            return f"{'above' if self.low_open else 'at least'} {low}"
        if self.low == -math.inf:
            return f"{'below' if self.high_open else 'at most'} {high}"
        if self.low_open:
            return f"above {low} and {'below' if self.high_open else 'at most'} {high}"
        return f"from {low} {'up to (not including)' if self.high_open else 'to'} {high}"


def as_tensor(x, what: str) -> np.ndarray:
    """The array behind x, float32 or float64 as it is (a caller converts once, to the dtype it
    computes in: widening a float32 X first cost fit a copy twice X's size)."""
    v = value_of(x)
    if isinstance(v, np.ndarray):
        return float_array(v)
    raise LaminaError("TypeError", f"{what} must be a vector or matrix, not {describe(x)}.")


def as_str(x, what: str) -> str:
    if isinstance(x, str):
        return x
    raise LaminaError("TypeError", f"{what} must be a string, not {describe(x)}.")


def as_function(f, what: str, meaning: str = "a function"):
    """f, if it is a function (a Lamina function or a builtin), else a TypeError: "{what} must be
    {meaning}, not ..."."""
    if is_function(f):
        return f
    raise LaminaError("TypeError", f"{what} must be {meaning}, not {describe(f)}.")


def values_equal(a, b) -> bool:
    """`a == b` on any two values. Iterative, so values nested any depth compare correctly."""
    stack = [(a, b)]
    while stack:
        a, b = stack.pop()
        a, b = value_of(a), value_of(b)
        if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
            if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)
                    and a.shape == b.shape and bool(np.all(a == b))):
                return False
        elif isinstance(a, list) or isinstance(b, list):
            if not (isinstance(a, list) and isinstance(b, list) and len(a) == len(b)):
                return False
            stack.extend(zip(a, b))
        elif isinstance(a, Record) or isinstance(b, Record):
            if not (isinstance(a, Record) and isinstance(b, Record) and a.fields.keys() == b.fields.keys()):
                return False
            stack.extend((x, b.fields[k]) for k, x in a.fields.items())
        elif isinstance(a, bool) != isinstance(b, bool) or not _same(a, b):
            return False
    return True


def _same(a, b) -> bool:
    try:
        return bool(a == b)
    except Exception:       # a library object that defines no equality
        return a is b


def format_number(x) -> str:
    """A number as Lamina prints it: whole numbers below 1e15 without a decimal point, else
    the shortest text that reads back to the same float (Python's repr)."""
    x = float(x)
    if x != x:
        return "NaN"
    if x in (math.inf, -math.inf):
        return "Inf" if x > 0 else "-Inf"
    if x == int(x) and abs(x) < 1e15:
        return str(int(x))           # also turns -0.0 into "0"
    return repr(x)


# -- rank ------------------------------------------------------------------------
def rank_gate(fn, name: str):
    """`fn` (the builtin `name`) refusing a tensor of rank 3 or more among its arguments, or among
    the items of a list of tensors: the registry wraps every builtin not declared `any_rank`. A
    list whose first item is no tensor (numbers, strings, records) is not walked, so that a
    builtin given a list of a million numbers pays nothing per item for the gate."""
    @functools.wraps(fn)
    def gated(*args, **kwargs):
        for x in (*args, *kwargs.values()):
            if type(x) is list:
                if x and type(x[0]) in _TENSORS:
                    for item in x:
                        _refuse_high_rank(item, name)
            else:
                _refuse_high_rank(x, name)
        return fn(*args, **kwargs)
    return gated


_TENSORS = (np.ndarray, Tracked)
GATE_CODE = rank_gate(lambda: None, "").__code__    # a gate's frame, which error translation looks past


def _refuse_high_rank(x, name: str) -> None:
    shape = getattr(x.value if type(x) is Tracked else x, "shape", ())
    if type(shape) is tuple and len(shape) > 2:
        raise LaminaError("ShapeError", f"{name} takes numbers, vectors and matrices, not "
                          f"{describe_shape(shape)}. Make it a matrix first, for example "
                          f"reshape(x, {shape[0]}, -1), or a vector with reshape(x, -1).")


def as_mask(x):
    """x as a condition (where's, filter's): true or false, a logical tensor, or a bracket of true
    and false (a list) as the logical vector it stands for; None for anything else."""
    v = value_of(x)
    if isinstance(v, list) and v and all(type(k) is bool for k in v):
        return np.array(v)
    if type(v) is bool or isinstance(v, np.ndarray) and v.dtype == np.bool_:
        return v
    return None
