"""The one builtin registry: every builtin is a decorated Python function.

    @builtin("sum", elsewhere={"colSums": "R", "rowSums": "R"},
         pure="a value", category="Core",
             shapes=[Shape("sum(x)", "tensor", "number", "Adds every element."),
                     Shape("sum(x, axis)", "matrix, axis", "vector", "Adds along an axis.")],
             summary="Adds up the elements of a tensor.",
             examples=["print(sum([1, 2; 3, 4]))"],
             notes="How it works, in a paragraph.",
             grad=[GradCase(((3, 2),)), GradCase(((4,),))])
    def sum_(x, axis=None): ...

The function receives Lamina values (see lamina.values) positionally and by
keyword. The documentation pages, help(), and the generic gradient check are
all driven from these records; no second table of names exists anywhere.

Every builtin says what it does with a tracked argument (one made by param() or
track()), so that no gradient is ever lost silently: it is differentiable (it
declares `grad=[GradCase(...)]`), or `tracked="constant"` (no gradient flows back
through it by its nature: sizes, counts, text, decisions, output, training), or
`tracked="refuses"` (a tracked argument is a TypeError: call `refuse_tracked(name,
(x, y))` first), or `tracked="holds"` (the value it makes keeps its tracked arguments for
another builtin to differentiate: a distribution's parameters, for logpdf). tests/builtins/test_tracked_arguments.py calls every builtin with tracked
arguments and holds each to its word: a builtin that is not differentiable carries its own
`probes`, Lamina calls in which p, q and c are tracked (p = param([1.5, 2.0, 2.5, 3.0]),
q = param([0, 1; 1, 0; 1, 1; 2, 0]), c = param([1, 0, 1, 0])), or where none of its arguments
can carry a gradient the reason why (`probes="takes a path"`). tests/builtins/
test_float32_builtins.py runs the same calls with float32 tensors for p, q and c
(`float32_probes` where another argument must be float32 too: a model, an optimizer's
parameters), and refuses a float64 array in the result unless `float64_results=(reason,
paths)` names it (indices, counts, statistical tests: numbers in essence; WHOLE_NUMBERS,
FLOAT64_STATISTICS); tests/autodiff/test_gradcheck_float32.py leaves out the differentiable
builtins whose whole result is declared float64.

Every builtin takes numbers, vectors and matrices. One that takes tensors of any rank (three axes
and more: `zeros(2, 3, 4)`) says so with `any_rank=True` (and, if differentiable, carries a
GradCase of rank 3 or more), or with `any_rank="items"` when it only holds or passes on the values
it is given (append, print, map); any other is wrapped by `rank_gate`, so that a tensor of rank 3
or more among its arguments (or the items of a list of tensors) is a ShapeError naming the builtin
and the shape, never a matrix routine's silently wrong answer (tests/builtins/test_any_rank.py
holds every builtin to its word).

A builtin whose result is its whole effect says what it returns: `pure="a new model"` (fit),
`pure="a number"` (sum). It prints nothing, writes no file, changes none of its arguments, no
setting and not the tape, and calls none of the program's functions for their effects; drawing
from the random generator counts only for the random builtins (rand, shuffle, ...), whose draws
a program may make just to move the generator on, not for fit's shuffles or compile's initial
weights. A call of such a builtin as a statement whose value goes nowhere is a warning at
compile time (lang/discarded.py). "a new ..." marks a changed copy of the first argument, kept
by assigning it back (`net = net.fit(...)`).
"""
from __future__ import annotations

import functools
import importlib
import os
from typing import Callable

from ..autodiff.cases import Const, GradCase  # noqa: F401  (builtin modules declare cases with these)
from ..autodiff.tape import is_live
from ..errors import LaminaError
from ..fields import Fields, Frozen
from ..values import Record, describe, rank_gate
from .index import MODULES

TRACKED = ("differentiable", "constant", "refuses", "holds")
WHOLE_NUMBERS = "indices, counts and sizes are whole numbers, and numbers are float64"
FLOAT64_STATISTICS = "a statistical test or fit computes in float64, as SciPy and statsmodels do"

