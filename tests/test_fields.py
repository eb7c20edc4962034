"""lamina/fields.py: the plain record classes keep what their dataclasses gave."""
from __future__ import annotations

import pickle

import pytest

from lamina.errors import Frame, LaminaError, Source, Span
from lamina.fields import Fields, Frozen
from lamina.files import EVERYTHING, Permissions
from lamina.values import Range


class Point(Frozen):
    def __init__(self, x, y=0):
        self.x, self.y = x, y


class Box(Fields):
    _uncompared = ("label",)

    def __init__(self, size, label=None):
        self.size, self.label = size, label


def test_fields_equality_repr_and_hash():
    assert Point._fields == ("x", "y") and Box._compared == ("size",)
    assert Point(1) == Point(1, 0) and Point(1) != Point(2) and Point(1) != (1, 0)
    assert repr(Point(1, 2)) == "Point(x=1, y=2)"
    assert hash(Point(1, 2)) == hash((1, 2)) and len({Point(1), Point(1, 0)}) == 1
    assert Box(3, "a") == Box(3, "b") and Box(3) != Box(4)
    with pytest.raises(TypeError):
        hash(Box(3))


def test_frozen_refuses_changes():
    p = Point(1)
    with pytest.raises(AttributeError, match="cannot assign to field 'x' of a Point"):
        p.x = 2
    with pytest.raises(AttributeError):
        del p.y
    span = Span(Source("t", "x"), 1, 1)
    with pytest.raises(AttributeError):
        span.line = 2
    with pytest.raises(AttributeError):
        span.other = 1      # slots: no room for another attribute
    assert (p.x, span.line) == (1, 1)


def test_the_core_records_travel_whole():
    span = Span(Source("prog.lam", "x = 1\ny"), 2, 1, 1)
    err = LaminaError("NameError", "Undefined variable 'y'.", span, [Frame("f", span)], note="a note")
    for value in (span, err, Permissions(("a",), None, True), EVERYTHING, Range(0.0, 1.0, whole=True)):
        back = pickle.loads(pickle.dumps(value))
        assert back == value and repr(back) == repr(value)
    assert str(pickle.loads(pickle.dumps(err))) == "NameError: Undefined variable 'y'."
    assert Permissions() == EVERYTHING and hash(Permissions()) == hash(EVERYTHING)
    assert err.stack is not LaminaError("NameError", "m").stack and LaminaError("NameError", "m").stack == []
