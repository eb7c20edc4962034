"""Float specialisation: scalar code compiled without type tests where floats are certain.

Lamina's operators have three tiers. Two floats (Python floats: every Lamina number) take
Python's own operator, compiled inline. Anything else goes to the operator's runtime helper
(lang/operators.py), the one place that tells the other two apart: a `Tracked` value records
its operation on the tape (autodiff/ops.py), and a tensor is NumPy's. So every arithmetic
operator compiles to a guarded expression (`e_Binary`):

    a + b if _type(a) is _type(b) is _float else _add(a, b)

(`%` calls autodiff's `ops.mod` in place of Python's operator, so that floored modulo is
written once: `_float_mod(a, b) if ... else _mod(a, b)`.)

In a hot scalar loop the guards cost more than the arithmetic. A loop whose body contains no
other loop is therefore compiled twice: a copy without guards on the names that are provably
floats all through it (`float_names`), and the generic copy, chosen once on entry by checking
that those names hold floats (`float_switch`). A name stays a float through the loop when every
assignment to it in the loop is arithmetic (+ - * ./ / and unary minus) over such names and
number literals: two floats give a float under those operators (`/` keeps its guard for a zero
divisor, where Lamina's answer is IEEE's Inf or NaN, not Python's exception).

A small function's body is compiled twice the same way (`function_float_names`). In the fast
copy of a function defined at the top level, its calls of itself are floats too when every
return there is a float given that they are (`self_calls`): recursive `fib(n - 1) + fib(n - 2)`
then adds without checking either result. The compiled code relies on it only behind a check
that the name still calls a function made by that definition (`checked_self_calls`);
otherwise it takes the guarded form.

Which names a loop or a function binds comes from the resolver (resolver.py), as it does for
the compiler and the language server.
"""
from __future__ import annotations

import ast as py
from dataclasses import dataclass

from . import ast as A
from . import resolver
from .pycode import const, helper, is_float_test, load
from .scope import mangle

CLOSED_OPS = {"+", "-", "*", ".*", "/", "./"}        # float op float is a float
COMPARISONS = {"<", "<=", ">", ">=", "==", "!="}
LOOPS = (A.While, A.ForRange, A.ForIn)
FUNCTION_COPY_LIMIT = 300         # syntax nodes: a larger function body is compiled once

FAST_BINARY = {
    "+": (py.Add, "_add"), "-": (py.Sub, "_sub"), "*": (py.Mult, "_mul"), ".*": (py.Mult, "_emul"),
}
FAST_COMPARE = {
    "<": (py.Lt, "_lt"), "<=": (py.LtE, "_le"), ">": (py.Gt, "_gt"), ">=": (py.GtE, "_ge"),
    "==": (py.Eq, "_eq"), "!=": (py.NotEq, "_ne"),
}
# Two floats call autodiff.ops's own function (`%` is ops.mod alone), anything else the helper.
FLOAT_CALL = {"%": ("_float_mod", "_mod")}
SLOW_BINARY = {"/": "_div", "./": "_ediv", "^": "_pow", ".^": "_epow", "\\": "_ldiv", "@": "_matmul"}


def has_loop(body: list) -> bool:
    return any(isinstance(n, LOOPS) for n in A.walk(body))


def defines_function(body: list) -> bool:
    """Whether a function is defined in `body`. A body compiled twice (a fast copy) compiles such
    a function twice, and its own copies again: 2^n times for n levels of nesting."""
    return any(isinstance(n, A.FunctionDef) for n in A.walk(body))


@dataclass(frozen=True)
class SelfCalls:
    """A function's calls of itself, when they give floats for certain (see `self_calls`)."""
    name: str                    # the function's name
    arity: int                   # a call passes every parameter, none by keyword
    float_params: frozenset      # positions whose arguments must be floats

    def made_by(self, call: A.Call) -> bool:
        return isinstance(call.callee, A.Name) and call.callee.name == self.name \
            and not call.kwargs and len(call.args) == self.arity


def closed(expr: A.Node, floats: set[str], me: SelfCalls | None = None) -> bool:
    """Whether `expr` is a float whenever the names in `floats` hold floats (and, given `me`,
    whenever the function's calls of itself with float arguments give floats)."""
    if isinstance(expr, A.Number):
        return True
    if isinstance(expr, A.Name):
        return expr.name in floats
    if isinstance(expr, A.Unary):
        return expr.op in ("-", "+") and closed(expr.operand, floats, me)
    if isinstance(expr, A.Binary):
        return expr.op in CLOSED_OPS and closed(expr.left, floats, me) and closed(expr.right, floats, me)
    if isinstance(expr, A.Call) and me is not None and me.made_by(expr):
        return all(closed(expr.args[i], floats, me) for i in me.float_params)
    return False


def self_calls(fn: A.FunctionDef, floats: set[str]) -> SelfCalls | None:
    """When `fn`'s fast copy (its names in `floats` holding floats) returns a float on every
    path, given that its calls of itself with float arguments do: then they do, by induction
    on the depth of the recursion, as long as the name calls a function of this very
    definition (which the compiled code checks where it relies on this). None otherwise, or
    when the function never calls itself by its name, or binds that name itself."""
    params = [p.name for p in fn.params]
    if fn.name in params or fn.name in resolver.bound_names(fn.body):
        return None
    me = SelfCalls(fn.name, len(params), frozenset(i for i, p in enumerate(params) if p in floats))
    nodes = list(A.walk(fn.body))
    if not any(isinstance(n, A.Call) and me.made_by(n) for n in nodes) or not ends_in_return(fn.body):
        return None
    returns = [n for n in nodes if isinstance(n, A.Return)]
    return me if all(r.value is not None and closed(r.value, floats, me) for r in returns) else None