# In index order. The seed's page of tape_reset says "Statistics & ML", the first version's
# one category for everything from the tape to the figures; it is split into the categories
# below, and tape_reset's page now says "Autodiff" (docs/ARCHITECTURE.md).
CATEGORIES = (
    "Core", "Math", "Tensors", "Linear algebra", "Random", "Text & types", "Autodiff", "Neural nets",
    "Optimizers & training", "Models", "Statistics", "Data", "Figures", "Parallel",
)


class Shape(Frozen):
    """One call shape (overload): its code, input, output and a description."""

    def __init__(self, code: str, input: str, output: str, description: str):
        self.code, self.input, self.output, self.description = code, input, output, description


class BuiltinSpec(Fields):
    def __init__(self, name: str, fn: Callable, category: str, shapes: list[Shape], summary: str,
                 examples: list[str], notes: str, grad: list[GradCase] | None = None, scoped: bool = False,
                 tracked: str = "differentiable", pure: str | None = None,
                 probes: list[str] | str | None = None, float32_probes: list[str] | None = None,
                 float64_results: tuple[str, tuple[str, ...]] | None = None, any_rank: bool | str = False,
                 twice: bool = False, elsewhere: dict[str, str] | None = None):
        self.name, self.fn, self.category, self.shapes = name, fn, category, shapes
        self.summary, self.examples, self.notes = summary, examples, notes
        self.grad = grad            # None: not differentiable
        self.scoped = scoped        # takes the calling program's Scope first (see lang/scope.py)
        self.tracked = tracked      # one of TRACKED: what it does with a tracked argument
        self.pure = pure            # what it returns, when that is its whole effect (see above)
        self.probes = probes        # calls with tracked arguments, or why none exists (see above)
        self.float32_probes = float32_probes        # the probes as float32 runs them, where they differ
        self.float64_results = float64_results      # (reason, result paths) that stay float64
        self.any_rank = any_rank    # takes tensors of rank 3 and more (otherwise rank_gate refuses them)
        self.twice = twice          # differentiable twice: its gradient can be kept (grad's keep)
        self.elsewhere = dict(elsewhere or {})      # its names in other languages: {"lm": "R"}

    @property
    def differentiable(self) -> bool:
        return self.grad is not None


REGISTRY: dict[str, BuiltinSpec] = {}


def builtin(name: str, *, category: str, shapes: list[Shape], summary: str,
            examples: list[str], notes: str, grad: list[GradCase] | None = None, scoped: bool = False,
            tracked: str | None = None, pure: str | None = None, probes: list[str] | str | None = None,
            float32_probes: list[str] | None = None, float64_results: tuple[str, tuple[str, ...]] | None = None,
            any_rank: bool | str = False, twice: bool = False, elsewhere: dict[str, str] | None = None):
    """Register `fn` as the Lamina builtin `name` (behind `rank_gate` unless `any_rank`). `twice`:
    differentiable twice (its VJPs are second-order, autodiff/tape.py), checked by the
    second-order gradient check over its GradCases. `elsewhere`: what other languages call it
    ({"lm": "R"}), which the NameError of such a name and the builtin's page name (not a word
    that is also a parameter's name here, as scale and shape are: a program's own undefined
    variable would read as the other language's function)."""
    if category not in CATEGORIES:
        raise ValueError(f"unknown category {category!r} for builtin {name!r}")
    if twice and grad is None:
        raise ValueError(f"builtin {name!r}: twice=True needs grad=[GradCase(...)]")
    if (grad is None) == (tracked is None) or (tracked is not None and tracked not in TRACKED[1:]):
        raise ValueError(f"builtin {name!r} must declare either grad=[GradCase(...)] (differentiable) "
                         f"or tracked=\"constant\", \"refuses\" or \"holds\" (docs/ARCHITECTURE.md, recipe "
                         f"'A differentiable builtin', step 2)")
    if pure is not None and (not pure.startswith(("a ", "an ", "true")) or
                             any(s.output in ("no output", "does not return") for s in shapes)):
        raise ValueError(f"builtin {name!r}: pure= says what it returns (\"a number\", \"a new model\"), "
                         f"and a builtin with no output has an effect: it is not pure")
    _check_probes(name, tracked, probes, float32_probes, float64_results)

    def register(fn: Callable) -> Callable:
        if name in REGISTRY:
            raise ValueError(f"builtin {name!r} is registered twice")
        if any_rank not in (False, True, "items"):
            raise ValueError(f"builtin {name!r}: any_rank= is True, \"items\" or False")
        if not any_rank:
            fn = rank_gate(fn, name)
        REGISTRY[name] = BuiltinSpec(name, fn, category, list(shapes), summary,
                                     list(examples), notes, grad, scoped, tracked or "differentiable", pure,
                                     probes, float32_probes, float64_results, any_rank, twice, elsewhere)
        fn.__lamina_builtin__ = name
        fn.__lamina_pure__ = pure     # for the compiler, which reads the function, not the registry
        fn.__lamina_shapes__ = tuple(s.code for s in shapes)   # for messages about a bad call
        return fn

    return register


