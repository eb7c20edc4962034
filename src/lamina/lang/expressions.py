"""Expressions: one method per grammar rule, lowest precedence first.

    pipe        or ("|>" or)*
    or / and    and ("or" and)* / not ("and" not)*
    not         "not" not | comparison
    comparison  additive (("==" | "!=" | "<" | "<=" | ">" | ">=") additive)?      no chains
    additive    multiplicative (("+" | "-") multiplicative)*
    multiplicative  unary (("*" | "/" | ".*" | "./" | "%" | "\\" | "@") unary)*
    unary       ("-" | "+") unary | power
    power       postfix (("^" | ".^") unary)?          right-associative
    postfix     primary ( call | index | "." name [call] | "'" )*

The token helpers live here too; the statement parser (parser.py) builds on them.
"""
from __future__ import annotations

import numpy as np

from ..errors import LaminaError, Source, Span
from . import ast as A
from .lexer import Token, tokenize_fragment

COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")


def matching_closers(tokens: list[Token]) -> dict[int, int]:
    """Position of each opening bracket -> position of the bracket that closes it (one pass, so
    looking ahead to a closer costs nothing however deep the nesting)."""
    closer, open_at = {}, []
    for i, t in enumerate(tokens):
        if t.kind != "OP":
            continue
        if t.text in ("(", "[", "{"):
            open_at.append(i)
        elif t.text in (")", "]", "}") and open_at:
            closer[open_at.pop()] = i
    return closer


def number_array(span: Span, rows: list[list], semicolons: bool) -> A.NumberArray | None:
    """A bracket literal whose elements are all plain numbers (runs of them, or single ones), in
    rows of one length, as one read-only array; None for any other literal."""
    values = []
    for row in rows:
        numbers = []
        for x in row:
            if type(x) is Token:
                numbers.extend(x.value)
            elif type(x) is A.Number:
                numbers.append(x.value)
            else:
                return None
        values.append(numbers)
    if not values or (semicolons and len({len(r) for r in values}) != 1):
        return None        # `[]`, and a ragged matrix (an error the run reports)
    data = np.array(values if semicolons else values[0], dtype=np.float64)
    data.flags.writeable = False
    return A.NumberArray(span, data, semicolons)


def nodes_of(row: list) -> list[A.Node]:
    """A literal's row as syntax nodes: each number of a run its own Number."""
    out = []
    for x in row:
        if type(x) is Token:
            out.extend(A.Number(x.span, v) for v in x.value)
        else:
            out.append(x)
    return out


