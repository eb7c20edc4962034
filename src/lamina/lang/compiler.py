"""Syntax tree -> Python `ast` -> a code object that CPython compiles once.

Names are mangled (`x` becomes `L_x`), so no Lamina name can collide with a
Python keyword or with the runtime helpers (`_add`, `_index`, ...), and constants
are never spliced into source text: they are Python constants or read-only arrays
installed in the program's namespace under generated names (`_k0`, ...).

Every Python node made for a Lamina node gets that node's id as its line number.
When a helper raises, the traceback's line number in the compiled frame leads
back to the Lamina node and its span (see pyerrors.py), through the node table
that the program's namespace holds under NODES_KEY.

The node table and the constants belong to one namespace (one Interpreter, or one
module), never to the process: dropping the interpreter frees them.
"""
from __future__ import annotations

import ast as py
import itertools
import types
import warnings

from ..errors import LaminaError
from ..warnings import warn
from . import ast as A
from . import loops
from .discarded import Names, discarded_call
from .parser import too_deep
from .scope import CODE_FILENAME, builtins_of, mangle

NODES_KEY = "__lamina_nodes__"   # the namespace's node table: node id - 1 -> Lamina node
RESULT_KEY = "__lamina_result__"  # where a cell's last expression leaves its value (mode "result")
BINDERS_KEY = "__lamina_binders__"  # name -> the first top-level statement that binds it (for messages)
CHUNK = 2000                      # top-level statements per code object
TOP_LOOP = "_toplevel_loop"       # a top-level loop runs in a function of this name (loops.py)
FUNCTION_COPY_LIMIT = 300         # syntax nodes: a larger function body is compiled once

FAST_BINARY = {
    "+": (py.Add, "_add"), "-": (py.Sub, "_sub"), "*": (py.Mult, "_mul"), ".*": (py.Mult, "_emul"),
}
FAST_COMPARE = {
    "<": (py.Lt, "_lt"), "<=": (py.LtE, "_le"), ">": (py.Gt, "_gt"), ">=": (py.GtE, "_ge"),
    "==": (py.Eq, "_eq"), "!=": (py.NotEq, "_ne"),
}
SLOW_BINARY = {"/": "_div", "./": "_ediv", "^": "_pow", ".^": "_epow", "%": "_mod", "\\": "_ldiv"}


def node_of(namespace: dict, lineno: int) -> A.Node | None:
    nodes = namespace.get(NODES_KEY, ())
    return nodes[lineno - 1] if 0 < lineno <= len(nodes) else None


def wrt_syntax(node: A.Node | None) -> A.Node | None:
    """The argument a call passes as `wrt`: the keyword `wrt = ...` of any call, or the second
    argument of `grad(loss, w)` (first of `loss.grad(w)`), which a pipe also produces."""
    if not isinstance(node, (A.Call, A.MethodCall)):
        return None
    for k in node.kwargs:
        if k.name == "wrt":
            return k.value
    if isinstance(node, A.Call) and isinstance(node.callee, A.Name) and node.callee.name == "grad":
        return node.args[1] if len(node.args) > 1 else None
    if isinstance(node, A.MethodCall) and node.name == "grad":
        return node.args[0] if node.args else None
    return None


def is_target_list(node: A.Node | None) -> bool:
    """A bracket literal without `;`: as the wrt argument it is a list of targets."""
    return isinstance(node, A.Matrix) and not node.semicolons


def load(name: str) -> py.Name:
    return py.Name(name, py.Load())


def helper(name: str, *args: py.expr) -> py.Call:
    return py.Call(load(name), list(args), [])


def const(value) -> py.Constant:
    return py.Constant(value)


def is_float_test(expr: py.expr) -> py.expr:
    return py.Compare(helper("_type", expr), [py.Is()], [load("_float")])


