"""What the compiler needs to know about a loop to compile it fast.

Every arithmetic operator compiles to a guarded expression: two floats take Python's own
operator, anything else the runtime helper (`a + b if type(a) is float and type(b) is float
else _add(a, b)`). In a hot scalar loop the guards cost more than the arithmetic. A loop whose
body contains no other loop is therefore compiled twice: a copy without guards on the names
that are provably floats all through it (`float_names`), and the generic copy, chosen once on
entry by checking that those names hold floats. A name stays a float through the loop when
every assignment to it in the loop is arithmetic (+ - * ./ / and unary minus) over such names
and number literals: two floats give a float under those operators (`/` keeps its guard for a
zero divisor, where Lamina's answer is IEEE's Inf or NaN, not Python's exception).

A function's body is compiled twice the same way (`function_float_names`). In the fast copy of
a function defined at the top level, its calls of itself are floats too when every return there
is a float given that they are (`self_calls`): recursive `fib(n - 1) + fib(n - 2)` then adds
without checking either result. The compiled code relies on it only behind a check that the
name still calls a function made by that definition; otherwise it takes the guarded form.

`bound_names` lists the names a block binds: a loop at the top level runs inside a function
whose `global` declaration names them, so that its names are global lookups with CPython's
caches instead of dictionary searches through the module's names and the builtins.
"""
from __future__ import annotations

from dataclasses import dataclass

from . import ast as A

CLOSED_OPS = {"+", "-", "*", ".*", "/", "./"}        # float op float is a float
COMPARISONS = {"<", "<=", ">", ">=", "==", "!="}
LOOPS = (A.While, A.ForRange, A.ForIn)


def children(node) -> list:
    """The syntax nodes directly inside `node` (statements and expressions alike)."""
    out = []
    for value in vars(node).values():
        if isinstance(value, A.Node):
            out.append(value)
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, A.Node):
                    out.append(item)
                elif isinstance(item, tuple):        # If branches, record fields
                    out.extend(x for x in item if isinstance(x, A.Node))
                elif isinstance(item, list):          # matrix rows, If branch bodies
                    out.extend(x for x in item if isinstance(x, A.Node))
        elif isinstance(value, tuple):
            out.extend(x for x in value if isinstance(x, A.Node))
    if isinstance(node, A.If):
        out.extend(s for _, body in node.branches for s in body)
    return out


def walk(nodes: list, into_functions: bool = False):
    """Every node in `nodes` and below; functions and lambdas are entered only if asked."""
    stack = list(nodes)
    while stack:
        node = stack.pop()
        yield node
        if not into_functions and isinstance(node, (A.FunctionDef, A.Lambda)):
            continue
        stack.extend(children(node))


def has_loop(body: list) -> bool:
    return any(isinstance(n, LOOPS) for n in walk(body))


def defines_function(body: list) -> bool:
    """Whether a function is defined in `body`. A body compiled twice (a fast copy) compiles such
    a function twice, and its own copies again: 2^n times for n levels of nesting."""
    return any(isinstance(n, A.FunctionDef) for n in walk(body))


def _root(target: A.Node) -> str:
    while not isinstance(target, A.Name):
        target = target.target
    return target.name


def bound_names(body: list) -> set[str]:
    """The names that statements in `body` bind (not counting the insides of functions)."""
    return {name for name in map(binds, walk(body)) if name is not None}


def binds(node: A.Node) -> str | None:
    """The name that this statement itself binds, if any."""
    if isinstance(node, A.Assign):
        return _root(node.target)
    if isinstance(node, (A.ForRange, A.ForIn)):
        return node.var
    if isinstance(node, A.Import):
        return node.alias
    if isinstance(node, A.Try):
        return node.var
    if isinstance(node, A.FunctionDef):
        return node.name
    return None


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
    if fn.name in params or fn.name in bound_names(fn.body):
        return None
    me = SelfCalls(fn.name, len(params), frozenset(i for i, p in enumerate(params) if p in floats))
    nodes = list(walk(fn.body))
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
    for node in walk(nodes):
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
    for node in walk(body):
        if isinstance(node, A.Assign) and isinstance(node.target, A.Name):
            value = node.value if node.op is None else A.Binary(node.span, node.op, node.target, node.value)
            values.setdefault(node.target.name, []).append(value)
        elif isinstance(node, A.ForRange):                  # a range counts in floats
            values.setdefault(node.var, []).append(A.Number(node.span, 0.0))
        elif isinstance(node, (A.ForIn, A.Import, A.Try, A.FunctionDef)):
            # an item, a module, an error record, a function: a binding no float stays through
            name = node.alias if isinstance(node, A.Import) else \
                node.name if isinstance(node, A.FunctionDef) else node.var
            if name is not None:
                values.setdefault(name, []).append(node)
    opaque = opaque | (bound_names(body) - set(values))
    floats = (_operands(body + extra) | set(values) | set(given)) - opaque
    changed = True
    while changed:
        changed = False
        for name in list(floats):
            if any(not closed(v, floats) for v in values.get(name, ())):
                floats.discard(name)
                changed = True
    return floats
