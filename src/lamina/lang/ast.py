"""Syntax tree nodes. Every node carries the span of the token that names it.

The classes are written out by hand rather than as dataclasses, which cost 15 ms of every
start (lamina/fields.py); they behave as the dataclasses did: the fields are the constructor's
parameters in order (`_fields`), two nodes are equal when they are of one class and their fields
are equal (a field named in `_uncompared` aside), repr shows every field, and a node is not
hashable.
"""
from __future__ import annotations

from ..errors import Span
from ..fields import Fields


class Node(Fields):
    def __init__(self, span: Span):
        self.span = span


# -- expressions ---------------------------------------------------------------
class Number(Node):
    def __init__(self, span: Span, value: float):
        self.span, self.value = span, value


class String(Node):
    def __init__(self, span: Span, parts: list):    # parts: str, Expr, or Formatted
        self.span, self.parts = span, parts


class Formatted(Node):
    """`{expr:spec}` inside a string: the value written with a format spec."""

    def __init__(self, span: Span, expr: Node, spec: str):
        self.span, self.expr, self.spec = span, expr, spec


class Bool(Node):
    def __init__(self, span: Span, value: bool):
        self.span, self.value = span, value


class NoneLit(Node):
    def __init__(self, span: Span):
        self.span = span


class Name(Node):
    def __init__(self, span: Span, name: str):
        self.span, self.name = span, name


class Matrix(Node):
    def __init__(self, span: Span, rows: list[list[Node]], semicolons: bool):
        self.span = span
        self.rows = rows                  # one row: `[a, b]`; several: `[a, b; c, d]`
        self.semicolons = semicolons      # written with `;` (a matrix even with one column)


class NumberArray(Node):
    """A bracket literal of plain numbers only (`[1, -2.5; 3, 4]`, rows of one length), read as
    one read-only float64 array as it is parsed: a literal of a million numbers is one node, not
    a million, and becomes one constant of the compiled code."""

    def __init__(self, span: Span, values, semicolons: bool):
        self.span = span
        self.values = values              # a read-only ndarray: a vector, or a matrix for `;`
        self.semicolons = semicolons

    def __eq__(self, other):
        # an array's `==` is elementwise; two literals are equal when their numbers are, bit for bit
        if other.__class__ is not self.__class__:
            return NotImplemented
        return (self.span, self.semicolons, self.values.shape, self.values.tobytes()) == \
            (other.span, other.semicolons, other.values.shape, other.values.tobytes())


class RecordLit(Node):
    def __init__(self, span: Span, fields: list[tuple[str, Node]]):
        self.span, self.fields = span, fields


class Unary(Node):
    def __init__(self, span: Span, op: str, operand: Node):    # op: "-", "+", "not"
        self.span, self.op, self.operand = span, op, operand


class Binary(Node):
    def __init__(self, span: Span, op: str, left: Node, right: Node):
        self.span, self.op, self.left, self.right = span, op, left, right


class Logical(Node):
    def __init__(self, span: Span, op: str, left: Node, right: Node):    # op: "and", "or"
        self.span, self.op, self.left, self.right = span, op, left, right


class Transpose(Node):
    def __init__(self, span: Span, operand: Node):
        self.span, self.operand = span, operand


class Keyword(Node):
    def __init__(self, span: Span, name: str, value: Node):
        self.span, self.name, self.value = span, name, value


class Call(Node):
    def __init__(self, span: Span, callee: Node, args: list[Node], kwargs: list[Keyword] | None = None):
        self.span, self.callee, self.args = span, callee, args
        self.kwargs = [] if kwargs is None else kwargs


class MethodCall(Node):
    def __init__(self, span: Span, target: Node, name: str, args: list[Node],
                 kwargs: list[Keyword] | None = None):
        self.span, self.target, self.name, self.args = span, target, name, args
        self.kwargs = [] if kwargs is None else kwargs


class Field(Node):
    def __init__(self, span: Span, target: Node, name: str):
        self.span, self.target, self.name = span, target, name


class Slice(Node):
    def __init__(self, span: Span, start: Node | None, stop: Node | None):
        self.span, self.start, self.stop = span, start, stop


class Index(Node):
    def __init__(self, span: Span, target: Node, items: list[Node]):    # items: expressions or Slice
        self.span, self.target, self.items = span, target, items


class Lambda(Node):
    def __init__(self, span: Span, params: list[str], body: Node, defaults: list[Node] | None = None):
        self.span, self.params, self.body = span, params, body
        self.defaults = [] if defaults is None else defaults    # for the last len(defaults) params