class Compiler:
    def __init__(self, namespace: dict, echo: bool = False, result: bool = False):
        """Compile into `namespace`: its node table grows by this program's nodes and its
        constants are installed there. `echo`: every top-level expression statement prints its
        value (the REPL). `result`: the last statement, when it is an expression, stores its
        value in the namespace under RESULT_KEY instead (a notebook cell's result)."""
        self.namespace = namespace
        self.nodes = namespace.setdefault(NODES_KEY, [])
        self.echo = echo
        self.result = result
        self.result_node = None
        self.names = Names([], namespace)    # what the program binds, for discarded_call
        self.temps = itertools.count()
        self.floats: set[str] = set()   # names known to hold floats (in a loop's fast copy)
        self.in_top_loop = False
        # In a function's fast copy: its calls of itself that give floats, and the global
        # that holds the function its definition made last (loops.self_calls); `verified`:
        # compiling code that runs only once the function's name is checked to call it.
        self.me: loops.SelfCalls | None = None
        self.me_check = ""
        self.verified = False

    # -- plumbing ------------------------------------------------------------------
    def at(self, pynode, node: A.Node):
        """Give `pynode` the line number of `node`; its children that have none get it too
        (`place`, once per chunk, copies each node's line down to the children without one)."""
        self.nodes.append(node)
        if getattr(pynode, "lineno", None) is None:
            pynode.lineno = pynode.end_lineno = len(self.nodes)
            pynode.col_offset = pynode.end_col_offset = 0
        return pynode

    def temp(self) -> str:
        return f"_t{next(self.temps)}"

    def program(self, program: A.Program) -> tuple:
        """One code object per chunk of CHUNK top-level statements, run in order in one
        namespace: so the Python syntax tree of a long program never exists all at once."""
        body = program.body
        if self.result and body and isinstance(body[-1], A.ExprStmt):
            self.result_node = body[-1]
        self.names = Names(body, self.namespace)
        self.note_binders(body)
        return tuple(self.chunk(program, body[i:i + CHUNK]) for i in range(0, max(len(body), 1), CHUNK))

    def note_binders(self, body: list[A.Node]) -> None:
        """Remember, for each name the program binds outside functions, the statement that binds
        it first: reading the name before that statement runs is explained by it (pyerrors)."""
        binders = self.namespace.setdefault(BINDERS_KEY, {})
        first: dict[str, A.Node] = {}
        for node in loops.walk(body):
            if isinstance(node, A.Assign) and (node.op is not None or not isinstance(node.target, A.Name)):
                continue        # `x += 1` and `v[i] = x` need x to exist already
            name = loops.binds(node)
            seen = first.get(name)
            if name is not None and name not in binders and (
                    seen is None or (node.span.line, node.span.col) < (seen.span.line, seen.span.col)):
                first[name] = node
        binders.update(first)

    def chunk(self, program: A.Program, statements: list[A.Node]):
        module = py.Module(body=self.block(statements, top=True), type_ignores=[])
        place(module)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")   # e.g. "'float' object is not callable": a runtime TypeError for us
                return compile(module, CODE_FILENAME, "exec")
        except (SyntaxError, RecursionError, MemoryError) as exc:
            raise self.too_deep(module, exc) from None

    def too_deep(self, module: py.Module, exc: Exception) -> LaminaError:
        """CPython's compiler refused a chunk: too many nested blocks in one function (a
        SyntaxError at the block's line), or a statement too deep for its recursion."""
        if isinstance(exc, SyntaxError) and "nested blocks" in str(exc) and exc.lineno:
            node = self.nodes[exc.lineno - 1]
            return LaminaError("SyntaxError", "Too many loops and try blocks are nested here to compile "
                               "(about 20 at most); move the inner ones into a function.", A.start_of(node))
        return too_deep(A.start_of(self.nodes[deepest_statement(module) - 1]), "compile")

    def block(self, body: list[A.Node], top: bool = False) -> list[py.stmt]:
        out = []
        for stmt in body:
            out.extend(self.statement(stmt, top))
        return out or [py.Pass(lineno=1, col_offset=0, end_lineno=1, end_col_offset=0)]

    # -- statements ------------------------------------------------------------------
    def statement(self, node: A.Node, top: bool = False) -> list[py.stmt]:
        try:
            return self.plain_statement(node, top)
        except RecursionError:
            raise too_deep(A.start_of(node), "compile") from None

    def plain_statement(self, node: A.Node, top: bool) -> list[py.stmt]:
        if top and isinstance(node, loops.LOOPS) and not self.in_top_loop:
            return [self.at(s, node) for s in self.top_loop(node)]
        handler = STATEMENTS[type(node)]
        return [self.at(s, node) for s in handler(self, node, top)]

    def top_loop(self, node: A.Node) -> list[py.stmt]:
        """A top-level loop as `def _toplevel_loop(): global ...; <loop>` and a call: inside a
        function, names are global lookups (cached by CPython), not searches through the
        program's names and then the builtins."""
        self.in_top_loop = True
        try:
            body = STATEMENTS[type(node)](self, node, True)
        finally:
            self.in_top_loop = False
        names = sorted(mangle(n) for n in loops.bound_names([node]))
        declare = [py.Global(names)] if names else []
        fn = py.FunctionDef(name=TOP_LOOP, args=self.arguments([], []), body=declare + body,
                            decorator_list=[], returns=None, type_comment=None)
        return [fn, py.Expr(helper(TOP_LOOP))]

    def s_ExprStmt(self, node: A.ExprStmt, top: bool):
        value = self.expr(node.expr)
        if node is self.result_node:
            return [py.Assign([py.Name(RESULT_KEY, py.Store())], value)]
        if self.echo and top:
            value = self.at(helper("_echo", value), node.expr)
        else:       # the value goes nowhere: a call of a pure builtin did nothing
            message = discarded_call(node, self.builtin, self.names)
            if message is not None:
                warn(message, node.span, once_key="discarded")   # once, though a loop compiles twice
        return [py.Expr(value)]

    def builtin(self, name: str):
        key = mangle(name)
        return builtins_of(self.namespace, (key,)).get(key)

    def s_Assign(self, node: A.Assign, top: bool):
        if node.op is not None:
            return self.compound_assign(node)
        before: list[py.stmt] = []
        target = node.target
        if self.appends_to_itself(node):
            # `v = append(v, x)`, the way a loop builds a list or vector: v may grow in place
            call = node.value
            value = helper("_append_var", self.expr(call.callee), self.expr(call.args[0]),
                           self.expr(call.args[1]))
            return [py.Assign([py.Name(mangle(target.name), py.Store())], self.at(value, call))]
        if isinstance(target, (A.Index, A.Field)) and not isinstance(target.target, A.Name):
            # `L[i].x = v` reads L[i] and writes it back: its indices are evaluated once
            target = self.settled(target, before)
        return before + self.store(target, self.expr(node.value))

    @staticmethod
    def appends_to_itself(node: A.Assign) -> bool:
        call = node.value
        return (isinstance(node.target, A.Name) and isinstance(call, A.Call) and not call.kwargs
                and isinstance(call.callee, A.Name) and call.callee.name == "append"
                and len(call.args) == 2 and isinstance(call.args[0], A.Name)
                and call.args[0].name == node.target.name)

    def store(self, target: A.Node, value: py.expr) -> list[py.stmt]:
        """`target = value`: a name is bound; an element or field is written into its container,
        which is written into its own, up to the name the target starts from."""
        if isinstance(target, A.Field) and isinstance(target.target, A.Name):
            # `r.x = v` and `r.v[i] = x` on a variable: an unshared record changes in place
            value = helper("_set_field_var", self.expr(target.target), const(target.name), value)
            return [py.Assign([py.Name(mangle(target.target.name), py.Store())], self.at(value, target))]
        if isinstance(target, A.Index) and isinstance(target.target, A.Field) \
                and isinstance(target.target.target, A.Name):
            record = target.target
            inner = self.at(helper("_field", self.expr(record.target), const(record.name)), record)
            value = helper("_set_field_index_var", self.expr(record.target), const(record.name), inner,
                           self.index_items(target.items), value)
            return [py.Assign([py.Name(mangle(record.target.name), py.Store())], self.at(value, target))]
        while not isinstance(target, A.Name):
            container = self.expr(target.target)
            if isinstance(target, A.Field):
                value = helper("_set_field", container, const(target.name), value)
            else:
                if (isinstance(target.target, A.Name) and len(target.items) == 1
                        and not isinstance(target.items[0], A.Slice)):
                    # `v[i] = x` on a variable, the store loops are made of: no index tuple
                    value = helper("_set_item_var", container, self.expr(target.items[0]), value)
                else:
                    fn = "_set_index_var" if isinstance(target.target, A.Name) else "_set_index"
                    value = helper(fn, container, self.index_items(target.items), value)
            value = self.at(value, target)
            target = target.target
        return [py.Assign([py.Name(mangle(target.name), py.Store())], value)]

    def compound_assign(self, node: A.Assign) -> list[py.stmt]:
        """`target op= value`: each index of the target is evaluated once, into a temporary,
        then `target = target op value` reads and writes the element through them."""
        before: list[py.stmt] = []
        target = self.settled(node.target, before)
        # a name is read by the `op=` itself: an undefined one is reported there
        read = A.Name(node.span, target.name) if isinstance(target, A.Name) else target
        return before + self.store(target, self.expr(A.Binary(node.span, node.op, read, node.value)))

    def settled(self, target: A.Node, before: list[py.stmt]) -> A.Node:
        """`target` with each index that is not a name or a literal evaluated into a temporary
        by a statement appended to `before`, so that reading and writing it evaluate it once."""
        def settle(expr: A.Node | None):
            if expr is None or isinstance(expr, (A.Number, A.Name, A.String)):
                return expr
            name = self.temp()
            before.append(self.at(py.Assign([py.Name(name, py.Store())], self.expr(expr)), expr))
            return A.Temp(expr.span, name)

        if isinstance(target, A.Field):
            return A.Field(target.span, self.settled(target.target, before), target.name)
        if isinstance(target, A.Index):
            inner = self.settled(target.target, before)       # left to right: its indices first
            items = [A.Slice(i.span, settle(i.start), settle(i.stop)) if isinstance(i, A.Slice)
                     else settle(i) for i in target.items]
            return A.Index(target.span, inner, items)
        return target

    def s_Import(self, node: A.Import, top: bool):
        load_it = helper("_import", const(node.spec), const(node.is_path))
        return [py.Assign([py.Name(mangle(node.alias), py.Store())], load_it)]

    def s_Try(self, node: A.Try, top: bool):
        """try/catch/finally as Python's: `except Exception` lets an interrupt or exit() through;
        `_caught` turns the exception into the error record, or None for one no program may
        catch (an internal error, a closed output pipe), which the bare `raise` sends on."""
        handlers = []
        if node.handler is not None:
            caught = self.temp()
            record = helper("_caught", load(caught))
            body: list[py.stmt] = [py.Assign([py.Name(caught, py.Store())], record),
                                   py.If(py.Compare(load(caught), [py.Is()], [const(None)]), [py.Raise()], [])]
            if node.var is not None:
                body.append(py.Assign([py.Name(mangle(node.var), py.Store())], load(caught)))
            handlers = [py.ExceptHandler(load("_Catchable"), caught, body + self.block(node.handler, top))]
        final = self.block(node.final, top) if node.final is not None else []
        return [py.Try(self.block(node.body, top), handlers, [], final)]

    def s_FunctionDef(self, node: A.FunctionDef, top: bool):
        args = self.arguments([p.name for p in node.params],
                              [self.expr(p.default) for p in node.params if p.default is not None])
        outer = self.floats, self.in_top_loop, self.me, self.me_check, self.verified
        self.floats, self.in_top_loop, self.me, self.verified = set(), False, None, False
        try:
            body, check = self.function_body(node, global_def=top and not outer[1])
        finally:
            self.floats, self.in_top_loop, self.me, self.me_check, self.verified = outer
        name = mangle(node.name)
        define = [py.FunctionDef(name=name, args=args, body=body, decorator_list=[], returns=None,
                                 type_comment=None)]
        return define + [py.Assign([py.Name(check, py.Store())], load(name))] if check else define

    def function_body(self, node: A.FunctionDef, global_def: bool) -> tuple[list[py.stmt], str]:
        """The body, twice when that pays (as loops are): a copy that trusts the names
        `loops.function_float_names` finds, chosen on entry when the parameters and outer
        names among them hold floats (a small function that defines none inside only: the copy
        doubles its code, and a function inside would double again at each level of nesting).
        A function defined at the top level whose fast copy returns floats for certain also
        trusts its own calls of itself there (`loops.self_calls`, `checked_self_calls`); the
        name of the global its check reads comes back with the body ("" when there is none)."""
        floats = loops.function_float_names(node)
        if not floats or loops.defines_function(node.body) \
                or sum(1 for _ in loops.walk(node.body)) > FUNCTION_COPY_LIMIT:
            return self.block(node.body), ""
        generic = self.block(node.body)
        self.floats = floats
        self.me = loops.self_calls(node, floats) if global_def else None
        self.me_check = ""
        if self.me is not None:
            # None until the definition runs, so that code compiled elsewhere from this source
            # (a cluster worker's) takes the checked path's other branch.
            self.me_check = f"_self{len(self.nodes)}"
            self.namespace[self.me_check] = None
        try:
            fast = self.block(node.body)
        finally:
            self.floats, self.me = set(), None
        params = {p.name for p in node.params}
        local = loops.bound_names(node.body) - params
        return self.float_switch(sorted(floats - local), fast, generic, bound=params), self.me_check

    def arguments(self, names: list[str], defaults: list[py.expr]) -> py.arguments:
        return py.arguments(posonlyargs=[], args=[py.arg(mangle(n)) for n in names], vararg=None,
                            kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=defaults)

    def s_Return(self, node: A.Return, top: bool):
        return [py.Return(self.expr(node.value) if node.value is not None else const(None))]

    def s_If(self, node: A.If, top: bool):
        orelse = self.block(node.orelse, top) if node.orelse is not None else []
        for cond, body in reversed(node.branches):
            test = self.at(self.condition(cond), cond)
            orelse = [self.at(py.If(test, self.block(body, top), orelse), cond)]
        return orelse

    def s_ForRange(self, node: A.ForRange, top: bool):
        step = self.expr(node.step) if node.step is not None else const(None)
        it = helper("_for_range", self.expr(node.start), self.expr(node.stop), step)
        return self.specialised(node, lambda: [py.For(py.Name(mangle(node.var), py.Store()), it,
                                                      self.block(node.body, top), [])])

    def s_ForIn(self, node: A.ForIn, top: bool):
        it = helper("_for_each", self.expr(node.iterable))
        return [py.For(py.Name(mangle(node.var), py.Store()), it, self.block(node.body, top), [])]

    def s_While(self, node: A.While, top: bool):
        return self.specialised(node, lambda: [py.While(self.condition(node.cond), self.block(node.body, top), [])])

    def specialised(self, node: A.Node, build) -> list[py.stmt]:
        """The loop `build()` makes, twice when that pays (loops.py): a copy without float
        guards on the names `loops.float_names` finds, chosen when they all hold floats on
        entry (a name not yet assigned counts as not a float), else the generic copy."""
        if self.floats or loops.has_loop(node.body) or loops.defines_function(node.body):
            return build()
        floats = loops.float_names(node)
        if not floats:
            return build()
        generic = build()
        self.floats = floats
        try:
            fast = build()
        finally:
            self.floats = set()
        return self.float_switch(sorted(floats - {getattr(node, "var", None)}), fast, generic)

    def float_switch(self, checked: list[str], fast: list, generic: list,
                     bound: set = frozenset()) -> list[py.stmt]:
        """`fast` when every name in `checked` holds a float (an unassigned one does not), else
        `generic`. Names in `bound` (a function's parameters) are always assigned: when only
        those are checked, the test needs no guard against an unassigned name."""
        flag = self.temp()
        test = py.BoolOp(py.And(), [is_float_test(load(mangle(n))) for n in checked]) if len(checked) > 1 \
            else (is_float_test(load(mangle(checked[0]))) if checked else const(True))
        if checked and set(checked) <= bound:
            return [py.If(test, fast, generic)]
        guard = py.Try([py.Assign([py.Name(flag, py.Store())], test)],
                       [py.ExceptHandler(load("_NameError"), None,
                                         [py.Assign([py.Name(flag, py.Store())], const(False))])], [], [])
        return [guard, py.If(load(flag), fast, generic)]

    def condition(self, node: A.Node) -> py.expr:
        """A condition: a comparison of two floats the fast copy knows is a bool already."""
        if self.floats and isinstance(node, A.Binary) and node.op in FAST_COMPARE \
                and self.closed(node.left) and self.closed(node.right):
            return self.expr(node)
        return self.truth(self.expr(node))

    def s_Break(self, node, top):
        return [py.Break()]

    def s_Continue(self, node, top):
        return [py.Continue()]

    def truth(self, value: py.expr) -> py.expr:
        """A condition: bools pass straight through; anything else goes to `_truth`."""
        t = self.temp()
        first = py.Compare(py.NamedExpr(py.Name(t, py.Store()), value), [py.Is()], [const(True)])
        rest = py.BoolOp(py.And(), [py.Compare(load(t), [py.IsNot()], [const(False)]), helper("_truth", load(t))])
        return py.BoolOp(py.Or(), [first, rest])

    # -- expressions -----------------------------------------------------------------
    def expr(self, node: A.Node) -> py.expr:
        return self.at(EXPRESSIONS[type(node)](self, node), node)

    def e_Number(self, node: A.Number):
        return const(float(node.value))

    def e_String(self, node: A.String):
        if all(isinstance(p, str) for p in node.parts):
            return const("".join(node.parts))
        values = [const(p) if isinstance(p, str) else
                  py.FormattedValue(self.expr(p) if isinstance(p, A.Formatted) else helper("_show", self.expr(p)),
                                    -1, None) for p in node.parts]
        return py.JoinedStr(values)

    def e_Formatted(self, node: A.Formatted):
        return helper("_show_spec", self.expr(node.expr), const(node.spec))

    def e_Bool(self, node: A.Bool):
        return const(node.value)

    def e_NoneLit(self, node):
        return const(None)

    def e_Name(self, node: A.Name):
        return load(mangle(node.name))

    def e_NumberArray(self, node: A.NumberArray):
        """A literal of numbers only: the parser's read-only array, a constant of the namespace."""
        name = f"_k{len(self.nodes)}"      # unique: `at` gives this node the next id
        self.namespace[name] = node.values
        return load(name)

    def e_Matrix(self, node: A.Matrix):
        rows = [py.Tuple([self.expr(x) for x in row], py.Load()) for row in node.rows]
        if not node.semicolons:
            return helper("_bracket", rows[0] if rows else py.Tuple([], py.Load()))
        return helper("_matrix", py.Tuple(rows, py.Load()))

    def e_RecordLit(self, node: A.RecordLit):
        return helper("_Record", py.Dict([const(k) for k, _ in node.fields],
                                         [self.expr(v) for _, v in node.fields]))

    def e_Unary(self, node: A.Unary):
        operand = self.expr(node.operand)
        if node.op == "not":
            return helper("_not", operand)
        if node.op == "+":
            return helper("_pos", operand)
        if self.floats and self.closed(node.operand):
            return py.UnaryOp(py.USub(), operand)
        if isinstance(node.operand, A.Name):
            return py.IfExp(is_float_test(operand), py.UnaryOp(py.USub(), load(operand.id)),
                            helper("_neg", load(operand.id)))
        return helper("_neg", operand)

    def closed(self, node: A.Node) -> bool:
        """Whether `node` gives a float for certain in the code being compiled."""
        return loops.closed(node, self.floats, self.me if self.verified else None)

    def checked_self_calls(self, node: A.Binary) -> py.expr | None:
        """`a op b` over the function's calls of itself, which give floats when its name still
        calls a function of this definition: `<fast> if L_f is _selfN else <guarded>`."""
        if self.me is None or self.verified or not (
                loops.closed(node.left, self.floats, self.me) and loops.closed(node.right, self.floats, self.me)):
            return None
        me, self.verified = self.me, True
        try:
            fast = self.e_Binary(node)
        finally:
            self.verified = False
        self.me = None
        try:
            guarded = self.e_Binary(node)
        finally:
            self.me = me
        test = py.Compare(load(mangle(me.name)), [py.Is()], [load(self.me_check)])
        return py.IfExp(test, fast, guarded)

    def e_Binary(self, node: A.Binary):
        floats = bool(self.floats) and self.closed(node.left) and self.closed(node.right)
        if self.floats and not floats:
            checked = self.checked_self_calls(node)
            if checked is not None:
                return checked
        left, right = self.expr(node.left), self.expr(node.right)
        if floats:
            # Two floats for certain (a loop's fast copy): Python's operator, no guard.
            if node.op in FAST_BINARY:
                return py.BinOp(left, FAST_BINARY[node.op][0](), right)
            if node.op in FAST_COMPARE:
                return py.Compare(left, [FAST_COMPARE[node.op][0]()], [right])
            if node.op in ("/", "./"):
                divisor = self.temp()
                return py.IfExp(py.NamedExpr(py.Name(divisor, py.Store()), right),
                                py.BinOp(left, py.Div(), load(divisor)),
                                helper(SLOW_BINARY[node.op], left, load(divisor)))
        if node.op in SLOW_BINARY:
            return helper(SLOW_BINARY[node.op], left, right)
        if node.op in FAST_BINARY:
            pyop, fallback = FAST_BINARY[node.op]
            make = lambda a, b: py.BinOp(a, pyop(), b)  # noqa: E731
        else:
            pyop, fallback = FAST_COMPARE[node.op]
            make = lambda a, b: py.Compare(a, [pyop()], [b])  # noqa: E731
        # Fast path for two floats; operands are evaluated once, left to right.
        tests, names = [], []
        for operand, lam in ((left, node.left), (right, node.right)):
            if isinstance(lam, A.Number):
                names.append(operand)
            elif isinstance(lam, A.Name):
                # the name's own line: a NameError points at the name, not at the operator
                tests.append(is_float_test(py.copy_location(load(operand.id), operand)))
                names.append(operand)
            else:
                t = self.temp()
                tests.append(is_float_test(py.NamedExpr(py.Name(t, py.Store()), operand)))
                names.append(load(t))
        if not tests:
            return helper(fallback, *names)
        # Two operands: `_type(a) is _type(b) is _float`, one test that evaluates both (the
        # chain stops before `_float` only), cheaper than two tests joined by `&`.
        test = tests[0] if len(tests) == 1 else py.Compare(tests[0].left, [py.Is(), py.Is()],
                                                            [tests[1].left, load("_float")])
        fast = make(*[py.Name(n.id, py.Load()) if isinstance(n, py.Name) else n for n in names])
        slow = helper(fallback, *[py.Name(n.id, py.Load()) if isinstance(n, py.Name) else n for n in names])
        return py.IfExp(test, fast, slow)

    def e_Logical(self, node: A.Logical):
        """`a and b` short-circuits on bools: `false and b` is false without evaluating b. When `a`
        is a tensor (a mask) or does not decide, b is evaluated and `_and_rest` gives the result:
        a mask and b combined elementwise, or b (a mask stays one). The right side is compiled
        once: compiled twice, it would double again at each level of `a and (b and (...))`."""
        t = self.temp()
        is_tensor = py.Compare(helper("_type", py.NamedExpr(py.Name(t, py.Store()), self.expr(node.left))),
                               [py.Is()], [load("_ndarray")])
        decides = helper("_truth", load(t))
        if node.op == "and":      # tensor or true: evaluate b; else false
            test = py.BoolOp(py.Or(), [is_tensor, decides])
            return py.IfExp(test, helper("_and_rest", load(t), self.expr(node.right)), const(False))
        is_tensor.ops = [py.IsNot()]          # or: not a tensor and true: true; else evaluate b
        test = py.BoolOp(py.And(), [is_tensor, decides])
        return py.IfExp(test, const(True), helper("_or_rest", load(t), self.expr(node.right)))

    def e_Transpose(self, node: A.Transpose):
        return helper("_transpose", self.expr(node.operand))

    def e_Call(self, node: A.Call):
        callee = self.expr(node.callee)
        wrt = wrt_syntax(node)
        args = [self.argument(a, wrt) for a in node.args]
        if not node.kwargs:
            return py.Call(callee, args, [])
        return helper("_call", callee, py.Tuple(args, py.Load()), self.keywords(node.kwargs, wrt))

    def argument(self, node: A.Node, wrt: A.Node | None) -> py.expr:
        """An argument; a bracket literal written as the wrt argument is the list of its items,
        whatever they are: `grad(loss, wrt = [a, b])` asks for one gradient per item."""
        if node is wrt and is_target_list(node):
            return self.at(py.List([self.expr(x) for x in node.rows[0]] if node.rows else [], py.Load()), node)
        if node is wrt and isinstance(node, A.NumberArray) and not node.semicolons:
            return self.at(py.List([const(v) for v in node.values.tolist()], py.Load()), node)
        return self.expr(node)

    def keywords(self, kwargs: list[A.Keyword], wrt: A.Node | None = None) -> py.expr:
        if not kwargs:
            return const(None)
        return py.Dict([const(k.name) for k in kwargs], [self.argument(k.value, wrt) for k in kwargs])

    def e_MethodCall(self, node: A.MethodCall):
        lookup = py.Lambda(self.arguments([], []), load(mangle(node.name)))
        wrt = wrt_syntax(node)
        return helper("_method", self.expr(node.target), const(node.name), lookup,
                      py.Tuple([self.argument(a, wrt) for a in node.args], py.Load()),
                      self.keywords(node.kwargs, wrt))

    def e_Field(self, node: A.Field):
        return helper("_field", self.expr(node.target), const(node.name))

    def e_Index(self, node: A.Index):
        if len(node.items) == 1 and not isinstance(node.items[0], A.Slice):
            return helper("_item", self.expr(node.target), self.expr(node.items[0]))   # no index tuple
        return helper("_index", self.expr(node.target), self.index_items(node.items))

    def index_items(self, items: list[A.Node]) -> py.Tuple:
        out = []
        for item in items:
            if isinstance(item, A.Slice):
                if item.start is None and item.stop is None:
                    out.append(self.at(load("_ALL"), item))
                    continue
                bounds = [self.expr(b) if b is not None else const(None) for b in (item.start, item.stop)]
                out.append(self.at(helper("_slice", *bounds), item))
            else:
                out.append(self.expr(item))
        return py.Tuple(out, py.Load())

    def e_Lambda(self, node: A.Lambda):
        defaults = [self.expr(d) for d in node.defaults]
        floats, self.floats = self.floats, set()      # its body runs later, with other values
        try:
            return py.Lambda(self.arguments(node.params, defaults), self.expr(node.body))
        finally:
            self.floats = floats

    def e_Temp(self, node: A.Temp):
        return load(node.name)


