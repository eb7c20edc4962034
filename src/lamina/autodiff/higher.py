"""Derivatives of a function rather than of a value: `jacobian`, `hessian`, `hvp`, shaped as
torch.autograd.functional gives them, and the flat view an optimiser works in (`Point`).

The point `x` is a number, a tensor, or a record or list of them (any depth). Each member is
made a fresh leaf, `f` runs once on the leaves, and:
- jacobian: one reverse sweep per element of f's result, each seeded with that element's
  one-hot (`backward`'s seed): the result has shape result + member for each member.
- hessian: f must return a number; its gradient is taken with keep (recorded), and then one
  sweep per element of that gradient. H[i][j] has shape member_i + member_j.
- hvp: the gradient with keep, its inner product with v on the tape, and one more sweep.

A member f's result does not depend on gets zeros. Every sweep but the kept one is an ordinary
first-order sweep over the tape the kept one recorded, so a Hessian costs one forward pass,
one kept sweep and n ordinary sweeps for n parameters.
"""
from __future__ import annotations

import numpy as np

from ..errors import LaminaError
from ..values import Record, Tracked, describe
from . import handed, ops
from .broadcast import unbroadcast
from .grad import backward, backward_keeping
from .tape import TAPE


class Point:
    """A point's members in order: their paths, values and shapes, and the same point rebuilt
    from tracked leaves or from a flat vector (an optimiser's view)."""

    def __init__(self, x, what: str):
        self.like = x
        self.paths, self.values, self.members = [], [], []       # members: as given, tracked or not
        _members(x, what, self.paths, self.values, self.members)
        self.shapes = [np.shape(v) for v in self.values]
        self.dtypes = [v.dtype if type(v) is np.ndarray else np.dtype(np.float64) for v in self.values]
        self.sizes = [int(np.prod(s)) for s in self.shapes]

    @property
    def size(self) -> int:
        return sum(self.sizes)

    def flat(self) -> np.ndarray:
        return np.concatenate([np.ravel(v).astype(np.float64) for v in self.values]) if self.values \
            else np.zeros(0)

    def split(self, theta: np.ndarray) -> list:
        """The members' values from a flat vector (numbers as floats)."""
        out, at = [], 0
        for shape, n in zip(self.shapes, self.sizes):
            part = theta[at:at + n]
            out.append(float(part[0]) if shape == () else part.reshape(shape).copy())
            at += n
        return out

    def rebuild(self, members: list):
        """The point's structure with `members` in place of its values."""
        return _rebuild(self.like, iter(members))

    def leaves(self, members: list | None = None) -> list:
        return [TAPE.leaf(v, True) for v in (self.values if members is None else members)]


def _members(x, path: str, paths: list, values: list, members: list) -> None:
    if isinstance(x, list):
        for i, item in enumerate(x):
            _members(item, f"{path}[{i}]", paths, values, members)
    elif isinstance(x, Record):
        for name, item in x.fields.items():
            _members(item, f"{path}.{name}", paths, values, members)
    else:
        v = x.value if type(x) is Tracked else x
        if type(v) is not float and not (type(v) is np.ndarray and v.dtype.kind == "f"):
            raise LaminaError("TypeError", f"{path} must be a number or a tensor of numbers (or a record "
                              f"or list of them), not {describe(v)}.")
        values.append(v)
        paths.append(path)
        members.append(x)


def _rebuild(like, members):
    if isinstance(like, list):
        return [_rebuild(item, members) for item in like]
    if isinstance(like, Record):
        return Record({name: _rebuild(item, members) for name, item in like.fields.items()})
    return next(members)


def _result(out, what: str):
    if isinstance(out, bool) or not (type(out) in (float, Tracked) or type(out) is np.ndarray):
        raise LaminaError("TypeError", f"{what} must return a number or a tensor, not {describe(out)}.")
    return out


def _number(out, what: str):
    out = _result(out, what)
    if type(out.value if type(out) is Tracked else out) is not float:
        raise LaminaError("ShapeError", f"{what} must return a number (a scalar loss), but it returned "
                          f"{describe(out)}; reduce it with sum() or mean() first, or use jacobian "
                          f"for a function with several outputs.")
    return out


def sweep(out, leaves: list, seed, reached: list | None = None) -> list:
    """The gradients of `out` (seeded with `seed`) for each leaf, zeros where it does not reach
    (the node ids of the leaves the sweep reached are appended to `reached` when given)."""
    if type(out) is not Tracked or out.gen != TAPE.gen:
        return [np.zeros(x.value.shape, x.value.dtype) if type(x.value) is not float else 0.0 for x in leaves]
    wanted = {x.node for x in leaves}
    handed.refuse_second_order(out, wanted)          # f used a gradient of its own point
    found, _, _ = backward(out, wanted, reached, seed)
    return [_plain(found.get(x.node, (None,))[0], x.value) for x in leaves]


def _plain(g, value):
    if g is None:
        return 0.0 if type(value) is float else np.zeros(value.shape)
    if type(value) is float:
        return float(g)
    return np.asarray(g, dtype=value.dtype).reshape(value.shape)


def _one_hots(shape: tuple):
    """Each element's one-hot seed of a value of `shape` (1.0 for a number)."""
    if shape == ():
        yield 1.0
        return
    for k in range(int(np.prod(shape))):
        e = np.zeros(int(np.prod(shape)))
        e[k] = 1.0
        yield e.reshape(shape)


