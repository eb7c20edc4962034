"""Tokens -> syntax tree: statements and blocks (expressions.py parses expressions)."""
from __future__ import annotations

import os
import re

from ..errors import LaminaError, Source, Span
from . import ast as A
from .expressions import ExpressionParser
from .lexer import KEYWORDS, Token, tokenize

BLOCK_KEYWORDS = ("function", "for", "while", "if", "try")
BLOCK_ENDS = ("end", "elseif", "else", "catch", "finally")
COMPOUND = ("+=", "-=", "*=", "/=")
# Octave's and others' one-word block ends: `endfor`, `endif`, `end_while` ...
JOINED_END = re.compile(r"end_?(for|if|while|function|try)$")
BLOCK_OPENER = {"elseif": "if", "else": "if", "catch": "try", "finally": "try"}


class Parser(ExpressionParser):
    # -- statements ----------------------------------------------------------------
    def program(self) -> A.Program:
        body = self.block(())
        while self.tok.kind != "EOF":          # only while recovering does a stray word not end it
            tok = self.tok
            if tok.is_kw("catch", "finally"):
                self.report(self.error(f"'{tok.text}' has no open 'try' block.", tok))
            elif tok.is_kw(*BLOCK_ENDS):
                self.report(self.error(f"'{tok.text}' has no open block to close.", tok))
            else:
                self.report(self.error(f"Unexpected {self.describe(tok)}.", tok))
            self.skip_line()
            body.extend(self.block(()))
        return A.Program(body)

    def block(self, terminators: tuple[str, ...]) -> list[A.Node]:
        body = []
        self.skip_newlines()
        while self.tok.kind != "EOF" and not self.tok.is_kw(*terminators, *BLOCK_ENDS) and not self.joined_end():
            start = self.pos
            try:
                body.append(self.statement())
            except LaminaError as err:
                self.report(err)
                body.extend(self.skip_statement(start))
                self.skip_newlines()
                continue
            # (at a line's start only when a block left its `end` line to the block around it)
            if not self.at_line_end(self.tok) and self.tokens[self.pos - 1].kind != "NEWLINE":
                self.report(self.error(f"Expect the end of the line after a statement, found {self.describe(self.tok)}."))
                self.skip_line()
            self.skip_newlines()
        return body

    # -- recovery (parse_with_errors): report an error, skip what it spoils, go on ---------------
    def report(self, err: LaminaError) -> None:
        """Stop at the first syntax error, as a run does, or keep it and go on (recovering)."""
        if self.errors is None:
            raise err
        if not any(e.message == err.message and e.span == err.span for e in self.errors):   # a text read twice
            self.errors.append(err)

    def skip_line(self) -> None:
        while not self.at_line_end(self.tok):
            self.skipped.append(self.advance())

    def skip_statement(self, start: int) -> list[A.Node]:
        """Past the statement starting at tokens[start] whose error was reported, to the end of
        its line; a block keyword that starts a line ends a statement left open (`x = 1 +`
        above `function`). A block whose header failed gives the statements of its body (and
        of its clauses), parsed as the block around it would: the names of the header are
        among the unparsed, so the body's uses of them are no alarm."""
        self.pos = start
        opener = self.tok
        while self.tok.kind != "EOF":
            before = self.tokens[self.pos - 1] if self.pos > start else None
            if before is not None and before.span.line != self.tok.span.line and self.tok.is_kw(*BLOCK_KEYWORDS):
                return []
            self.skipped.append(self.advance())
            if self.at_line_end(self.tok):
                break
        if not opener.is_kw(*BLOCK_KEYWORDS) or not self.block_ends_below():
            return []
        depths = self.function_depth, self.loop_depth
        self.function_depth += opener.text == "function"
        self.loop_depth += opener.text in ("for", "while")
        body = self.block(())
        while self.tok.is_kw(*BLOCK_ENDS) and not self.tok.is_kw("end"):      # else, catch ...
            self.skip_line()
            body.extend(self.block(()))
        self.function_depth, self.loop_depth = depths
        self.close_block(opener)
        return body

    def block_ends_below(self) -> bool:
        """Whether an `end` on a line below closes a block whose header ends here (a header with
        no block, such as `if x > 1 print(x) end` on one line, has none)."""
        depth = 1
        for i in range(self.pos + 1, len(self.tokens)):
            tok, before = self.tokens[i], self.tokens[i - 1]
            if before.kind == "NEWLINE" or before.is_op(";"):
                depth += tok.is_kw(*BLOCK_KEYWORDS) - (tok.is_kw("end") or bool(
                    tok.kind == "IDENT" and JOINED_END.match(tok.text) and self.at_line_end(self.tokens[i + 1])))
                if depth == 0:
                    return True
        return False

    def statement(self) -> A.Node:
        start = self.tok.span
        try:
            return self.plain_statement()
        except RecursionError:
            raise too_deep(start, "parse") from None

    def plain_statement(self) -> A.Node:
        tok = self.tok
        if tok.kind == "KEYWORD":
            handler = {
                "function": self.function_def, "for": self.for_stmt, "while": self.while_stmt,
                "if": self.if_stmt, "try": self.try_stmt, "import": self.import_stmt,
                "return": self.return_stmt, "break": self.loop_jump, "continue": self.loop_jump,
            }.get(tok.text)
            if handler and tok.text in BLOCK_KEYWORDS:
                self.open_blocks.append(tok.text)
                try:
                    return handler()
                finally:
                    self.open_blocks.pop()
            if handler:
                return handler()
        if tok.kind == "IDENT" and (joined := JOINED_END.match(tok.text)) and self.at_line_end(self.peek()):
            raise self.error(f"Write 'end {joined.group(1)}' (two words) or just 'end'.", tok)
        expr = self.expression()
        if self.tok.is_op("=", *COMPOUND):
            eq = self.advance()
            self.check_target(expr, eq)
            op = eq.text[0] if eq.text != "=" else None
            return A.Assign(eq.span, expr, self.expression(), op)
        return A.ExprStmt(expr.span, expr)

    @staticmethod
    def at_line_end(tok: Token) -> bool:
        return tok.kind in ("NEWLINE", "EOF") or tok.is_op(";")

    def header_end(self, kw: Token, what: str) -> None:
        """The end of a block's header line: the block's statements start on the next line."""
        tok = self.tok
        if self.at_line_end(tok):
            return
        if tok.is_op("=") and kw.text in ("if", "elseif", "while"):
            raise self.error(f"'=' assigns; to compare in {what}, write '=='.", tok)
        if tok.is_word("then") or tok.is_word("do") or tok.is_op(":"):
            raise self.error(f"Lamina has no '{tok.text}' after {what}: the block starts on the next "
                             f"line and ends with 'end {BLOCK_OPENER.get(kw.text, kw.text)}'.", tok)
        raise self.error(f"Expect the end of the line after {what}, found {self.describe(tok)}; "
                         "the block starts on the next line.", tok)

    def check_target(self, target: A.Node, eq: Token) -> None:
        node = target
        while isinstance(node, (A.Index, A.Field)):
            node = node.target
        if not isinstance(node, A.Name):
            hint = " (Use `==` to compare.)" if eq.text == "=" else ""
            if isinstance(target, A.Call) and eq.text == "=" and isinstance(target.callee, A.Name):
                hint = (f" To define a function, write `function {target.callee.name}(...)` with its "
                        f"body below and `end function`, or `{target.callee.name} = (...) -> expr`; to "
                        f"assign an element, index with square brackets: `{target.callee.name}[i] = ...`.")
            raise LaminaError("SyntaxError", "Can only assign to a variable, an element `a[i]` or a "
                              f"field `r.f`.{hint}", eq.span)

    def joined_end(self) -> bool:
        """Recovering, at `endfor` and the like: it ends the block (with its error)."""
        return (self.errors is not None and self.tok.kind == "IDENT" and bool(JOINED_END.match(self.tok.text))
                and self.at_line_end(self.peek()))

    def close_block(self, keyword: Token) -> None:
        """`end` or `end KEYWORD` closing the block that `keyword` opened. Recovering, `endfor`
        closes it, a clause the block cannot have (`else` in a loop) is skipped with its
        statements, `end KEYWORD` of a block around it leaves it to that block, and a block
        still open at the end of the text ends there."""
        if self.joined_end():
            self.report(self.error(f"Write 'end {JOINED_END.match(self.tok.text).group(1)}' (two words) "
                                   "or just 'end'."))
            self.advance()
            return
        if not self.tok.is_kw("end"):
            self.report(LaminaError(
                "SyntaxError",
                f"The '{keyword.text}' block opened at line {keyword.span.line} is never closed; "
                f"expect 'end {keyword.text}'.", keyword.span, incomplete=self.tok.kind == "EOF"))
            while self.tok.is_kw(*BLOCK_ENDS) and not self.tok.is_kw("end"):
                self.skip_line()
                self.block(())
            if not self.tok.is_kw("end"):
                return
        end = self.advance()
        if self.tok.is_kw(*BLOCK_KEYWORDS) and self.tok.span.line == end.span.line:
            closer = self.advance()
            if closer.text != keyword.text:
                self.report(LaminaError(
                    "SyntaxError",
                    f"'end {closer.text}' at line {end.span.line} closes the '{keyword.text}' block "
                    f"opened at line {keyword.span.line}; expect 'end {keyword.text}'.", closer.span))
                if closer.text in self.open_blocks[:-1]:
                    self.pos -= 2
        elif not self.at_line_end(self.tok):
            self.report(self.error(f"'end' closes the '{keyword.text}' block opened at line "
                                   f"{keyword.span.line}; write 'end {keyword.text}' or just 'end', found "
                                   f"{self.describe(self.tok)} after it."))
            self.skip_line()

    def function_def(self) -> A.FunctionDef:
        kw = self.advance()
        name = self.expect_name("Expect a function name after 'function'.")
        open_at = self.pos
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
        if self.tok.is_op("="):
            params_text = self.text_between(open_at, self.pos)
            raise self.error(f"A function's body goes on the lines after its header and ends with "
                             f"'end function'; for a one-line function write "
                             f"`{name.text} = {params_text} -> expression`.")
        self.header_end(kw, f"the header of function '{name.text}'")
        self.function_depth += 1
        outer = self.loop_depth, self.finally_block
        self.loop_depth, self.finally_block = 0, None     # a return in it leaves this function only
        body = self.block(())
        self.function_depth -= 1
        self.loop_depth, self.finally_block = outer
        self.close_block(kw)
        return A.FunctionDef(name.span, name.text, params, body)

    def return_stmt(self) -> A.Return:
        kw = self.advance()
        if self.function_depth == 0:
            raise self.error("'return' outside a function.", kw)
        self.check_not_leaving_finally(kw)
        if self.tok.kind in ("NEWLINE", "EOF") or self.tok.is_op(";"):
            return A.Return(kw.span, None)
        return A.Return(kw.span, self.expression())

    def loop_jump(self) -> A.Node:
        kw = self.advance()
        if self.loop_depth == 0:
            raise self.error(f"'{kw.text}' outside a loop.", kw)
        self.check_not_leaving_finally(kw)
        return A.Break(kw.span) if kw.text == "break" else A.Continue(kw.span)

    def check_not_leaving_finally(self, kw: Token) -> None:
        """`return`, `break` or `continue` that would leave a finally block: it would throw away
        the error being raised (and a `return` or `break` already under way), as Python 3.14
        warns (PEP 765). One inside a loop or function that is itself in the finally block is
        fine: it stays inside."""
        if self.finally_block is not None:
            raise self.error(f"'{kw.text}' cannot leave a 'finally' block (line {self.finally_block.span.line}): "
                             "it would discard the error being raised, or the 'return' or 'break' "
                             "already under way. Move it after 'end try'.", kw)

    def loop_body(self, kw: Token) -> list[A.Node]:
        self.loop_depth += 1
        outer, self.finally_block = self.finally_block, None     # a break in it leaves this loop only
        body = self.block(())
        self.finally_block = outer
        self.loop_depth -= 1
        self.close_block(kw)
        return body

    def for_stmt(self) -> A.Node:
        kw = self.advance()
        var = self.expect_name("Expect a loop variable after 'for'.")
        if self.tok.is_word("in"):
            self.advance()
            start_at = self.pos
            iterable = self.expression()
            if self.tok.is_op(":") and not self.at_line_end(self.peek()):
                raise self.range_hint(var.text, start_at)
            self.header_end(kw, f"'for {var.text} in ...'")
            return A.ForIn(kw.span, var.text, iterable, self.loop_body(kw))
        self.expect_op("=", "Expect '=' or 'in' after the loop variable.")
        start_at = self.pos
        start = self.expression()
        if self.tok.is_op(":") and not self.at_line_end(self.peek()):
            raise self.range_hint(var.text, start_at)
        if not self.tok.is_word("to"):
            raise self.error(f"Expect 'to' in 'for {var.text} = start to stop'. Found {self.describe(self.tok)}.")
        self.advance()
        stop = self.expression()
        step = None
        if self.tok.is_word("step"):
            self.advance()
            step = self.expression()
        self.header_end(kw, f"'for {var.text} = start to stop'")
        return A.ForRange(kw.span, var.text, start, stop, step, self.loop_body(kw))

    def range_hint(self, var: str, start_at: int) -> LaminaError:
        """`for i in 1:10` or `for i = 0:2:10` (Julia, MATLAB): the Lamina loop that means."""
        colon = self.tok
        bounds, at = [], start_at
        while self.tok.is_op(":") and len(bounds) < 3:
            bounds.append(self.text_between(at, self.pos))
            self.advance()
            at = self.pos
            self.expression()
        bounds.append(self.text_between(at, self.pos))
        loop = f"for {var} = {bounds[0]} to {bounds[-1]}"
        if len(bounds) == 3:
            loop += f" step {bounds[1]}"
        return self.error(f"Lamina has no range 'a:b' outside an index; write `{loop}` (both ends "
                          "are included).", colon)

    def while_stmt(self) -> A.While:
        kw = self.advance()
        cond = self.expression()
        self.header_end(kw, "the 'while' condition")
        return A.While(kw.span, cond, self.loop_body(kw))

    def if_stmt(self) -> A.If:
        kw = self.advance()
        branches = [(self.condition(kw), self.block(()))]
        orelse = None
        while self.tok.is_kw("elseif"):
            branches.append((self.condition(self.advance()), self.block(())))
        if self.tok.is_kw("else"):
            other = self.advance()
            if self.tok.is_kw("if") and self.tok.span.line == other.span.line:
                raise self.error("Write 'elseif' (one word) for another condition; 'else if' would "
                                 "open a new block that needs its own 'end if'.", other)
            self.header_end(other, "'else'")
            orelse = self.block(())
        self.close_block(kw)
        return A.If(kw.span, branches, orelse)

    def condition(self, kw: Token) -> A.Node:
        cond = self.expression()
        self.header_end(kw, f"the '{kw.text}' condition")
        return cond

    def try_stmt(self) -> A.Try:
        kw = self.advance()
        self.header_end(kw, "'try'")
        body = self.block(())
        var = var_span = handler = final = None
        if self.tok.is_kw("catch"):
            catch = self.advance()
            if self.tok.kind == "IDENT":
                name = self.advance()
                var, var_span = name.text, name.span
            if not self.at_line_end(self.tok):
                raise self.error("'catch' takes one name for the error (`catch err`), or none; the "
                                 "block starts on the next line. The error's kind is err.kind, "
                                 "to check with if.", self.tok)
            self.header_end(catch, "'catch'")
            handler = self.block(())
        if self.tok.is_kw("finally"):
            finally_kw = self.advance()
            self.header_end(finally_kw, "'finally'")
            outer, self.finally_block = self.finally_block, finally_kw
            final = self.block(())
            self.finally_block = outer
        if handler is None and final is None and self.tok.is_kw("end"):
            self.report(self.error("A 'try' block needs a 'catch' block, a 'finally' block or both "
                                   "before its 'end try'.", kw))
        self.close_block(kw)
        return A.Try(kw.span, body, var, handler, final, var_span)

    def import_stmt(self) -> A.Import:
        kw = self.advance()
        tok = self.tok
        if tok.kind == "STRING":
            self.advance()
            if len(tok.value) != 1 or not isinstance(tok.value[0], str):
                raise self.error("An import path is a plain string, without {interpolation}.", tok)
            spec, is_path = tok.value[0], True
        elif tok.kind == "IDENT":
            self.advance()
            spec, is_path = tok.text, False
            if self.tok.is_op("."):
                after = self.peek()
                leaf = after.text if after.kind == "IDENT" else "..."
                raise self.error(f"Import a file in another folder by its path: `import \"{spec}/{leaf}.lam\" "
                                 "as name`.", self.tok)
        else:
            raise self.error(f"Expect a module name or a \"path.lam\" after 'import'. Found {self.describe(tok)}.")
        alias_span = tok.span
        if self.tok.is_word("as"):
            self.advance()
            name = self.expect_name("Expect a name after 'as'.")
            alias, alias_span = name.text, name.span
        else:
            alias = os.path.splitext(os.path.basename(spec))[0] if is_path else spec
            if not re.fullmatch(r"[A-Za-z_]\w*", alias, re.ASCII) or alias in KEYWORDS:
                raise self.error(f"The file name '{alias}' is not a name the module can be bound to; "
                                 "write `import \"...\" as name`.", tok)
        if not self.at_line_end(self.tok):
            raise self.error(f"Expect the end of the line after the import, found {self.describe(self.tok)}.")
        return A.Import(kw.span, spec, is_path, alias, tok.span, alias_span)