class Temp(Node):
    """A value the compiler has already put in a temporary (the indices of `a[i] += v`)."""

    def __init__(self, span: Span, name: str):
        self.span, self.name = span, name


# -- statements ----------------------------------------------------------------
class Statement(Node):
    """A statement. Each kind has a compile handler (compiler.STATEMENTS) and a rule saying
    which names it binds and which blocks it holds (resolver.RULES); both tables are checked
    against the subclasses of this class at import."""


class ExprStmt(Statement):
    def __init__(self, span: Span, expr: Node):
        self.span, self.expr = span, expr


class Assign(Statement):
    def __init__(self, span: Span, target: Node, value: Node, op: str | None = None):
        self.span = span
        self.target = target    # Name, Index or Field chain ending in a Name
        self.value = value
        self.op = op            # "+", "-", "*", "/" for `target op= value`


class Param(Fields):
    def __init__(self, name: str, default: Node | None, span: Span):
        self.name, self.default, self.span = name, default, span


class FunctionDef(Statement):
    def __init__(self, span: Span, name: str, params: list[Param], body: list[Node]):
        self.span, self.name, self.params, self.body = span, name, params, body


class Return(Statement):
    def __init__(self, span: Span, value: Node | None):
        self.span, self.value = span, value


class If(Statement):
    def __init__(self, span: Span, branches: list[tuple[Node, list[Node]]], orelse: list[Node] | None):
        self.span = span
        self.branches = branches    # (condition, body) for if / elseif
        self.orelse = orelse


class ForRange(Statement):
    def __init__(self, span: Span, var: str, start: Node, stop: Node, step: Node | None, body: list[Node]):
        self.span, self.var, self.start, self.stop, self.step, self.body = span, var, start, stop, step, body


class ForIn(Statement):
    def __init__(self, span: Span, var: str, iterable: Node, body: list[Node]):
        self.span, self.var, self.iterable, self.body = span, var, iterable, body


class While(Statement):
    def __init__(self, span: Span, cond: Node, body: list[Node]):
        self.span, self.cond, self.body = span, cond, body


class Import(Statement):
    # where the module is named (its name or path) and where the alias after `as` is, for editors
    _uncompared = ("spec_span", "alias_span")

    def __init__(self, span: Span, spec: str, is_path: bool, alias: str, spec_span: Span | None = None,
                 alias_span: Span | None = None):
        self.span = span
        self.spec = spec            # a module name (`helpers`) or a path (`"lib/prep.lam"`)
        self.is_path = is_path
        self.alias = alias          # the name the module is bound to
        self.spec_span, self.alias_span = spec_span, alias_span


class Try(Statement):
    _uncompared = ("var_span",)

    def __init__(self, span: Span, body: list[Node], var: str | None, handler: list[Node] | None,
                 final: list[Node] | None, var_span: Span | None = None):
        self.span, self.body = span, body
        self.var = var              # `catch err`: the name the error record is bound to
        self.handler = handler      # None: no catch block
        self.final = final          # None: no finally block
        self.var_span = var_span    # where `err` is written


class Break(Statement):
    def __init__(self, span: Span):
        self.span = span


class Continue(Statement):
    def __init__(self, span: Span):
        self.span = span


class Program(Fields):
    def __init__(self, body: list[Node]):
        self.body = body


def start_of(node: Node) -> Span:
    """The span of the first token of a node's text (its own span is the token that names it:
    the `=` of an assignment, the operator of `a + b`)."""
    first, stack = node.span, [node]
    while stack:
        x = stack.pop()
        if type(x) is Span:
            if x.source is first.source and (x.line, x.col) < (first.line, first.col):
                first = x
        elif isinstance(x, (list, tuple)):
            stack.extend(x)
        elif isinstance(x, (Node, Param)):
            stack.extend(getattr(x, f) for f in x._fields)
    return first


def children(node) -> list:
    """The syntax nodes directly inside `node` (statements and expressions alike)."""
    out = []
    for value in vars(node).values():
        if isinstance(value, Node):
            out.append(value)
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, Node):
                    out.append(item)
                elif isinstance(item, (tuple, list)):      # If branches, record fields, matrix rows
                    out.extend(x for x in item if isinstance(x, Node))
        elif isinstance(value, tuple):
            out.extend(x for x in value if isinstance(x, Node))
    if isinstance(node, If):
        out.extend(s for _, body in node.branches for s in body)
    return out


def walk(nodes: list, into_functions: bool = False):
    """Every node in `nodes` and below; functions and lambdas are entered only if asked."""
    stack = list(nodes)
    while stack:
        node = stack.pop()
        yield node
        if not into_functions and isinstance(node, (FunctionDef, Lambda)):
            continue
        stack.extend(children(node))