def jacobian(f, x, what: str = "jacobian's function", depends: set | None = None):
    """d f(x) / dx: for each member, an array of shape f(x)'s shape + the member's shape.
    `depends`, when given, receives the live nodes the result depends on (`depends_of`)."""
    point = Point(x, "jacobian's x")
    reached, start = None if depends is None else [], TAPE.next_node
    with fresh_tape_count():
        leaves = point.leaves()
        out = _result(f(point.rebuild(leaves)), what)
        oshape = np.shape(out.value if type(out) is Tracked else out)
        rows = [sweep(out, leaves, e, reached) for e in _one_hots(oshape)]
    _depends_of((point,), reached, start, depends)
    parts = []
    for j, shape in enumerate(point.shapes):
        stacked = np.array([np.ravel(r[j]) for r in rows]).reshape(oshape + shape) if rows else np.zeros(oshape + shape)
        parts.append(float(stacked) if stacked.shape == () else stacked.astype(point.dtypes[j]))
    return point.rebuild(parts)


def gradient_kept(f, point: Point, what: str, reached: list | None = None):
    """(leaves, f's value, the gradient for each leaf recorded on the tape) at `point` (the node
    ids of the leaves f's value depends on appended to `reached` when given)."""
    leaves = point.leaves()
    out = _number(f(point.rebuild(leaves)), what)
    if type(out) is not Tracked:
        return leaves, out, [None] * len(leaves)
    wanted = {x.node for x in leaves}
    handed.refuse_second_order(out, wanted)
    found = backward_keeping(out, wanted, reached)
    return leaves, out, [found.get(x.node, (None,))[0] for x in leaves]


def hessian(f, x, what: str = "hessian's function", depends: set | None = None):
    """The second derivatives of a scalar f at x: a number for a number, an S + S array for one
    tensor of shape S, and for a record or list H[i][j] of shape S_i + S_j (a record of records).
    `depends`, when given, receives the live nodes the result depends on (`depends_of`)."""
    point = Point(x, "hessian's x")
    reached, start = None if depends is None else [], TAPE.next_node
    with fresh_tape_count():
        matrix = _hessian_blocks(f, point, what, reached)
    _depends_of((point,), reached, start, depends)
    blocks = [[_block(matrix, point, i, j) for j in range(len(point.values))] for i in range(len(point.values))]
    if not isinstance(x, (list, Record)):
        return blocks[0][0]
    return point.rebuild([point.rebuild(row) for row in blocks])


def flat_hessian(f, point: Point, what: str) -> np.ndarray:
    """The n x n Hessian of f over the point's members flattened in order (for an optimiser)."""
    with fresh_tape_count():
        return _hessian_blocks(f, point, what)


def _hessian_blocks(f, point: Point, what: str, reached: list | None = None) -> np.ndarray:
    leaves, _, grads = gradient_kept(f, point, what, reached)
    rows = []
    for g, value in zip(grads, point.values):
        for e in _one_hots(np.shape(value)):
            rows.append(np.concatenate([np.ravel(r) for r in sweep(g, leaves, e)]) if leaves else np.zeros(0))
    return np.array(rows).reshape(point.size, point.size)


def _block(matrix: np.ndarray, point: Point, i: int, j: int):
    start = np.cumsum([0] + point.sizes)
    block = matrix[start[i]:start[i + 1], start[j]:start[j + 1]].reshape(point.shapes[i] + point.shapes[j])
    dtype = np.result_type(point.dtypes[i], point.dtypes[j])
    return float(block) if block.shape == () else block.astype(dtype)


def hvp(f, x, v, what: str = "hvp's function", depends: set | None = None):
    """The Hessian of scalar f at x times v (v shaped as x), shaped as x. `depends`, when given,
    receives the live nodes the result depends on (`depends_of`)."""
    point = Point(x, "hvp's x")
    direction = Point(v, "hvp's v")
    if direction.shapes != point.shapes:
        raise LaminaError("ShapeError", f"hvp's v must have x's shape (member by member): x has "
                          f"{_shapes(point)}, v has {_shapes(direction)}.")
    reached, start = None if depends is None else [], TAPE.next_node
    with fresh_tape_count():
        leaves, _, grads = gradient_kept(f, point, what, reached)
        inner = 0.0
        for g, d in zip(grads, direction.values):
            if g is not None:
                inner = ops.add(inner, unbroadcast(ops.emul(g, d), ()))
        parts = sweep(inner, leaves, 1.0)
    _depends_of((point, direction), reached, start, depends)
    return point.rebuild(parts)


def _depends_of(points: tuple[Point, ...], reached: list | None, start: int, depends: set | None) -> None:
    """Into `depends`: the live values a derivative at `points` depends on. That is every live
    value in the points and everything it was computed from (a derivative at p = param(...) is a
    function of p), and the leaves recorded before `start` that the sweeps reached (values f reads
    from outside, not the fresh leaves it was taken at). A later grad against one of them must not
    take the result as a constant (autodiff/handed.py)."""
    if depends is None:
        return
    depends.update(n for n in reached if n < start)
    for point in points:
        for x in point.members:
            if type(x) is Tracked and x.gen == TAPE.gen:
                depends.update(handed.reachable(x.node, x.entry))


def _shapes(point: Point) -> str:
    return ", ".join(str(list(s)) for s in point.shapes)


class fresh_tape_count:
    """The block's tape entries are of no use afterwards: nothing tracked leaves it, so the
    tape's count goes back to where it was (its node ids keep counting)."""

    def __enter__(self):
        self.count = TAPE.count

    def __exit__(self, *exc):
        TAPE.first_node, TAPE.count = TAPE.next_node, self.count