def too_deep(start: Span, phase: str) -> LaminaError:
    """Python's recursion ran out on the statement starting at `start`; the error underlines
    the statement's line from there."""
    line = start.source.line(start.line)
    span = Span(start.source, start.line, start.col, max(1, len(line) - start.col + 1))
    return LaminaError("SyntaxError", f"This statement is nested too deeply to {phase}; split it into "
                       "several statements.", span)


def parse(source: Source) -> A.Program:
    """The program's syntax tree; its first syntax error is raised."""
    return Parser(tokenize(source), source).program()


# A string (closed or not) or a comment, on a line being typed.
_STRING_OR_COMMENT = re.compile(r'"(?:\\.|[^"\\\n])*"?|#[^\n]*')


def parse_entry(text: str, name: str = "<repl>"):
    """Parse an entry being typed. A last line ending in a `\\` (not in a comment) continues
    on a line still to come, as in a file: the entry is incomplete (a SyntaxError saying so)."""
    if not text.endswith("\\"):
        return parse(Source(name, text))
    program = parse(Source(name, text + "\n"))
    comment = [m for m in _STRING_OR_COMMENT.finditer(text.rpartition("\n")[2]) if m.group().startswith("#")]
    if not comment:
        raise LaminaError("SyntaxError", "The line ends in '\\': it continues on the next.", incomplete=True)
    return program


# A string (closed or not), a comment, a word, or what ends a statement.
_PIECE = re.compile(_STRING_OR_COMMENT.pattern + r"|[A-Za-z_]\w*|[\n;]")


def open_blocks(text: str) -> int:
    """How many blocks are open at the end of `text`, an entry being typed (at the prompt or
    in a notebook cell). Such text is usually incomplete (an open bracket, a string not yet
    closed), which the lexer rejects, so the blocks are counted on words: a block keyword
    opens one, `end` closes one, and the keyword after `end` on its line names the block it
    closes. Strings and comments are skipped."""
    depth, after_end = 0, False
    for m in _PIECE.finditer(text):
        piece = m.group()
        if piece == "end":
            depth, after_end = max(depth - 1, 0), True
            continue
        if piece in BLOCK_KEYWORDS and not after_end:
            depth += 1
        after_end = False
    return depth
