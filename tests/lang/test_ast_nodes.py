"""The syntax tree's node classes behave as the dataclasses they replaced did."""
from __future__ import annotations

import pytest

from lamina.errors import Source, Span
from lamina.lang import ast as A

SRC = Source("t", "x + 1\ny")
AT = Span(SRC, 1, 1)
ELSEWHERE = Span(SRC, 2, 1)


def test_fields_are_the_constructors_parameters_in_order():
    assert A.Node._fields == ("span",)
    assert A.Binary._fields == ("span", "op", "left", "right")
    assert A.ForRange._fields == ("span", "var", "start", "stop", "step", "body")
    assert A.Param._fields == ("name", "default", "span")
    assert A.Program._fields == ("body",)


def test_defaults_are_fresh_lists_and_none():
    a, b = A.Call(AT, A.Name(AT, "f"), []), A.Call(AT, A.Name(AT, "f"), [])
    assert a.kwargs == [] and a.kwargs is not b.kwargs
    assert A.Lambda(AT, ["x"], A.Name(AT, "x")).defaults == []
    assert A.Assign(AT, A.Name(AT, "x"), A.Number(AT, 1.0)).op is None
    node = A.Import(AT, "helpers", False, "h")
    assert (node.spec_span, node.alias_span) == (None, None)
    assert A.Call(AT, A.Name(AT, "f"), [], kwargs=[A.Keyword(AT, "k", A.Number(AT, 2.0))]).kwargs[0].name == "k"


def test_equality_compares_class_and_fields():
    one = A.Binary(AT, "+", A.Name(AT, "x"), A.Number(AT, 1.0))
    assert one == A.Binary(AT, "+", A.Name(AT, "x"), A.Number(AT, 1.0))
    assert one != A.Binary(AT, "-", A.Name(AT, "x"), A.Number(AT, 1.0))
    assert one != A.Binary(ELSEWHERE, "+", A.Name(AT, "x"), A.Number(AT, 1.0))
    assert A.Logical(AT, "+", one.left, one.right) != A.Binary(AT, "+", one.left, one.right)
    assert one != "x + 1"
    nan = float("nan")
    same = A.Number(AT, nan)
    assert same == A.Number(AT, nan)     # the one NaN object: equal, as in a tuple


def test_the_editor_spans_are_not_compared():
    assert A.Import(AT, "m", False, "m", AT, AT) == A.Import(AT, "m", False, "m", ELSEWHERE, None)
    assert A.Try(AT, [], "e", [], None, AT) == A.Try(AT, [], "e", [], None, None)
    assert A.Try(AT, [], "e", [], None) != A.Try(AT, [], "f", [], None)


def test_repr_shows_every_field_and_nodes_are_not_hashable():
    node = A.Import(AT, "m", False, "m", AT)
    assert repr(A.Name(AT, "x")) == f"Name(span={AT!r}, name='x')"
    assert repr(node) == f"Import(span={AT!r}, spec='m', is_path=False, alias='m', spec_span={AT!r}, alias_span=None)"
    assert repr(A.Program([])) == "Program(body=[])"
    with pytest.raises(TypeError):
        hash(A.Name(AT, "x"))
