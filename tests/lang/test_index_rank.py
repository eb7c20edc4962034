"""Indexing and stores on arrays of rank 3 and 4, run as Lamina source, against NumPy.

Random index tuples of positions (negative too), slices (either end left out, negative bounds),
index lists (repeats allowed) and masks, on every axis: a position drops its axis, anything else
keeps it, and lists pick every combination of their positions (MATLAB's and Julia's rule, which
the reference below builds one axis at a time with NumPy). Stores write the same regions, with a
number, a value of the region's shape, or one stretched on its axes of length 1, and leave the
original variable's value alone when another variable holds it.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from lamina.errors import LaminaError
from lamina.interpreter import Interpreter
from lamina.lang.scope import mangle


def run(source: str, **values):
    interpreter = Interpreter()
    for name, value in values.items():
        interpreter.namespace[mangle(name)] = value
    return interpreter.run_cell(source, "<index test>")


@st.composite
def selections(draw):
    """(array, Lamina index text, [(kind, numpy key) per axis])."""
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=3, max_size=4)))
    a = np.arange(np.prod(shape), dtype=float).reshape(shape) - 7
    used = draw(st.integers(1, len(shape)))
    texts, keys = [], []
    for n in shape[:used]:
        kind = draw(st.sampled_from(["position", "slice", "all", "list", "mask"]))
        if kind == "position":
            i = draw(st.integers(-n, n - 1))
            texts.append(str(i))
            keys.append(("position", i))
        elif kind == "slice":
            lo = draw(st.one_of(st.none(), st.integers(-n, n)))
            hi = draw(st.one_of(st.none(), st.integers(-n, n)))
            texts.append(f"{'' if lo is None else lo}:{'' if hi is None else hi}")
            keys.append(("slice", slice(lo, hi)))
        elif kind == "all":
            texts.append(":")
            keys.append(("slice", slice(None)))
        elif kind == "list":
            picks = draw(st.lists(st.integers(-n, n - 1), min_size=1, max_size=4))
            texts.append(str(picks))
            keys.append(("list", picks))
        else:
            mask = draw(st.lists(st.booleans(), min_size=n, max_size=n))
            texts.append("[" + ", ".join(str(int(m)) for m in mask) + "] > 0")
            keys.append(("list", [i for i, m in enumerate(mask) if m]))
    return a, ", ".join(texts), keys


def reference_read(a: np.ndarray, keys: list) -> np.ndarray:
    """Each axis on its own, from the last to the first: every combination of the lists."""
    out = a
    for axis in reversed(range(len(keys))):
        kind, k = keys[axis]
        if kind == "position":
            out = np.take(out, k, axis=axis)
        elif kind == "slice":
            out = out[(slice(None),) * axis + (k,)]
        else:
            out = np.take(out, np.array(k, dtype=int), axis=axis)
    return out


def reference_positions(shape: tuple, keys: list) -> list:
    """For each axis, the positions a key names, in order (a position as a list of one)."""
    out = []
    for n, (kind, k) in zip(shape, keys + [("slice", slice(None))] * (len(shape) - len(keys))):
        if kind == "position":
            out.append([k % n])
        elif kind == "slice":
            out.append(list(range(n))[k])
        else:
            out.append([p % n for p in k])
    return out


@settings(max_examples=300, deadline=None)
@given(selections())
def test_reading_a_selection_of_an_array_equals_numpy_axis_by_axis(selection):
    a, text, keys = selection
    expected = reference_read(a, keys)
    got = run(f"a[{text}]", a=a)
    if expected.ndim == 0:
        assert got == float(expected)
    else:
        assert isinstance(got, np.ndarray) and got.shape == expected.shape, text
        np.testing.assert_array_equal(got, expected, err_msg=text)


@settings(max_examples=300, deadline=None)
@given(selections(), st.sampled_from(["number", "region", "stretched"]))
def test_storing_into_a_selection_writes_those_positions_and_leaves_a_copy_alone(selection, what):
    a, text, keys = selection
    region = reference_read(a, keys).shape
    if what == "number" or not region:
        value, source_value = 100.5, "100.5"
    else:
        shape = region if what == "region" else tuple(1 if i % 2 else n for i, n in enumerate(region))
        if len(shape) == 1 and what == "stretched":
            shape = region                         # a vector's length never stretches
        value = np.arange(np.prod(shape), dtype=float).reshape(shape) * 10 + 1000
        source_value = "v"
    stored, kept = run(f"b = a\nb[{text}] = {source_value}\n[b, a]", a=a.copy(), v=value)
    expected = a.copy()
    positions = reference_positions(a.shape, keys)
    target = np.broadcast_to(value, region) if isinstance(value, np.ndarray) else value
    mesh = np.ix_(*[np.array(p, dtype=int) for p in positions])
    dropped = [i for i, (kind, _) in enumerate(keys) if kind == "position"]
    block = np.expand_dims(target, dropped) if isinstance(target, np.ndarray) else target
    expected[mesh] = np.broadcast_to(block, [len(p) for p in positions]) if isinstance(block, np.ndarray) \
        else block
    if any(len(set(p)) < len(p) for p in positions):    # repeated positions: the last write lands
        expected = a.copy()
        for index in np.ndindex(*[len(p) for p in positions]):
            spot = tuple(p[i] for p, i in zip(positions, index))
            kept_index = tuple(i for axis, i in enumerate(index) if axis not in dropped)
            expected[spot] = target[kept_index] if isinstance(target, np.ndarray) else target
    np.testing.assert_array_equal(stored, expected, err_msg=text)
    np.testing.assert_array_equal(kept, a, err_msg="the other variable's value changed")


@pytest.mark.parametrize("source, message", [
    ("a[0, 0, 4]", "IndexError: Index 4 is out of range for axis 2 of a 2x3x4 array (valid: 0 to 3, or -4 to -1)."),
    ("a[0, -4, 0]", "IndexError: Index -4 is out of range for axis 1 of a 2x3x4 array (valid: 0 to 2, or -3 to -1)."),
    ("a[0, 0, 0, 0]", "IndexError: A 2x3x4 array takes at most 3 indices; got 4."),
    ("a[:, :, [0, 4]]", "IndexError: Index 4 in the index list is out of range for a 2x3x4 array (valid: 0 to 3, or -4 to -1)."),
    ("a[:, [1, 0] > 0, :]", "IndexError: A mask of length 2 cannot pick positions along axis 1 of a 2x3x4 array: "
                            "it needs one true or false for each of the 3 positions along axis 1."),
    ("a[0, :, :] = ones(2, 4)", "ShapeError: Cannot store a 2x4 matrix into a 3x4 region."),
    ("a[:, 0, :] = ones(2, 1, 4)", "ShapeError: Cannot store a 2x1x4 array into a 2x4 region."),
    ("a[0.5, 0, 0]", "TypeError: The index on axis 0 must be a whole number, not 0.5."),
])
def test_a_bad_index_or_store_on_an_array_is_a_clear_error(source, message):
    with pytest.raises(LaminaError) as caught:
        run(source, a=np.zeros((2, 3, 4)))
    assert f"{caught.value.kind}: {caught.value.message}" == message
