"""Tokens -> syntax tree: statements and blocks (expressions.py parses expressions)."""
from __future__ import annotations

from ..errors import LaminaError, Source
from . import ast as A
from .expressions import ExpressionParser
from .lexer import Token, tokenize

BLOCK_KEYWORDS = ("function", "for", "while", "if")


class Parser(ExpressionParser):
    # -- statements ----------------------------------------------------------------
    def program(self) -> A.Program:
        body = self.block(())
        if self.tok.kind != "EOF":
            tok = self.tok
            if tok.is_kw("end", "elseif", "else"):
                raise self.error(f"'{tok.text}' has no open block to close.", tok)
            raise self.error(f"Unexpected {self.describe(tok)}.", tok)
        return A.Program(body)

    def block(self, terminators: tuple[str, ...]) -> list[A.Node]:
        body = []
        self.skip_newlines()
        while self.tok.kind != "EOF" and not self.tok.is_kw(*terminators, "end", "elseif", "else"):
            body.append(self.statement())
            if self.tok.kind not in ("NEWLINE", "EOF") and not self.tok.is_op(";"):
                raise self.error(f"Expect the end of the line after a statement, found {self.describe(self.tok)}.")
            self.skip_newlines()
        return body

    def statement(self) -> A.Node:
        tok = self.tok
        if tok.kind == "KEYWORD":
            handler = {
                "function": self.function_def, "for": self.for_stmt, "while": self.while_stmt,
                "if": self.if_stmt, "return": self.return_stmt,
                "break": self.loop_jump, "continue": self.loop_jump,
            }.get(tok.text)
            if handler:
                return handler()
        expr = self.expression()
        if self.tok.is_op("="):
            eq = self.advance()
            self.check_target(expr, eq)
            return A.Assign(eq.span, expr, self.expression())
        return A.ExprStmt(expr.span, expr)

    def check_target(self, target: A.Node, eq: Token) -> None:
        node = target
        while isinstance(node, (A.Index, A.Field)):
            node = node.target
        if not isinstance(node, A.Name):
            raise LaminaError("SyntaxError", "Can only assign to a variable, an element `a[i]` or a "
                              "field `r.f`. (Use `==` to compare.)", eq.span)

    def close_block(self, keyword: Token) -> None:
        """`end` or `end KEYWORD` closing the block that `keyword` opened."""
        if not self.tok.is_kw("end"):
            raise LaminaError(
                "SyntaxError",
                f"The '{keyword.text}' block opened at line {keyword.span.line} is never closed; "
                f"expect 'end {keyword.text}'.", keyword.span, incomplete=self.tok.kind == "EOF")
        end = self.advance()
        if self.tok.is_kw(*BLOCK_KEYWORDS) and self.tok.span.line == end.span.line:
            closer = self.advance()
            if closer.text != keyword.text:
                raise LaminaError(
                    "SyntaxError",
                    f"'end {closer.text}' at line {end.span.line} closes the '{keyword.text}' block "
                    f"opened at line {keyword.span.line}; expect 'end {keyword.text}'.", closer.span)

    def function_def(self) -> A.FunctionDef:
        kw = self.advance()
        name = self.expect_name("Expect a function name after 'function'.")
        self.expect_op("(", f"Expect '(' after the function name '{name.text}'.")
        params, seen_default = [], False
        while not self.tok.is_op(")"):
            p = self.expect_name("Expect a parameter name.")
            if any(q.name == p.text for q in params):
                raise self.error(f"Parameter '{p.text}' is listed twice.", p)
            default = None
            if self.tok.is_op("="):
                self.advance()
                default = self.expression()
                seen_default = True
            elif seen_default:
                raise self.error(f"Parameter '{p.text}' needs a default because the one before it has one.", p)
            params.append(A.Param(p.text, default, p.span))
            if not self.tok.is_op(")"):
                self.expect_op(",", "Expect ',' or ')' after a parameter.")
        self.advance()
        self.function_depth += 1
        loops, self.loop_depth = self.loop_depth, 0
        body = self.block(())
        self.function_depth -= 1
        self.loop_depth = loops
        self.close_block(kw)
        return A.FunctionDef(name.span, name.text, params, body)

    def return_stmt(self) -> A.Return:
        kw = self.advance()
        if self.function_depth == 0:
            raise self.error("'return' outside a function.", kw)
        if self.tok.kind in ("NEWLINE", "EOF") or self.tok.is_op(";"):
            return A.Return(kw.span, None)
        return A.Return(kw.span, self.expression())

    def loop_jump(self) -> A.Node:
        kw = self.advance()
        if self.loop_depth == 0:
            raise self.error(f"'{kw.text}' outside a loop.", kw)
        return A.Break(kw.span) if kw.text == "break" else A.Continue(kw.span)

    def loop_body(self, kw: Token) -> list[A.Node]:
        self.loop_depth += 1
        body = self.block(())
        self.loop_depth -= 1
        self.close_block(kw)
        return body

    def for_stmt(self) -> A.Node:
        kw = self.advance()
        var = self.expect_name("Expect a loop variable after 'for'.")
        if self.tok.is_word("in"):
            self.advance()
            iterable = self.expression()
            return A.ForIn(kw.span, var.text, iterable, self.loop_body(kw))
        self.expect_op("=", "Expect '=' or 'in' after the loop variable.")
        start = self.expression()
        if not self.tok.is_word("to"):
            raise self.error(f"Expect 'to' in 'for {var.text} = start to stop'. Found {self.describe(self.tok)}.")
        self.advance()
        stop = self.expression()
        step = None
        if self.tok.is_word("step"):
            self.advance()
            step = self.expression()
        return A.ForRange(kw.span, var.text, start, stop, step, self.loop_body(kw))

    def while_stmt(self) -> A.While:
        kw = self.advance()
        cond = self.expression()
        return A.While(kw.span, cond, self.loop_body(kw))

    def if_stmt(self) -> A.If:
        kw = self.advance()
        branches = [(self.expression(), self.block(()))]
        orelse = None
        while self.tok.is_kw("elseif"):
            self.advance()
            branches.append((self.expression(), self.block(())))
        if self.tok.is_kw("else"):
            self.advance()
            orelse = self.block(())
        self.close_block(kw)
        return A.If(kw.span, branches, orelse)


def parse(source: Source) -> A.Program:
    return Parser(tokenize(source), source).program()

