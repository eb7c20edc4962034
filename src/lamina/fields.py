"""Plain record classes, for the classes every start imports.

`@dataclass` writes a class's methods as source text and compiles it as the class is made:
about half a millisecond a class, which was a third of Lamina's own start-up when the syntax
tree, the errors' spans, the tokens and the registry's records were dataclasses (bench/NOTES.md,
"Start-up"). A class every start imports derives from Fields instead and writes its own
__init__; Fields gives it what the dataclass did: `_fields` (the __init__'s parameters, in
order), equality over them between two objects of one class (a name in `_uncompared` aside), a
repr that shows them, and no hash. Frozen adds a hash over the compared fields and refuses to
change a field once set.
"""
from __future__ import annotations


class Fields:
    __slots__ = ()
    _fields: tuple[str, ...] = ()
    _compared: tuple[str, ...] = ()
    _uncompared: tuple[str, ...] = ()

    def __init_subclass__(cls) -> None:
        super().__init_subclass__()
        code = getattr(cls.__init__, "__code__", None)    # None: object's own __init__
        if code is not None:
            cls._fields = code.co_varnames[1:code.co_argcount]
        cls._compared = tuple(f for f in cls._fields if f not in cls._uncompared)

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return (tuple(getattr(self, f) for f in self._compared)
                == tuple(getattr(other, f) for f in other._compared))

    def __repr__(self) -> str:
        shown = ", ".join(f"{f}={getattr(self, f)!r}" for f in self._fields)
        return f"{type(self).__qualname__}({shown})"


class Frozen(Fields):
    __slots__ = ()

    def __setattr__(self, name: str, value) -> None:
        if hasattr(self, name):
            raise AttributeError(f"cannot assign to field {name!r} of a {type(self).__name__}")
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r} of a {type(self).__name__}")

    def __hash__(self) -> int:
        return hash(tuple(getattr(self, f) for f in self._compared))