def ends_in_return(body: list) -> bool:
    """Whether every path through `body` ends at a `return` (so none falls off its end)."""
    last = body[-1] if body else None
    if isinstance(last, A.If):
        return last.orelse is not None and ends_in_return(last.orelse) \
            and all(ends_in_return(b) for _, b in last.branches)
    return isinstance(last, A.Return)


def _operands(nodes: list) -> set[str]:
    """Names used directly as operands of arithmetic or comparisons (a callee, an indexed
    vector or a call's argument is not one: it need not be a float for the fast copy)."""
    names = set()
    for node in A.walk(nodes):
        if isinstance(node, A.Binary) and (node.op in CLOSED_OPS or node.op in COMPARISONS):
            names.update(x.name for x in (node.left, node.right) if isinstance(x, A.Name))
        elif isinstance(node, A.Unary) and isinstance(node.operand, A.Name):
            names.add(node.operand.name)
    return names


def float_names(loop: A.Node) -> set[str]:
    """The names that hold floats all through `loop` if they do on entry (see the module note)."""
    body = loop.body
    opaque = {loop.var} if isinstance(loop, A.ForIn) else set()
    extra = [loop.cond] if isinstance(loop, A.While) else []
    given = {loop.var} if isinstance(loop, A.ForRange) else set()   # the range gives floats
    return _closed_names(body, extra, opaque, given)


def function_float_names(fn: A.FunctionDef) -> set[str]:
    """The names a function's body may treat as floats when its parameters (and the outer
    names it reads) hold floats on entry: its other names are assigned only in its body, and
    nothing else can rebind an outer name while it runs."""
    return _closed_names(fn.body, [], set(), given={p.name for p in fn.params})


def _closed_names(body: list, extra: list, opaque: set, given: set = frozenset()) -> set[str]:
    values: dict[str, list] = {}
    others = set()
    for b in resolver.bindings(body):
        node = b.node
        if isinstance(node, A.Assign) and isinstance(node.target, A.Name):
            value = node.value if node.op is None else A.Binary(node.span, node.op, node.target, node.value)
            values.setdefault(b.name, []).append(value)
        elif isinstance(node, A.ForRange):                  # a range counts in floats
            values.setdefault(b.name, []).append(A.Number(node.span, 0.0))
        elif isinstance(node, (A.ForIn, A.Import, A.Try, A.FunctionDef)):
            # an item, a module, an error record, a function: a binding no float stays through
            values.setdefault(b.name, []).append(node)
        else:                                               # `v[i] = x`, `r.f = x`: not a float
            others.add(b.name)
    opaque = opaque | (others - set(values))
    floats = (_operands(body + extra) | set(values) | set(given)) - opaque
    changed = True
    while changed:
        changed = False
        for name in list(floats):
            if any(not closed(v, floats) for v in values.get(name, ())):
                floats.discard(name)
                changed = True
    return floats


class FloatSpecialiser:
    """The Compiler's float tier (a mixin: `self` is the Compiler): binary operators, loops and
    functions compiled twice, conditions that are bools already."""

    def __init__(self):
        self.floats: set[str] = set()   # names known to hold floats (in a fast copy)
        # In a function's fast copy: its calls of itself that give floats, and the global
        # that holds the function its definition made last (self_calls); `verified`:
        # compiling code that runs only once the function's name is checked to call it.
        self.me: SelfCalls | None = None
        self.me_check = ""
        self.verified = False

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
        `function_float_names` finds, chosen on entry when the parameters and outer
        names among them hold floats (a small function that defines none inside only: the copy
        doubles its code, and a function inside would double again at each level of nesting).
        A function defined at the top level whose fast copy returns floats for certain also
        trusts its own calls of itself there (`self_calls`, `checked_self_calls`); the
        name of the global its check reads comes back with the body ("" when there is none)."""
        floats = function_float_names(node)
        if not floats or defines_function(node.body) \
                or sum(1 for _ in A.walk(node.body)) > FUNCTION_COPY_LIMIT:
            return self.block(node.body), ""
        generic = self.block(node.body)
        self.floats = floats
        self.me = self_calls(node, floats) if global_def else None
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
        local = resolver.function_locals(node) - params
        return self.float_switch(sorted(floats - local), fast, generic, bound=params), self.me_check

    def specialised(self, node: A.Node, build) -> list[py.stmt]:
        """The loop `build()` makes, twice when that pays (the module note): a copy without float
        guards on the names `float_names` finds, chosen when they all hold floats on
        entry (a name not yet assigned counts as not a float), else the generic copy."""
        if self.floats or has_loop(node.body) or defines_function(node.body):
            return build()
        floats = float_names(node)
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
                and self.certain_float(node.left) and self.certain_float(node.right):
            return self.expr(node)
        return self.truth(self.expr(node))

    def certain_float(self, node: A.Node) -> bool:
        """Whether `node` gives a float for certain in the code being compiled."""
        return closed(node, self.floats, self.me if self.verified else None)

    def checked_self_calls(self, node: A.Binary) -> py.expr | None:
        """`a op b` over the function's calls of itself, which give floats when its name still
        calls a function of this definition: `<fast> if L_f is _selfN else <guarded>`."""
        if self.me is None or self.verified or not (
                closed(node.left, self.floats, self.me) and closed(node.right, self.floats, self.me)):
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
        floats = bool(self.floats) and self.certain_float(node.left) and self.certain_float(node.right)
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
            if node.op in FLOAT_CALL:
                return helper(FLOAT_CALL[node.op][0], left, right)
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
        elif node.op in FLOAT_CALL:
            floats_fn, fallback = FLOAT_CALL[node.op]
            make = lambda a, b: helper(floats_fn, a, b)  # noqa: E731
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
