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

`bound_names` lists the names a block binds: a loop at the top level runs inside a function
whose `global` declaration names them, so that its names are global lookups with CPython's
caches instead of dictionary searches through the module's names and the builtins.
"""
from __future__ import annotations

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


def closed(expr: A.Node, floats: set[str]) -> bool:
    """Whether `expr` is a float whenever the names in `floats` hold floats."""
    if isinstance(expr, A.Number):
        return True
    if isinstance(expr, A.Name):
        return expr.name in floats
    if isinstance(expr, A.Unary):
        return expr.op in ("-", "+") and closed(expr.operand, floats)
    if isinstance(expr, A.Binary):
        return expr.op in CLOSED_OPS and closed(expr.left, floats) and closed(expr.right, floats)
    return False


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