class ExpressionParser:
    def __init__(self, tokens: list[Token], source: Source):
        self.tokens = tokens
        self.source = source
        self.closer = matching_closers(tokens)
        self.pos = 0
        self.function_depth = 0
        self.loop_depth = 0
        self.errors: list[LaminaError] | None = None    # recovering (parse_with_errors): those found
        self.skipped: list[Token] = []                   # recovering: the tokens skipped
        self.open_blocks: list[str] = []                 # the keywords of the blocks being parsed
        self.finally_block: Token | None = None    # the `finally` whose block is being parsed

    # -- token helpers -----------------------------------------------------------
    @property
    def tok(self) -> Token:
        return self.tokens[self.pos]

    def peek(self, k: int = 1) -> Token:
        return self.tokens[min(self.pos + k, len(self.tokens) - 1)]

    def advance(self) -> Token:
        tok = self.tokens[self.pos]
        if tok.kind != "EOF":
            self.pos += 1
        return tok

    def error(self, message: str, tok: Token | None = None) -> LaminaError:
        tok = tok or self.tok
        return LaminaError("SyntaxError", message, tok.span, incomplete=tok.kind == "EOF")

    def describe(self, tok: Token) -> str:
        if tok.kind == "EOF":
            return "the end of the program"
        if tok.kind == "NEWLINE":
            return "the end of the line"
        return f"'{tok.text}'"

    def expect_op(self, text: str, message: str) -> Token:
        if not self.tok.is_op(text):
            raise self.error(f"{message} Found {self.describe(self.tok)}.")
        return self.advance()

    def expect_name(self, message: str) -> Token:
        if self.tok.kind != "IDENT":
            raise self.error(f"{message} Found {self.describe(self.tok)}.")
        return self.advance()

    def text_between(self, start: int, stop: int) -> str:
        """The source text of tokens[start:stop] (as written when they share a line)."""
        first, last = self.tokens[start], self.tokens[stop - 1]
        if first.span.line == last.span.line and first.span.source is self.source:
            line = self.source.line(first.span.line)
            return line[first.span.col - 1:last.span.col - 1 + len(last.text)]
        return " ".join(t.text for t in self.tokens[start:stop])

    def skip_newlines(self) -> None:
        while self.tok.kind == "NEWLINE" or self.tok.is_op(";"):
            self.advance()

    # -- expressions ---------------------------------------------------------------
    def expression(self) -> A.Node:
        return self.pipe()

    def pipe(self) -> A.Node:
        left = self.logic_or()
        while self.tok.is_op("|>"):
            op = self.advance()
            right = self.logic_or()
            if isinstance(right, A.Call):
                left = A.Call(right.span, right.callee, [left] + right.args, right.kwargs)
            elif isinstance(right, A.MethodCall):
                left = A.MethodCall(right.span, right.target, right.name, [left] + right.args, right.kwargs)
            else:
                left = A.Call(op.span, right, [left], [])
        return left

    def logic_or(self) -> A.Node:
        left = self.logic_and()
        while self.tok.is_kw("or"):
            op = self.advance()
            left = A.Logical(op.span, "or", left, self.logic_and())
        return left

    def logic_and(self) -> A.Node:
        left = self.logic_not()
        while self.tok.is_kw("and"):
            op = self.advance()
            left = A.Logical(op.span, "and", left, self.logic_not())
        return left

    def logic_not(self) -> A.Node:
        if self.tok.is_kw("not"):
            op = self.advance()
            return A.Unary(op.span, "not", self.logic_not())
        return self.comparison()

    def comparison(self) -> A.Node:
        left = self.additive()
        if self.tok.is_op(*COMPARISONS):
            op = self.advance()
            left = A.Binary(op.span, op.text, left, self.additive())
            if self.tok.is_op(*COMPARISONS):
                # `a < b < c` chains in Python and Julia; taken left to right it would compare a
                # bool with c (`1 == 1 == 1` false), so it is refused.
                raise self.error(f"Comparisons do not chain: write 'a {op.text} b and b {self.tok.text} c' "
                                 "for both to hold.")
        return left

    def additive(self) -> A.Node:
        left = self.multiplicative()
        while self.tok.is_op("+", "-"):
            op = self.advance()
            left = A.Binary(op.span, op.text, left, self.multiplicative())
        return left

    def multiplicative(self) -> A.Node:
        left = self.unary()
        while self.tok.is_op("*", "/", ".*", "./", "%", "\\", "@"):
            op = self.advance()
            left = A.Binary(op.span, op.text, left, self.unary())
        return left

    def unary(self) -> A.Node:
        if self.tok.is_op("-", "+"):
            op = self.advance()
            operand = self.unary()
            if op.text == "-" and isinstance(operand, A.Number):
                return A.Number(op.span, -operand.value)
            return A.Unary(op.span, op.text, operand)
        return self.power()

    def power(self) -> A.Node:
        base = self.postfix()
        if self.tok.is_op("^", ".^"):
            op = self.advance()
            return A.Binary(op.span, op.text, base, self.unary())
        return base

    def postfix(self) -> A.Node:
        node = self.primary()
        while True:
            tok = self.tok
            if tok.is_op("("):
                self.advance()
                args, kwargs = self.arguments()
                node = A.Call(node.span if isinstance(node, A.Name) else tok.span, node, args, kwargs)
            elif tok.is_op("["):
                self.advance()
                node = A.Index(tok.span, node, self.index_items())
            elif tok.is_op("."):
                self.advance()
                name = self.expect_name("Expect a field name after '.'.")
                if self.tok.is_op("("):
                    self.advance()
                    args, kwargs = self.arguments()
                    node = A.MethodCall(name.span, node, name.text, args, kwargs)
                else:
                    node = A.Field(name.span, node, name.text)
            elif tok.is_op("'"):
                self.advance()
                node = A.Transpose(tok.span, node)
            else:
                return node

    def arguments(self) -> tuple[list[A.Node], list[A.Keyword]]:
        args, kwargs = [], []
        while not self.tok.is_op(")"):
            if self.tok.kind == "IDENT" and self.peek().is_op("="):
                name = self.advance()
                self.advance()
                if any(k.name == name.text for k in kwargs):
                    raise self.error(f"Keyword argument '{name.text}' is given twice.", name)
                kwargs.append(A.Keyword(name.span, name.text, self.expression()))
            else:
                if kwargs:
                    raise self.error("Positional arguments must come before keyword arguments.")
                args.append(self.expression())
            if not self.tok.is_op(")"):
                self.expect_op(",", "Expect ',' or ')' after an argument.")
        self.advance()
        return args, kwargs

    def index_items(self) -> list[A.Node]:
        items = []
        while True:
            start_tok = self.tok
            start = None if self.tok.is_op(":") else self.expression()
            if self.tok.is_op(":"):
                self.advance()
                stop = None if self.tok.is_op(",", "]") else self.expression()
                items.append(A.Slice(start_tok.span, start, stop))
            else:
                if start is None:
                    raise self.error("Expect an index.")
                items.append(start)
            if self.tok.is_op("]"):
                self.advance()
                return items
            self.expect_op(",", "Expect ',' or ']' after an index.")

    def primary(self) -> A.Node:
        tok = self.tok
        if tok.kind == "NUMBER":
            self.advance()
            return A.Number(tok.span, tok.value)
        if tok.kind == "STRING":
            self.advance()
            return self.string(tok)
        if tok.kind == "IDENT":
            if self.peek().is_op("->"):
                return self.lambda_expr([self.advance()])
            self.advance()
            return A.Name(tok.span, tok.text)
        if tok.is_kw("true", "false"):
            self.advance()
            return A.Bool(tok.span, tok.text == "true")
        if tok.is_kw("none"):
            self.advance()
            return A.NoneLit(tok.span)
        if tok.is_op("("):
            if self.lambda_ahead():
                return self.lambda_params()
            self.advance()
            inner = self.expression()
            self.expect_op(")", "Expect ')' after the expression.")
            return inner
        if tok.is_op("["):
            return self.matrix()
        if tok.is_op("{"):
            return self.record()
        if tok.is_op("'"):
            raise self.error("Unexpected \"'\": strings use double quotes, and ' is the transpose operator.")
        if tok.is_kw("end") and self.pos and self.tokens[self.pos - 1].is_op("[", ":", ","):
            raise self.error("'end' closes a block; inside [ ] the last element is -1 (v[-1], v[2:]).")
        if tok.kind == "KEYWORD":
            raise self.error(f"Expect an expression, found the keyword '{tok.text}'.")
        raise self.error(f"Expect an expression, found {self.describe(tok)}.")

    def lambda_ahead(self) -> bool:
        """Whether the '(' here opens the parameters of `(a, b) -> ...`: its closer is followed by '->'."""
        close = self.closer.get(self.pos)
        return close is not None and self.tokens[close + 1].is_op("->")

    def lambda_params(self) -> A.Lambda:
        self.advance()
        names, defaults = [], []
        while not self.tok.is_op(")"):
            name = self.expect_name("Expect a parameter name in the anonymous function.")
            names.append(name)
            if self.tok.is_op("="):
                self.advance()
                defaults.append(self.expression())
            elif defaults:
                raise self.error(f"Parameter '{name.text}' needs a default because the one before it has one.", name)
            if not self.tok.is_op(")"):
                self.expect_op(",", "Expect ',' or ')' after a parameter.")
        self.advance()
        return self.lambda_expr(names, defaults)

    def lambda_expr(self, names: list[Token], defaults: list[A.Node] | None = None) -> A.Lambda:
        arrow = self.expect_op("->", "Expect '->' in an anonymous function.")
        params = [n.text for n in names]
        if len(set(params)) != len(params):
            raise self.error("An anonymous function lists a parameter twice.", arrow)
        self.function_depth += 1
        body = self.expression()
        self.function_depth -= 1
        return A.Lambda(arrow.span, params, body, defaults or [])

    def matrix(self) -> A.Matrix | A.NumberArray:
        open_tok = self.advance()
        rows: list[list] = [[]]     # syntax nodes, and the NUMBERS tokens of runs of plain numbers
        semicolons = False
        while not self.tok.is_op("]"):
            if self.tok.kind == "NUMBERS":          # `1, 2.5, -3, `: numbers with their commas
                rows[-1].append(self.advance())
                if self.tok.is_op("]", ";"):
                    raise self.error("Expect an element after ','.")
                continue
            if self.tok.is_op(";"):
                raise LaminaError("SyntaxError", "A matrix literal has an empty row.", open_tok.span)
            rows[-1].append(self.plain_number() or self.expression())
            if self.tok.is_op(","):
                self.advance()
                if self.tok.is_op("]", ";"):
                    raise self.error("Expect an element after ','.")
            elif self.tok.is_op(";"):
                self.advance()
                semicolons = True
                rows.append([])
            elif not self.tok.is_op("]"):
                raise self.error(f"Expect ',' ';' or ']' in a bracket literal, found {self.describe(self.tok)}.")
        self.advance()
        if semicolons and not rows[-1]:
            rows.pop()              # `[1, 2, 3;]`: a trailing ';' ends the last row (a 1 x n matrix)
        if rows == [[]]:
            rows = []
        numbers = number_array(open_tok.span, rows, semicolons)
        if numbers is not None:
            return numbers
        return A.Matrix(open_tok.span, [nodes_of(row) for row in rows], semicolons)

    def plain_number(self) -> A.Number | None:
        """A literal element that is just a number (`1.5`, `-2`): taken without the whole descent
        through the precedence levels, so a literal of a million numbers parses in linear time
        with a small constant. Anything else (an expression) returns None."""
        tok, i = self.tok, self.pos
        sign = 1.0
        if tok.is_op("-") and self.tokens[i + 1].kind == "NUMBER":
            sign, i = -1.0, i + 1
        if self.tokens[i].kind != "NUMBER" or not self.tokens[i + 1].is_op(",", ";", "]"):
            return None
        self.pos = i + 1
        return A.Number(tok.span, sign * self.tokens[i].value)

    def record(self) -> A.RecordLit:
        open_tok = self.advance()
        fields: list[tuple[str, A.Node]] = []
        while not self.tok.is_op("}"):
            name = self.expect_name("Expect a field name in a record: {name = value}.")
            if any(f == name.text for f, _ in fields):
                raise self.error(f"Field '{name.text}' is given twice.", name)
            self.expect_op("=", f"Expect '=' after the field name '{name.text}'.")
            fields.append((name.text, self.expression()))
            if not self.tok.is_op("}"):
                self.expect_op(",", "Expect ',' or '}' after a record field.")
        self.advance()
        return A.RecordLit(open_tok.span, fields)

    def string(self, tok: Token) -> A.String:
        parts = []
        for part in tok.value:
            if isinstance(part, str):
                parts.append(part)
                continue
            text, col, spec = part
            if not text.strip():
                raise LaminaError("SyntaxError", f"'{{:{spec}}}' in a string needs a value before the ':'.",
                                  Span(self.source, tok.span.line, col - 1, len(spec) + 3))
            tokens = tokenize_fragment(self.source, text, tok.span.line, col)
            sub = type(self)(tokens, self.source)
            sub.function_depth = self.function_depth
            sub.skip_newlines()
            expr = sub.expression()
            sub.skip_newlines()
            if sub.tok.kind != "EOF":
                raise sub.error(f"Unexpected {sub.describe(sub.tok)} in a string interpolation.")
            parts.append(expr if spec is None else A.Formatted(expr.span, expr, spec))
        return A.String(tok.span, parts)
