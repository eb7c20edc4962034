"""Checking and shaping X and Y for fit, predict and evaluate.

Rows of X and Y are examples. X is m x n for a model made with input(n) (a
vector of m is taken as m x 1 when n is 1), and for one whose examples have a shape of rank 2
or more (input(steps, features), input(28, 28, 1)) either the m x *shape array or the matrix of
its rows, each example's numbers one after another (m x (steps * features), m x 784): the
matrix becomes the array (a view, no copy), the batch form every layer reads (layer.py), so
both forms give the same numbers. The first layer may check X further (embedding: tokens). Y has one column per output unit;
a vector of m is one target per example, the m x 1 matrix, when the last layer
has one unit. For cross_entropy, Y may instead be a vector of m class indices
(0 to units - 1), which becomes the m x units one-hot matrix (fit keeps the indices and
one-hots each batch's rows). A model whose last layer gives examples of rank 2 or more
(sequences) takes Y as the m x *shape array too, and predict gives its outputs back in that
form when X was an array of rank 3 or more (`as_given`), as the matrix of their rows otherwise.
"""
from __future__ import annotations

import numpy as np

from ..errors import LaminaError, describe_shape
from ..nn.losses import one_hot
from ..values import as_tensor, format_number, value_of
from .layer import steps_text


def features(X, spec, who: str, dtype=np.float64) -> np.ndarray:
    """X as the m x *shape array of the model's `dtype` for the model spec `spec` (shape: one
    example's, spec.example), checked by its first layer."""
    inputs = spec.inputs
    x = as_tensor(X, f"{who}'s X")
    if x.ndim == 1 and inputs == 1:
        x = x.reshape(-1, 1)
    given = x
    if x.ndim > 2:
        x = _example_rows(x, spec, who)
    if x.ndim != 2 or x.shape[1] != inputs:
        one = " (for one example, write x' to make it a 1 x n row)" if x.ndim == 1 else ""
        array = f", or is an {_array_text(spec)} array" if len(spec.example) > 1 else ""
        raise LaminaError("ShapeError", f"{who}: X is {describe_shape(x.shape)}, but the model takes "
                          f"{_input_call(spec)}: X needs {inputs} column{'s' * (inputs != 1)}"
                          f"{_steps_words(spec)}, one row per example{one}{array}.")
    if x.shape[0] == 0:
        raise LaminaError("ValueError", f"{who}: X has no rows (examples).")
    if spec.layers:
        spec.layers[0].check_input(given, who)
    x = np.ascontiguousarray(x, dtype=dtype)
    return x if x.shape[1:] == spec.example else x.reshape(x.shape[0], *spec.example)


def _example_rows(x: np.ndarray, spec, who: str) -> np.ndarray:
    """An m x *shape array X as it is, for a model whose examples have that shape; any other array
    of rank 3 or more is an error naming the input layer and both shapes."""
    if x.shape[1:] == spec.example:
        return x.reshape(x.shape[0], spec.inputs)
    if len(spec.example) > 1:
        want = _array_text(spec) + (" (example x step x feature)" if len(spec.example) == 2 else "")
        raise LaminaError("ShapeError", f"{who}: X is {describe_shape(x.shape)}, but the model takes "
                          f"{_input_call(spec)}: an array X must be {want}, or a matrix of "
                          f"{spec.inputs} columns{_steps_words(spec)}, one row per example.")
    raise LaminaError("ShapeError", f"{who}: X is {describe_shape(x.shape)}, but the model takes "
                      f"{_input_call(spec)}: X needs {spec.inputs} column{'s' * (spec.inputs != 1)}, "
                      f"one row per example (only a model made with input(steps, features) or "
                      f"input(height, width, channels) takes an array of examples; reshape(X, {x.shape[0]}, -1) "
                      f"makes each example a row).")


def _array_text(spec) -> str:
    """`m x 20 x 8`, `m x 28 x 28 x 1`."""
    return " x ".join(["m", *map(str, spec.example)])


def _input_call(spec) -> str:
    """The input layer as it was written: `input(6)`, `input(20, 8)`, `input(28, 28, 1)`."""
    return f"input({', '.join(map(str, spec.example))})"


def _steps_words(spec) -> str:
    if spec.steps:
        return f" ({steps_text(spec.steps)} of {spec.inputs // spec.steps}, step after step)"
    return f" ({' x '.join(map(str, spec.example))}, row-major)" if len(spec.example) > 2 else ""


