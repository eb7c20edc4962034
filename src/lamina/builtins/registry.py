"""The one builtin registry: every builtin is a decorated Python function.

    @builtin("sum", category="Core",
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
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

CATEGORIES = (
    "Core", "Math", "Tensors", "Random", "Text & types", "Statistics & ML", "Figures",
)


@dataclass(frozen=True)
class Shape:
    """One call shape (overload): its code, input, output and a description."""
    code: str
    input: str
    output: str
    description: str


@dataclass(frozen=True)
class Const:
    """A fixed, non-differentiated argument in a GradCase."""
    value: object


@dataclass(frozen=True)
class GradCase:
    """One finite-difference check: arguments as shapes of random tracked inputs.

    Each entry of `args` is a shape tuple — `()` a scalar, `(4,)` a vector,
    `(3, 2)` a matrix — for a random input that is differentiated against, or a
    `Const(value)` passed as it is. `domain` picks the random inputs:
    "real" (standard normal), "positive" (0.5 to 2), "unit" (0.1 to 0.9),
    "away_from_zero" (|x| from 0.5 to 2, random sign).
    """
    args: tuple
    kwargs: dict = field(default_factory=dict)
    domain: str = "real"


@dataclass
class BuiltinSpec:
    name: str
    fn: Callable
    category: str
    shapes: list[Shape]
    summary: str
    examples: list[str]
    notes: str
    grad: list[GradCase] | None = None   # None: not differentiable
    seed_names: tuple = ()                # arguments a program may pass by variable name

    @property
    def differentiable(self) -> bool:
        return self.grad is not None


REGISTRY: dict[str, BuiltinSpec] = {}


def builtin(name: str, *, category: str, shapes: list[Shape], summary: str,
            examples: list[str], notes: str, grad: list[GradCase] | None = None):
    """Register `fn` as the Lamina builtin `name`."""
    if category not in CATEGORIES:
        raise ValueError(f"unknown category {category!r} for builtin {name!r}")

    def register(fn: Callable) -> Callable:
        if name in REGISTRY:
            raise ValueError(f"builtin {name!r} is registered twice")
        REGISTRY[name] = BuiltinSpec(name, fn, category, list(shapes), summary,
                                     list(examples), notes, grad)
        fn.__lamina_builtin__ = name
        return fn

    return register


def load_all() -> dict[str, BuiltinSpec]:
    """Import every module that registers builtins, once, and return the registry."""
    from . import modules  # noqa: F401  (importing registers)
    return REGISTRY