def _check_probes(name, tracked, probes, float32_probes, float64_results) -> None:
    if tracked is None and probes is not None:
        raise ValueError(f"builtin {name!r} is differentiable: its GradCases are its probes, so it takes no probes=")
    if tracked is not None and not (isinstance(probes, list) and probes and all(isinstance(p, str) for p in probes)
                                    or isinstance(probes, str) and probes):
        raise ValueError(f"builtin {name!r} is not differentiable, so it needs probes=[calls with tracked "
                         f"arguments p, q, c] or probes=\"why no argument can be tracked\" "
                         f"(docs/ARCHITECTURE.md, recipe 'A differentiable builtin', step 2)")
    if float32_probes is not None and not isinstance(probes, list):
        raise ValueError(f"builtin {name!r}: float32_probes= replaces probe calls, and it has none")
    if float64_results is not None:
        reason, paths = float64_results
        if not reason or not paths or not all(p.startswith("result") for p in paths):
            raise ValueError(f"builtin {name!r}: float64_results= is (reason, result paths such as "
                             f"(\"result.counts\",))")


def refuse_tracked(name: str, args: tuple) -> None:
    """The TypeError of a builtin that passes no gradient, when one of `args` holds a live tracked value."""
    for x in args:
        if _holds_live(x):
            raise LaminaError("TypeError", f"{name} does not take tracked values (made by param() or "
                              f"track()): it passes no gradient, so the gradient for {describe(x)} would "
                              f"be lost. Pass detach(x) to use its number as a constant.")


def _holds_live(x) -> bool:
    if isinstance(x, list):
        return any(_holds_live(v) for v in x)
    if isinstance(x, Record):
        return any(_holds_live(v) for v in x.fields.values())
    return is_live(x)


def spec_of(name: str) -> BuiltinSpec | None:
    """The builtin `name`, the module that registers it imported on first use (index.py says
    which), so that a program loads only the categories it uses; None for no builtin."""
    spec = REGISTRY.get(name)
    if spec is None and name in MODULES:
        importlib.import_module(f"{__package__}.{MODULES[name]}")
        spec = REGISTRY.get(name)
    return spec


NOT_CATEGORIES = ("__init__", "index", "registry")     # the package's modules that register no builtins


@functools.cache
def category_modules() -> tuple[str, ...]:
    """The modules of this package that register builtins: every one but NOT_CATEGORIES, so
    that a new category's file is found by being there (no list of them to keep)."""
    names = (f[:-3] for f in os.listdir(os.path.dirname(__file__)) if f.endswith(".py"))
    return tuple(sorted(n for n in names if n not in NOT_CATEGORIES))


def load_all() -> dict[str, BuiltinSpec]:
    """Import every module that registers builtins, once, and return the registry."""
    for module in category_modules():
        importlib.import_module(f"{__package__}.{module}")
    return REGISTRY


def grad_cases() -> list[tuple[str, Callable, GradCase | None]]:
    """(id, function, case) for every GradCase of the registry and of the language's operators;
    a differentiable builtin that declares none gets case None (the test then fails)."""
    from ..autodiff import ops
    out = []
    for name, spec in sorted(load_all().items()):
        if spec.grad is None:
            continue
        if not spec.grad:
            out.append((f"builtin:{name}", spec.fn, None))
        for i, case in enumerate(spec.grad):
            out.append((f"builtin:{name}#{i}", spec.fn, case))
    for name, (fn, op_cases) in sorted(ops.OPERATORS.items()):
        for i, case in enumerate(op_cases):
            out.append((f"op:{name}#{i}", fn, case))
    return out