def as_given(out: np.ndarray, X, spec) -> np.ndarray:
    """predict's result in the form X came in: the model's m x *shape outputs as they are when X
    was an array of rank 3 or more, else (X a matrix of rows) as the m x width matrix of theirs."""
    given = value_of(X)
    if out.ndim > 2 and not (isinstance(given, np.ndarray) and given.ndim > 2):
        return out.reshape(out.shape[0], -1)
    return out


def targets(Y, m: int, out, loss, who: str, dtype=np.float64, indices: bool = False) -> np.ndarray:
    """Y as an m x units matrix of the model's `dtype` (class indices become one-hot rows), units
    the width of `out`, the last layer's DataShape. With `indices`, class indices stay a vector of
    m int64s (fit's batches one-hot their own rows, see `one_hot`), so the m x units matrix is
    never made. When the last layer gives examples of rank 2 or more (sequences), Y may be the
    m x *shape array of them."""
    units = out.width
    y = as_tensor(Y, f"{who}'s Y")
    if y.ndim > 2 and out.rank > 1 and y.shape[1:] == out.shape:
        y = y.reshape(y.shape[0], units)
    if y.ndim != 2 and y.ndim != 1:
        array = (f", or an m x {' x '.join(map(str, out.shape))} array (the last layer's "
                 f"{'sequences' if out.rank == 2 else 'outputs'})") if out.rank > 1 else ""
        raise LaminaError("ShapeError", f"{who}: Y must be a vector or matrix{array}, not "
                          f"{describe_shape(y.shape)}.")
    if y.shape[0] != m:
        raise LaminaError("ShapeError", f"{who}: X has {m} rows (examples) but Y is {describe_shape(y.shape)}; "
                          f"they need one row per example each.")
    if loss.builtin == "cross_entropy" and (y.ndim == 1 or (y.shape[1] == 1 and units > 1)):
        # class indices: a vector, or one column (as argmax(P, axis = 1) gives them)
        idx = _class_indices(y.reshape(-1), units, who)
        return idx if indices else one_hot(idx, units, dtype)
    if y.ndim == 1:
        if units != 1:
            raise LaminaError("ShapeError", f"{who}: Y is {describe_shape(y.shape)} (one target per example), but the "
                              f"last layer has {units} units; Y needs to be a {m}x{units} matrix.")
        y = y.reshape(-1, 1)
    if y.shape[1] != units:
        raise LaminaError("ShapeError", f"{who}: Y is {describe_shape(y.shape)}, but the last layer has {units} "
                          f"unit{'s' * (units != 1)}; Y needs {units} column{'s' * (units != 1)} "
                          f"({m}x{units}" + (", or a vector of m" if units == 1 else "")
                          + (", or a vector of class indices" if loss.builtin == "cross_entropy" else "")
                          + ").")
    if loss.classification and (np.any(y < 0) or np.any(y > 1)):
        raise LaminaError("ValueError", f"{who}: {loss.name} needs targets from 0 to 1 (probabilities "
                          f"or one-hot rows), but Y holds {format_number(y.min() if np.any(y < 0) else y.max())}.")
    return np.ascontiguousarray(y, dtype=dtype)


def _class_indices(y: np.ndarray, units: int, who: str) -> np.ndarray:
    idx = y.astype(np.int64)
    bad = (idx != y) | (idx < 0) | (idx >= units)
    if np.any(bad):
        raise LaminaError("ValueError", f"{who}: with cross_entropy a vector Y holds class indices, "
                          f"whole numbers from 0 to {units - 1} (one per output unit), but it holds "
                          f"{format_number(y[bad][0])}.")
    return idx


def refuse_nonfinite(given, data: np.ndarray, what: str, who: str) -> None:
    """Raises if `data` (`given` as features or targets made it) holds NaN or Inf, naming the
    first such number as given, and its row: a finite one became Inf in float32. fit calls it once
    a loss or the weights are no longer finite, to name data that could never train as the cause;
    checked up front, the pass over the data would cost every fit a few percent of an epoch."""
    if np.isfinite(data).all():
        return
    at = tuple(np.argwhere(~np.isfinite(data))[0])
    source = as_tensor(given, f"{who}'s {what}")
    value = float(source.reshape(data.shape)[at]) if source.size == data.size else float(data[at])
    where = f"{who}: {what} holds {format_number(value)} (in row {at[0]})"
    if np.isfinite(value):
        raise LaminaError("ValueError", f"{where}, beyond the range of {data.dtype.name}, the model's "
                          f"dtype (compile's dtype): standardize the data, or compile in float64.")
    raise LaminaError("ValueError", f"{where}; training needs finite numbers: drop or fill the "
                      f"rows that hold NaN or Inf first.")
