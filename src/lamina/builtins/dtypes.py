"""The precision of tensors: float32, float64 and dtype (docs/language.md, "Precision")."""
from __future__ import annotations

import numpy as np

from ..autodiff.shaping import astype
from ..errors import LaminaError
from ..values import Record, describe, dtype_name, is_numeric
from .registry import GradCase, Shape, builtin

CATEGORY = "Tensors"
RULE = ("Numbers are always float64; a number meeting a float32 tensor adapts to it, so "
        "x .* 2 stays float32. A float32 tensor meeting a float64 tensor gives float64, as in "
        "NumPy and PyTorch. Storing into a tensor (v[i] = x) keeps the tensor's dtype.")


def convert(x, dtype, name: str):
    """x with every tensor in it converted to `dtype` (differentiably; numbers unchanged)."""
    if isinstance(x, list):
        return [convert(item, dtype, name) for item in x]
    if isinstance(x, Record):
        return Record({k: convert(v, dtype, name) for k, v in x.fields.items()})
    if not is_numeric(x):
        raise LaminaError("TypeError", f"{name}() converts a tensor (or the tensors in a list or "
                          f"record), not {describe(x)}.")
    return astype(x, dtype)


@builtin("float32", any_rank=True, pure="a new float32 value", category=CATEGORY, twice=True,
         shapes=[Shape("float32(x)", "tensor", "tensor", "A float32 copy of x."),
                 Shape("float32(values)", "list or record", "same structure",
                       "Every tensor in it converted; numbers stay numbers.")],
         summary="A tensor in single precision (float32): half the memory of float64, and the "
                 "precision neural networks are trained in.",
         examples=["v = float32([0.1, 0.2])\nprint(v, dtype(v))\nprint(dtype(v .* 2), dtype(v + [1, 1]))"],
         notes="Each element is rounded to the nearest float32 (about 7 significant digits); a "
               "float32 tensor prints each element as the shortest text that reads back to the "
               "same float32, so print looks the same and dtype() tells them apart. " + RULE +
               " Differentiable: the gradient passes through, converted back to x's dtype. "
               "A number stays a number (float64).",
         grad=[GradCase(((3,),), rounds=True), GradCase(((2, 3),), rounds=True),
               GradCase(((2, 3, 2),), rounds=True), GradCase(((1, 2, 2, 2),), rounds=True)])
def float32(x):
    return convert(x, np.float32, "float32")


@builtin("float64", any_rank=True, pure="a new float64 value", category=CATEGORY, twice=True,
         float64_results=("it converts to float64: that is what it is for", ("result",)),
         shapes=[Shape("float64(x)", "tensor", "tensor", "A float64 copy of x."),
                 Shape("float64(values)", "list or record", "same structure",
                       "Every tensor in it converted; numbers stay numbers.")],
         summary="A tensor in double precision (float64), the default of every tensor a program "
                 "writes.",
         examples=["v = float32([1.5, 2.5])\nprint(dtype(float64(v)))"],
         notes="Exact: every float32 is a float64. Differentiable: the gradient passes through, "
               "converted back to x's dtype. " + RULE,
         grad=[GradCase(((3,),)), GradCase(((2, 3),)), GradCase(((2, 3, 2),)), GradCase(((1, 2, 2, 2),))])
def float64(x):
    return convert(x, np.float64, "float64")


@builtin("dtype", any_rank=True, pure="a string", tracked="constant", category=CATEGORY,
         probes=["dtype(p)"],
         shapes=[Shape("dtype(x)", "number or tensor", "string", '"float32", "float64" or "logical".')],
         summary='The precision of a number or tensor: "float32" or "float64".',
         examples=['print(dtype([1, 2]), dtype(float32([1, 2])), dtype(3), dtype([1, 2] > 1))'],
         notes="Numbers are always float64; tensors are float64 unless made float32 (float32(), "
               'param(x, dtype = "float32"), a float32 model). A comparison of tensors gives a '
               '"logical" tensor (a mask: it prints and adds as 0/1, and indexes by selection). ' + RULE)
def dtype(x):
    if not is_numeric(x):
        raise LaminaError("TypeError", f"dtype() takes a number or tensor, not {describe(x)}.")
    return dtype_name(x)
