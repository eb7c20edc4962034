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
import warnings

from ..errors import LaminaError
from ..warnings import warn
from . import ast as A
from . import resolver
from .assignment import AssignmentCompiler
from .discarded import Names, discarded_call
from .parser import too_deep
from .pycode import const, deepest_statement, global_names, helper, is_float_test, load, place  # noqa: F401 (global_names: the interpreter's)
from .scope import CODE_FILENAME, builtins_of, mangle
from .specialise import LOOPS, FloatSpecialiser
from .targets import TARGETS, argument_for, callee_name, is_target_list, may_be_targets

NODES_KEY = "__lamina_nodes__"   # the namespace's node table: node id - 1 -> Lamina node
RESULT_KEY = "__lamina_result__"  # where a cell's last expression leaves its value (mode "result")
BINDERS_KEY = "__lamina_binders__"  # name -> the first top-level statement that binds it (for messages)
CHUNK = 2000                      # top-level statements per code object
TOP_LOOP = "_toplevel_loop"       # a top-level loop runs in a function of this name (top_loop)


def node_of(namespace: dict, lineno: int) -> A.Node | None:
    nodes = namespace.get(NODES_KEY, ())
    return nodes[lineno - 1] if 0 < lineno <= len(nodes) else None


class Compiler(FloatSpecialiser, AssignmentCompiler):
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
        self.in_top_loop = False
        super().__init__()

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
        binders.update((name, node) for name, node in resolver.first_binders(body).items() if name not in binders)

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
        if top and isinstance(node, LOOPS) and not self.in_top_loop:
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
        names = sorted(mangle(n) for n in resolver.bound_names([node]))
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
        if self.floats and self.certain_float(node.operand):
            return py.UnaryOp(py.USub(), operand)
        if isinstance(node.operand, A.Name):
            return py.IfExp(is_float_test(operand), py.UnaryOp(py.USub(), load(operand.id)),
                            helper("_neg", load(operand.id)))
        return helper("_neg", operand)

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
        wrt = self.targets(node)
        args = [self.argument(a, wrt) for a in node.args]
        if not node.kwargs:
            return py.Call(callee, args, [])
        return helper("_call", callee, py.Tuple(args, py.Load()), self.keywords(node.kwargs, wrt))

    def targets(self, node: A.Call | A.MethodCall) -> A.Node | None:
        """The argument of the call's `wrt` parameter, when written as a bracket literal
        (targets.py); the callee is looked up only for such a literal in place."""
        by_keyword = any(k.name == TARGETS for k in node.kwargs)
        if not by_keyword and not any(may_be_targets(a) for a in node.args):
            return None
        name = callee_name(node)
        wrt = argument_for(node, TARGETS, None if by_keyword or name is None else self.builtin(name))
        return wrt if wrt is not None and may_be_targets(wrt) else None

    def argument(self, node: A.Node, wrt: A.Node | None) -> py.expr:
        """An argument; a bracket literal written as the wrt argument is the list of its items,
        whatever they are: `grad(loss, wrt = [a, b])` asks for one gradient per item."""
        if node is wrt and is_target_list(node):
            return self.at(py.List([self.expr(x) for x in node.rows[0]] if node.rows else [], py.Load()), node)
        if node is wrt:
            return self.at(py.List([const(v) for v in node.values.tolist()], py.Load()), node)
        return self.expr(node)

    def keywords(self, kwargs: list[A.Keyword], wrt: A.Node | None = None) -> py.expr:
        if not kwargs:
            return const(None)
        return py.Dict([const(k.name) for k in kwargs], [self.argument(k.value, wrt) for k in kwargs])

    def e_MethodCall(self, node: A.MethodCall):
        lookup = py.Lambda(self.arguments([], []), load(mangle(node.name)))
        wrt = self.targets(node)
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


# A handler per statement kind (a subclass of ast.Statement) and per expression node.
STATEMENTS = {cls: getattr(Compiler, "s_" + cls.__name__, None) for cls in resolver.statement_kinds()}
_unhandled = sorted(cls.__name__ for cls, handler in STATEMENTS.items() if handler is None)
if _unhandled:
    raise TypeError("statements without a compile handler (recipe 'A statement', step 4: a method "
                    f"s_<Name> of Compiler in lang/compiler.py): {_unhandled}")
EXPRESSIONS = {cls: getattr(Compiler, "e_" + cls.__name__) for cls in (
    A.Number, A.String, A.Formatted, A.Bool, A.NoneLit, A.Name, A.NumberArray, A.Matrix, A.RecordLit,
    A.Unary, A.Binary, A.Logical, A.Transpose, A.Call, A.MethodCall, A.Field, A.Index, A.Lambda, A.Temp)}

# Every syntax node (other than helpers that only appear inside others) has a handler.
_INNER = {A.Node, A.Statement, A.Keyword, A.Slice, A.Param, A.Program}
_missing = {c for c in vars(A).values() if isinstance(c, type) and issubclass(c, A.Node)} - _INNER \
    - set(STATEMENTS) - set(EXPRESSIONS)
assert not _missing, f"syntax nodes without a compile handler: {_missing}"


def compile_program(program: A.Program, namespace: dict, echo: bool = False,
                    result: bool = False) -> tuple:
    """The program's code objects, to be run in order in `namespace`."""
    return Compiler(namespace, echo, result).program(program)