STATEMENTS = {cls: getattr(Compiler, "s_" + cls.__name__) for cls in (
    A.ExprStmt, A.Assign, A.FunctionDef, A.Return, A.If, A.ForRange, A.ForIn, A.While, A.Break,
    A.Continue, A.Import, A.Try)}
EXPRESSIONS = {cls: getattr(Compiler, "e_" + cls.__name__) for cls in (
    A.Number, A.String, A.Formatted, A.Bool, A.NoneLit, A.Name, A.NumberArray, A.Matrix, A.RecordLit,
    A.Unary, A.Binary, A.Logical, A.Transpose, A.Call, A.MethodCall, A.Field, A.Index, A.Lambda, A.Temp)}

# Every syntax node (other than helpers that only appear inside others) has a handler.
_INNER = {A.Node, A.Keyword, A.Slice, A.Param, A.Program}
_missing = {c for c in vars(A).values() if isinstance(c, type) and issubclass(c, A.Node)} - _INNER \
    - set(STATEMENTS) - set(EXPRESSIONS)
assert not _missing, f"syntax nodes without a compile handler: {_missing}"


def place(tree: py.AST) -> None:
    """Give every node without a line number the line of its nearest ancestor that has one."""
    stack = [(tree, 1)]
    while stack:
        n, line = stack.pop()
        if "lineno" in n._attributes:
            own = getattr(n, "lineno", None)
            if own is None:
                n.lineno = n.end_lineno = line
                n.col_offset = n.end_col_offset = 0
            else:
                line = own
        for name in n._fields:
            child = getattr(n, name, None)
            if type(child) is list:
                stack.extend((c, line) for c in child if isinstance(c, py.AST))
            elif isinstance(child, py.AST):
                stack.append((child, line))


def deepest_statement(tree: py.AST) -> int:
    """The line (a node id) of the innermost statement on the deepest path through `tree`."""
    deepest, line = -1, 1
    stack = [(tree, 0, 1)]
    while stack:
        n, depth, at = stack.pop()
        if isinstance(n, py.stmt):
            at = n.lineno
        if depth > deepest:
            deepest, line = depth, at
        stack.extend((child, depth + 1, at) for child in py.iter_child_nodes(n))
    return line


def global_names(code: tuple) -> set[str]:
    """Every name the code objects (and the functions and lambdas in them) read as a global
    or builtin: the builtins a program needs are among them."""
    names: set[str] = set()
    stack = list(code)
    while stack:
        c = stack.pop()
        names.update(c.co_names)
        stack.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
    return names


def compile_program(program: A.Program, namespace: dict, echo: bool = False,
                    result: bool = False) -> tuple:
    """The program's code objects, to be run in order in `namespace`."""
    return Compiler(namespace, echo, result).program(program)
