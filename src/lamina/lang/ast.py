"""Syntax tree nodes. Every node carries the span of the token that names it."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import Span


@dataclass
class Node:
    span: Span


# -- expressions ---------------------------------------------------------------
@dataclass
class Number(Node):
    value: float


@dataclass
class String(Node):
    parts: list          # str, Expr, or Formatted


@dataclass
class Formatted(Node):
    """`{expr:spec}` inside a string: the value written with a format spec."""
    expr: Node
    spec: str


@dataclass
class Bool(Node):
    value: bool


@dataclass
class NoneLit(Node):
    pass


@dataclass
class Name(Node):
    name: str


@dataclass
class Matrix(Node):
    rows: list[list[Node]]    # one row: `[a, b]`; several: `[a, b; c, d]`
    semicolons: bool          # written with `;` (a matrix even with one column)


@dataclass
class RecordLit(Node):
    fields: list[tuple[str, Node]]


@dataclass
class Unary(Node):
    op: str                   # "-", "+", "not"
    operand: Node


@dataclass
class Binary(Node):
    op: str
    left: Node
    right: Node


@dataclass
class Logical(Node):
    op: str                   # "and", "or"
    left: Node
    right: Node


@dataclass
class Transpose(Node):
    operand: Node


@dataclass
class Keyword(Node):
    name: str
    value: Node


@dataclass
class Call(Node):
    callee: Node
    args: list[Node]
    kwargs: list[Keyword] = field(default_factory=list)


@dataclass
class MethodCall(Node):
    target: Node
    name: str
    args: list[Node]
    kwargs: list[Keyword] = field(default_factory=list)


@dataclass
class Field(Node):
    target: Node
    name: str


@dataclass
class Slice(Node):
    start: Node | None
    stop: Node | None


@dataclass
class Index(Node):
    target: Node
    items: list[Node]          # expressions or Slice


@dataclass
class Lambda(Node):
    params: list[str]
    body: Node
    defaults: list[Node] = field(default_factory=list)   # for the last len(defaults) params


@dataclass
class Temp(Node):
    """A value the compiler has already put in a temporary (the indices of `a[i] += v`)."""
    name: str


# -- statements ----------------------------------------------------------------
@dataclass
class ExprStmt(Node):
    expr: Node


@dataclass
class Assign(Node):
    target: Node               # Name, Index or Field chain ending in a Name
    value: Node
    op: str | None = None      # "+", "-", "*", "/" for `target op= value`


@dataclass
class Param:
    name: str
    default: Node | None
    span: Span


@dataclass
class FunctionDef(Node):
    name: str
    params: list[Param]
    body: list[Node]


@dataclass
class Return(Node):
    value: Node | None


@dataclass
class If(Node):
    branches: list[tuple[Node, list[Node]]]   # (condition, body) for if / elseif
    orelse: list[Node] | None


@dataclass
class ForRange(Node):
    var: str
    start: Node
    stop: Node
    step: Node | None
    body: list[Node]


@dataclass
class ForIn(Node):
    var: str
    iterable: Node
    body: list[Node]


@dataclass
class While(Node):
    cond: Node
    body: list[Node]


@dataclass
class Import(Node):
    spec: str                  # a module name (`helpers`) or a path (`"lib/prep.lam"`)
    is_path: bool
    alias: str                 # the name the module is bound to
    # where the module is named (its name or path) and where the alias after `as` is, for editors
    spec_span: Span | None = field(default=None, compare=False)
    alias_span: Span | None = field(default=None, compare=False)


@dataclass
class Try(Node):
    body: list[Node]
    var: str | None            # `catch err`: the name the error record is bound to
    handler: list[Node] | None  # None: no catch block
    final: list[Node] | None    # None: no finally block
    var_span: Span | None = field(default=None, compare=False)   # where `err` is written


@dataclass
class Break(Node):
    pass


@dataclass
class Continue(Node):
    pass


@dataclass
class Program:
    body: list[Node]
